"""The data-quality suites: each constraint fails on a crafted bad table, good data passes.

GOOD holds a small valid warehouse (only the columns the suites read). A bad case copies it,
changes one row of one table and validates the module that owns the table; the named expectation
must fail and the exit code must be 1. `python -m expectations` itself (`run.main`) is exercised
end to end on good data, on one bad table, on alerts only and on usage errors. One GX context is
shared by the whole session (`run._context` is cached): importing GX is the slow part.
"""

from __future__ import annotations

import copy
import math
import warnings
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import duckdb
import great_expectations as gx
import pandas as pd
import pytest
from rich.console import Console

from expectations import run
from expectations.suites import (
    SUITE_MODULES,
    dedupe_ratios,
    esxtop_captures,
    esxtop_cpu,
    esxtop_sample_times,
    fct_workload_results,
    fio_intervals,
    fio_job_directions,
    fio_jobs,
    fio_latency_percentiles,
    fio_vm_spread,
    hcibench_summary_blocks,
    hcibench_unfinished_vms,
    per_node_iops,
    vdbench_intervals,
    vdbench_runs,
    vsan_capacity_snapshots,
    vsan_observer_samples,
    vsan_perfsvc_samples,
)


def ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz="UTC")


T0 = "2024-03-01 10:00:00"


def at(seconds: float) -> pd.Timestamp:
    return ts(T0) + pd.Timedelta(seconds=seconds)


_WORKLOAD = {
    "result_id": 1,
    "testbed": "tb1",
    "source_tool": "fio",
    "started_at": at(0),
    "ended_at": at(600),
    "read_pct": 70,
    "block_size_bytes": 4096,
    "iops": 1000.0,
    "read_iops": 700.0,
    "write_iops": 300.0,
    "throughput_mb_s": 4.096,
    "avg_latency_ms": 1.0,
    "read_latency_ms": 0.8,
    "write_latency_ms": 1.5,
    "p95_latency_ms": 2.0,
    "p99_latency_ms": 3.0,
    "cpu_util_pct": 40.0,
}
_DIRECTION = {
    "_source_file_id": 1,
    "run_index": 0,
    "job_index": 0,
    "direction": "read",
    "total_ios": 59000,
    "io_bytes": 59000 * 4096,
    "bw_bytes_per_s": 4096000.0,
    "iops": 1000.0,
    "runtime_ms": 59000,
    **{
        f"{kind}_{stat}_ns": base * factor
        for kind, base in (("slat", 1000.0), ("clat", 10000.0), ("lat", 11000.0))
        for stat, factor in (("min", 1), ("mean", 2), ("max", 3))
    },
}


def _series(base: dict[str, Any], step_s: float, values: list[float]) -> list[dict[str, Any]]:
    return [{**base, "sampled_at": at(i * step_s), "value": v} for i, v in enumerate(values)]


