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

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect
from expectations.suites._sql import PER_VM_FIO_IOPS

MODEL = "hcibench_summary_blocks"
TABLE = "raw.hcibench_summary_blocks"
REQUIRES = (TABLE, "raw.source_files", "raw.fio_jobs", "raw.fio_job_directions")
_FINITE = (
    "iops",
    "throughput_mib_per_s",
    "latency_ms_vm_avg",
    "read_latency_ms_vm_avg",
    "write_latency_ms_vm_avg",
    "p95_read_latency_ms_vm_avg",
    "p95_write_latency_ms_vm_avg",
)
QUERY = f"""
with per_vm as ({PER_VM_FIO_IOPS}),
recomputed as (
    select hcibench_case as case_name, sum(iops) as recomputed_iops from per_vm group by all
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
        as iops_vs_recomputed_pct,
    {expect.finite_flags(_FINITE, "b")}
from {TABLE} as b
left join summary as s using (case_name)
left join recomputed as r using (case_name)
"""


def constraints() -> list[Expectation]:
    return [
        *expect.finite(_FINITE),
        *expect.non_negative(
            ["iops", "throughput_mib_per_s", "vm_count", "vms_finished_early"],
            "Summary IOPS, throughput and VM counts are non-negative as printed.",
        ),
        *expect.non_negative(
            [
                "latency_ms_vm_avg",
                "read_latency_ms_vm_avg",
                "write_latency_ms_vm_avg",
                "p95_read_latency_ms_vm_avg",
                "p95_write_latency_ms_vm_avg",
            ],
            "Latencies are durations; negative means the summary line was mis-split.",
        ),
        expect.between(
            "unfinished_share",
            0,
            1,
            "No more VMs can finish early than the summary covers.",
        ),
    ]


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "vms_finished_early",
            0,
            0,
            "HCIBench summarised only the VMs that finished: the figures of a block with "
            "finished-early VMs under-count the cluster.",
        ),
        expect.between(
            "iops_vs_recomputed_pct",
            0,
            2,
            "HCIBench's summary IOPS should equal the sum of the per-VM fio IOPS within 2%; "
            "a gap means a VM file is missing from the warehouse or from the summary.",
        ),
    ]
