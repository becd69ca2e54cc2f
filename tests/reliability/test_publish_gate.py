"""Publish only what passed: `ingest load` and `ingest build` never publish; `ingest publish`
validates (in-process, under the writer lock) and publishes only when every constraint holds;
the dashboard says when the main file holds a version it does not show, and why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.lib import ui
from tests.conftest import REPO
from tests.reliability._gate import failed_gate_warehouse, fio_json, read_iops
from tests.reliability.conftest import copy_corpus, ingest_env, query, run_ingest
from tests.reliability.test_concurrency import DBT_SELECT
from warehouse import file

APP = REPO / "app" / "streamlit_app.py"


def test_failed_validation_keeps_the_last_good_snapshot(tmp_path: Path) -> None:
    # GIVEN a published version, then a newer one with negative read IOPS
    gate = failed_gate_warehouse(tmp_path)
    db, snapshot = gate.db, file.serving_path(gate.db)
    # THEN `ingest publish` refuses it: exit 1, the failures' summary, the old snapshot kept
    assert gate.publish.returncode == 1, gate.publish.stdout + gate.publish.stderr
    report = file.read_validation_report(db)
    assert report is not None and report.constraint_failures >= 1
    assert f"not published: {report.constraint_failures} constraint failures" in " ".join(
        gate.publish.stdout.split()
    )
    assert read_iops(snapshot) == [gate.fio_read_iops]  # 11,764.7-ish: what fio printed
    assert read_iops(db) == [-gate.fio_read_iops]
    # AND the side file holds the failing run, naming the table and the expectation
    failed = [o for o in report.outcomes if o["success"] is False]
    iops = [
        o
        for o in failed
        if o["table_name"] == "raw.fio_job_directions" and "iops" in o["expectation"]
    ]
    assert iops and iops[0]["severity"] == "constraint" and iops[0]["unexpected_count"] == 1
    # AND the dashboard's status says a newer version failed and where to look
    status = file.status(db)
    assert status.failed_newer_version and not status.changed_since_validation
    notice = ui.serving_notice(status, has_marts=False)
    assert notice is not None and notice.level == "error" and not notice.blocks_data
    assert f"{report.constraint_failures} constraint failures" in notice.text
    assert "still shows the last version that passed" in notice.text
    assert "python -m expectations --failures-only" in notice.text


def test_load_never_publishes_and_the_dashboard_says_so(tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    first = fio_json(tmp_path / "a")
    assert run_ingest(db, "load", str(first), "--quiet").returncode == 0
    # Nothing is published before the gate ran: the dashboard has nothing validated to show
    assert not file.serving_path(db).exists()
    status = file.status(db)
    assert status.unpublished and status.pending
    notice = ui.serving_notice(status, has_marts=True)
    assert notice is not None and notice.blocks_data and "`python -m ingest publish`" in notice.text
    assert run_ingest(db, "publish").returncode == 0
    served = file.serving_path(db).read_bytes()
    assert ui.serving_notice(file.status(db), has_marts=True) is None
    # WHEN another file is loaded THEN the snapshot is untouched and the status says why
    second = fio_json(tmp_path / "b", "second.json")
    assert run_ingest(db, "load", str(second), "--quiet").returncode == 0
    assert file.serving_path(db).read_bytes() == served
    assert len(query(db, "select * from raw.source_files")) == 2
    assert len(query(file.serving_path(db), "select * from raw.source_files")) == 1
    notice = ui.serving_notice(file.status(db), has_marts=True)
    assert notice is not None and not notice.blocks_data
    assert "Run `python -m ingest publish`" in notice.text


def _dashboard(db: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(db))
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.slow
def test_plain_dbt_build_is_shown_after_the_one_command_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN raw data, validated and published before any marts existed
    db = tmp_path / "w.duckdb"
    corpus = copy_corpus(tmp_path / "corpus", "fio")
    assert run_ingest(db, "load", str(corpus), "--quiet").returncode == 0
    assert run_ingest(db, "publish").returncode == 0
    # WHEN a user runs `dbt build` directly (no lock, no marker: what any dbt user types)
    dbt = [
        str(Path(sys.executable).with_name("dbt")), "build", *DBT_SELECT,
        "--project-dir", "dbt_project", "--profiles-dir", "dbt_project",
        "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
    ]  # fmt: skip
    done = subprocess.run(dbt, cwd=REPO, env=ingest_env(db), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:]
    built = query(db, "select count(*) from marts.fct_workload_results")[0][0]
    assert built > 0
    # THEN the dashboard says why it does not show them and the one command that fixes it
    at = _dashboard(db, monkeypatch)
    warnings = [w.value for w in at.warning]
    assert any("Run `python -m ingest publish`" in w for w in warnings), warnings
    assert not any("no `marts` tables" in w for w in warnings), warnings
    # AND that command fixes it: validated, published, the marts on the dashboard
    published = run_ingest(db, "publish")
    assert published.returncode == 0, published.stdout + published.stderr
    served = query(file.serving_path(db), "select count(*) from marts.fct_workload_results")
    assert served[0][0] == built
    at = _dashboard(db, monkeypatch)
    assert not at.warning and not at.error, [w.value for w in [*at.warning, *at.error]]