GOOD: dict[str, list[dict[str, Any]]] = {
    "marts.fct_workload_results": [_WORKLOAD, {**_WORKLOAD, "result_id": 2, "testbed": "tb2"}],
    "marts.per_node_iops": [
        {
            "result_id": 1,
            "iops": 1000.0,
            "iops_per_node": 250.0,
            "nodes": 4,
            "host_iops_min": 240.0,
            "host_iops_max": 260.0,
            "host_imbalance_pct": 8.0,
        }
    ],
    "marts.profile_latency_deltas": [
        {
            "profile": "p2",
            "baseline_profile": "p1",
            "iops": 1000.0,
            "avg_latency_ms": 1.0,
            "iops_vs_baseline_pct": -10.0,
            "latency_vs_baseline_pct": 12.0,
            "iops_vs_previous_pct": -5.0,
            "latency_vs_previous_pct": 6.0,
        }
    ],
    "marts.config_deltas": [
        {
            "dimension": "transport",
            "from_value": "tcp",
            "to_value": "rdma",
            "iops_delta_pct": 20.0,
            "avg_latency_delta_pct": -15.0,
            "p95_latency_delta_pct": -10.0,
            "cpu_delta_pct": -30.0,
        }
    ],
    "marts.dedupe_ratios": [
        {
            "testbed": "tb1",
            "captured_at": at(0),
            "logical_used_bytes": 4_000_000,
            "physical_used_bytes": 1_000_000,
            "dedupe_compression_ratio": 4.0,
            "capacity_multiplier": 2.0,
            "usable_to_raw_ratio": 2.0,
        }
    ],
    "marts.transport_cpu_efficiency": [
        {
            "tcp_iops": 1000.0,
            "rdma_iops": 1200.0,
            "tcp_cpu_util_pct": 40.0,
            "rdma_cpu_util_pct": 30.0,
            "tcp_iops_per_cpu_pct": 25.0,
            "rdma_iops_per_cpu_pct": 40.0,
            "rdma_efficiency_gain_pct": 60.0,
        }
    ],
    "raw.source_files": [{"source_file_id": 1, "hcibench_case": "case-a"}],
    "raw.fio_runs": [{"_source_file_id": 1, "run_index": 0, "output_format": "json"}],
    "raw.fio_jobs": [
        {
            "_source_file_id": 1,
            "run_index": 0,
            "job_index": 0,
            "jobname": "job",
            "hostname": "vm1",
            "state": "ok",
            "is_all_clients_aggregate": False,
            "started_at": at(0),
            "ended_at": at(60),
            "job_runtime_ms": 59000,
            "elapsed_s": 60,
            "usr_cpu_pct": 10.0,
            "sys_cpu_pct": 5.0,
            "read_pct": 100,
            "random_pct": 100,
            "block_size_bytes": 4096,
            "numjobs": 1,
            "options_json": '{"bs": "4k"}',
        }
    ],
    "raw.fio_job_directions": [_DIRECTION],
    "raw.fio_latency_percentiles": [
        {
            "_source_file_id": 1,
            "run_index": 0,
            "job_index": 0,
            "direction": "read",
            "latency_kind": "clat",
            "percentile": p,
            "latency_ns": ns,
        }
        for p, ns in ((50.0, 19000.0), (95.0, 25000.0), (99.0, 28000.0), (99.9, 29000.0))
    ],
    "raw.fio_intervals": [
        {
            "_source_file_id": 1,
            "run_index": 0,
            "job_index": 0,
            "dump_index": i,
            "direction": "read",
            "elapsed_end_ms": 1000 * (i + 1),
            "interval_ms": 1000,
            "ios": 1000,
            "io_bytes": 4096000,
            "iops": 1000.0,
            "bw_bytes_per_s": 4096000.0,
            "lat_mean_ns": 20000.0,
        }
        for i in range(3)
    ],
    "raw.esxtop_captures": [
        {
            "_source_file_id": 10,
            "sample_count": 3,
            "interval_s": 5.0,
            "utc_offset_min": 0,
            "first_sampled_at": at(0),
            "last_sampled_at": at(10),
            "malformed_cells": 0,
            "dropped_rows": 0,
            "has_dates": True,
            "timestamp_resolution_s": 1,
        }
    ],
    "raw.esxtop_sample_times": [
        {"_source_file_id": 10, "sample_index": i, "sampled_at": at(5 * i), "line_number": i + 2}
        for i in range(3)
    ],
    "raw.esxtop_counters": [
        {
            "_source_file_id": 10,
            "counter_id": 0,
            "object_group": "Physical Cpu",
            "counter": "% Util Time",
            "header": r"\\h\Physical Cpu(0)\% Util Time",
        }
    ],
    "raw.esxtop_samples": [
        {"_source_file_id": 10, "sample_index": i, "counter_id": 0, "value": 50.0} for i in range(3)
    ],
    "raw.hcibench_summary_blocks": [
        {
            "case_name": "case-a",
            "block_index": 0,
            "datastore_name": "vsanDatastore",
            "vm_count": 1,
            "vms_finished_early": 0,
            "iops": 1000.0,
            "throughput_mib_per_s": 3.9,
            "latency_ms_vm_avg": None,
            "read_latency_ms_vm_avg": 1.0,
            "write_latency_ms_vm_avg": 0.0,
            "p95_read_latency_ms_vm_avg": 2.0,
            "p95_write_latency_ms_vm_avg": 0.0,
        }
    ],
    "raw.hcibench_unfinished_vms": [],
    "raw.hcibench_resource_usage": [
        {
            "case_name": "case-a",
            "origin": "res_txt",
            "host_name": "h1",
            "cpu_usage_pct": 50.0,
            "cpu_utilization_pct": 40.0,
            "mem_usage_pct": 60.0,
            "vsan_pcpu_usage_pct": 5.0,
        }
    ],
    "raw.vdbench_runs": [
        {
            "_source_file_id": 20,
            "run_index": 0,
            "rd_name": "rd1",
            "state": "ok",
            "iops": 1000.0,
            "mib_per_s": 3.91,
            "bytes_per_io": 4096,
            "read_pct": 70.0,
            "resp_ms": 1.0,
            "read_resp_ms": 0.8,
            "write_resp_ms": 1.5,
            "resp_max_ms": 10.0,
            "read_max_ms": 8.0,
            "write_max_ms": 12.0,
            "queue_depth": 1.0,
            "cpu_sys_user_pct": 20.0,
            "cpu_sys_pct": 5.0,
        }
    ],
    "raw.vdbench_intervals": [
        {
            "_source_file_id": 20,
            "run_index": 0,
            "interval_index": i,
            "tod_ms": 36_000_000 + 1000 * i,
            "iops": 1000.0,
            "mib_per_s": 3.91,
            "read_pct": 70.0,
            "resp_ms": 1.0,
            "cpu_sys_user_pct": 20.0,
            "cpu_sys_pct": 5.0,
        }
        for i in range(1, 6)
    ],
    "raw.vsan_capacity_snapshots": [
        {
            "_source_file_id": 30,
            "testbed": "tb1",
            "total_capacity_bytes": 10_000_000,
            "free_capacity_bytes": 5_000_000,
            "logical_used_bytes": 4_000_000,
            "physical_used_bytes": 1_000_000,
            "ratio_computed": 4.0,
            "ratio_reported": 4.0,
            "ratio_matches_reported": True,
        }
    ],
    # Rows 0..4: a PCPU percent series; rows 5..7: an IOPS series.
    "raw.vsan_observer_samples": [
        *_series(
            {
                "_source_file_id": 40,
                "stats_group": "pcpu",
                "entity_type": "pcpu",
                "host": "h1",
                "entity": "0",
                "metric": "used_pct",
                "unit": "%",
            },
            60,
            [50.0, 55.0, 60.0, 65.0, 70.0],
        ),
        *_series(
            {
                "_source_file_id": 40,
                "stats_group": "dom",
                "entity_type": "dom_client",
                "host": "h1",
                "entity": None,
                "metric": "read_iops",
                "unit": "IO/s",
            },
            60,
            [900.0, 1000.0, 1100.0],
        ),
    ],
    "raw.vsan_perfsvc_samples": [
        *_series(
            {
                "_source_file_id": 50,
                "entity_type": "vsan-cpu",
                "entity_id": "h1",
                "metric": "usage",
                "unit": "%",
                "collect_interval_s": 300,
            },
            300,
            [20.0, 25.0, 30.0],
        ),
        *_series(
            {
                "_source_file_id": 50,
                "entity_type": "cluster-domclient",
                "entity_id": "c1",
                "metric": "iopsRead",
                "unit": "IO/s",
                "collect_interval_s": 300,
            },
            300,
            [900.0, 1000.0, 1100.0],
        ),
    ],
}

