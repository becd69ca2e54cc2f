"""`raw.fio_latency_percentiles`, pivoted to one row per job x direction x latency kind.

Derived columns (QUERY):
    p50_ns, p95_ns, p99_ns, p99_9_ns   latency_ns at those percentiles (NULL when not reported)
    mean_ns                            the matching `{kind}_mean_ns` of raw.fio_job_directions
    io_count                           total_ios of the direction (percentiles of 0 I/Os are 0)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "fio_latency_percentiles"
TABLE = "raw.fio_latency_percentiles"
REQUIRES = (TABLE, "raw.fio_job_directions")
_FINITE = ("latency_ns",)  # flagged per job and kind in the QUERY
QUERY = f"""
with pivoted as (
    select
        _source_file_id, run_index, job_index, direction, latency_kind,
        min(latency_ns) as min_reported_ns,
        {expect.finite_group_flags(_FINITE)},
        max(latency_ns) filter (where percentile = 50) as p50_ns,
        max(latency_ns) filter (where percentile = 95) as p95_ns,
        max(latency_ns) filter (where percentile = 99) as p99_ns,
        max(latency_ns) filter (where percentile = 99.9) as p99_9_ns
    from {TABLE}
    group by all
)
select
    concat_ws(' ', 'file', p._source_file_id, 'run', p.run_index, 'job', p.job_index,
        p.direction, p.latency_kind) as row_ref,
    p.min_reported_ns, p.latency_ns_is_finite, p.p50_ns, p.p95_ns, p.p99_ns, p.p99_9_ns,
    case p.latency_kind
        when 'slat' then d.slat_mean_ns when 'clat' then d.clat_mean_ns else d.lat_mean_ns
    end as mean_ns
from pivoted as p
left join raw.fio_job_directions as d
    using (_source_file_id, run_index, job_index, direction)
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["min_reported_ns"],
            "Percentile latencies are durations; negative means a parse or unit error.",
        ),
        *expect.chain(
            ["p50_ns", "p95_ns", "p99_ns", "p99_9_ns"],
            "Percentiles are monotone by definition (p50 <= p95 <= p99 <= p99.9); a "
            "violation means percentile keys were mis-read (fio 2.x duplicate keys) or "
            "values from different directions were mixed.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.ordered(
            "mean_ns",
            "p99_ns",
            "A p99 under its mean needs a few extreme outliers; usually the percentile and "
            "the mean come from different kinds (clat vs lat) or units.",
        ),
    ]
