"""`marts.config_deltas`: pairs of results that differ in exactly one label.

Derived columns (QUERY): none. Percent deltas are `100 * (new - old) / old`.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "config_deltas"
TABLE = "marts.config_deltas"
REQUIRES = (TABLE,)
_FINITE = ("iops_delta_pct", "avg_latency_delta_pct", "p95_latency_delta_pct", "cpu_delta_pct")
QUERY = f"""
select
    concat_ws(': ', dimension, concat_ws(' -> ', from_value, to_value)) as row_ref,
    iops_delta_pct, avg_latency_delta_pct, p95_latency_delta_pct, cpu_delta_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [*expect.finite(_FINITE), *expect.percent_changes(_FINITE)]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "iops_delta_pct",
            None,
            1000,
            "One label change rarely gives 10x the IOPS; such a pair usually differs in "
            "an unlabelled setting too (cache tier, VM count).",
        ),
    ]