# Tables that are empty in GOOD still need typed columns.
_EMPTY_DDL = {
    "raw.hcibench_unfinished_vms": "case_name varchar, datastore_name varchar, "
    "block_index bigint, vm_name varchar, listed_file varchar, reason varchar",
}


def build_warehouse(path: Path, tables: dict[str, list[dict[str, Any]]]) -> Path:
    con = duckdb.connect(str(path))
    try:
        for schema in {name.split(".")[0] for name in tables}:
            con.execute(f"create schema if not exists {schema}")
        for name, rows in tables.items():
            if not rows:
                con.execute(f"create table {name} ({_EMPTY_DDL[name]})")
                continue
            con.register("rows_frame", pd.DataFrame(rows))
            con.execute(f"create table {name} as select * from rows_frame")
            con.unregister("rows_frame")
    finally:
        con.close()
    return path


def tables_for(module: ModuleType, changes: dict[str, list[dict[str, Any]]] | None = None):
    tables = {name: copy.deepcopy(GOOD[name]) for name in module.REQUIRES}
    tables.update(changes or {})
    return tables


def with_row(table: str, row: int, **change: Any) -> dict[str, list[dict[str, Any]]]:
    rows = copy.deepcopy(GOOD[table])
    rows[row].update(change)
    return {table: rows}


def failed(outcomes: list[run.Outcome], severity: str = run.CONSTRAINT) -> set[str]:
    return {o.expectation for o in outcomes if o.success is False and o.severity == severity}


def validate(tmp_path: Path, module: Any, changes=None) -> list[run.Outcome]:
    db = build_warehouse(tmp_path / "wh.duckdb", tables_for(module, changes))
    return run.validate_warehouse(db, [module])


