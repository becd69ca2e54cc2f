"""Alerts: crafted data raises the named alert, and the run still exits 0.

Unlike the constraint cases these run the module's whole suites, so each case also proves that
the crafted alert data is otherwise valid (no constraint fails).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest

from expectations.outcome import ALERT, EXIT_OK, exit_code
from expectations.suites import fio_vm_spread
from tests.expectations.crafted import GOOD, MODULES, Tables, at, failed, validate, with_row


class Alert(NamedTuple):
    """`change` on row `row` of the model's TABLE (plus the tables in `also`) must raise the
    alert `expectation`."""

    id: str
    model: str
    change: dict[str, Any]
    expectation: str
    row: int = 0
    also: Tables | None = None

    def param(self) -> Any:
        module = MODULES[self.model]
        changes = with_row(module.TABLE, self.row, **self.change) if self.change else {}
        return pytest.param(module, changes | (self.also or {}), self.expectation, id=self.id)


_GAP = "gap_factor in [0, 2]"
_UNFINISHED_VM = {
    "case_name": "case-a",
    "datastore_name": None,
    "block_index": None,
    "vm_name": "vm-2",
    "listed_file": "vm-2.json",
    "reason": "finished_early",
}
_FIO_GAP = {"interval_ms": 30_000, "elapsed_end_ms": 32_000, "io_bytes": 4096000}
_MEAN_ABOVE_P99 = {"avg_latency_ms": 3.5, "read_latency_ms": 3.0, "write_latency_ms": 4.5}
_RATIO_VS_BYTES = {"dedupe_compression_ratio": 5.0, "usable_to_raw_ratio": 2.5}

ALERTS = [
    Alert("fio finished early", "fio_jobs", {"state": "unfinished"}, "state in ['ok']"),
    Alert("fio interval gap", "fio_intervals", _FIO_GAP, _GAP, row=2),
    Alert(
        "esxtop 30 s gap",
        "esxtop_sample_times",
        {"sampled_at": at(40)},
        "excess_gap_s <= 0",
        row=2,
        also=with_row("raw.esxtop_captures", 0, last_sampled_at=at(40)),
    ),
    Alert("vdbench interval gap", "vdbench_intervals", {"tod_ms": 36_030_000}, _GAP, row=4),
    Alert("observer gap", "vsan_observer_samples", {"sampled_at": at(900)}, _GAP, row=4),
    Alert("perfsvc gap", "vsan_perfsvc_samples", {"sampled_at": at(3000)}, _GAP, row=2),
    Alert(
        "host imbalance",
        "per_node_iops",
        {"host_imbalance_pct": 40.0},
        "host_imbalance_pct in [0, 25]",
    ),
    Alert(
        "summary vs recomputed",
        "hcibench_summary_blocks",
        {"iops": 1200.0},
        "iops_vs_recomputed_pct in [0, 2]",
    ),
    Alert(
        "summary VMs finished early",
        "hcibench_summary_blocks",
        {"vms_finished_early": 1},
        "vms_finished_early in [0, 0]",
    ),
    Alert(
        "unfinished VM listed",
        "hcibench_unfinished_vms",
        {},
        "row count = 0",
        also={"raw.hcibench_unfinished_vms": [_UNFINISHED_VM]},
    ),
    Alert(
        "capacity ratio mismatch",
        "vsan_capacity_snapshots",
        {"ratio_matches_reported": False},
        "ratio_matches_reported in [True]",
    ),
    Alert(
        "dedupe ratio vs bytes", "dedupe_ratios", _RATIO_VS_BYTES, "ratio_vs_bytes_pct in [0, 1]"
    ),
    Alert(
        "mean above p99",
        "fct_workload_results",
        _MEAN_ABOVE_P99,
        "avg_latency_ms <= p99_latency_ms",
    ),
]


@pytest.mark.parametrize(("module", "changes", "expectation"), [a.param() for a in ALERTS])
def test_alert_is_reported_without_failing_the_run(
    tmp_path: Path, module: ModuleType, changes: Tables, expectation: str
) -> None:
    outcomes = validate(tmp_path, module, changes)
    assert expectation in failed(outcomes, ALERT)
    assert failed(outcomes) == set()  # the crafted alert data is otherwise valid
    assert exit_code(outcomes) == EXIT_OK


def test_per_vm_iops_spread_alert(tmp_path: Path) -> None:
    direction = GOOD["raw.fio_job_directions"][0]
    second_vm = {
        "raw.source_files": [
            *GOOD["raw.source_files"],
            {"source_file_id": 2, "hcibench_case": "case-a"},
        ],
        "raw.fio_jobs": [*GOOD["raw.fio_jobs"], {**GOOD["raw.fio_jobs"][0], "_source_file_id": 2}],
        "raw.fio_job_directions": [
            *GOOD["raw.fio_job_directions"],
            {**direction, "_source_file_id": 2, "iops": 400.0, "bw_bytes_per_s": 1638400.0},
        ],
    }
    outcomes = validate(tmp_path, fio_vm_spread, second_vm)
    spread = [o for o in outcomes if o.expectation == "iops_spread_pct in [0, 25]"]
    assert [(o.success, o.unexpected_count) for o in spread] == [(False, 1)]
    assert "case-a" in spread[0].observed
    assert exit_code(outcomes) == EXIT_OK
