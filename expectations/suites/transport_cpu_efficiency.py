"""`marts.transport_cpu_efficiency`: TCP vs RDMA results of one workload on one testbed.

Derived columns (QUERY): none.
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import alert_suite, between, constraint_suite, non_negative

MODEL = "transport_cpu_efficiency"
TABLE = "marts.transport_cpu_efficiency"
REQUIRES = (TABLE,)
QUERY = f"""
select
    cast(row_number() over () as varchar) as row_ref,
    tcp_iops, rdma_iops, tcp_cpu_util_pct, rdma_cpu_util_pct,
    tcp_iops_per_cpu_pct, rdma_iops_per_cpu_pct, rdma_efficiency_gain_pct
from {TABLE}
"""


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            *non_negative(
                ["tcp_iops", "rdma_iops", "tcp_iops_per_cpu_pct", "rdma_iops_per_cpu_pct"],
                "IOPS and IOPS per CPU percent are non-negative by construction.",
            ),
            *[
                between(
                    column,
                    0,
                    100,
                    "CONTRACT: CPU is percent of the host's capacity (0-100); the efficiency "
                    "ratio is meaningless on a per-core figure.",
                )
                for column in ("tcp_cpu_util_pct", "rdma_cpu_util_pct")
            ],
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "tcp_cpu_util_pct",
                0.5,
                None,
                "Near-zero CPU makes IOPS per CPU percent explode; the capture probably missed "
                "the run window.",
            ),
            between(
                "rdma_cpu_util_pct",
                0.5,
                None,
                "Near-zero CPU makes IOPS per CPU percent explode; the capture probably missed "
                "the run window.",
            ),
        ],
    )
