"""`raw.vsan_observer_samples`, reduced to one row per series (file x entity x metric).

Derived columns (QUERY):
    min_rate_value   min of the series when its unit is a rate or latency (`IO/s`, `B/s`, `us`,
                     `512B-sectors/s`), else NULL: these are deltas the Observer clamps at 0
    min_pct_value, max_pct_value   min/max of PCPU `%` series (stats_group `pcpu`), else NULL
    gap_factor       the longest step between points / the median step of the series
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect
from expectations.suites._sql import stepped_series

MODEL = "vsan_observer_samples"
TABLE = "raw.vsan_observer_samples"
REQUIRES = (TABLE,)
_FINITE = ("value",)  # flagged per series in the QUERY
_SERIES = "_source_file_id, entity_type, host, entity, metric"
QUERY = f"""
with stepped as ({stepped_series(TABLE, _SERIES)})
select
    concat_ws(' ', 'file', {_SERIES}) as row_ref,
    min(value) filter (where unit in ('IO/s', 'B/s', 'us', '512B-sectors/s')) as min_rate_value,
    min(value) filter (where unit = '%' and stats_group = 'pcpu') as min_pct_value,
    max(value) filter (where unit = '%' and stats_group = 'pcpu') as max_pct_value,
    {expect.finite_group_flags(_FINITE)},
    max(step_s) / nullif(median(step_s), 0) as gap_factor
from stepped
group by {_SERIES}
"""

_RATE_NOTE = (
    "Observer rates and latencies are deltas of cumulative counters, clamped at 0; a negative "
    "value means the raw capture was differenced wrongly."
)
_PCT_NOTE = (
    "PCPU usage is a percentage of the CPU's time (0..100); outside means a counter was "
    "differenced over the wrong interval."
)
_GAP_NOTE = (
    f"A step over {expect.GAP_FACTOR}x the series' usual interval is a gap in the Observer "
    "capture (collector stalled): averages over the run window miss that period."
)


def constraints() -> list[Expectation]:
    return [*expect.finite(_FINITE), *expect.series_values(_RATE_NOTE, _PCT_NOTE)]


def alerts() -> list[Expectation]:
    return [expect.gap_alert(_GAP_NOTE)]
