"""Validate the warehouse with the suites in `expectations.suites`, report, and store results.

Flow: every suite module's QUERY runs on a read-only DuckDB connection into a pandas DataFrame;
each DataFrame is validated against `<model>.constraints` and `<model>.alerts` in one ephemeral
great-expectations context (pandas datasource, one whole-DataFrame asset per model); outcomes are
printed as a rich table and replace the rows of `marts.data_quality_results`:

    run_at TIMESTAMPTZ, suite VARCHAR, table_name VARCHAR, expectation VARCHAR,
    severity VARCHAR ('constraint' | 'alert'), success BOOLEAN (NULL: not evaluated),
    observed VARCHAR, unexpected_count BIGINT, notes VARCHAR

A model whose tables are missing is reported as "skipped: table missing" (success NULL); a query
that fails on an existing table (a column the CONTRACT promises is absent) is a constraint
failure. Exit status: 0, or 1 when a constraint failed (alerts never change it), 2 for a usage
error (bad arguments, no warehouse file), 3 when the results could not be stored because another
process held the warehouse's write lock for 30 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import great_expectations as gx
import pandas as pd
from great_expectations.data_context.types.base import ProgressBarsConfig
from rich.console import Console
from rich.table import Table

from expectations.suites import SUITE_MODULES
from ingest.settings import warehouse_path

RESULTS_TABLE = "marts.data_quality_results"
RESULTS_DDL = f"""
create table if not exists {RESULTS_TABLE} (
    run_at timestamptz not null,
    suite varchar not null,
    table_name varchar not null,
    expectation varchar not null,
    severity varchar not null,
    success boolean,
    observed varchar,
    unexpected_count bigint,
    notes varchar
)
"""
CONSTRAINT = "constraint"
ALERT = "alert"
EXIT_OK, EXIT_CONSTRAINT_FAILED, EXIT_USAGE, EXIT_NOT_STORED = 0, 1, 2, 3
_EXAMPLES = 3  # unexpected rows quoted in `observed`
_EXAMPLE_CHARS = 160
_RESULT_FORMAT = {
    "result_format": "SUMMARY",
    "partial_unexpected_count": _EXAMPLES,
    "unexpected_index_column_names": ["row_ref"],
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One row of the report and of marts.data_quality_results (without run_at)."""

    suite: str
    table_name: str
    expectation: str
    severity: str
    success: bool | None
    observed: str
    unexpected_count: int | None
    notes: str


class UsageError(Exception):
    pass


# --- great-expectations context -------------------------------------------------------------


@cache
def _context() -> Any:
    """One ephemeral context per process: building it and importing GX is the slow part."""
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    return context


@cache
def _batch_definition(model: str) -> Any:
    datasource = _pandas_datasource()
    asset = datasource.add_dataframe_asset(name=model)
    return asset.add_batch_definition_whole_dataframe(name=f"{model}.whole")


@cache
def _pandas_datasource() -> Any:
    return _context().data_sources.add_pandas(name="warehouse")


# --- describing results -----------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """numpy/pandas scalars as Python values, so the report reads `3.5`, not `np.float64(3.5)`."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (ValueError, TypeError):
            return value
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    return value


def _num(value: Any) -> Any:
    """`0` rather than `0.0` in expectation names."""
    value = _plain(value)
    return int(value) if isinstance(value, float) and value.is_integer() else value


def describe(config: Any) -> str:
    """A readable name for an expectation configuration, e.g. `lat_min_ns <= lat_mean_ns`."""
    kwargs = config.kwargs
    kind = config.type
    if kind == "expect_column_values_to_be_between":
        low, high = kwargs.get("min_value"), kwargs.get("max_value")
        column = kwargs["column"]
        if high is None:
            return f"{column} >= {_num(low)}"
        if low is None:
            return f"{column} <= {_num(high)}"
        return f"{column} in [{_num(low)}, {_num(high)}]"
    if kind == "expect_column_pair_values_a_to_be_greater_than_b":
        op = "<=" if kwargs.get("or_equal") else "<"
        return f"{kwargs['column_B']} {op} {kwargs['column_A']}"
    if kind == "expect_compound_columns_to_be_unique":
        return f"unique ({', '.join(kwargs['column_list'])})"
    if kind == "expect_column_values_to_be_in_set":
        return f"{kwargs['column']} in {list(kwargs['value_set'])}"
    if kind == "expect_table_row_count_to_equal":
        return f"row count = {kwargs['value']}"
    args = ", ".join(f"{k}={v}" for k, v in kwargs.items() if k != "batch_id")
    return f"{kind}({args})"


