"""SQL pieces more than one suite QUERY needs, so the rule they encode is written once."""

from __future__ import annotations

# Per-VM fio IOPS of each HCIBench test case: one row per case x per-VM fio file, counting
# read + write + trim and never the "All clients" aggregate (it would count every VM twice).
PER_VM_FIO_IOPS = """
    select sf.hcibench_case, d._source_file_id, sum(d.iops) as iops
    from raw.fio_job_directions as d
    join raw.fio_jobs as j using (_source_file_id, run_index, job_index)
    join raw.source_files as sf on sf.source_file_id = d._source_file_id
    where sf.hcibench_case is not null
        and not coalesce(j.is_all_clients_aggregate, false)
        and d.direction in ('read', 'write', 'trim')
    group by all
"""


def stepped_series(table: str, series: str) -> str:
    """`table` with `step_s`: seconds since the previous point of the same series (NULL first).

    `series` lists the key columns of one series, comma-separated.
    """
    return f"""
    select
        *,
        epoch(sampled_at) - epoch(lag(sampled_at) over (
            partition by {series}
            order by sampled_at)) as step_s
    from {table}
"""