def narrowed(module: ModuleType, expectation: str, severity: str) -> SimpleNamespace:
    """The module with only the named expectation in its `severity` suite.

    Same QUERY, same expectation object, same validation path; one expectation instead of the
    whole suite keeps a bad case at ~0.1 s (GX spends ~30 ms per expectation).
    """
    suite = module.constraints() if severity == run.CONSTRAINT else module.alerts()
    picked = [e for e in suite.expectations if run.describe(e.configuration) == expectation]
    assert len(picked) == 1, f"{suite.name} has no expectation {expectation!r}"
    only = gx.ExpectationSuite(name=suite.name, expectations=picked)
    other = "alerts" if severity == run.CONSTRAINT else "constraints"
    empty = gx.ExpectationSuite(name=f"{module.MODEL}.{other}", expectations=[])
    pair = (only, empty) if severity == run.CONSTRAINT else (empty, only)
    return SimpleNamespace(
        MODEL=module.MODEL,
        TABLE=module.TABLE,
        REQUIRES=module.REQUIRES,
        QUERY=module.QUERY,
        constraints=lambda: pair[0],
        alerts=lambda: pair[1],
    )


# --- good data ---------------------------------------------------------------------------------


# --- one bad table per constraint ---------------------------------------------------------------


def _range_cases() -> list[Any]:
    """Bounds on a column read straight from the table: `X >= b` gets b - 1 (or -150 for the
    -100% floor of a percent change) and `X in [a, b]` gets b + 1, on row 0."""
    cases = []
    for module in SUITE_MODULES:
        table_rows = GOOD.get(module.TABLE) or []
        for expectation in module.constraints().expectations:
            name = run.describe(expectation.configuration)
            kwargs = expectation.configuration.kwargs
            column = kwargs.get("column")
            if not table_rows or column not in table_rows[0]:
                continue
            if expectation.expectation_type != "expect_column_values_to_be_between":
                continue
            low, high = kwargs.get("min_value"), kwargs.get("max_value")
            bad = high + 1 if high is not None else (low - 1 if low > -100 else -150.0)
            cases.append(
                pytest.param(
                    module,
                    with_row(module.TABLE, 0, **{column: bad}),
                    name,
                    id=f"{module.MODEL}:{name}",
                )
            )
    return cases


