"""Append a run's outcomes to `data_quality.validation_results`, the expectations' own table.

dbt owns the table's DDL (an on-run-start hook creates schema and table) and declares it as a
source; `marts.data_quality_results` is dbt's view of the latest run. So this module creates
nothing: when the table is missing the warehouse has not been built, and the fix is
`python -m ingest build`, not a table of our own making that dbt would then disagree with.
Every run is appended with one `run_at`, which keeps the history for trend pages.

Every run, passed or failed, also replaces the side file `<db stem>.validation.json`
(`warehouse.write_validation_report`): the serving snapshot only ever holds versions that
passed, so the dashboard reads the failing run there.

Team mode (`append_results_lake`): the same table in the lake, one commit per run labelled
with the snapshot it validated (`warehouse.serving_lake`); no side file, since the lake keeps
every run, passed or failed, and `serving_lake.status()` reads the latest from there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, astuple, fields
from pathlib import Path

import duckdb

import warehouse
from expectations.outcome import Outcome
from warehouse import lake, serving_lake

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
        "select count(*) from information_schema.tables where table_catalog = current_database() "
        "and table_schema = ? and table_name = ?",
        [SCHEMA, TABLE],
    ).fetchone()
    return count > 0


def _require_table(con: duckdb.DuckDBPyConnection) -> None:
    if not _table_exists(con):
        raise ResultsTableMissing(
            f"{RESULTS_TABLE} does not exist; build the warehouse first "
            "(`python -m ingest build` runs dbt, which creates it)"
        )


def _rows(run_at: dt.datetime, outcomes: Sequence[Outcome]) -> list[tuple]:
    return [(run_at, *astuple(o)) for o in outcomes]


@contextmanager
def _results_table(
    open_: Callable[[], duckdb.DuckDBPyConnection], unavailable: type[Exception]
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A writable connection to a warehouse that has the results table, closed after."""
    try:
        con = open_()
    except unavailable as exc:
        raise ResultsNotStored(str(exc)) from exc
    try:
        _require_table(con)
        yield con
    finally:
        con.close()


def append_results(db_path: Path, run_at: dt.datetime, outcomes: Sequence[Outcome]) -> None:
    """Append this run's outcomes, all stamped `run_at`, in one transaction."""
    opened = _results_table(lambda: warehouse.connect(db_path), warehouse.WarehouseUnavailable)
    with opened as con:
        con.begin()
        con.executemany(_INSERT, _rows(run_at, outcomes))
        con.commit()


def append_results_lake(
    tgt: lake.Target, run_at: dt.datetime, outcomes: Sequence[Outcome], validated: int
) -> int:
    """Append this run's outcomes to the lake in one commit labelled with the snapshot they
    validated (`validated`); return the snapshot that commit created."""
    failures = sum(o.failed_constraint for o in outcomes)
    extra = {"run_at": run_at.isoformat(), "validated_snapshot": validated}
    label = (
        serving_lake.VALIDATION_AUTHOR,
        f"validation of snapshot {validated}: {failures} constraint failures",
        {**extra, "constraint_failures": failures},
    )
    with _results_table(lambda: lake.connect(tgt), lake.LakeError) as con:
        try:
            rows = _rows(run_at, outcomes)
            return serving_lake.commit_labelled(con, label, lambda c: c.executemany(_INSERT, rows))
        except duckdb.Error as exc:
            raise ResultsNotStored(f"{tgt.describe()}: {exc}") from exc


def write_side_report(db_path: Path, run_at: dt.datetime, outcomes: Sequence[Outcome]) -> None:
    """The run for the dashboard's data-quality page, even when it failed (see above)."""
    warehouse.write_validation_report(db_path, run_at, [asdict(o) for o in outcomes])
