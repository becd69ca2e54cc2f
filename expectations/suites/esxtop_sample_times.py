"""`raw.esxtop_sample_times`: the time of every esxtop sample, checked against its capture.

Derived columns (QUERY):
    step_s             seconds since the previous sample of the same file (NULL for the first)
    outside_capture_s  how far the sample lies outside [first_sampled_at, last_sampled_at] of its
                       capture, 0 when inside
    excess_gap_s       step_s - (GAP_FACTOR x interval_s + timestamp_resolution_s): positive when
                       a step is a gap beyond the capture's own jitter and stamp resolution (Excel
                       re-saves keep minutes only)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "esxtop_sample_times"
TABLE = "raw.esxtop_sample_times"
REQUIRES = (TABLE, "raw.esxtop_captures")
QUERY = f"""
with stepped as (
    select
        t._source_file_id, t.sample_index, t.line_number, t.sampled_at,
        epoch(t.sampled_at) - epoch(lag(t.sampled_at) over (
            partition by t._source_file_id order by t.sample_index)) as step_s
    from {TABLE} as t
)
select
    concat_ws(' ', 'file', s._source_file_id, 'line', s.line_number) as row_ref,
    s.step_s,
    greatest(
        epoch(c.first_sampled_at) - epoch(s.sampled_at),
        epoch(s.sampled_at) - epoch(c.last_sampled_at),
        0
    ) as outside_capture_s,
    s.step_s - ({expect.GAP_FACTOR} * c.interval_s + coalesce(c.timestamp_resolution_s, 1))
        as excess_gap_s
from stepped as s
left join raw.esxtop_captures as c using (_source_file_id)
"""


def constraints() -> list[Expectation]:
    return [
        expect.between(
            "step_s",
            0,
            None,
            "Samples are written in time order; a step back means a mis-parsed stamp or a "
            "missed midnight roll-over, and interval maths goes negative.",
        ),
        expect.between(
            "outside_capture_s",
            0,
            0,
            "Every sample must lie inside its capture's first..last window (the window used "
            "to attach the capture to a run).",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "excess_gap_s",
            None,
            0,
            f"A step longer than {expect.GAP_FACTOR}x the capture interval (plus stamp "
            "resolution) is a gap: esxtop or the host stalled, and averages over the run miss "
            "it.",
        ),
    ]
