"""The Add results page's job in team mode (app/lib/upload_job.py on a DuckLake).

GIVEN a new lake on a throw-away PostgreSQL, the dashboard's settings pointing at it
WHEN a real fio 3.33 JSON (made here with Debian's fio) is uploaded: kept in the lake's data
  folder, loaded, built and published by the job
THEN the published snapshot serves its IOPS and names the upload folder's copy as its source;
  and WHEN a later upload's version fails validation, the job says it was not published and the
  dashboard keeps serving the first version.
The build is the fio half of the project (tests/lake/test_lake_publish.py's BUILD_FIO), given
through the job's one build function: a full lake build takes minutes more and adds nothing here.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from app.lib import upload_job
from tests.lake.test_lake_publish import BUILD_FIO, _served, fio_output
from tests.reliability._gate import READ_IOPS
from warehouse import LakeWarehouse, ducklake


def upload(path: Path, labels: list[str]) -> upload_job.UploadJob:
    root = upload_job.uploads_root()
    assert root is not None
    folder = upload_job.upload_folder(root, path.name, dt.datetime.now(dt.UTC))
    upload_job.save_files(folder, [(path.name, path.read_bytes())])
    job = upload_job.start(folder, labels)
    assert job.finished.wait(900), f"not done: {job.step} {job.live[-3:]}"
    return job


def test_an_upload_is_served_from_the_lake_and_a_failed_validation_keeps_it(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_WAREHOUSE", lake_target.uri)
    monkeypatch.setenv("PERF_LAKE_DATA_PATH", lake_target.data_path)
    monkeypatch.delenv("PERF_UPLOAD_DIR", raising=False)
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "dbt-target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "dbt-logs"))
    monkeypatch.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    ingest = [sys.executable, "-m", "ingest"]
    steps = [("build", [*ingest, "build", *BUILD_FIO]), ("publish", [*ingest, "publish"])]
    monkeypatch.setattr(upload_job, "build_and_publish_steps", lambda: steps)
    first = fio_output(tmp_path / "fio1", "first.json")

    job = upload(first, ["testbed=team-lab"])

    assert upload_job.uploads_root() == Path(lake_target.data_path) / "uploads"
    assert job.state is upload_job.State.SERVED, [s.output[-2000:] for s in job.done]
    assert _served(lake_target, READ_IOPS) == [
        (pytest.approx(json.loads(first.read_text())["jobs"][0]["read"]["iops"]),)
    ]
    assert _served(lake_target, "select path from raw.source_files") == [
        (str(job.folder / first.name),)
    ]

    # GIVEN a version whose read IOPS are negative (as test_lake_publish writes one)
    con = ducklake.connect(lake_target)
    con.execute("update raw.fio_job_directions set iops = -iops where direction = 'read'")
    con.close()
    # WHEN a second output is uploaded
    second = upload(fio_output(tmp_path / "fio2", "second.json"), ["testbed=team-lab"])
    # THEN it loaded and built, the gate refused it, and the first version is still served
    assert [(s.name, s.exit_code) for s in second.done] == [
        ("load", 0),
        ("build", 0),
        ("publish", 1),
    ]
    assert second.state is upload_job.State.NOT_PUBLISHED
    assert "not published" in (second.output("publish") or "")
    assert _served(lake_target, "select count(*) from raw.source_files") == [(1,)]
