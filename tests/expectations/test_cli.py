"""`python -m expectations` end to end (`expectations.cli.main`): exit codes, report, storage.

Good data exits 0, one bad table exits 1, usage errors exit 2, a warehouse that cannot store
the results (no results table, or locked by another process) exits 3.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from rich.console import Console

import warehouse.file
from expectations.cli import main
from expectations.outcome import EXIT_NOT_STORED, EXIT_USAGE
from expectations.suites import SUITE_MODULES, fct_workload_results
from tests.expectations.crafted import GOOD, build_warehouse, good_warehouse
from warehouse.base import VALIDATION_RESULTS as RESULTS_TABLE


def _main(db: Path, *args: str) -> tuple[int, str]:
    console = Console(record=True, width=200)
    code = main(["--db", str(db), *args], console=console)
    return code, console.export_text()


def _stored(db: Path, latest_only: bool = True) -> pd.DataFrame:
    """The stored rows: the latest run (what marts.data_quality_results shows), or all runs."""
    where = f"where run_at = (select max(run_at) from {RESULTS_TABLE})" if latest_only else ""
    con = duckdb.connect(str(db), read_only=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecation inside duckdb's .df()
            return con.execute(f"select * from {RESULTS_TABLE} {where}").df()
    finally:
        con.close()


def _only_fio_runs(path: Path) -> Path:
    """A warehouse where every suite but none of its tables exists: all suites are skipped."""
    return build_warehouse(path, {"raw.fio_runs": GOOD["raw.fio_runs"]})


def test_main_on_good_data_exits_0_and_stores_results(tmp_path: Path) -> None:
    db = good_warehouse(tmp_path / "wh.duckdb")
    code, text = _main(db)
    assert code == 0
    assert "0 constraint failures" in text
    stored = _stored(db, latest_only=False)
    assert set(stored["severity"]) == {"constraint", "alert"}
    assert stored["success"].all()
    assert stored["notes"].str.len().min() > 20
    assert stored["run_at"].nunique() == 1
    assert set(stored["suite"]) >= {"fct_workload_results.constraints", "fio_jobs.alerts"}


def test_main_on_a_bad_table_exits_1_and_appends_a_new_run(tmp_path: Path) -> None:
    db = good_warehouse(tmp_path / "wh.duckdb")
    con = duckdb.connect(str(db))
    con.execute(
        f"insert into {RESULTS_TABLE} values "
        "('2020-01-01 00:00:00+00', 'stale.constraints', 't', 'e', 'constraint', false, '', 0, '')"
    )
    con.execute("update raw.fio_job_directions set lat_min_ns = 1e9")
    con.close()

    code, text = _main(db, "--failures-only")

    assert code == 1
    assert "lat_min_ns <= lat_mean_ns" in text
    assert "stale.constraints" in set(_stored(db, latest_only=False)["suite"])  # history kept
    stored = _stored(db)
    assert "stale.constraints" not in set(stored["suite"])
    assert stored["run_at"].nunique() == 1
    bad = stored[~stored["success"].astype(bool)]
    assert list(zip(bad["suite"], bad["expectation"], bad["unexpected_count"], strict=True)) == [
        ("fio_job_directions.constraints", "lat_min_ns <= lat_mean_ns", 1)
    ]
    assert "file 1 run 0 job 0 read" in bad["observed"].iloc[0]


def test_every_run_is_appended_with_one_run_at(tmp_path: Path) -> None:
    db = _only_fio_runs(tmp_path / "wh.duckdb")
    assert _main(db)[0] == 0
    assert _main(db)[0] == 0
    stored = _stored(db, latest_only=False)
    assert stored.groupby("run_at").size().tolist() == [2 * len(SUITE_MODULES)] * 2


def test_missing_tables_are_skipped_not_failed(tmp_path: Path) -> None:
    db = _only_fio_runs(tmp_path / "wh.duckdb")
    code, _ = _main(db)
    assert code == 0
    stored = _stored(db)
    assert stored["success"].isna().all()
    assert stored["observed"].str.startswith("skipped: table missing").all()
    assert len(stored) == 2 * len(SUITE_MODULES)


def test_a_missing_contract_column_fails_the_run(tmp_path: Path) -> None:
    rows = [
        {k: v for k, v in r.items() if k != "cpu_util_pct"}
        for r in GOOD[fct_workload_results.TABLE]
    ]
    db = build_warehouse(tmp_path / "wh.duckdb", {fct_workload_results.TABLE: rows})
    code, text = _main(db)
    assert code == 1
    assert "cpu_util_pct" in text


def test_a_missing_results_table_exits_3_and_creates_nothing(tmp_path: Path) -> None:
    """dbt owns the results table: without it the run says to build, and creates nothing."""
    db = build_warehouse(
        tmp_path / "wh.duckdb", {"raw.fio_runs": GOOD["raw.fio_runs"]}, results_table=False
    )
    code, text = _main(db)
    assert code == EXIT_NOT_STORED
    assert "python -m ingest build" in text
    assert "skipped" in text  # the report is printed before the store fails
    con = duckdb.connect(str(db), read_only=True)
    try:
        schemas = {s for (s,) in con.execute("select schema_name from duckdb_schemas()").fetchall()}
    finally:
        con.close()
    assert "data_quality" not in schemas


def test_a_locked_warehouse_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process holding DuckDB's write lock past the writers' timeout: exit 3."""
    db = _only_fio_runs(tmp_path / "wh.duckdb")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]);"
            " print('held', flush=True); time.sleep(60)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(warehouse.file, "WRITER_CONNECT_TIMEOUT_S", 0.2)
        code, text = _main(db)
    finally:
        holder.kill()
        holder.wait()
    assert code == EXIT_NOT_STORED
    assert "locked by another process" in text


@pytest.mark.parametrize(
    "argv", [pytest.param(["--bogus"], id="unknown option"), pytest.param(["--db"], id="no value")]
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    assert main(argv, console=Console(record=True)) == EXIT_USAGE


def test_missing_warehouse_file_is_a_usage_error(tmp_path: Path) -> None:
    code, text = _main(tmp_path / "nope.duckdb")
    assert code == EXIT_USAGE
    assert "no warehouse" in text


def test_env_var_names_the_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _only_fio_runs(tmp_path / "env.duckdb")
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(db))
    assert main([], console=Console(record=True)) == 0
    assert len(_stored(db)) == 2 * len(SUITE_MODULES)
