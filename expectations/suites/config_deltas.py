"""`marts.config_deltas`: pairs of results that differ in exactly one label.

Derived columns (QUERY): none. Percent deltas are `100 * (new - old) / old`.
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import alert_suite, between, constraint_suite

MODEL = "config_deltas"
TABLE = "marts.config_deltas"
REQUIRES = (TABLE,)
QUERY = f"""
select
    concat_ws(': ', dimension, concat_ws(' -> ', from_value, to_value)) as row_ref,
    iops_delta_pct, avg_latency_delta_pct, p95_latency_delta_pct, cpu_delta_pct
from {TABLE}
"""

_DELTA_NOTE = (
    "A percent change of a non-negative quantity cannot fall below -100%; lower means the "
    "delta was computed with the operands swapped or against a negative value."
)


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            between(column, -100, None, _DELTA_NOTE)
            for column in (
                "iops_delta_pct",
                "avg_latency_delta_pct",
                "p95_latency_delta_pct",
                "cpu_delta_pct",
            )
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "iops_delta_pct",
                None,
                1000,
                "One label change rarely gives 10x the IOPS; such a pair usually differs in "
                "an unlabelled setting too (cache tier, VM count).",
            ),
        ],
    )
