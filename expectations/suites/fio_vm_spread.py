"""Per-VM IOPS spread inside one HCIBench test case, from the per-VM fio outputs.

HCIBench runs the same workload on every worker VM; VMs far apart mean one was starved
(a host imbalance, a VM on a resyncing disk group, a stalled guest).

Derived columns (QUERY), one row per test case with more than one VM file:
    vm_files           per-VM fio files of the case (`raw.source_files.hcibench_case`)
    iops_spread_pct    100 x (max - min) / mean of the per-VM IOPS (read + write, no client
                       aggregates)
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import (
    IOPS_SPREAD_ALERT_PCT,
    alert_suite,
    between,
    constraint_suite,
)

MODEL = "fio_vm_spread"
TABLE = "raw.fio_job_directions"
REQUIRES = (TABLE, "raw.fio_jobs", "raw.source_files")
QUERY = f"""
with per_vm as (
    select sf.hcibench_case, d._source_file_id, sum(d.iops) as iops
    from {TABLE} as d
    join raw.fio_jobs as j using (_source_file_id, run_index, job_index)
    join raw.source_files as sf on sf.source_file_id = d._source_file_id
    where sf.hcibench_case is not null
        and not coalesce(j.is_all_clients_aggregate, false)
        and d.direction in ('read', 'write', 'trim')
    group by all
)
select
    hcibench_case as row_ref,
    count(*) as vm_files,
    100 * (max(iops) - min(iops)) / nullif(avg(iops), 0) as iops_spread_pct
from per_vm
group by hcibench_case
having count(*) > 1
"""


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(MODEL, [])


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "iops_spread_pct",
                0,
                IOPS_SPREAD_ALERT_PCT,
                f"Worker VMs running the same workload should be within {IOPS_SPREAD_ALERT_PCT}% "
                "of each other; a wider spread means a starved or stalled VM skews the total.",
            ),
        ],
    )
