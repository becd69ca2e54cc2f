"""Validate the warehouse: every suite module's QUERY -> DataFrame -> its two suites -> Outcomes.

A module whose tables are missing is reported as "skipped: table missing" (success None); a
query that fails on an existing table (a column the CONTRACT promises is absent) is a
constraint failure. Only reads: the connection is read-only, on one version of the warehouse.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from types import ModuleType

import duckdb
import great_expectations as gx
import pandas as pd

from expectations.context import batch_definition, context
from expectations.describe import EXAMPLES, outcomes
from expectations.outcome import ALERT, CONSTRAINT, Outcome
from expectations.suites import SUITE_MODULES, suites_of
from warehouse import Warehouse

_RESULT_FORMAT = {
    "result_format": "SUMMARY",
    "partial_unexpected_count": EXAMPLES,
    "unexpected_index_column_names": ["row_ref"],
}
_QUERY_FAILED_NOTE = (
    "The suite's query must run on the CONTRACT columns; a failure means a column was renamed "
    "or dropped."
)
_SKIPPED_NOTE = "The suite runs once the table exists."


def _existing_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    # The default catalog's only: a lake connection also has DuckDB's empty `memory` one.
    rows = con.execute(
        "select table_schema || '.' || table_name from information_schema.tables "
        "where table_catalog = current_database()"
    ).fetchall()
    return {name for (name,) in rows}


def _suites(module: ModuleType) -> list[tuple[gx.ExpectationSuite, str]]:
    constraints, alerts = suites_of(module)
    return [(constraints, CONSTRAINT), (alerts, ALERT)]


def _suite_outcome(
    module: ModuleType,
    suite: str,
    severity: str,
    check: tuple[str, bool | None, str],
    notes: str,
) -> Outcome:
    """An outcome about a whole suite, not one expectation, so it counts no unexpected rows;
    `check` is (expectation, success, observed)."""
    expectation, success, observed = check
    return Outcome(suite, module.TABLE, expectation, severity, success, observed, None, notes)


def _skipped(module: ModuleType, missing: Sequence[str]) -> list[Outcome]:
    check = ("(whole suite)", None, f"skipped: table missing ({', '.join(missing)})")
    return [
        _suite_outcome(module, suite.name, severity, check, _SKIPPED_NOTE)
        for suite, severity in _suites(module)
    ]


def _query_failed(module: ModuleType, exc: duckdb.Error) -> Outcome:
    check = ("query runs", False, f"error: {str(exc).splitlines()[0]}")
    suite = f"{module.MODEL}.constraints"
    return _suite_outcome(module, suite, CONSTRAINT, check, _QUERY_FAILED_NOTE)


def _frame(con: duckdb.DuckDBPyConnection, query: str) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas 3 deprecation noise from duckdb's .df()
        return con.execute(query).df()


def _validate_frame(module: ModuleType, frame: pd.DataFrame) -> list[Outcome]:
    batch = batch_definition(module.MODEL).get_batch(batch_parameters={"dataframe": frame})
    found: list[Outcome] = []
    for suite, severity in _suites(module):
        if not suite.expectations:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecations inside GX's metrics
            validation = batch.validate(suite, result_format=_RESULT_FORMAT)
        found.extend(outcomes(validation, suite, module.TABLE, severity))
    return found


def validate_module(
    module: ModuleType, con: duckdb.DuckDBPyConnection, existing: set[str]
) -> list[Outcome]:
    """Outcomes of one suite module's constraints and alerts on the warehouse behind `con`."""
    missing = [t for t in module.REQUIRES if t not in existing]
    if missing:
        return _skipped(module, missing)
    try:
        frame = _frame(con, module.QUERY)
    except duckdb.Error as exc:
        return [_query_failed(module, exc)]
    return _validate_frame(module, frame)


def validate_connection(
    con: duckdb.DuckDBPyConnection, modules: Sequence[ModuleType] = SUITE_MODULES
) -> list[Outcome]:
    """Outcomes of every module, in order, on the warehouse behind `con` (only reads)."""
    context()
    existing = _existing_tables(con)
    return [o for module in modules for o in validate_module(module, con, existing)]


def validate_warehouse(
    wh: Warehouse, modules: Sequence[ModuleType] = SUITE_MODULES
) -> tuple[list[Outcome], int | None]:
    """Outcomes of every module on one fixed version of `wh` (`Warehouse.validation_view`: a
    load committing meanwhile does not change what is validated), and that version's snapshot
    id where the warehouse keeps versions. Raises WarehouseUnavailable (a file another process
    keeps locked for longer than a writer waits), LakeError (a lake that cannot be read)."""
    with wh.validation_view() as (con, version):
        return validate_connection(con, modules), version