_BAD: list[Any] = [
    # marts.fct_workload_results
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"p95_latency_ms": 4.0},
        "p95_latency_ms <= p99_latency_ms",
    ),
    (fct_workload_results, "marts.fct_workload_results", {"read_pct": 130}, "read_pct in [0, 100]"),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"cpu_util_pct": 340.0},
        "cpu_util_pct in [0, 100]",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"throughput_mb_s": 4.096 * 1.1 + 1.2},
        "throughput_mismatch_pct in [0, 5]",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"write_iops": 100.0},
        "iops_split_mismatch_pct in [0, 1]",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"started_at": at(700)},
        "started_at <= ended_at",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"started_at": ts("1970-01-01 00:00:05"), "ended_at": ts("1970-01-01 00:10:05")},
        "started_year >= 2010",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"ended_at": ts("2199-01-01")},
        "ended_after_now_h <= 24",
    ),
    (
        fct_workload_results,
        "marts.fct_workload_results",
        {"testbed": "tb2"},
        "unique (testbed, source_tool, started_at, ended_at, read_pct, block_size_bytes, iops, "
        "throughput_mb_s, avg_latency_ms)",
    ),
    # marts.per_node_iops, dedupe_ratios, transport_cpu_efficiency
    (
        per_node_iops,
        "marts.per_node_iops",
        {"host_iops_min": 300.0},
        "host_iops_min <= host_iops_max",
    ),
    (
        dedupe_ratios,
        "marts.dedupe_ratios",
        {"capacity_multiplier": 2.5, "usable_to_raw_ratio": 1.6},
        "capacity_multiplier_2dp in [2, 3, 1.33, 1.5]",
    ),
    (
        dedupe_ratios,
        "marts.dedupe_ratios",
        {"usable_to_raw_ratio": 4.0},
        "usable_ratio_mismatch_pct in [0, 1]",
    ),
    (
        dedupe_ratios,
        "marts.dedupe_ratios",
        {"dedupe_compression_ratio": -4.0},
        "dedupe_compression_ratio >= 0",
    ),
    # raw.fio_*
    (fio_jobs, "raw.fio_jobs", {"started_at": at(90)}, "started_at <= ended_at"),
    (fio_jobs, "raw.fio_jobs", {"job_runtime_ms": 90000}, "runtime_outside_window_s <= 1"),
    (fio_jobs, "raw.fio_jobs", {"read_pct": 101}, "read_pct in [0, 100]"),
    (fio_jobs, "raw.fio_jobs", {"random_pct": -1}, "random_pct in [0, 100]"),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"slat_min_ns": 2500.0},
        "slat_min_ns <= slat_mean_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"slat_max_ns": 1500.0},
        "slat_mean_ns <= slat_max_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"clat_min_ns": 25000.0},
        "clat_min_ns <= clat_mean_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"clat_max_ns": 15000.0},
        "clat_mean_ns <= clat_max_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"lat_min_ns": 30000.0},
        "lat_min_ns <= lat_mean_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"lat_max_ns": 20000.0, "lat_min_ns": 1.0},
        "lat_mean_ns <= lat_max_ns",
    ),
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"clat_mean_ns": 23000.0, "clat_max_ns": 9e4},
        "clat_mean_ns <= lat_mean_ns",
    ),
    # bandwidth in KiB/s stored as bytes/s: both throughput checks see the 1024x gap
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"bw_bytes_per_s": 4000.0},
        "throughput_mismatch_pct in [0, 5]",
    ),
    # io_bytes in KiB (fio < 2.21) taken as bytes
    (
        fio_job_directions,
        "raw.fio_job_directions",
        {"io_bytes": 59000 * 4},
        "bytes_per_second_check_pct in [0, 5]",
    ),
    (
        fio_latency_percentiles,
        "raw.fio_latency_percentiles",
        {"latency_ns": 26000.0},
        "p50_ns <= p95_ns",
    ),
    (
        fio_latency_percentiles,
        "raw.fio_latency_percentiles",
        {"latency_ns": -5.0},
        "min_reported_ns >= 0",
    ),
    (fio_intervals, "raw.fio_intervals", {"interval_ms": 0}, "interval_ms >= 1"),
    (fio_intervals, "raw.fio_intervals", {"elapsed_end_ms": 90_000}, "window_overrun_ms <= 0"),
    # raw.esxtop_*
    (
        esxtop_captures,
        "raw.esxtop_captures",
        {"utc_offset_min": 6000},
        "utc_offset_min in [-840, 840]",
    ),
    (
        esxtop_captures,
        "raw.esxtop_captures",
        {"first_sampled_at": at(20)},
        "first_sampled_at <= last_sampled_at",
    ),
    (esxtop_captures, "raw.esxtop_captures", {"interval_s": -5.0}, "interval_s >= 0"),
    (esxtop_captures, "raw.esxtop_captures", {"sample_count": 0}, "sample_count >= 1"),
    (esxtop_cpu, "raw.esxtop_samples", {"value": 250.0}, "max_pct in [0, 100]"),
    (esxtop_cpu, "raw.esxtop_samples", {"value": -3.0}, "min_pct in [0, 100]"),
    # raw.hcibench_*, vdbench_*, vsan_*
    (
        hcibench_summary_blocks,
        "raw.hcibench_summary_blocks",
        {"vms_finished_early": 3},
        "unfinished_share in [0, 1]",
    ),
    (vdbench_runs, "raw.vdbench_runs", {"read_pct": 170.0}, "read_pct in [0, 100]"),
    (vdbench_runs, "raw.vdbench_runs", {"cpu_sys_user_pct": 180.0}, "cpu_sys_user_pct in [0, 100]"),
    (vdbench_runs, "raw.vdbench_runs", {"cpu_sys_pct": 30.0}, "cpu_sys_pct <= cpu_sys_user_pct"),
    (
        vdbench_runs,
        "raw.vdbench_runs",
        {"cpu_sys_pct": 130.0, "cpu_sys_user_pct": 140.0},
        "cpu_sys_pct in [0, 100]",
    ),
    (vdbench_runs, "raw.vdbench_runs", {"resp_max_ms": 0.5}, "resp_ms <= resp_max_ms"),
    (vdbench_runs, "raw.vdbench_runs", {"read_max_ms": 0.5}, "read_resp_ms <= read_max_ms"),
    (vdbench_runs, "raw.vdbench_runs", {"write_max_ms": 0.5}, "write_resp_ms <= write_max_ms"),
    (vdbench_runs, "raw.vdbench_runs", {"mib_per_s": 3910.0}, "throughput_mismatch_pct in [0, 5]"),
    (vdbench_intervals, "raw.vdbench_intervals", {"read_pct": 101.0}, "read_pct in [0, 100]"),
    (
        vdbench_intervals,
        "raw.vdbench_intervals",
        {"cpu_sys_user_pct": 101.0},
        "cpu_sys_user_pct in [0, 100]",
    ),
    (vdbench_intervals, "raw.vdbench_intervals", {"cpu_sys_pct": -1.0}, "cpu_sys_pct in [0, 100]"),
    (
        vsan_capacity_snapshots,
        "raw.vsan_capacity_snapshots",
        {"free_capacity_bytes": 20_000_000},
        "free_capacity_bytes <= total_capacity_bytes",
    ),
    (
        vsan_capacity_snapshots,
        "raw.vsan_capacity_snapshots",
        {"physical_used_bytes": 20_000_000},
        "physical_used_bytes <= total_capacity_bytes",
    ),
    (
        vsan_observer_samples,
        "raw.vsan_observer_samples",
        {"value": 120.0},
        "max_pct_value in [0, 100]",
    ),
    (
        vsan_observer_samples,
        "raw.vsan_observer_samples",
        {"value": -1.0},
        "min_pct_value in [0, 100]",
    ),
    (
        vsan_perfsvc_samples,
        "raw.vsan_perfsvc_samples",
        {"value": 120.0},
        "max_pct_value in [0, 100]",
    ),
    (
        vsan_perfsvc_samples,
        "raw.vsan_perfsvc_samples",
        {"value": -1.0},
        "min_pct_value in [0, 100]",
    ),
]

