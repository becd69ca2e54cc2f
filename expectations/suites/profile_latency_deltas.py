"""`marts.profile_latency_deltas`: each profile against the baseline and the previous profile.

Derived columns (QUERY): none. Percent deltas are `100 * (new - old) / old`.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "profile_latency_deltas"
TABLE = "marts.profile_latency_deltas"
REQUIRES = (TABLE,)
_FINITE = (
    "iops",
    "avg_latency_ms",
    "iops_vs_baseline_pct",
    "latency_vs_baseline_pct",
    "iops_vs_previous_pct",
    "latency_vs_previous_pct",
)
QUERY = f"""
select
    concat_ws(' / ', profile, baseline_profile) as row_ref,
    iops, avg_latency_ms, iops_vs_baseline_pct, latency_vs_baseline_pct,
    iops_vs_previous_pct, latency_vs_previous_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["iops", "avg_latency_ms"],
            "IOPS and latency are non-negative; the deltas divide by them.",
        ),
        *expect.percent_changes(
            [
                "iops_vs_baseline_pct",
                "latency_vs_baseline_pct",
                "iops_vs_previous_pct",
                "latency_vs_previous_pct",
            ]
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "latency_vs_baseline_pct",
            None,
            1000,
            "A profile ten times slower than its baseline is more often a mismatched "
            "workload or unit than a real regression: check before publishing.",
        ),
    ]
