"""`marts.dedupe_ratios`: one capacity observation with its data-efficiency ratios.

Derived columns (QUERY):
    capacity_multiplier_2dp capacity_multiplier rounded to 2 decimals (1.33 may be stored as 4/3)
    usable_ratio_mismatch_pct  |usable_to_raw_ratio - dedupe_compression_ratio /
                            capacity_multiplier| in percent of the latter (CONTRACT section 3
                            defines the one from the other; 1% absorbs 1.33 vs 4/3)
    ratio_vs_bytes_pct      |dedupe_compression_ratio - logical / physical| as a percent of
                            logical / physical: the reported ratio against the bytes it summarises
    unit_mismatch_pct       the largest gap, in percent, between a TB column and its bytes /
                            10^12 or a TiB column and its bytes / 2^40 (logical, physical,
                            saved): the two units mixed up is a 9.95 % gap
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "dedupe_ratios"
TABLE = "marts.dedupe_ratios"
REQUIRES = (TABLE,)
_FINITE = ("dedupe_compression_ratio", "capacity_multiplier", "usable_to_raw_ratio")
TB, TIB = 10**12, 2**40
# Each unit column and the bytes it states: the TB/TiB figures the dashboard and report print.
_UNIT_COLUMNS = {
    "logical_used_tb": f"logical_used_bytes / {TB}",
    "logical_used_tib": f"logical_used_bytes / {TIB}",
    "physical_used_tb": f"physical_used_bytes / {TB}",
    "physical_used_tib": f"physical_used_bytes / {TIB}",
    "saved_tb": f"(logical_used_bytes - physical_used_bytes) / {TB}",
    "saved_tib": f"(logical_used_bytes - physical_used_bytes) / {TIB}",
}
_UNIT_GAPS = ", ".join(
    f"100 * abs({column} - {expected}) / nullif(abs({expected}), 0)"
    for column, expected in _UNIT_COLUMNS.items()
)
QUERY = f"""
select
    concat_ws(' @ ', testbed, cast(captured_at as varchar)) as row_ref,
    logical_used_bytes, physical_used_bytes, dedupe_compression_ratio, capacity_multiplier,
    usable_to_raw_ratio,
    round(capacity_multiplier, 2) as capacity_multiplier_2dp,
    100 * abs(usable_to_raw_ratio - dedupe_compression_ratio / capacity_multiplier)
        / nullif(dedupe_compression_ratio / capacity_multiplier, 0) as usable_ratio_mismatch_pct,
    case
        when physical_used_bytes > 0 and logical_used_bytes > 0 then
            100 * abs(dedupe_compression_ratio - logical_used_bytes / physical_used_bytes)
            / (logical_used_bytes / physical_used_bytes)
    end as ratio_vs_bytes_pct,
    greatest({_UNIT_GAPS}) as unit_mismatch_pct,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["logical_used_bytes", "physical_used_bytes"],
            "Used capacity is a byte count; negative means an overflow or a unit error.",
        ),
        expect.between(
            "dedupe_compression_ratio",
            0,
            None,
            "A space-efficiency ratio is a positive multiplier; zero or negative breaks "
            "the usable-to-raw derivation.",
        ),
        expect.in_set(
            "capacity_multiplier_2dp",
            [1, 2, 3, 4, 1.33, 1.5, 1.25],
            "CONTRACT: the storage-policy multiplier (seeds/storage_policy_rules.csv) is FTT + 1 "
            "for RAID-1 (1 to 4), 1.33 (RAID-5 3+1), 1.5 (ESA 2+1, RAID-6 4+2) or 1.25 (ESA "
            "4+1 on 6 or more hosts); anything else is a policy mapping bug.",
        ),
        expect.between(
            "unit_mismatch_pct",
            0,
            0.01,
            "TB columns are bytes / 10^12 and TiB columns bytes / 2^40 (logical, physical, "
            "saved); a 9.95 % gap is the two units mixed up.",
        ),
        expect.between(
            "usable_ratio_mismatch_pct",
            0,
            1,
            "usable_to_raw_ratio must equal dedupe_compression_ratio / capacity_multiplier "
            "(CONTRACT section 3).",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "ratio_vs_bytes_pct",
            0,
            1,
            "The ratio shown should match logical / physical used bytes within 1%: a "
            "larger gap means a hand-entered ratio disagrees with its own numbers or the "
            "ratio is ESA's overhead-free one.",
        ),
    ]
