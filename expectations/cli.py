"""Validate the warehouse with the suites in `expectations.suites`, report, and store results.

`python -m expectations [--db FILE] [--failures-only]`: every suite module is validated on a
read-only connection (`expectations.runner`), the outcomes are printed as a table
(`expectations.report`) and appended, with one `run_at` for the run, to
`data_quality.validation_results` (`expectations.store`); `marts.data_quality_results` is dbt's
view of the latest run.

Exit status: 0, or 1 when a constraint failed (alerts never change it), 2 for a usage error
(bad arguments, no warehouse file), 3 when the results were not stored: the results table is
missing (run `python -m ingest build` first) or another process kept the warehouse locked
past the writers' connection timeout.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

import warehouse
from expectations.outcome import EXIT_NOT_STORED, EXIT_OK, EXIT_USAGE, exit_code
from expectations.report import render
from expectations.runner import validate_warehouse
from expectations.store import RESULTS_TABLE, ResultsNotStored, append_results


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
    run_at = dt.datetime.now(dt.UTC)
    try:
        outcomes = validate_warehouse(db_path)
    except warehouse.WarehouseUnavailable as exc:
        return _not_stored(console, exc)
    render(outcomes, console, failures_only=args.failures_only)
    try:
        append_results(db_path, run_at, outcomes)
    except ResultsNotStored as exc:
        return _not_stored(console, exc)
    return exit_code(outcomes)
