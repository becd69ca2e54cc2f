"""`raw.hcibench_resource_usage`: host and cluster CPU/memory HCIBench recorded for a case.

Derived columns (QUERY): none.
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import alert_suite, between, constraint_suite

MODEL = "hcibench_resource_usage"
TABLE = "raw.hcibench_resource_usage"
REQUIRES = (TABLE,)
QUERY = f"""
select
    concat_ws(' ', case_name, origin, coalesce(host_name, 'cluster average')) as row_ref,
    cpu_usage_pct, cpu_utilization_pct, mem_usage_pct, vsan_pcpu_usage_pct
from {TABLE}
"""


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            between(
                column,
                0,
                100,
                "Host CPU and memory usage are percentages of capacity (0..100); outside it "
                "the column was mis-read (a MHz or MB figure in a percent column).",
            )
            for column in (
                "cpu_usage_pct",
                "cpu_utilization_pct",
                "mem_usage_pct",
                "vsan_pcpu_usage_pct",
            )
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(MODEL, [])