# Cases on a row other than 0 (table, row): a later sample, the second series.
_BAD_ROWS: list[Any] = [
    (
        fio_latency_percentiles,
        "raw.fio_latency_percentiles",
        2,
        {"latency_ns": 24000.0},
        "p95_ns <= p99_ns",
    ),
    (
        fio_latency_percentiles,
        "raw.fio_latency_percentiles",
        3,
        {"latency_ns": 27000.0},
        "p99_ns <= p99_9_ns",
    ),
    (esxtop_sample_times, "raw.esxtop_sample_times", 2, {"sampled_at": at(1)}, "step_s >= 0"),
    (
        esxtop_sample_times,
        "raw.esxtop_sample_times",
        2,
        {"sampled_at": at(15)},
        "outside_capture_s in [0, 0]",
    ),
    (
        vsan_observer_samples,
        "raw.vsan_observer_samples",
        5,
        {"value": -10.0},
        "min_rate_value >= 0",
    ),
    (vsan_perfsvc_samples, "raw.vsan_perfsvc_samples", 4, {"value": -10.0}, "min_rate_value >= 0"),
]

BAD_CASES = [
    *_range_cases(),
    *[
        pytest.param(module, with_row(table, 0, **change), name, id=f"{module.MODEL}:{name}")
        for module, table, change, name in _BAD
    ],
    *[
        pytest.param(module, with_row(table, row, **change), name, id=f"{module.MODEL}:{name}")
        for module, table, row, change, name in _BAD_ROWS
    ],
]


@pytest.mark.parametrize(("module", "changes", "expectation"), BAD_CASES)
def test_bad_table_fails_the_named_constraint(
    tmp_path: Path, module: ModuleType, changes: dict, expectation: str
) -> None:
    outcomes = validate(tmp_path, narrowed(module, expectation, run.CONSTRAINT), changes)
    assert expectation in failed(outcomes)
    assert run.exit_code(outcomes) == run.EXIT_CONSTRAINT_FAILED


def test_every_constraint_has_a_failing_case() -> None:
    covered = {(case.values[0].MODEL, case.values[2]) for case in BAD_CASES}
    declared = {
        (module.MODEL, run.describe(e.configuration))
        for module in SUITE_MODULES
        for e in module.constraints().expectations
    }
    assert declared - covered == set()


def test_every_expectation_says_why() -> None:
    for module in SUITE_MODULES:
        for suite in (module.constraints(), module.alerts()):
            assert suite.name in (f"{module.MODEL}.constraints", f"{module.MODEL}.alerts")
            for expectation in suite.expectations:
                assert len(expectation.meta["notes"]) > 20, (suite.name, expectation)


# --- alerts ------------------------------------------------------------------------------------

