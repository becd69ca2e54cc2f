"""`raw.vsan_perfsvc_samples`, reduced to one row per series (file x entity x metric).

Derived columns (QUERY):
    min_rate_value   min of the series when its unit is `us`, `B/s` or `IO/s`, else NULL
    min_pct_value, max_pct_value   min/max of `%` series, else NULL
    gap_factor       the longest step between points / the collection interval
                     (`collect_interval_s`, else the series' median step)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect
from expectations.suites._sql import stepped_series

MODEL = "vsan_perfsvc_samples"
TABLE = "raw.vsan_perfsvc_samples"
REQUIRES = (TABLE,)
_FINITE = ("value",)  # flagged per series in the QUERY
_SERIES = "_source_file_id, entity_type, entity_id, metric"
QUERY = f"""
with stepped as ({stepped_series(TABLE, _SERIES)})
select
    concat_ws(' ', 'file', {_SERIES}) as row_ref,
    min(value) filter (where unit in ('us', 'B/s', 'IO/s')) as min_rate_value,
    min(value) filter (where unit = '%') as min_pct_value,
    max(value) filter (where unit = '%') as max_pct_value,
    {expect.finite_group_flags(_FINITE)},
    max(step_s) / nullif(coalesce(max(collect_interval_s), median(step_s)), 0) as gap_factor
from stepped
group by {_SERIES}
"""

_RATE_NOTE = (
    "IOPS, throughput and latency series are non-negative; a negative value is a parse error "
    "(a sign or a separator)."
)
_PCT_NOTE = (
    "Performance-service percentages (CPU usage, cache hit rate) lie in 0..100; outside means "
    "a permille or a ratio was labelled as a percent."
)
_GAP_NOTE = (
    f"A step over {expect.GAP_FACTOR}x the collection interval is a gap in the "
    "performance-service history (service restarted, stats object moved)."
)


def constraints() -> list[Expectation]:
    return [*expect.finite(_FINITE), *expect.series_values(_RATE_NOTE, _PCT_NOTE)]


def alerts() -> list[Expectation]:
    return [expect.gap_alert(_GAP_NOTE)]
