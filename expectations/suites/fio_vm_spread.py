"""Per-VM IOPS spread inside one HCIBench test case, from the per-VM fio outputs.

HCIBench runs the same workload on every worker VM; VMs far apart mean one was starved
(a host imbalance, a VM on a resyncing disk group, a stalled guest).

Derived columns (QUERY), one row per test case with more than one VM file:
    vm_files           per-VM fio files of the case (`raw.source_files.hcibench_case`)
    iops_spread_pct    100 x (max - min) / mean of the per-VM IOPS (read + write, no client
                       aggregates)
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect
from expectations.suites._sql import PER_VM_FIO_IOPS

MODEL = "fio_vm_spread"
TABLE = "raw.fio_job_directions"
REQUIRES = (TABLE, "raw.fio_jobs", "raw.source_files")
QUERY = f"""
with per_vm as ({PER_VM_FIO_IOPS})
select
    hcibench_case as row_ref,
    count(*) as vm_files,
    100 * (max(iops) - min(iops)) / nullif(avg(iops), 0) as iops_spread_pct
from per_vm
group by hcibench_case
having count(*) > 1
"""


def constraints() -> list[Expectation]:
    return []


def alerts() -> list[Expectation]:
    return [
        expect.between(
            "iops_spread_pct",
            0,
            expect.IOPS_SPREAD_ALERT_PCT,
            "Worker VMs running the same workload should be within "
            f"{expect.IOPS_SPREAD_ALERT_PCT}% of each other; a wider spread means a starved "
            "or stalled VM skews the total.",
        ),
    ]