ALERT_CASES = [
    pytest.param(
        fio_jobs,
        with_row("raw.fio_jobs", 0, state="unfinished"),
        "state in ['ok']",
        id="fio finished early",
    ),
    pytest.param(
        fio_intervals,
        with_row(
            "raw.fio_intervals", 2, interval_ms=30_000, elapsed_end_ms=32_000, io_bytes=4096000
        ),
        "gap_factor in [0, 2]",
        id="fio interval gap",
    ),
    pytest.param(
        esxtop_sample_times,
        with_row("raw.esxtop_sample_times", 2, sampled_at=at(40))
        | with_row("raw.esxtop_captures", 0, last_sampled_at=at(40)),
        "excess_gap_s <= 0",
        id="esxtop 30 s gap",
    ),
    pytest.param(
        vdbench_intervals,
        with_row("raw.vdbench_intervals", 4, tod_ms=36_000_000 + 30_000),
        "gap_factor in [0, 2]",
        id="vdbench interval gap",
    ),
    pytest.param(
        vsan_observer_samples,
        with_row("raw.vsan_observer_samples", 4, sampled_at=at(900)),
        "gap_factor in [0, 2]",
        id="observer gap",
    ),
    pytest.param(
        vsan_perfsvc_samples,
        with_row("raw.vsan_perfsvc_samples", 2, sampled_at=at(3000)),
        "gap_factor in [0, 2]",
        id="perfsvc gap",
    ),
    pytest.param(
        per_node_iops,
        with_row("marts.per_node_iops", 0, host_imbalance_pct=40.0),
        "host_imbalance_pct in [0, 25]",
        id="host imbalance",
    ),
    pytest.param(
        hcibench_summary_blocks,
        with_row("raw.hcibench_summary_blocks", 0, iops=1200.0),
        "iops_vs_recomputed_pct in [0, 2]",
        id="summary vs recomputed",
    ),
    pytest.param(
        hcibench_summary_blocks,
        with_row("raw.hcibench_summary_blocks", 0, vms_finished_early=1),
        "vms_finished_early in [0, 0]",
        id="summary VMs finished early",
    ),
    pytest.param(
        hcibench_unfinished_vms,
        {
            "raw.hcibench_unfinished_vms": [
                {
                    "case_name": "case-a",
                    "datastore_name": None,
                    "block_index": None,
                    "vm_name": "vm-2",
                    "listed_file": "vm-2.json",
                    "reason": "finished_early",
                }
            ]
        },
        "row count = 0",
        id="unfinished VM listed",
    ),
    pytest.param(
        vsan_capacity_snapshots,
        with_row("raw.vsan_capacity_snapshots", 0, ratio_matches_reported=False),
        "ratio_matches_reported in [True]",
        id="capacity ratio mismatch",
    ),
    pytest.param(
        dedupe_ratios,
        with_row("marts.dedupe_ratios", 0, dedupe_compression_ratio=5.0, usable_to_raw_ratio=2.5),
        "ratio_vs_bytes_pct in [0, 1]",
        id="dedupe ratio vs bytes",
    ),
    pytest.param(
        fct_workload_results,
        with_row(
            "marts.fct_workload_results",
            0,
            avg_latency_ms=3.5,
            read_latency_ms=3.0,
            write_latency_ms=4.5,
        ),
        "avg_latency_ms <= p99_latency_ms",
        id="mean above p99",
    ),
]


@pytest.mark.parametrize(("module", "changes", "expectation"), ALERT_CASES)
def test_alert_is_reported_without_failing_the_run(
    tmp_path: Path, module: ModuleType, changes: dict, expectation: str
) -> None:
    outcomes = validate(tmp_path, module, changes)
    assert expectation in failed(outcomes, run.ALERT)
    assert failed(outcomes) == set()  # the crafted alert data is otherwise valid
    assert run.exit_code(outcomes) == run.EXIT_OK


def test_per_vm_iops_spread_alert(tmp_path: Path) -> None:
    second_vm = {
        "raw.source_files": [
            *GOOD["raw.source_files"],
            {"source_file_id": 2, "hcibench_case": "case-a"},
        ],
        "raw.fio_jobs": [*GOOD["raw.fio_jobs"], {**GOOD["raw.fio_jobs"][0], "_source_file_id": 2}],
        "raw.fio_job_directions": [
            *GOOD["raw.fio_job_directions"],
            {**_DIRECTION, "_source_file_id": 2, "iops": 400.0, "bw_bytes_per_s": 1638400.0},
        ],
    }
    outcomes = validate(tmp_path, fio_vm_spread, second_vm)
    spread = [o for o in outcomes if o.expectation == "iops_spread_pct in [0, 25]"]
    assert [(o.success, o.unexpected_count) for o in spread] == [(False, 1)]
    assert "case-a" in spread[0].observed
    assert run.exit_code(outcomes) == run.EXIT_OK


