"""`marts.profile_latency_deltas`: each profile against the baseline and the previous profile.

Derived columns (QUERY): none. Percent deltas are `100 * (new - old) / old`.
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import alert_suite, between, constraint_suite, non_negative

MODEL = "profile_latency_deltas"
TABLE = "marts.profile_latency_deltas"
REQUIRES = (TABLE,)
QUERY = f"""
select
    concat_ws(' / ', profile, baseline_profile) as row_ref,
    iops, avg_latency_ms, iops_vs_baseline_pct, latency_vs_baseline_pct,
    iops_vs_previous_pct, latency_vs_previous_pct
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
            *non_negative(
                ["iops", "avg_latency_ms"],
                "IOPS and latency are non-negative; the deltas divide by them.",
            ),
            *[
                between(column, -100, None, _DELTA_NOTE)
                for column in (
                    "iops_vs_baseline_pct",
                    "latency_vs_baseline_pct",
                    "iops_vs_previous_pct",
                    "latency_vs_previous_pct",
                )
            ],
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "latency_vs_baseline_pct",
                None,
                1000,
                "A profile ten times slower than its baseline is more often a mismatched "
                "workload or unit than a real regression: check before publishing.",
            ),
        ],
    )
