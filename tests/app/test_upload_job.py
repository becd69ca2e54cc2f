"""The upload job (app/lib/upload_job.py) and the label form's arguments (app/lib/label_form.py).

GIVEN a new warehouse folder and one real fio 3.33 JSON made here with Debian's fio
WHEN the job loads it with labels, builds and publishes (the command line's steps)
THEN the served version holds its result: the IOPS fio printed, with the labels given, and
  the result's source file is the upload folder's copy. The small helpers (names from the
  browser, folders, arguments) are checked on literal values.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import duckdb
import pytest

from app.lib import label_form, upload_job
from app.lib.label_form import LabelField
from tests.app.fio_runs import make_fio_json

NOW = dt.datetime(2026, 11, 27, 15, 4, 5, tzinfo=dt.UTC)


def test_names_from_the_browser_stay_in_the_upload_folder(tmp_path: Path) -> None:
    assert upload_job.safe_name("../../etc/passwd") == "passwd"
    assert upload_job.safe_name("C:\\runs\\my run (2).json") == "my_run_2_.json"
    assert upload_job.safe_name("..") == "upload"
    saved = upload_job.save_files(tmp_path, [("a/run.json", b"1"), ("b/run.json", b"2")])
    assert [p.name for p in saved] == ["run.json", "1-run.json"]
    assert [p.read_bytes() for p in saved] == [b"1", b"2"]


def test_two_uploads_in_one_second_get_two_folders(tmp_path: Path) -> None:
    first = upload_job.upload_folder(tmp_path, "runs.zip", NOW)
    second = upload_job.upload_folder(tmp_path, "runs.zip", NOW)
    assert first.name == "20261127T150405Z-runs.zip"
    assert second.name == "20261127T150405Z-runs.zip-1"
    assert first.is_dir() and second.is_dir()


def test_filled_fields_become_label_arguments() -> None:
    fields = (
        LabelField("nodes", "int", 1, 64, (), "hosts", "hosts"),
        LabelField("profile_order", "text_list", None, None, (), "", "order"),
        LabelField("architecture", "choice", None, None, ("OSA", "ESA"), "", "arch"),
        LabelField("testbed", "text", None, None, (), "", "cluster"),
    )
    values = {"nodes": 4.0, "profile_order": "baseline, density", "architecture": ""}
    args = label_form.label_args(fields, values, "site=lab-2\n\n ftt=1 ")
    assert args == ["nodes=4", "profile_order=[baseline, density]", "site=lab-2", "ftt=1"]


def test_a_build_step_counts_its_own_progress() -> None:
    lines = [
        "15:54:11  Found 111 models, 5 seeds",
        "15:54:33  38 of 544 PASS not_null_stg_esxtop__counters_source_file_id ... [PASS in 0.03s]",
        "15:54:38  136 of 544 START sql view model intermediate.int_result_outputs ... [RUN]",
    ]
    assert upload_job.step_fraction(lines) == 136 / 544
    assert upload_job.step_fraction(lines[:1]) == 0.0
    assert upload_job.step_fraction(["Summary: 1 loaded, 0 already loaded"]) == 0.0


def test_uploads_off_and_the_uploads_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PERF_UPLOAD_DIR", raising=False)
    monkeypatch.delenv("PERF_WAREHOUSE", raising=False)
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(tmp_path / "w" / "warehouse.duckdb"))
    assert upload_job.uploads_root() == tmp_path / "w" / "uploads"
    monkeypatch.setenv("PERF_UPLOAD_DIR", str(tmp_path / "elsewhere"))
    assert upload_job.uploads_root() == tmp_path / "elsewhere"
    monkeypatch.setenv("PERF_UPLOADS", "off")
    assert not upload_job.uploads_enabled()
    monkeypatch.setenv("PERF_UPLOADS", "on")
    assert upload_job.uploads_enabled()


def test_one_fio_file_is_loaded_built_and_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = tmp_path / "warehouse" / "warehouse.duckdb"
    monkeypatch.delenv("PERF_WAREHOUSE", raising=False)
    monkeypatch.delenv("PERF_UPLOAD_DIR", raising=False)
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(main))
    monkeypatch.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
    # dbt's target and logs of this build stay here: another build may use dbt_project/target
    monkeypatch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
    monkeypatch.setenv("DBT_LOG_PATH", str(tmp_path / "logs"))
    fio_json = make_fio_json(tmp_path, "upload-check")
    expected_iops = json.loads(fio_json.read_text())["jobs"][0]["read"]["iops"]

    root = upload_job.uploads_root()
    assert root == main.parent / "uploads"
    folder = upload_job.upload_folder(root, fio_json.name, NOW)
    upload_job.save_files(folder, [(fio_json.name, fio_json.read_bytes())])
    job = upload_job.start(folder, ["testbed=upload-lab", "profile=baseline"])
    assert job.finished.wait(900), f"not done: {job.step} {job.live[-3:]}"

    assert [(s.name, s.exit_code) for s in job.done] == [("load", 0), ("build", 0), ("publish", 0)]
    assert job.state is upload_job.State.SERVED, job.done[-1].output
    assert "Summary: 1 loaded, 0 already loaded (unchanged), 0 skipped, 0 rejected" in (
        job.output("load") or ""
    )
    served = main.with_name("warehouse.serving.duckdb")
    with duckdb.connect(str(served), read_only=True) as con:
        rows = con.execute(
            "select r.testbed, r.profile, r.iops, s.path from marts.fct_workload_results r"
            " join raw.source_files s on s.source_file_id = r.label_source_file_id"
        ).fetchall()
    assert len(rows) == 1
    testbed, profile, iops, path = rows[0]
    assert (testbed, profile) == ("upload-lab", "baseline")
    assert iops == pytest.approx(expected_iops, rel=1e-9)
    assert path == str(folder / fio_json.name)
    # the job's record beside its folder tells the same, for the page's list of uploads
    (record,) = upload_job.recorded_uploads(root)
    assert record.folder == folder and record.state is upload_job.State.SERVED
    assert [(s.name, s.exit_code) for s in record.done] == [(s.name, 0) for s in job.done]
    assert record.done[0].output == job.output("load")


def test_an_upload_whose_server_stopped_shows_as_interrupted_with_how_to_finish_it(
    tmp_path: Path,
) -> None:
    folder = upload_job.upload_folder(tmp_path, "run.json", NOW)
    upload_job.save_files(folder, [("run.json", b"{}")])
    # what a server wrote before it stopped during the build: the load done, the build running
    job = upload_job.UploadJob(999, folder, ("testbed=lab 2",), upload_job.State.RUNNING)
    job.done.append(upload_job.StepResult("load", 0, "Summary: 1 loaded, 0 already loaded"))
    job.step = "build"
    upload_job.save_record(job)
    assert not (folder / f"{folder.name}{upload_job.RECORD_SUFFIX}").exists()  # not walked

    (record,) = upload_job.recorded_uploads(tmp_path)
    assert record.state is upload_job.State.INTERRUPTED and record.step == "build"
    assert record.done[0].output == "Summary: 1 loaded, 0 already loaded"
    load, build, publish = record.finish_commands()
    assert load == ["python", "-m", "ingest", "load", str(folder), "--label", "testbed=lab 2"]
    assert (build[3], publish[3]) == ("build", "publish")

    # while a thread of this server still runs a job of that folder, it is not interrupted
    upload_job._JOBS[job.id] = job
    try:
        assert upload_job.recorded_uploads(tmp_path)[0].state is upload_job.State.RUNNING
    finally:
        del upload_job._JOBS[job.id]
