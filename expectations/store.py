"""Append a run's outcomes to `data_quality.validation_results`, the expectations' own table.

dbt owns the table's DDL (an on-run-start hook creates schema and table) and declares it as a
source; `marts.data_quality_results` is dbt's view of the latest run. So this module creates
nothing: when the table is missing the warehouse has not been built, and the fix is
`python -m ingest build`, not a table of our own making that dbt would then disagree with.
Every run is appended with one `run_at`, which keeps the history for trend pages.

Every run, passed or failed, also replaces the side file `<db stem>.validation.json`
(`warehouse.write_validation_report`): the serving snapshot only ever holds versions that
passed, so the dashboard reads the failing run there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, astuple, fields
from pathlib import Path

import duckdb

import warehouse
from expectations.outcome import Outcome

SCHEMA = "data_quality"
TABLE = "validation_results"
RESULTS_TABLE = f"{SCHEMA}.{TABLE}"
COLUMNS = ("run_at", *(f.name for f in fields(Outcome)))
_INSERT = (
    f"insert into {RESULTS_TABLE} ({', '.join(COLUMNS)}) values ({', '.join('?' for _ in COLUMNS)})"
)


class ResultsNotStored(RuntimeError):
    """The outcomes could not be appended (table missing, or the warehouse stayed locked)."""


class ResultsTableMissing(ResultsNotStored):
    """dbt has not built the warehouse yet, so there is no table to append to."""


def _table_exists(con: duckdb.DuckDBPyConnection) -> bool:
    (count,) = con.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?",
        [SCHEMA, TABLE],
    ).fetchone()
    return count > 0


def append_results(db_path: Path, run_at: dt.datetime, outcomes: Sequence[Outcome]) -> None:
    """Append this run's outcomes, all stamped `run_at`, in one transaction."""
    try:
        con = warehouse.connect(db_path)
    except warehouse.WarehouseUnavailable as exc:
        raise ResultsNotStored(str(exc)) from exc
    try:
        if not _table_exists(con):
            raise ResultsTableMissing(
                f"{RESULTS_TABLE} does not exist; build the warehouse first "
                "(`python -m ingest build` runs dbt, which creates it)"
            )
        con.begin()
        con.executemany(_INSERT, [(run_at, *astuple(o)) for o in outcomes])
        con.commit()
    finally:
        con.close()


def write_side_report(db_path: Path, run_at: dt.datetime, outcomes: Sequence[Outcome]) -> None:
    """The run for the dashboard's data-quality page, even when it failed (see above)."""
    warehouse.write_validation_report(db_path, run_at, [asdict(o) for o in outcomes])