def _observed(result: dict[str, Any]) -> tuple[str, int | None]:
    """The observed value and unexpected count of one expectation result."""
    if "observed_value" in result:
        return str(_plain(result["observed_value"])), None
    count = result.get("unexpected_count")
    total = result.get("element_count")
    if count is None:
        return "", None
    text = f"{count} of {total} rows"
    if count:
        refs = result.get("partial_unexpected_index_list") or []
        values = result.get("partial_unexpected_list") or []
        examples = []
        for i, value in enumerate(values[:_EXAMPLES]):
            ref = refs[i].get("row_ref") if i < len(refs) and isinstance(refs[i], dict) else None
            shown = str(_plain(value))[:_EXAMPLE_CHARS]
            examples.append(f"{ref}: {shown}" if ref else shown)
        text += " unexpected, e.g. " + "; ".join(examples)
    return text, int(count)


def _outcomes(validation: Any, suite: gx.ExpectationSuite, table: str, severity: str):
    for item in validation.results:
        config = item.expectation_config
        raised = (item.exception_info or {}).get("raised_exception")
        if raised:
            message = str((item.exception_info or {}).get("exception_message", "")).splitlines()
            observed, count = f"error: {message[0] if message else 'exception'}", None
        else:
            observed, count = _observed(item.result or {})
        yield Outcome(
            suite=suite.name,
            table_name=table,
            expectation=describe(config),
            severity=severity,
            success=bool(item.success),
            observed=observed,
            unexpected_count=count,
            notes=(config.meta or {}).get("notes", ""),
        )


# --- loading and validating -------------------------------------------------------------------


def _existing_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "select table_schema || '.' || table_name from information_schema.tables"
    ).fetchall()
    return {name for (name,) in rows}


def _suites(module: ModuleType) -> list[tuple[gx.ExpectationSuite, str]]:
    return [(module.constraints(), CONSTRAINT), (module.alerts(), ALERT)]


def validate_module(
    module: ModuleType, con: duckdb.DuckDBPyConnection, existing: set[str]
) -> list[Outcome]:
    """Outcomes of one suite module's constraints and alerts on the warehouse behind `con`."""
    suites = _suites(module)
    missing = [t for t in module.REQUIRES if t not in existing]
    if missing:
        return [
            Outcome(
                suite=suite.name,
                table_name=module.TABLE,
                expectation="(whole suite)",
                severity=severity,
                success=None,
                observed=f"skipped: table missing ({', '.join(missing)})",
                unexpected_count=None,
                notes="The suite runs once the table exists.",
            )
            for suite, severity in suites
        ]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecation noise from duckdb's .df()
            frame = con.execute(module.QUERY).df()
    except duckdb.Error as exc:
        return [
            Outcome(
                suite=f"{module.MODEL}.constraints",
                table_name=module.TABLE,
                expectation="query runs",
                severity=CONSTRAINT,
                success=False,
                observed=f"error: {str(exc).splitlines()[0]}",
                unexpected_count=None,
                notes="The suite's query must run on the CONTRACT columns; a failure means a "
                "column was renamed or dropped.",
            )
        ]
    batch = _batch_definition(module.MODEL).get_batch(batch_parameters={"dataframe": frame})
    outcomes: list[Outcome] = []
    for suite, severity in suites:
        if not suite.expectations:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecations inside GX's metrics
            validation = batch.validate(suite, result_format=_RESULT_FORMAT)
        outcomes.extend(_outcomes(validation, suite, module.TABLE, severity))
    return outcomes


