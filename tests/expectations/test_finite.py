"""NaN and Infinity never pass a range check (issue 15): in DuckDB `NaN >= 0` is true, and in the
pandas frame GX validates NaN looks like NULL, which range checks skip."""

from __future__ import annotations

from types import ModuleType

import duckdb
import pytest

from expectations.outcome import CONSTRAINT, EXIT_CONSTRAINT_FAILED, exit_code
from expectations.suites import SUITE_MODULES
from expectations.suites._common import FINITE_SUFFIX
from tests.expectations.crafted import MODULES, build_warehouse, failed, tables_for, validated

MODULE = MODULES["fio_job_directions"]
# Every suite that range-checks a DOUBLE measure declares its measures in `_FINITE`.
FINITE_MODULES = [m for m in SUITE_MODULES if getattr(m, "_FINITE", ())]


def _warehouse_with(tmp_path, column: str, value: str):
    db = build_warehouse(tmp_path / "wh.duckdb", tables_for(MODULE, None))
    with duckdb.connect(str(db)) as con:
        con.execute(f"update {MODULE.TABLE} set {column} = '{value}'::double where job_index = 0")
        (passes_ge_zero,) = con.execute(
            f"select bool_and({column} >= 0) from {MODULE.TABLE}"
        ).fetchone()
    return db, passes_ge_zero


def test_nan_iops_row_fails_the_checks(tmp_path):
    db, passes_ge_zero = _warehouse_with(tmp_path, "iops", "nan")
    assert passes_ge_zero is True  # why a `>= 0` check alone lets it through
    outcomes = validated(db, [MODULE])
    assert "iops_is_finite in [True]" in failed(outcomes, CONSTRAINT)
    assert "iops >= 0" not in failed(outcomes, CONSTRAINT)
    assert exit_code(outcomes) == EXIT_CONSTRAINT_FAILED


def test_nan_latency_row_fails_the_checks(tmp_path):
    db, _ = _warehouse_with(tmp_path, "lat_mean_ns", "nan")
    assert "lat_mean_ns_is_finite in [True]" in failed(validated(db, [MODULE]))


def test_every_range_checked_suite_declares_its_measures():
    assert {m.MODEL for m in FINITE_MODULES} >= {
        "fct_workload_results", "per_node_iops", "profile_latency_deltas", "config_deltas",
        "dedupe_ratios", "transport_cpu_efficiency", "esxtop_captures", "esxtop_cpu",
        "hcibench_summary_blocks", "hcibench_resource_usage", "vdbench_runs",
        "vdbench_intervals", "vsan_capacity_snapshots", "vsan_observer_samples",
        "vsan_perfsvc_samples",
    }  # fmt: skip


@pytest.mark.parametrize("module", FINITE_MODULES, ids=lambda m: m.MODEL)
def test_nan_in_each_measure_fails_its_finite_check(tmp_path, module: ModuleType):
    """NaN put in with SQL (pandas would store it as NULL) on row 0 of the model's table, one
    measure at a time in one warehouse each: only that measure's flag may fail."""
    for column in module._FINITE:
        db = build_warehouse(tmp_path / f"{column}.duckdb", tables_for(module, None))
        with duckdb.connect(str(db)) as con:
            con.execute(f"alter table {module.TABLE} alter {column} type double")
            con.execute(f"update {module.TABLE} set {column} = 'nan'::double where rowid = 0")
        finite_failures = {e for e in failed(validated(db, [module])) if FINITE_SUFFIX in e}
        assert finite_failures == {f"{column}{FINITE_SUFFIX} in [True]"}, module.MODEL


@pytest.mark.parametrize("module", FINITE_MODULES, ids=lambda m: m.MODEL)
def test_good_rows_pass_the_finite_checks(tmp_path, module: ModuleType):
    db = build_warehouse(tmp_path / "wh.duckdb", tables_for(module, None))
    outcomes = validated(db, [module])
    finite_outcomes = [o for o in outcomes if FINITE_SUFFIX in o.expectation]
    assert len(finite_outcomes) == len(module._FINITE)
    assert all(o.success for o in finite_outcomes)
