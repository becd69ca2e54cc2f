"""`raw.fio_intervals`: fio `--status-interval` dumps differenced into intervals.

Derived columns (QUERY):
    gap_factor         interval_ms / the median interval_ms of the same job and direction: a
                       status dump that came late (a stalled VM, a paused guest) shows as a gap
    window_overrun_ms  elapsed_end_ms - 1000 x (elapsed_s + 1): the dump must lie inside the
                       job's elapsed time (1 s slack for fio's whole-second `elapsed`)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "fio_intervals"
TABLE = "raw.fio_intervals"
REQUIRES = (TABLE, "raw.fio_jobs")
_FINITE = ("ios", "io_bytes", "iops", "bw_bytes_per_s", "lat_mean_ns")
QUERY = f"""
select
    concat_ws(' ', 'file', i._source_file_id, 'run', i.run_index, 'job', i.job_index, i.direction,
        'dump', i.dump_index) as row_ref,
    i.ios, i.io_bytes, i.iops, i.bw_bytes_per_s, i.lat_mean_ns, i.elapsed_end_ms, i.interval_ms,
    i.interval_ms / nullif(median(i.interval_ms) over (
        partition by i._source_file_id, i.run_index, i.job_index, i.direction), 0) as gap_factor,
    i.elapsed_end_ms - 1000 * (j.elapsed_s + 1) as window_overrun_ms,
    {expect.finite_flags(_FINITE, "i")}
from {TABLE} as i
left join raw.fio_jobs as j using (_source_file_id, run_index, job_index)
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["ios", "io_bytes", "iops", "bw_bytes_per_s", "lat_mean_ns", "elapsed_end_ms"],
            "Differences of cumulative fio counters cannot be negative unless dumps were "
            "taken out of order or from two runs.",
        ),
        expect.between(
            "interval_ms",
            1,
            None,
            "Each interval must move forward in time; zero or negative means duplicate or "
            "reordered status dumps.",
        ),
        expect.between(
            "window_overrun_ms",
            None,
            0,
            "Status dumps must fall inside the job's elapsed time; later ones belong to a "
            "different run appended to the same file.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.gap_alert(
            f"A status interval more than {expect.GAP_FACTOR}x the usual one is a gap in the "
            "series: the VM or fio stalled, and per-interval charts will hide it.",
        ),
    ]
