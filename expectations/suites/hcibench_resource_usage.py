"""`raw.hcibench_resource_usage`: host and cluster CPU/memory HCIBench recorded for a case.

Derived columns (QUERY): none.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "hcibench_resource_usage"
TABLE = "raw.hcibench_resource_usage"
REQUIRES = (TABLE,)
_FINITE = ("cpu_usage_pct", "cpu_utilization_pct", "mem_usage_pct", "vsan_pcpu_usage_pct")
QUERY = f"""
select
    concat_ws(' ', case_name, origin, coalesce(host_name, 'cluster average')) as row_ref,
    cpu_usage_pct, cpu_utilization_pct, mem_usage_pct, vsan_pcpu_usage_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.percentages(
            _FINITE,
            "Host CPU and memory usage are percentages of capacity (0..100); outside it "
            "the column was mis-read (a MHz or MB figure in a percent column).",
        ),
    ]


def alerts() -> list[Expectation]:
    return []
