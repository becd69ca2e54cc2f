"""`marts.fct_workload_results`: what every chart reads, one row per workload result.

Derived columns (QUERY):
    throughput_mismatch_pct  |iops x block_size_bytes / 1e6 - throughput_mb_s| as a percent of the
                             larger of the two; 0 when the difference is within 1.05 MB/s (HCIBench
                             prints whole MiB/s, 1 MiB = 1.048576 MB); NULL when a term is missing
    iops_split_mismatch_pct  |iops - (read_iops + write_iops)| as a percent of iops, 0 within one
                             IO/s of rounding; NULL when the split is not reported
    started_year             year(started_at), for the plausible-date window
    ended_after_now_h        hours ended_at lies after the validation time
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "fct_workload_results"
TABLE = "marts.fct_workload_results"
REQUIRES = (TABLE,)
_FINITE = (
    "iops",
    "read_iops",
    "write_iops",
    "throughput_mb_s",
    "avg_latency_ms",
    "read_latency_ms",
    "write_latency_ms",
    "p95_latency_ms",
    "p99_latency_ms",
    "cpu_util_pct",
    "cpu_load_avg",
)
QUERY = f"""
select
    cast(result_id as varchar) as row_ref,
    testbed, source_tool, started_at, ended_at, read_pct, block_size_bytes,
    iops, read_iops, write_iops, throughput_mb_s,
    avg_latency_ms, read_latency_ms, write_latency_ms, p95_latency_ms, p99_latency_ms,
    cpu_util_pct, cpu_load_avg,
    case
        when iops is null or block_size_bytes is null or throughput_mb_s is null then null
        when abs(iops * block_size_bytes / 1e6 - throughput_mb_s) <= 1.05 then 0.0
        else 100 * abs(iops * block_size_bytes / 1e6 - throughput_mb_s)
            / greatest(iops * block_size_bytes / 1e6, throughput_mb_s)
    end as throughput_mismatch_pct,
    case
        when iops is null or read_iops is null or write_iops is null then null
        when abs(iops - read_iops - write_iops) <= 1 then 0.0
        else 100 * abs(iops - read_iops - write_iops) / greatest(iops, 1)
    end as iops_split_mismatch_pct,
    year(started_at) as started_year,
    (epoch(ended_at) - epoch(now())) / 3600.0 as ended_after_now_h,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def _measures() -> list[Expectation]:
    """Rates and latencies: non-negative, percentiles in order."""
    return [
        *expect.non_negative(
            ["iops", "read_iops", "write_iops", "throughput_mb_s"],
            "IOPS and throughput are counts over time: a negative value is a parse or "
            "aggregation bug (counter wrap, wrong sign in a delta).",
        ),
        *expect.non_negative(
            ["avg_latency_ms", "read_latency_ms", "write_latency_ms"],
            "A latency is a duration; below zero means a unit or subtraction error.",
        ),
        *expect.non_negative(
            ["p95_latency_ms", "p99_latency_ms"],
            "Percentile latencies are durations; below zero means a unit or parse error.",
        ),
        *expect.non_negative(
            ["cpu_load_avg"],
            "esxtop's CPU load average is a fraction of the host's CPUs (busy or queued); "
            "below zero is a parse or unit error.",
        ),
        *expect.chain(
            ["p95_latency_ms", "p99_latency_ms"],
            "Percentiles are ordered by definition: p95 above p99 means the columns were "
            "swapped or percentiles of different results were mixed.",
        ),
    ]


def _workload_and_units() -> list[Expectation]:
    """The workload's shape, and units that must agree with each other."""
    return [
        expect.between(
            "read_pct",
            0,
            100,
            "The read share of a workload is a percentage; outside 0..100 the mix was "
            "mis-parsed (e.g. rwmixwrite read as rwmixread).",
        ),
        expect.between(
            "cpu_util_pct",
            0,
            100,
            "CONTRACT: CPU is percent of the host's capacity; above 100 is a per-core or "
            "per-thread figure that was not normalised.",
        ),
        expect.between(
            "block_size_bytes",
            1,
            None,
            "A workload moves whole blocks; a zero or negative block size breaks every "
            "throughput derivation.",
        ),
        expect.throughput_check(
            "throughput_mismatch_pct",
            "IOPS x block size must match throughput within "
            f"{expect.THROUGHPUT_TOLERANCE_PCT}% (or 1.05 MB/s of MiB rounding): a larger gap "
            "is a KiB/MiB/MB mix-up or IOPS and bytes from different runs.",
        ),
        expect.between(
            "iops_split_mismatch_pct",
            0,
            1,
            "Read and write IOPS must add up to total IOPS; otherwise a direction was "
            "dropped or counted twice.",
        ),
    ]


def _time_window() -> list[Expectation]:
    """A plausible run window: in order, after 2010, not in the future."""
    return [
        expect.ordered(
            "started_at",
            "ended_at",
            "A result cannot end before it starts; a reversed window means a time zone or "
            "epoch-unit error and breaks the esxtop/Observer time join.",
        ),
        expect.between(
            "started_year",
            2010,
            None,
            "vSAN benchmarks post-date 2010; an earlier start is an epoch or time-only "
            "stamp (esxtop places those on 1970-01-01) leaking into a result.",
        ),
        expect.between(
            "ended_after_now_h",
            None,
            24,
            "A result cannot end in the future; this catches ms-as-s epochs and local time "
            "stored as UTC with the wrong sign.",
        ),
    ]


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *_measures(),
        *_workload_and_units(),
        *_time_window(),
        expect.unique(
            [
                "testbed",
                "source_tool",
                "started_at",
                "ended_at",
                "read_pct",
                "block_size_bytes",
                "iops",
                "throughput_mb_s",
                "avg_latency_ms",
            ],
            "The same measurement under two result ids (one file loaded twice under "
            "different paths or labels) would be counted twice in every average.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "iops",
            1e-9,
            None,
            "A result with zero IOPS is a stalled or never-started workload; it is real "
            "data but should not be charted as a measurement.",
        ),
        expect.ordered(
            "avg_latency_ms",
            "p99_latency_ms",
            "A p99 below the mean is possible only with extreme outliers; usually it means "
            "the mean and the percentile come from different I/O populations.",
        ),
    ]
