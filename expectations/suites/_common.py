"""Builders shared by the suite modules: every expectation gets its note and severity.

Suite modules import this module as `expect` and read like the checks they declare:
`expect.between("read_pct", 0, 100, note)`, `expect.ordered("started_at", "ended_at", note)`.
A builder exists for each check that more than one module makes in the same way (percent
columns, percent changes, interval gaps, the throughput cross-check, finished runs, per-series
minima), so the bound, the tolerance and the shared wording live here once.
"""

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

PERCENT_CHANGE_NOTE = (
    "A percent change of a non-negative quantity cannot fall below -100%; lower means the "
    "delta was computed with the operands swapped or against a negative value."
)


def _meta(notes: str) -> dict[str, Any]:
    return {"meta": {"notes": notes}}


# --- single checks -------------------------------------------------------------------------


def between(column: str, low: float | None, high: float | None, notes: str) -> gxe.Expectation:
    return gxe.ExpectColumnValuesToBeBetween(
        column=column, min_value=low, max_value=high, **_meta(notes)
    )


def ordered(low: str, high: str, notes: str) -> gxe.Expectation:
    """`low <= high` on every row where both are present."""
    return gxe.ExpectColumnPairValuesAToBeGreaterThanB(
        column_A=high,
        column_B=low,
        or_equal=True,
        ignore_row_if="either_value_is_missing",
        **_meta(notes),
    )


def unique(columns: Sequence[str], notes: str) -> gxe.Expectation:
    return gxe.ExpectCompoundColumnsToBeUnique(column_list=list(columns), **_meta(notes))


def in_set(column: str, values: Sequence[Any], notes: str) -> gxe.Expectation:
    return gxe.ExpectColumnValuesToBeInSet(column=column, value_set=list(values), **_meta(notes))


def no_rows(notes: str) -> gxe.Expectation:
    return gxe.ExpectTableRowCountToEqual(value=0, **_meta(notes))


def gap_alert(notes: str) -> gxe.Expectation:
    """`gap_factor` (a step / the usual step, computed by the QUERY) stays within GAP_FACTOR."""
    return between("gap_factor", 0, GAP_FACTOR, notes)


def throughput_check(column: str, notes: str) -> gxe.Expectation:
    """A recomputed-vs-reported throughput gap (percent) stays within the tolerance."""
    return between(column, 0, THROUGHPUT_TOLERANCE_PCT, notes)


def finished(notes: str) -> gxe.Expectation:
    """The row's `state` is `ok`: the tool printed its final totals."""
    return in_set("state", ["ok"], notes)


# --- one check over several columns --------------------------------------------------------


def non_negative(columns: Sequence[str], notes: str) -> list[gxe.Expectation]:
    return [between(column, 0, None, notes) for column in columns]


# DuckDB holds NaN and Infinity in DOUBLE columns and `NaN >= 0` is true there; in the pandas
# frame GX validates, NaN is indistinguishable from NULL and skipped by every range check, and
# Infinity passes any lower bound. Finiteness is therefore decided in SQL, beside the value.
FINITE_SUFFIX = "_is_finite"
FINITE_NOTE = (
    "NaN and Infinity are no measurement (a C printf of a failed division, an overflowed "
    "counter); they pass `>= 0` in DuckDB and look like NULL to a range check, so they are "
    "tested apart."
)


def _is_finite(column: str, alias: str) -> str:
    prefix = f"{alias}." if alias else ""
    return f"isfinite({prefix}{column}::double) is not false"


def finite_flags(columns: Sequence[str], alias: str = "") -> str:
    """SQL select items `isfinite(<alias>.c) is not false as c_is_finite` (NULL counts as
    finite: a missing value is not an impossible one) for a suite's QUERY, read by `finite`."""
    return ",\n    ".join(f"{_is_finite(c, alias)} as {c}{FINITE_SUFFIX}" for c in columns)


def finite_group_flags(columns: Sequence[str], alias: str = "") -> str:
    """`finite_flags` for a QUERY that reduces rows with GROUP BY: `c_is_finite` is true when
    every row of the group is. min()/max() cannot stand in: NaN sorts above every number, so
    a min() hides it and a max() of NaN reaches pandas as NULL."""
    return ",\n    ".join(
        f"bool_and({_is_finite(c, alias)}) as {c}{FINITE_SUFFIX}" for c in columns
    )


def finite(columns: Sequence[str], notes: str = FINITE_NOTE) -> list[gxe.Expectation]:
    """Each column is finite: its `<column>_is_finite` flag (see `finite_flags`) is true."""
    return [in_set(f"{column}{FINITE_SUFFIX}", [True], notes) for column in columns]


def percentages(columns: Sequence[str], notes: str) -> list[gxe.Expectation]:
    """Each column lies in 0..100."""
    return [between(column, 0, 100, notes) for column in columns]


def percent_changes(columns: Sequence[str]) -> list[gxe.Expectation]:
    """Each percent change `100 * (new - old) / old` is at least -100."""
    return [between(column, -100, None, PERCENT_CHANGE_NOTE) for column in columns]


def chain(columns: Sequence[str], notes: str) -> list[gxe.Expectation]:
    """`columns[0] <= columns[1] <= ...`, as adjacent pairs."""
    return [ordered(low, high, notes) for low, high in pairwise(columns)]


def series_values(rate_notes: str, pct_notes: str) -> list[gxe.Expectation]:
    """A per-series reduction (`min_rate_value`, `min_pct_value`, `max_pct_value`): rates and
    latencies are non-negative, percentages lie in 0..100."""
    return [
        between("min_rate_value", 0, None, rate_notes),
        *percentages(["min_pct_value", "max_pct_value"], pct_notes),
    ]


# --- suites ----------------------------------------------------------------------------------


def _suite(
    name: str, expectations: Sequence[gxe.Expectation], severity: FailureSeverity
) -> gx.ExpectationSuite:
    for expectation in expectations:
        if not (expectation.meta or {}).get("notes"):
            raise ValueError(f"{name}: {expectation.expectation_type} has no notes")
        expectation.severity = severity
    return gx.ExpectationSuite(name=name, expectations=list(expectations))


def constraint_suite(model: str, expectations: Sequence[gxe.Expectation]) -> gx.ExpectationSuite:
    """`<model>.constraints`: a failure fails the run."""
    return _suite(f"{model}.constraints", expectations, FailureSeverity.CRITICAL)


def alert_suite(model: str, expectations: Sequence[gxe.Expectation]) -> gx.ExpectationSuite:
    """`<model>.alerts`: a failure is reported only."""
    return _suite(f"{model}.alerts", expectations, FailureSeverity.WARNING)
