"""`raw.esxtop_captures`: one row per esxtop batch capture.

Derived columns (QUERY): none.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "esxtop_captures"
TABLE = "raw.esxtop_captures"
REQUIRES = (TABLE,)
_FINITE = ("interval_s",)
QUERY = f"""
select
    concat_ws(' ', 'file', _source_file_id) as row_ref,
    sample_count, interval_s, utc_offset_min, first_sampled_at, last_sampled_at,
    malformed_cells, dropped_rows, has_dates, times_reliable,
    {expect.finite_flags(_FINITE)}
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        expect.between(
            "sample_count",
            1,
            None,
            "A capture without samples cannot be attached to any run window.",
        ),
        expect.between(
            "interval_s",
            0,
            None,
            "The mean sample interval is positive for a time-ordered capture; negative "
            "means the stamps run backwards (wrong day roll-over or time zone).",
        ),
        expect.between(
            "utc_offset_min",
            -840,
            840,
            "PDH bias is a UTC offset in minutes (-14 h..+14 h); beyond that the header "
            "was mis-read and every sample time is shifted.",
        ),
        expect.ordered(
            "first_sampled_at",
            "last_sampled_at",
            "The first sample cannot be later than the last; the run-window join depends on it.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "malformed_cells",
            0,
            0,
            "Non-numeric cells become NULL; a few are normal for esxtop, many mean a "
            "locale or separator problem worth a look.",
        ),
        expect.between(
            "dropped_rows",
            0,
            0,
            "A dropped (truncated) last row means esxtop was killed mid-write: the capture "
            "may end before the run does.",
        ),
        expect.in_set(
            "times_reliable",
            [True],
            "The stamps step backwards or repeat (a re-saved or edited capture): samples are "
            "kept in file order, repeats dropped, and the capture's time window is doubtful; "
            "raw.esxtop_captures.times_note says where.",
        ),
        expect.in_set(
            "has_dates",
            [True],
            "Time-only stamps are placed on 1970-01-01: the capture attaches to a run only "
            "by labels, never by its time window.",
        ),
    ]
