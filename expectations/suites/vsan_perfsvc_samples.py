"""`raw.vsan_perfsvc_samples`, reduced to one row per series (file x entity x metric).

Derived columns (QUERY):
    min_rate_value   min of the series when its unit is `us`, `B/s` or `IO/s`, else NULL
    min_pct_value, max_pct_value   min/max of `%` series, else NULL
    gap_factor       the longest step between points / the collection interval
                     (`collect_interval_s`, else the series' median step)
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import (
    GAP_FACTOR,
    alert_suite,
    between,
    constraint_suite,
)

MODEL = "vsan_perfsvc_samples"
TABLE = "raw.vsan_perfsvc_samples"
REQUIRES = (TABLE,)
QUERY = f"""
with stepped as (
    select
        *,
        epoch(sampled_at) - epoch(lag(sampled_at) over (
            partition by _source_file_id, entity_type, entity_id, metric
            order by sampled_at)) as step_s
    from {TABLE}
)
select
    concat_ws(' ', 'file', _source_file_id, entity_type, entity_id, metric) as row_ref,
    min(value) filter (where unit in ('us', 'B/s', 'IO/s')) as min_rate_value,
    min(value) filter (where unit = '%') as min_pct_value,
    max(value) filter (where unit = '%') as max_pct_value,
    max(step_s) / nullif(coalesce(max(collect_interval_s), median(step_s)), 0) as gap_factor
from stepped
group by _source_file_id, entity_type, entity_id, metric
"""

_PCT_NOTE = (
    "Performance-service percentages (CPU usage, cache hit rate) lie in 0..100; outside means "
    "a permille or a ratio was labelled as a percent."
)


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            between(
                "min_rate_value",
                0,
                None,
                "IOPS, throughput and latency series are non-negative; a negative value is a "
                "parse error (a sign or a separator).",
            ),
            between("min_pct_value", 0, 100, _PCT_NOTE),
            between("max_pct_value", 0, 100, _PCT_NOTE),
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "gap_factor",
                0,
                GAP_FACTOR,
                f"A step over {GAP_FACTOR}x the collection interval is a gap in the "
                "performance-service history (service restarted, stats object moved).",
            ),
        ],
    )
