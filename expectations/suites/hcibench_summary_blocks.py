"""`raw.hcibench_summary_blocks` against the per-VM fio outputs of the same test case.

HCIBench's `-res.txt` summary is kept as printed; the warehouse recomputes the same figures from
the per-VM files. A disagreement is an alert: one of the two missed a VM or a unit.

Derived columns (QUERY):
    unfinished_share        vms_finished_early / vm_count
    recomputed_iops         sum of fio `iops` over the case's per-VM files (`raw.source_files.
                            hcibench_case` = case_name; read + write, no client aggregates);
                            NULL when the case has no per-VM fio rows
    iops_vs_recomputed_pct  |iops - recomputed_iops| as a percent of recomputed_iops (summaries
                            with several datastore blocks are summed per case first)
"""

from __future__ import annotations

import great_expectations as gx

from expectations.suites._common import (
    alert_suite,
    between,
    constraint_suite,
    non_negative,
)

MODEL = "hcibench_summary_blocks"
TABLE = "raw.hcibench_summary_blocks"
REQUIRES = (TABLE, "raw.source_files", "raw.fio_jobs", "raw.fio_job_directions")
QUERY = f"""
with recomputed as (
    select sf.hcibench_case as case_name, sum(d.iops) as recomputed_iops
    from raw.fio_job_directions as d
    join raw.fio_jobs as j using (_source_file_id, run_index, job_index)
    join raw.source_files as sf on sf.source_file_id = d._source_file_id
    where sf.hcibench_case is not null
        and not coalesce(j.is_all_clients_aggregate, false)
        and d.direction in ('read', 'write', 'trim')
    group by all
),
summary as (
    select case_name, sum(iops) as case_iops from {TABLE} group by all
)
select
    concat_ws(' ', b.case_name, b.datastore_name, 'block', b.block_index) as row_ref,
    b.vm_count, b.vms_finished_early, b.iops, b.throughput_mib_per_s,
    b.latency_ms_vm_avg, b.read_latency_ms_vm_avg, b.write_latency_ms_vm_avg,
    b.p95_read_latency_ms_vm_avg, b.p95_write_latency_ms_vm_avg,
    b.vms_finished_early / nullif(b.vm_count, 0) as unfinished_share,
    r.recomputed_iops,
    100 * abs(s.case_iops - r.recomputed_iops) / nullif(r.recomputed_iops, 0)
        as iops_vs_recomputed_pct
from {TABLE} as b
left join summary as s using (case_name)
left join recomputed as r using (case_name)
"""


def constraints() -> gx.ExpectationSuite:
    return constraint_suite(
        MODEL,
        [
            *non_negative(
                ["iops", "throughput_mib_per_s", "vm_count", "vms_finished_early"],
                "Summary IOPS, throughput and VM counts are non-negative as printed.",
            ),
            *non_negative(
                [
                    "latency_ms_vm_avg",
                    "read_latency_ms_vm_avg",
                    "write_latency_ms_vm_avg",
                    "p95_read_latency_ms_vm_avg",
                    "p95_write_latency_ms_vm_avg",
                ],
                "Latencies are durations; negative means the summary line was mis-split.",
            ),
            between(
                "unfinished_share",
                0,
                1,
                "No more VMs can finish early than the summary covers.",
            ),
        ],
    )


def alerts() -> gx.ExpectationSuite:
    return alert_suite(
        MODEL,
        [
            between(
                "vms_finished_early",
                0,
                0,
                "HCIBench summarised only the VMs that finished: the figures of a block with "
                "finished-early VMs under-count the cluster.",
            ),
            between(
                "iops_vs_recomputed_pct",
                0,
                2,
                "HCIBench's summary IOPS should equal the sum of the per-VM fio IOPS within 2%; "
                "a gap means a VM file is missing from the warehouse or from the summary.",
            ),
        ],
    )
