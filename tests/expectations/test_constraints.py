"""Every constraint fails on a crafted bad table, and every expectation says why.

A case copies the GOOD warehouse (tests/expectations/crafted.py), changes one row of the table
its module validates and runs only the named expectation (`crafted.narrowed`): that expectation
must fail and the exit code must be 1. `test_every_constraint_has_a_failing_case` keeps the
list complete: a new constraint without a case fails it.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest

from expectations.describe import describe
from expectations.outcome import CONSTRAINT, EXIT_CONSTRAINT_FAILED, exit_code
from expectations.suites import SUITE_MODULES, suites_of
from expectations.suites._common import FINITE_SUFFIX
from tests.expectations.crafted import (
    GOOD,
    MODULES,
    Tables,
    at,
    failed,
    narrowed,
    ts,
    validate,
    with_row,
)


class Bad(NamedTuple):
    """`change` on row `row` of the model's TABLE must fail the constraint `expectation`."""

    model: str
    change: dict[str, Any]
    expectation: str
    row: int = 0

    def param(self) -> Any:
        module = MODULES[self.model]
        changes = with_row(module.TABLE, self.row, **self.change)
        return pytest.param(
            module, changes, self.expectation, id=f"{self.model}:{self.expectation}"
        )


def _range_cases() -> list[Bad]:
    """Bounds on a column read straight from the table: `X >= b` gets b - 1 (or -150 for the
    -100% floor of a percent change) and `X in [a, b]` gets b + 1, on row 0."""
    cases = []
    for module in SUITE_MODULES:
        table_rows = GOOD.get(module.TABLE) or []
        for expectation in module.constraints():
            kwargs = expectation.configuration.kwargs
            column = kwargs.get("column")
            if not table_rows or column not in table_rows[0]:
                continue
            if expectation.expectation_type != "expect_column_values_to_be_between":
                continue
            low, high = kwargs.get("min_value"), kwargs.get("max_value")
            bad = high + 1 if high is not None else (low - 1 if low > -100 else -150.0)
            cases.append(Bad(module.MODEL, {column: bad}, describe(expectation.configuration)))
    return cases


