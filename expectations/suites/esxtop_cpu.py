"""`raw.esxtop_samples` physical-CPU utilisation counters, reduced to min/max per counter.

esxtop_samples holds up to 10^8 cells, so the query reduces in DuckDB before pandas sees it:
one row per file x `Physical Cpu` utilisation counter (`% Util Time`, `% Core Util Time`; not
`% Processor Time`, which exceeds 100 with turbo boost by design).

Derived columns (QUERY):
    min_pct, max_pct   min and max of the counter's samples
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "esxtop_cpu"
TABLE = "raw.esxtop_samples"
REQUIRES = (TABLE, "raw.esxtop_counters")
_FINITE = ("value",)  # flagged per counter in the QUERY
QUERY = f"""
select
    concat_ws(' ', 'file', s._source_file_id, c.header) as row_ref,
    min(s.value) as min_pct,
    max(s.value) as max_pct,
    {expect.finite_group_flags(_FINITE, "s")}
from {TABLE} as s
join raw.esxtop_counters as c
    on s._source_file_id = c._source_file_id and s.counter_id = c.counter_id
where c.object_group = 'Physical Cpu' and c.counter in ('% Util Time', '% Core Util Time')
group by all
"""

_CPU_NOTE = (
    "PCPU utilisation is a percentage of the CPU's time (0..100); outside it the counter was "
    "mis-mapped (a shifted header) or the decimal mark was read wrong (semicolon locale)."
)


def constraints() -> list[Expectation]:
    return [*expect.finite(_FINITE), *expect.percentages(["min_pct", "max_pct"], _CPU_NOTE)]


def alerts() -> list[Expectation]:
    # Idle PCPUs legitimately stay near 0% on large hosts: nothing to alert on here.
    return []
