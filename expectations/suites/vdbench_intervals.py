"""`raw.vdbench_intervals`: Vdbench's per-interval lines.

Derived columns (QUERY):
    step_ms     ms since the previous interval line of the same file and run (a step across
                midnight adds a day); NULL for the first line
    gap_factor  step_ms / the median step of the same file and run
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "vdbench_intervals"
TABLE = "raw.vdbench_intervals"
REQUIRES = (TABLE,)
_FINITE = ("iops", "mib_per_s", "read_pct", "resp_ms", "cpu_sys_user_pct", "cpu_sys_pct")
QUERY = f"""
with stepped as (
    select
        *,
        (tod_ms - lag(tod_ms) over w + 86400000) % 86400000 as step_ms
    from {TABLE}
    window w as (partition by _source_file_id, run_index order by interval_index)
)
select
    concat_ws(' ', 'file', _source_file_id, 'run', run_index, 'interval', interval_index)
        as row_ref,
    iops, mib_per_s, read_pct, resp_ms, cpu_sys_user_pct, cpu_sys_pct, step_ms,
    step_ms / nullif(median(step_ms) over (partition by _source_file_id, run_index), 0)
        as gap_factor,
    {expect.finite_flags(_FINITE)}
from stepped
"""

_CPU_NOTE = "Vdbench's cpu% columns are percent of the host's CPUs (0..100)."


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["iops", "mib_per_s", "resp_ms"],
            "Interval rates and response times are non-negative as printed.",
        ),
        expect.between("read_pct", 0, 100, "The read share of an interval is a percentage."),
        *expect.percentages(["cpu_sys_user_pct", "cpu_sys_pct"], _CPU_NOTE),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.gap_alert(
            f"An interval line more than {expect.GAP_FACTOR}x the usual step after the "
            "previous one is a gap: the VM stalled and the run's averages hide it.",
        ),
    ]
