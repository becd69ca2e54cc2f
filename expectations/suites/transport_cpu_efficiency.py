"""`marts.transport_cpu_efficiency`: TCP vs RDMA results of one workload on one testbed.

Derived columns (QUERY): none.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "transport_cpu_efficiency"
TABLE = "marts.transport_cpu_efficiency"
REQUIRES = (TABLE,)
_FINITE = (
    "tcp_iops",
    "rdma_iops",
    "tcp_cpu_util_pct",
    "rdma_cpu_util_pct",
    "tcp_iops_per_cpu_pct",
    "rdma_iops_per_cpu_pct",
    "rdma_efficiency_gain_pct",
)
QUERY = f"""
select
    cast(row_number() over () as varchar) as row_ref,
    tcp_iops, rdma_iops, tcp_cpu_util_pct, rdma_cpu_util_pct,
    tcp_iops_per_cpu_pct, rdma_iops_per_cpu_pct, rdma_efficiency_gain_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["tcp_iops", "rdma_iops", "tcp_iops_per_cpu_pct", "rdma_iops_per_cpu_pct"],
            "IOPS and IOPS per CPU percent are non-negative by construction.",
        ),
        *expect.percentages(
            ["tcp_cpu_util_pct", "rdma_cpu_util_pct"],
            "CONTRACT: CPU is percent of the host's capacity (0-100); the efficiency "
            "ratio is meaningless on a per-core figure.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "tcp_cpu_util_pct",
            0.5,
            None,
            "Near-zero CPU makes IOPS per CPU percent explode; the capture probably missed "
            "the run window.",
        ),
        expect.between(
            "rdma_cpu_util_pct",
            0.5,
            None,
            "Near-zero CPU makes IOPS per CPU percent explode; the capture probably missed "
            "the run window.",
        ),
    ]