BAD: list[Bad] = [
    # marts.fct_workload_results
    Bad("fct_workload_results", {"p95_latency_ms": 4.0}, "p95_latency_ms <= p99_latency_ms"),
    Bad("fct_workload_results", {"read_pct": 130}, "read_pct in [0, 100]"),
    Bad("fct_workload_results", {"cpu_util_pct": 340.0}, "cpu_util_pct in [0, 100]"),
    Bad(
        "fct_workload_results",
        {"throughput_mb_s": 4.096 * 1.1 + 1.2},
        "throughput_mismatch_pct in [0, 5]",
    ),
    Bad("fct_workload_results", {"write_iops": 100.0}, "iops_split_mismatch_pct in [0, 1]"),
    Bad("fct_workload_results", {"started_at": at(700)}, "started_at <= ended_at"),
    Bad(
        "fct_workload_results",
        {"started_at": ts("1970-01-01 00:00:05"), "ended_at": ts("1970-01-01 00:10:05")},
        "started_year >= 2010",
    ),
    Bad("fct_workload_results", {"ended_at": ts("2199-01-01")}, "ended_after_now_h <= 24"),
    Bad(
        "fct_workload_results",
        {"testbed": "tb2"},
        "unique (testbed, source_tool, started_at, ended_at, read_pct, block_size_bytes, iops, "
        "throughput_mb_s, avg_latency_ms)",
    ),
    # marts.per_node_iops, dedupe_ratios, transport_cpu_efficiency
    Bad("per_node_iops", {"host_iops_min": 300.0}, "host_iops_min <= host_iops_max"),
    Bad(
        "dedupe_ratios",
        {"capacity_multiplier": 2.5, "usable_to_raw_ratio": 1.6},
        "capacity_multiplier_2dp in [1, 2, 3, 4, 1.33, 1.5, 1.25]",
    ),
    Bad("dedupe_ratios", {"usable_to_raw_ratio": 4.0}, "usable_ratio_mismatch_pct in [0, 1]"),
    Bad("dedupe_ratios", {"dedupe_compression_ratio": -4.0}, "dedupe_compression_ratio >= 0"),
    # TiB printed where TB was meant (vSphere calls TiB "TB"): a 9.95 % gap
    Bad("dedupe_ratios", {"logical_used_tb": 4_000_000 / 2**40}, "unit_mismatch_pct in [0, 0.01]"),
    # raw.fio_*
    Bad("fio_jobs", {"started_at": at(90)}, "started_at <= ended_at"),
    Bad("fio_jobs", {"job_runtime_ms": 90000}, "runtime_outside_window_s <= 1"),
    Bad("fio_jobs", {"read_pct": 101}, "read_pct in [0, 100]"),
    Bad("fio_jobs", {"random_pct": -1}, "random_pct in [0, 100]"),
    Bad("fio_job_directions", {"slat_min_ns": 2500.0}, "slat_min_ns <= slat_mean_ns"),
    Bad("fio_job_directions", {"slat_max_ns": 1500.0}, "slat_mean_ns <= slat_max_ns"),
    Bad("fio_job_directions", {"clat_min_ns": 25000.0}, "clat_min_ns <= clat_mean_ns"),
    Bad("fio_job_directions", {"clat_max_ns": 15000.0}, "clat_mean_ns <= clat_max_ns"),
    Bad("fio_job_directions", {"lat_min_ns": 30000.0}, "lat_min_ns <= lat_mean_ns"),
    Bad(
        "fio_job_directions",
        {"lat_max_ns": 20000.0, "lat_min_ns": 1.0},
        "lat_mean_ns <= lat_max_ns",
    ),
    Bad(
        "fio_job_directions",
        {"clat_mean_ns": 23000.0, "clat_max_ns": 9e4},
        "clat_mean_ns <= lat_mean_ns",
    ),
    # bandwidth in KiB/s stored as bytes/s: both throughput checks see the 1024x gap
    Bad("fio_job_directions", {"bw_bytes_per_s": 4000.0}, "throughput_mismatch_pct in [0, 5]"),
    # io_bytes in KiB (fio < 2.21) taken as bytes
    Bad("fio_job_directions", {"io_bytes": 59000 * 4}, "bytes_per_second_check_pct in [0, 5]"),
    Bad("fio_latency_percentiles", {"latency_ns": 26000.0}, "p50_ns <= p95_ns"),
    Bad("fio_latency_percentiles", {"latency_ns": -5.0}, "min_reported_ns >= 0"),
    Bad("fio_intervals", {"interval_ms": 0}, "interval_ms >= 1"),
    Bad("fio_intervals", {"elapsed_end_ms": 90_000}, "window_overrun_ms <= 0"),
    # raw.esxtop_*
    Bad("esxtop_captures", {"utc_offset_min": 6000}, "utc_offset_min in [-840, 840]"),
    Bad("esxtop_captures", {"first_sampled_at": at(20)}, "first_sampled_at <= last_sampled_at"),
    Bad("esxtop_captures", {"interval_s": -5.0}, "interval_s >= 0"),
    Bad("esxtop_captures", {"sample_count": 0}, "sample_count >= 1"),
    Bad("esxtop_cpu", {"value": 250.0}, "max_pct in [0, 100]"),
    Bad("esxtop_cpu", {"value": -3.0}, "min_pct in [0, 100]"),
    # raw.hcibench_*, vdbench_*, vsan_*
    Bad("hcibench_summary_blocks", {"vms_finished_early": 3}, "unfinished_share in [0, 1]"),
    Bad("vdbench_runs", {"read_pct": 170.0}, "read_pct in [0, 100]"),
    Bad("vdbench_runs", {"cpu_sys_user_pct": 180.0}, "cpu_sys_user_pct in [0, 100]"),
    Bad("vdbench_runs", {"cpu_sys_pct": 30.0}, "cpu_sys_pct <= cpu_sys_user_pct"),
    Bad(
        "vdbench_runs", {"cpu_sys_pct": 130.0, "cpu_sys_user_pct": 140.0}, "cpu_sys_pct in [0, 100]"
    ),
    Bad("vdbench_runs", {"resp_max_ms": 0.5}, "resp_ms <= resp_max_ms"),
    Bad("vdbench_runs", {"read_max_ms": 0.5}, "read_resp_ms <= read_max_ms"),
    Bad("vdbench_runs", {"write_max_ms": 0.5}, "write_resp_ms <= write_max_ms"),
    Bad("vdbench_runs", {"mib_per_s": 3910.0}, "throughput_mismatch_pct in [0, 5]"),
    Bad("vdbench_intervals", {"read_pct": 101.0}, "read_pct in [0, 100]"),
    Bad("vdbench_intervals", {"cpu_sys_user_pct": 101.0}, "cpu_sys_user_pct in [0, 100]"),
    Bad("vdbench_intervals", {"cpu_sys_pct": -1.0}, "cpu_sys_pct in [0, 100]"),
    Bad(
        "vsan_capacity_snapshots",
        {"free_capacity_bytes": 20_000_000},
        "free_capacity_bytes <= total_capacity_bytes",
    ),
    Bad(
        "vsan_capacity_snapshots",
        {"physical_used_bytes": 20_000_000},
        "physical_used_bytes <= total_capacity_bytes",
    ),
    Bad("vsan_observer_samples", {"value": 120.0}, "max_pct_value in [0, 100]"),
    Bad("vsan_observer_samples", {"value": -1.0}, "min_pct_value in [0, 100]"),
    Bad("vsan_perfsvc_samples", {"value": 120.0}, "max_pct_value in [0, 100]"),
    Bad("vsan_perfsvc_samples", {"value": -1.0}, "min_pct_value in [0, 100]"),
]


