"""`raw.vsan_observer_samples`, reduced to one row per series (file x entity x metric).

Derived columns (QUERY):
    min_rate_value   min of the series when its unit is a rate or latency (`IO/s`, `B/s`, `us`,
                     `512B-sectors/s`), else NULL: these are deltas the Observer clamps at 0
    min_pct_value, max_pct_value   min/max of PCPU `%` series (stats_group `pcpu`), else NULL
    gap_factor       the longest step between points / the median step of the series
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import (
    GAP_FACTOR,
    alert_suite,
    between,
    constraint_suite,
)

MODEL = "vsan_observer_samples"
TABLE = "raw.vsan_observer_samples"
REQUIRES = (TABLE,)
QUERY = f"""
with stepped as (
    select
        *,
        epoch(sampled_at) - epoch(lag(sampled_at) over (
            partition by _source_file_id, entity_type, host, entity, metric
            order by sampled_at)) as step_s
    from {TABLE}
)
select
    concat_ws(' ', 'file', _source_file_id, entity_type, host, entity, metric) as row_ref,
    min(value) filter (where unit in ('IO/s', 'B/s', 'us', '512B-sectors/s')) as min_rate_value,
    min(value) filter (where unit = '%' and stats_group = 'pcpu') as min_pct_value,
    max(value) filter (where unit = '%' and stats_group = 'pcpu') as max_pct_value,
    max(step_s) / nullif(median(step_s), 0) as gap_factor
from stepped
group by _source_file_id, entity_type, host, entity, metric
"""

_PCT_NOTE = (
    "PCPU usage is a percentage of the CPU's time (0..100); outside means a counter was "
    "differenced over the wrong interval."
)


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            between(
                "min_rate_value",
                0,
                None,
                "Observer rates and latencies are deltas of cumulative counters, clamped at 0; "
                "a negative value means the raw capture was differenced wrongly.",
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
                f"A step over {GAP_FACTOR}x the series' usual interval is a gap in the Observer "
                "capture (collector stalled): averages over the run window miss that period.",
            ),
        ],
    )
