"""Validate the warehouse with the suites in `expectations.suites`, report, and store results.

`python -m expectations [--db FILE] [--failures-only]`: every suite module is validated on a
read-only connection (`expectations.runner`), the outcomes are printed as a table
(`expectations.report`) and appended, with one `run_at` for the run, to
`data_quality.validation_results` (`expectations.store`); `marts.data_quality_results` is dbt's
view of the latest run. Every run also replaces `<db stem>.validation.json`, which the dashboard's
data-quality page reads: a failing version is never published, so the snapshot lacks its run.
This command never publishes; `python -m ingest publish` runs the same validation and
publishes only when every constraint holds.

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
from expectations.runner import validate_warehouse
from expectations.store import (
    RESULTS_TABLE,
    ResultsNotStored,
    append_results,
    write_side_report,
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m expectations", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--db", help="warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"
    )
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


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    console = console or Console()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the message
        return EXIT_USAGE if exc.code else EXIT_OK
    db_path = warehouse.main_path(args.db)
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