# Cases on a row other than 0: a later percentile or sample, the second series.
BAD_ROWS: list[Bad] = [
    Bad("fio_latency_percentiles", {"latency_ns": 24000.0}, "p95_ns <= p99_ns", row=2),
    Bad("fio_latency_percentiles", {"latency_ns": 27000.0}, "p99_ns <= p99_9_ns", row=3),
    Bad("esxtop_sample_times", {"sampled_at": at(1)}, "step_s >= 0", row=2),
    Bad("esxtop_sample_times", {"sampled_at": at(15)}, "outside_capture_s in [0, 0]", row=2),
    Bad("vsan_observer_samples", {"value": -10.0}, "min_rate_value >= 0", row=5),
    Bad("vsan_perfsvc_samples", {"value": -10.0}, "min_rate_value >= 0", row=4),
]


def _finite_cases() -> list[Bad]:
    """Infinity in each measure fails its finiteness check (pandas turns NaN into NULL on the
    way into DuckDB; tests/expectations/test_finite.py puts a NaN in with SQL)."""
    return [
        Bad(module.MODEL, {column: float("inf")}, f"{column}{FINITE_SUFFIX} in [True]")
        for module in SUITE_MODULES
        for column in getattr(module, "_FINITE", ())
    ]


BAD_CASES = [case.param() for case in (*_range_cases(), *BAD, *BAD_ROWS, *_finite_cases())]


@pytest.mark.parametrize(("module", "changes", "expectation"), BAD_CASES)
def test_bad_table_fails_the_named_constraint(
    tmp_path: Path, module: ModuleType, changes: Tables, expectation: str
) -> None:
    outcomes = validate(tmp_path, narrowed(module, expectation, CONSTRAINT), changes)
    assert expectation in failed(outcomes)
    assert exit_code(outcomes) == EXIT_CONSTRAINT_FAILED


def test_every_constraint_has_a_failing_case() -> None:
    covered = {(case.values[0].MODEL, case.values[2]) for case in BAD_CASES}
    declared = {
        (module.MODEL, describe(e.configuration))
        for module in SUITE_MODULES
        for e in module.constraints()
    }
    assert declared - covered == set()


def test_every_expectation_says_why() -> None:
    for module in SUITE_MODULES:
        for suite in suites_of(module):
            assert suite.name in (f"{module.MODEL}.constraints", f"{module.MODEL}.alerts")
            for expectation in suite.expectations:
                assert len(expectation.meta["notes"]) > 20, (suite.name, expectation)