# --- the command ---------------------------------------------------------------------------------


def _main(db: Path, *args: str) -> tuple[int, str]:
    console = Console(record=True, width=200)
    code = run.main(["--db", str(db), *args], console=console)
    return code, console.export_text()


def _results(db: Path) -> pd.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pandas 3 deprecation inside duckdb's .df()
            return con.execute("select * from marts.data_quality_results").df()
    finally:
        con.close()


def test_main_on_good_data_exits_0_and_stores_results(tmp_path: Path) -> None:
    db = build_warehouse(tmp_path / "wh.duckdb", copy.deepcopy(GOOD))
    code, text = _main(db)
    assert code == 0
    assert "0 constraint failures" in text
    stored = _results(db)
    assert set(stored["severity"]) == {"constraint", "alert"}
    assert stored["success"].all()
    assert stored["notes"].str.len().min() > 20
    assert stored["run_at"].nunique() == 1
    assert set(stored["suite"]) >= {"fct_workload_results.constraints", "fio_jobs.alerts"}


def test_main_on_a_bad_table_exits_1_and_replaces_the_previous_run(tmp_path: Path) -> None:
    db = build_warehouse(tmp_path / "wh.duckdb", copy.deepcopy(GOOD))
    con = duckdb.connect(str(db))
    con.execute("create schema if not exists marts")
    con.execute(run.RESULTS_DDL)
    con.execute(
        "insert into marts.data_quality_results values "
        "('2020-01-01 00:00:00+00', 'stale.constraints', 't', 'e', 'constraint', false, '', 0, '')"
    )
    con.execute("update raw.fio_job_directions set lat_min_ns = 1e9")
    con.close()

    code, text = _main(db, "--failures-only")

    assert code == 1
    assert "lat_min_ns <= lat_mean_ns" in text
    stored = _results(db)
    assert "stale.constraints" not in set(stored["suite"])
    assert stored["run_at"].nunique() == 1
    bad = stored[~stored["success"].astype(bool)]
    assert list(zip(bad["suite"], bad["expectation"], bad["unexpected_count"], strict=True)) == [
        ("fio_job_directions.constraints", "lat_min_ns <= lat_mean_ns", 1)
    ]
    assert "file 1 run 0 job 0 read" in bad["observed"].iloc[0]


def test_missing_tables_are_skipped_not_failed(tmp_path: Path) -> None:
    db = build_warehouse(tmp_path / "wh.duckdb", {"raw.fio_runs": GOOD["raw.fio_runs"]})
    code, _ = _main(db)
    assert code == 0
    stored = _results(db)
    assert stored["success"].isna().all()
    assert stored["observed"].str.startswith("skipped: table missing").all()
    assert len(stored) == 2 * len(SUITE_MODULES)


def test_a_missing_contract_column_fails_the_run(tmp_path: Path) -> None:
    rows = [
        {k: v for k, v in r.items() if k != "cpu_util_pct"}
        for r in GOOD[fct_workload_results.TABLE]
    ]
    db = build_warehouse(tmp_path / "wh.duckdb", {fct_workload_results.TABLE: rows})
    code, text = _main(db)
    assert code == 1
    assert "cpu_util_pct" in text


@pytest.mark.parametrize(
    "argv", [pytest.param(["--bogus"], id="unknown option"), pytest.param(["--db"], id="no value")]
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    assert run.main(argv, console=Console(record=True)) == run.EXIT_USAGE


def test_missing_warehouse_file_is_a_usage_error(tmp_path: Path) -> None:
    code, text = _main(tmp_path / "nope.duckdb")
    assert code == run.EXIT_USAGE
    assert "no warehouse" in text


def test_env_var_names_the_warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = build_warehouse(tmp_path / "env.duckdb", {"raw.fio_runs": GOOD["raw.fio_runs"]})
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(db))
    assert run.main([], console=Console(record=True)) == 0
    assert len(_results(db)) == 2 * len(SUITE_MODULES)


def test_observed_value_names_rows_and_numbers() -> None:
    text, count = run._observed(
        {
            "element_count": 10,
            "unexpected_count": 2,
            "partial_unexpected_list": [math.pi, 5.0],
            "partial_unexpected_index_list": [{"row_ref": "file 1"}, {"row_ref": "file 2"}],
        }
    )
    assert (text, count) == (
        "2 of 10 rows unexpected, e.g. file 1: 3.141592653589793; file 2: 5.0",
        2,
    )
