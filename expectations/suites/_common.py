"""Small builders shared by the suite modules: every expectation gets its note and severity."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import great_expectations as gx
import great_expectations.expectations as gxe
from great_expectations.expectations.metadata_types import FailureSeverity

# Tolerances named once so notes and tests agree.
THROUGHPUT_TOLERANCE_PCT = 5.0
IOPS_SPREAD_ALERT_PCT = 25.0
GAP_FACTOR = 2.0


def _meta(notes: str) -> dict[str, Any]:
    return {"meta": {"notes": notes}}


def between(column: str, low: float | None, high: float | None, notes: str) -> gxe.Expectation:
    return gxe.ExpectColumnValuesToBeBetween(
        column=column, min_value=low, max_value=high, **_meta(notes)
    )


def non_negative(columns: Sequence[str], notes: str) -> list[gxe.Expectation]:
    return [between(column, 0, None, notes) for column in columns]


def ordered(low: str, high: str, notes: str) -> gxe.Expectation:
    """`low <= high` on every row where both are present."""
    return gxe.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=high,
        column_B=low,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
        **_meta(notes),
    )


def chain(columns: Sequence[str], notes: str) -> list[gxe.Expectation]:
    """`columns[0] <= columns[1] <= ...`, as adjacent pairs."""
    return [ordered(low, high, notes) for low, high in pairwise(columns)]


def unique(columns: Sequence[str], notes: str) -> gxe.Expectation:
    return gxe.ExpectCompoundColumnsToBeUnique(column_list=list(columns), **_meta(notes))


def in_set(column: str, values: Sequence[Any], notes: str) -> gxe.Expectation:
    return gxe.ExpectColumnValuesToBeInSet(column=column, value_set=list(values), **_meta(notes))


def no_rows(notes: str) -> gxe.Expectation:
    return gxe.ExpectTableRowCountToEqual(value=0, **_meta(notes))


def _suite(name: str, expectations: Sequence[gxe.Expectation], severity: FailureSeverity):
    for expectation in expectations:
        if not (expectation.meta or {}).get("notes"):
            raise ValueError(f"{name}: {expectation.expectation_type} has no notes")
        expectation.severity = severity
    return gx.ExpectationSuite(name=name, expectations=list(expectations))


def constraint_suite(model: str, expectations: Sequence[gxe.Expectation]) -> gx.ExpectationSuite:
    return _suite(f"{model}.constraints", expectations, FailureSeverity.CRITICAL)


def alert_suite(model: str, expectations: Sequence[gxe.Expectation]) -> gx.ExpectationSuite:
    return _suite(f"{model}.alerts", expectations, FailureSeverity.WARNING)
