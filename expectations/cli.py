"""Validate the warehouse with the suites in `expectations.suites`, report, and record results.

`python -m expectations [--db FILE | --warehouse W] [--failures-only]`: every suite module is
validated on one read-only version of the warehouse (`expectations.runner`), the outcomes are
printed as a table (`expectations.report`) and recorded with one `run_at` for the run
(`Warehouse.record_validation`: appended to `data_quality.validation_results`, and for a file
also to `<db stem>.validation.json`, which the dashboard's data-quality page reads because a
failing version is never published); `marts.data_quality_results` is dbt's view of the latest
run. This command never publishes; `python -m ingest publish` (`expectations.gate`) runs the
same validation and publishes only when every constraint holds.

Exit status: 0, or 1 when a constraint failed (alerts never change it), 2 for a usage error
(bad arguments, no warehouse file), 3 when the results were not recorded: the results table is
missing (run `python -m ingest build` first), another process kept the warehouse locked past
the writers' connection timeout, or the lake could not be reached.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from rich.console import Console
from rich.markup import escape

import warehouse
from expectations.outcome import EXIT_NOT_STORED, EXIT_OK, EXIT_USAGE, Outcome, exit_code
from expectations.report import render
from expectations.runner import validate_warehouse
from warehouse import LakeError, ValidationNotRecorded, Warehouse, WarehouseUnavailable
from warehouse.base import VALIDATION_RESULTS


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
    console.print(f"[red]results not stored in {VALIDATION_RESULTS}:[/red] {escape(str(reason))}")
    return EXIT_NOT_STORED


@dataclass(frozen=True, slots=True)
class Validation:
    """One validation run: its outcomes, and why they were not recorded (None: recorded)."""

    outcomes: list[Outcome]
    not_stored: ValidationNotRecorded | None
    # Where the warehouse keeps versions (a lake): the snapshot validated, and the one the
    # recorded results created.
    validated_snapshot: int | None = None
    results_snapshot: int | None = None

    @property
    def failed_constraints(self) -> int:
        return sum(o.failed_constraint for o in self.outcomes)


def validate_and_record(wh: Warehouse, console: Console, *, failures_only: bool) -> Validation:
    """Validate one version of `wh`, print the report and record the run.

    Raises WarehouseUnavailable or LakeError when the warehouse cannot be read. The publish
    gate calls this in-process, holding the warehouse, and publishes only when no constraint
    failed.
    """
    run_at = dt.datetime.now(dt.UTC)
    outcomes, validated = validate_warehouse(wh)
    render(outcomes, console, failures_only=failures_only)
    rows = [asdict(o) for o in outcomes]
    try:
        recorded = wh.record_validation(run_at, rows, validated)
    except ValidationNotRecorded as exc:
        return Validation(outcomes, exc, validated)
    return Validation(outcomes, None, validated, recorded)


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    console = console or Console()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the message
        return EXIT_USAGE if exc.code else EXIT_OK
    try:
        wh = warehouse.from_settings(args.warehouse, db=args.db, data_path=args.data_path)
        missing = wh.missing_reason()
        if missing is not None:
            console.print(f"[red]{escape(missing)}[/red]")
            return EXIT_USAGE
        run = validate_and_record(wh, console, failures_only=args.failures_only)
    except (WarehouseUnavailable, LakeError) as exc:
        return _not_stored(console, exc)
    if run.not_stored is not None:
        return _not_stored(console, run.not_stored)
    return exit_code(run.outcomes)
