"""`raw.hcibench_unfinished_vms`: VMs HCIBench left out of a summary (finished early, no avg).

Derived columns (QUERY): none. Any row is worth an alert; none is a constraint failure,
because HCIBench itself reports the run as partial rather than wrong.
"""

from __future__ import annotations

from great_expectations.expectations import Expectation

from expectations.suites import _common as expect

MODEL = "hcibench_unfinished_vms"
TABLE = "raw.hcibench_unfinished_vms"
REQUIRES = (TABLE,)
QUERY = f"""
select concat_ws(' ', case_name, vm_name, reason) as row_ref, case_name, vm_name, reason
from {TABLE}
"""


def constraints() -> list[Expectation]:
    return []


def alerts() -> list[Expectation]:
    return [
        expect.no_rows(
            "Each row is a worker VM that stalled or finished early: the case's totals "
            "cover fewer VMs than it ran, so per-VM comparisons are skewed.",
        ),
    ]
