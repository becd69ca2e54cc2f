"""Validate the warehouse with the suites in `expectations.suites`, report, and store results.

`python -m expectations [--db FILE] [--failures-only]`: every suite module is validated on a
read-only connection (`expectations.runner`), the outcomes are printed as a table
(`expectations.report`) and appended, with one `run_at` for the run, to
`data_quality.validation_results` (`expectations.store`); `marts.data_quality_results` is dbt's
view of the latest run. Every run also replaces `<db stem>.validation.json`, which the dashboard's
data-quality page reads: a failing version is never published, so the snapshot lacks its run.
This command never publishes; `python -m ingest publish` runs the same validation and
publishes only when every constraint holds.

Team mode (`--warehouse ducklake:postgres:...` or PERF_WAREHOUSE): the lake is read as of
its newest snapshot when the run starts (a load committing meanwhile is not half-seen), and
the run is appended to the lake's `data_quality.validation_results` in a commit labelled with
that snapshot; no side file (the lake keeps every run: `warehouse.serving_lake`).

Exit status: 0, or 1 when a constraint failed (alerts never change it), 2 for a usage error
(bad arguments, no warehouse file), 3 when the results were not stored: the results table is
missing (run `python -m ingest build` first) or another process kept the warehouse locked
past the writers' connection timeout.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

import warehouse
from expectations.outcome import EXIT_NOT_STORED, EXIT_OK, EXIT_USAGE, Outcome, exit_code
from expectations.report import render
from expectations.runner import validate_lake, validate_warehouse
from expectations.store import (
    RESULTS_TABLE,
    ResultsNotStored,
    append_results,
    append_results_lake,
    write_side_report,
)
from warehouse import lake


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m expectations", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--db", help="warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"
    )
    parser.add_argument(
        "--warehouse", help="a DuckDB file or ducklake:postgres:<conninfo> ($PERF_WAREHOUSE)"
    )
    parser.add_argument("--data-path", dest="data_path", help="team mode: the lake's data files")
    parser.add_argument(
        "--failures-only", action="store_true", help="print only failed constraints and alerts"
    )
    return parser


def _not_stored(console: Console, reason: BaseException) -> int:
    console.print(f"[red]results not stored in {RESULTS_TABLE}:[/red] {escape(str(reason))}")
    return EXIT_NOT_STORED


@dataclass(frozen=True, slots=True)
class Validation:
    """One validation run: its outcomes, and why they were not stored (None: stored)."""

    outcomes: list[Outcome]
    not_stored: ResultsNotStored | None
    # Team mode: the snapshot validated, and the one the stored results created.
    validated_snapshot: int | None = None
    results_snapshot: int | None = None

    @property
    def failed_constraints(self) -> int:
        return sum(o.failed_constraint for o in self.outcomes)


def validate_and_record(db_path: Path, console: Console, *, failures_only: bool) -> Validation:
    """Validate, print the report, append to the results table and write the side file.

    The side file is written even when the append failed, so the dashboard can show a
    failing run whatever happened to the table. Raises warehouse.WarehouseUnavailable when
    the warehouse cannot be read. `python -m ingest publish` calls this in-process, under the
    writer lock, and publishes only when no constraint failed.
    """
    run_at = dt.datetime.now(dt.UTC)
    outcomes = validate_warehouse(db_path)
    render(outcomes, console, failures_only=failures_only)
    not_stored: ResultsNotStored | None = None
    try:
        append_results(db_path, run_at, outcomes)
    except ResultsNotStored as exc:
        not_stored = exc
    try:
        write_side_report(db_path, run_at, outcomes)
    except OSError as exc:
        not_stored = not_stored or ResultsNotStored(f"side file not written: {exc}")
    return Validation(outcomes, not_stored)


def validate_and_record_lake(
    tgt: lake.Target, console: Console, *, failures_only: bool, snapshot: int | None = None
) -> Validation:
    """Team mode: validate the lake as of `snapshot` (default: its newest), print the report
    and append the run to the lake. Raises lake.LakeError when the lake cannot be read."""
    run_at = dt.datetime.now(dt.UTC)
    if snapshot is None:
        con = lake.connect(tgt, read_only=True)
        try:
            snapshot = lake.current_snapshot(con)
        finally:
            con.close()
    outcomes = validate_lake(tgt, snapshot)
    render(outcomes, console, failures_only=failures_only)
    try:
        stored = append_results_lake(tgt, run_at, outcomes, snapshot)
    except ResultsNotStored as exc:
        return Validation(outcomes, exc, snapshot)
    return Validation(outcomes, None, snapshot, stored)


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    console = console or Console()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the message
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        tgt = lake.target(args.warehouse, args.data_path, file_default=warehouse.main_path(args.db))
        if tgt.is_lake:
            run = validate_and_record_lake(tgt, console, failures_only=args.failures_only)
            return (
                _not_stored(console, run.not_stored) if run.not_stored else exit_code(run.outcomes)
            )
    except lake.LakeError as exc:
        return _not_stored(console, exc)
    db_path = tgt.file or warehouse.main_path(args.db)
    if not db_path.is_file():
        console.print(f"[red]no warehouse at {db_path}[/red] (run `python -m ingest load` first)")
        return EXIT_USAGE
    try:
        run = validate_and_record(db_path, console, failures_only=args.failures_only)
    except warehouse.WarehouseUnavailable as exc:
        return _not_stored(console, exc)
    if run.not_stored is not None:
        return _not_stored(console, run.not_stored)
    return exit_code(run.outcomes)
