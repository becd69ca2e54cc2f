"""`raw.fio_job_directions`: fio's per-job, per-direction totals (latencies in ns).

Derived columns (QUERY):
    throughput_mismatch_pct  |iops x block_size_bytes - bw_bytes_per_s| as a percent of the larger
                             of the two, with the job's block size from `raw.fio_jobs`; 0 within
                             one I/O per second (fio 2.x prints integer IOPS); NULL for
                             bssplit/bsrange jobs (no single block size) or unknown terms
    bytes_per_second_check_pct  |iops x io_bytes / total_ios - bw_bytes_per_s| likewise: fio
                             derives both from the same runtime, so a gap is a unit error (fio
                             before 2.21 wrote io_bytes in KiB); NULL for the normal text report,
                             whose `io=13.0GiB` keeps three digits
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "fio_job_directions"
_KINDS = ("slat", "clat", "lat")
# Every measure a result is made of: none may be NaN or Infinity.
_FINITE = (
    "total_ios",
    "io_bytes",
    "bw_bytes_per_s",
    "iops",
    "runtime_ms",
    *(f"{kind}_{stat}_ns" for kind in _KINDS for stat in ("min", "mean", "max")),
)
TABLE = "raw.fio_job_directions"
REQUIRES = (TABLE, "raw.fio_jobs", "raw.fio_runs")
QUERY = f"""
select
    concat_ws(' ', 'file', d._source_file_id, 'run', d.run_index, 'job', d.job_index, d.direction)
        as row_ref,
    d.total_ios, d.io_bytes, d.bw_bytes_per_s, d.iops, d.runtime_ms,
    d.slat_min_ns, d.slat_mean_ns, d.slat_max_ns,
    d.clat_min_ns, d.clat_mean_ns, d.clat_max_ns,
    d.lat_min_ns, d.lat_mean_ns, d.lat_max_ns,
    case
        when j.block_size_bytes is null or d.iops is null or d.bw_bytes_per_s is null then null
        when coalesce(j.options_json, '') similar to '.*(bssplit|bsrange|"bs": "[^"]*[,-]).*'
            then null
        when abs(d.iops * j.block_size_bytes - d.bw_bytes_per_s) <= j.block_size_bytes then 0.0
        else 100 * abs(d.iops * j.block_size_bytes - d.bw_bytes_per_s)
            / greatest(d.iops * j.block_size_bytes, d.bw_bytes_per_s)
    end as throughput_mismatch_pct,
    case
        when d.total_ios is null or d.total_ios = 0 or d.io_bytes is null or d.iops is null
            or d.bw_bytes_per_s is null or r.output_format = 'normal' then null
        when abs(d.iops * d.io_bytes / d.total_ios - d.bw_bytes_per_s)
            <= greatest(d.io_bytes / d.total_ios, 1024) then 0.0
        else 100 * abs(d.iops * d.io_bytes / d.total_ios - d.bw_bytes_per_s)
            / greatest(d.iops * d.io_bytes / d.total_ios, d.bw_bytes_per_s)
    end as bytes_per_second_check_pct,
    {expect.finite_flags(_FINITE, "d")}
from {TABLE} as d
left join raw.fio_jobs as j using (_source_file_id, run_index, job_index)
left join raw.fio_runs as r using (_source_file_id, run_index)
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["total_ios", "io_bytes", "bw_bytes_per_s", "iops", "runtime_ms"],
            "I/O counts, bytes, rates and runtimes cannot be negative; a negative value is "
            "a sign error in the parser or a differenced counter that wrapped.",
        ),
        *expect.non_negative(
            [f"{kind}_{stat}_ns" for kind in _KINDS for stat in ("min", "mean", "max")],
            "Latencies are durations; below zero means a unit or parse error.",
        ),
        *[
            check
            for kind in _KINDS
            for check in expect.chain(
                [f"{kind}_min_ns", f"{kind}_mean_ns", f"{kind}_max_ns"],
                f"min <= mean <= max holds for any {kind} sample set; a violation means "
                "fields were shifted (terse column offsets) or mixed units (usec vs nsec).",
            )
        ],
        expect.ordered(
            "clat_mean_ns",
            "lat_mean_ns",
            "fio's total latency is submission plus completion latency, so its mean is at "
            "least the completion mean; reversed means slat/clat/lat columns were swapped.",
        ),
        expect.throughput_check(
            "throughput_mismatch_pct",
            "IOPS x block size must give the bandwidth within "
            f"{expect.THROUGHPUT_TOLERANCE_PCT}%: otherwise the block size or a KiB/bytes "
            "unit is wrong.",
        ),
        expect.throughput_check(
            "bytes_per_second_check_pct",
            "fio computes IOPS and bandwidth over the same runtime, so IOPS x bytes per I/O "
            "equals bandwidth; a gap is io_bytes in KiB (fio < 2.21) taken as bytes.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "lat_max_ns",
            0,
            5e9,
            "An I/O taking over 5 s is a stall (path failover, host hang, a VM paused): the "
            "run's averages are real but hide an incident worth reading about.",
        ),
    ]
