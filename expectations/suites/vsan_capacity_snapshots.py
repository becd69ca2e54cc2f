"""`raw.vsan_capacity_snapshots`: vSAN capacity and data-efficiency observations.

Derived columns (QUERY): none.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "vsan_capacity_snapshots"
TABLE = "raw.vsan_capacity_snapshots"
REQUIRES = (TABLE,)
_FINITE = ("ratio_computed", "ratio_reported")
QUERY = f"""
select
    concat_ws(' ', 'file', _source_file_id, testbed) as row_ref,
    total_capacity_bytes, free_capacity_bytes, logical_used_bytes, physical_used_bytes,
    ratio_computed, ratio_reported, ratio_matches_reported,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            [
                "total_capacity_bytes",
                "free_capacity_bytes",
                "logical_used_bytes",
                "physical_used_bytes",
            ],
            "Capacities are byte counts; negative means an overflow or a unit error.",
        ),
        expect.ordered(
            "free_capacity_bytes",
            "total_capacity_bytes",
            "Free capacity is part of total capacity.",
        ),
        expect.ordered(
            "physical_used_bytes",
            "total_capacity_bytes",
            "The datastore cannot use more physical space than it has.",
        ),
        expect.between(
            "ratio_computed",
            0,
            None,
            "logical / physical used is a positive multiplier.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.in_set(
            "ratio_matches_reported",
            [True],
            "A hand-entered ratio that disagrees with its own used-before/used-after "
            "numbers (beyond print rounding) means one of them was copied wrong.",
        ),
    ]