def validate_warehouse(
    db_path: Path, modules: Sequence[ModuleType] = SUITE_MODULES
) -> list[Outcome]:
    _context()
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        existing = _existing_tables(con)
        return [o for module in modules for o in validate_module(module, con, existing)]
    finally:
        con.close()


def _connect_rw(db_path: Path, timeout_s: float = 30.0) -> duckdb.DuckDBPyConnection:
    """Read-write connection, waiting while another process (dbt, ingest) holds the lock."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return duckdb.connect(str(db_path))
        except duckdb.IOException:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def write_results(db_path: Path, run_at: dt.datetime, outcomes: Sequence[Outcome]) -> None:
    """Replace marts.data_quality_results with this run's outcomes."""
    columns = [f.name for f in fields(Outcome)]
    frame = pd.DataFrame([astuple(o) for o in outcomes], columns=columns)
    frame.insert(0, "run_at", pd.Timestamp(run_at))
    frame["success"] = frame["success"].astype("boolean")
    frame["unexpected_count"] = frame["unexpected_count"].astype("Int64")
    con = _connect_rw(db_path)
    try:
        con.execute("begin transaction")
        con.execute("create schema if not exists marts")
        con.execute(RESULTS_DDL)
        con.execute(f"delete from {RESULTS_TABLE}")
        con.register("dq_frame", frame)
        con.execute(f"insert into {RESULTS_TABLE} select {', '.join(frame.columns)} from dq_frame")
        con.execute("commit")
    finally:
        con.close()


# --- report and command line ------------------------------------------------------------------


def _result_text(outcome: Outcome) -> str:
    if outcome.success is None:
        return "[dim]skipped[/dim]"
    if outcome.success:
        return "[green]pass[/green]"
    return "[red]FAIL[/red]" if outcome.severity == CONSTRAINT else "[yellow]alert[/yellow]"


def render(outcomes: Sequence[Outcome], console: Console, failures_only: bool = False) -> None:
    table = Table(title="Data quality", show_lines=False)
    for name in ("suite", "expectation", "severity", "result", "observed", "note"):
        table.add_column(name, overflow="fold")
    for o in outcomes:
        if failures_only and o.success is not False:
            continue
        table.add_row(
            o.suite,
            o.expectation,
            o.severity,
            _result_text(o),
            o.observed,
            o.notes,
            end_section=False,
        )
    console.print(table)
    failed = sum(o.success is False and o.severity == CONSTRAINT for o in outcomes)
    alerts = sum(o.success is False and o.severity == ALERT for o in outcomes)
    skipped = sum(o.success is None for o in outcomes)
    passed = sum(o.success is True for o in outcomes)
    console.print(
        f"{passed} passed, {failed} constraint failures, {alerts} alerts, {skipped} skipped "
        f"(suites on missing tables)"
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


def exit_code(outcomes: Sequence[Outcome]) -> int:
    failed = any(o.success is False and o.severity == CONSTRAINT for o in outcomes)
    return EXIT_CONSTRAINT_FAILED if failed else EXIT_OK


def main(argv: Sequence[str] | None = None, console: Console | None = None) -> int:
    console = console or Console()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse already printed the message
        return EXIT_USAGE if exc.code else EXIT_OK
    db_path = warehouse_path(args.db)
    if not db_path.is_file():
        console.print(f"[red]no warehouse at {db_path}[/red] (run `python -m ingest load` first)")
        return EXIT_USAGE
    run_at = dt.datetime.now(dt.UTC)
    outcomes = validate_warehouse(db_path)
    render(outcomes, console, failures_only=args.failures_only)
    try:
        write_results(db_path, run_at, outcomes)
    except duckdb.IOException as exc:  # another process kept the write lock past the timeout
        console.print(f"[red]results not stored in {RESULTS_TABLE}:[/red] {exc}")
        return EXIT_NOT_STORED
    return exit_code(outcomes)
