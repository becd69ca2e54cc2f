"""`marts.per_node_iops`: per-node IOPS and the host imbalance of each workload result.

Derived columns (QUERY): none; `host_*` columns are NULL where no per-host data exists.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "per_node_iops"
TABLE = "marts.per_node_iops"
REQUIRES = (TABLE,)
_FINITE = ("iops", "iops_per_node", "host_iops_min", "host_iops_max", "host_imbalance_pct")
QUERY = f"""
select
    cast(result_id as varchar) as row_ref,
    iops, iops_per_node, nodes, host_iops_min, host_iops_max, host_imbalance_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["iops", "iops_per_node", "host_iops_min", "host_iops_max"],
            "IOPS are counts per second: a negative value is a parse or delta bug.",
        ),
        expect.between(
            "nodes",
            1,
            None,
            "IOPS per node divides by the node count; zero or negative nodes is a bad label.",
        ),
        expect.ordered(
            "host_iops_min",
            "host_iops_max",
            "The busiest host cannot do fewer IOPS than the idlest; reversed means the "
            "min/max aggregation picked the wrong column.",
        ),
        expect.between(
            "host_imbalance_pct",
            0,
            None,
            "Imbalance is a spread (max - min relative to a mean); below zero is a formula bug.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "host_imbalance_pct",
            0,
            expect.IOPS_SPREAD_ALERT_PCT,
            f"Hosts more than {expect.IOPS_SPREAD_ALERT_PCT}% apart usually mean one host was "
            "throttled, resyncing or missing VMs: check before comparing the result.",
        ),
    ]
