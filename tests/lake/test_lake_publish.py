"""The publish gate in team mode: `python -m ingest publish` validates one lake snapshot and
records the publication of its results' snapshot; the dashboard's connection
(`ducklake.connect_published`) serves that snapshot, whatever is committed after it, until the
next publish; a failing validation publishes nothing.

Real processes on a real PostgreSQL catalog, with fio JSON outputs written by Debian's fio.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.lake.test_lake_build import lake_env, run, start
from tests.reliability._gate import READ_IOPS
from warehouse import LakeWarehouse, ducklake

# The models the fio results need, and the data-quality view: half the project, enough for
# the suites on raw.fio_* and marts.fct_workload_results (the others report "table missing").
BUILD_FIO = (
    "--select",
    "+fct_workload_results",
    "+data_quality_results",
    "--exclude",
    "resource_type:test",
    "resource_type:unit_test",
)


def fio_output(folder: Path, name: str) -> Path:
    """A real, finished fio 3.33 JSON output: 1,024 random 4k reads of a 4 MiB file (the gate
    tests' `--number_ios` output is an unfinished run, which has no result in the marts)."""
    folder.mkdir(parents=True, exist_ok=True)
    out, data = folder / name, folder / "data.bin"
    subprocess.run(
        ["fio", "--name=job0", f"--filename={data}", "--size=4m", "--rw=randread", "--bs=4k",
         "--ioengine=psync", "--output-format=json", f"--output={out}"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    data.unlink()
    return out


def _publications(tgt: LakeWarehouse) -> list[tuple[int, int]]:
    con = ducklake.connect(tgt, read_only=True)
    try:
        return con.execute(
            "select snapshot_id, validated_snapshot_id from serving.publications order by 1"
        ).fetchall()
    finally:
        con.close()


def _served(tgt: LakeWarehouse, sql: str) -> list[tuple]:
    con = ducklake.connect_published(tgt)
    assert con is not None, "nothing published"
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.fixture
def published(lake_target: LakeWarehouse, tmp_path: Path) -> tuple[LakeWarehouse, dict, float]:
    """A lake with one real fio output loaded, built and published: (target, env, its IOPS)."""
    out = fio_output(tmp_path / "fio1", "first.json")
    env = lake_env(lake_target, tmp_path / "work")
    run(env, "load", str(out), "--quiet")
    run(env, "build", *BUILD_FIO)
    assert ducklake.connect_published(lake_target) is None  # a build never publishes
    text = run(env, "publish")
    assert "published snapshot" in text
    return lake_target, env, json.loads(out.read_text())["jobs"][0]["read"]["iops"]


def test_publish_serves_the_validated_snapshot_until_the_next_publish(published, tmp_path):
    tgt, env, iops = published
    # THEN one publication: the results' snapshot, the one right after the validated one
    ((served, validated),) = _publications(tgt)
    assert served == validated + 1
    assert _served(tgt, "select count(*) from marts.fct_workload_results") == [(1,)]
    assert _served(tgt, READ_IOPS) == [(pytest.approx(iops),)]
    # and the served version holds the run that let it through, all passed
    runs = _served(tgt, "select count(*), count(*) filter (success = false) "
                        "from marts.data_quality_results")  # fmt: skip
    assert runs[0][0] > 50 and runs[0][1] == 0
    status = tgt.status_now()
    assert status.snapshot == f"snapshot {served}"
    assert not status.unpublished and not status.failed_newer_version
    assert status.validation is not None and status.validation.constraint_failures == 0

    # WHEN a second output is loaded after the publish
    run(env, "load", str(fio_output(tmp_path / "fio2", "second.json")), "--quiet")
    # THEN the lake has it, the served snapshot does not, and the status says so
    latest = ducklake.connect(tgt, read_only=True)
    assert latest.execute("select count(*) from raw.source_files").fetchone() == (2,)
    latest.close()
    assert _served(tgt, "select count(*) from raw.source_files") == [(1,)]
    status = tgt.status_now()
    assert status.pending and status.unpublished and status.changed_since_validation

    # WHEN the lake is built again (dbt replaces every view and table it built before: with
    # two dbt threads DuckLake 1.5.5 mis-filed renamed views here) and published
    run(env, "build", *BUILD_FIO)
    run(env, "publish")
    # THEN the dashboard's connection serves it
    assert len(_publications(tgt)) == 2
    assert _served(tgt, "select count(*) from raw.source_files") == [(2,)]
    assert _served(tgt, "select count(*) from marts.fct_workload_results") == [(2,)]
    assert not tgt.status_now().unpublished


def test_a_failing_validation_publishes_nothing_and_the_served_snapshot_stays(published):
    tgt, env, iops = published
    before = _publications(tgt)
    # GIVEN a version whose read IOPS are negative (written the way a faulty model or an
    # analyst's session would: the loader rejects such a file)
    con = ducklake.connect(tgt)
    con.execute("update raw.fio_job_directions set iops = -iops where direction = 'read'")
    con.close()
    # WHEN it is published
    proc = start(env, "publish")
    out, _ = proc.communicate(timeout=240)
    # THEN the gate refuses, names what it keeps serving, and records no publication
    assert proc.returncode == 1, out
    refusal = re.search(
        r"not published: (\d+) constraint failures; the dashboard keeps serving snapshot (\d+)",
        " ".join(out.split()),
    )
    assert refusal is not None, out
    assert int(refusal[2]) == before[0][0]
    assert _publications(tgt) == before
    assert _served(tgt, READ_IOPS) == [(pytest.approx(iops),)]
    # and the dashboard can say a newer version failed: the failing run is in the lake
    status = tgt.status_now()
    assert status.failed_newer_version and status.unpublished
    assert status.validation is not None
    assert status.validation.constraint_failures == int(refusal[1]) >= 1
    failed = {o["table_name"] for o in status.validation.outcomes if o["success"] is False}
    assert failed == {"raw.fio_job_directions"}
