"""A small valid warehouse for the suites, and the helpers that break it one row at a time.

GOOD holds the rows (only the columns the suites read). A bad case copies it, changes one row
of one table and validates the module that owns the table. `build_warehouse` also creates the
results table `data_quality.validation_results` with dbt's own on-run-start DDL: product code
never creates it (it fails with exit 3 instead), so a test warehouse needs it to store.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
from great_expectations.expectations import Expectation

from expectations.describe import describe
from expectations.outcome import CONSTRAINT, Outcome
from expectations.runner import validate_warehouse
from expectations.suites import SUITE_MODULES
from warehouse import REPO_ROOT, FileWarehouse

MODULES: dict[str, ModuleType] = {module.MODEL: module for module in SUITE_MODULES}

# The results table exactly as dbt's on-run-start hook creates it: the macro's SQL without its
# Jinja, so the tests and dbt cannot disagree about the DDL.
_LANDING_MACRO = REPO_ROOT / "dbt_project" / "macros" / "data_quality.sql"
RESULTS_DDL = re.sub(r"\{#.*?#\}|\{%.*?%\}", "", _LANDING_MACRO.read_text(), flags=re.DOTALL)


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
    "cpu_load_avg": 0.4,
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
            "logical_used_tb": 4_000_000 / 10**12,
            "logical_used_tib": 4_000_000 / 2**40,
            "physical_used_tb": 1_000_000 / 10**12,
            "physical_used_tib": 1_000_000 / 2**40,
            "saved_tb": 3_000_000 / 10**12,
            "saved_tib": 3_000_000 / 2**40,
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
            "times_reliable": True,
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


def build_warehouse(
    path: Path, tables: dict[str, list[dict[str, Any]]], *, results_table: bool = True
) -> Path:
    """A warehouse file holding `tables` (and, unless told not to, the empty results table)."""
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
        if results_table:
            con.execute(RESULTS_DDL)
    finally:
        con.close()
    return path


def good_warehouse(path: Path) -> Path:
    return build_warehouse(path, copy.deepcopy(GOOD))


Tables = dict[str, list[dict[str, Any]]]


def tables_for(module: ModuleType, changes: Tables | None = None) -> Tables:
    tables = {name: copy.deepcopy(GOOD[name]) for name in module.REQUIRES}
    tables.update(changes or {})
    return tables


def with_row(table: str, row: int, **change: Any) -> Tables:
    rows = copy.deepcopy(GOOD[table])
    rows[row].update(change)
    return {table: rows}


def failed(outcomes: list[Outcome], severity: str = CONSTRAINT) -> set[str]:
    return {o.expectation for o in outcomes if o.success is False and o.severity == severity}


def validated(db: Path, modules: list[ModuleType]) -> list[Outcome]:
    """The outcomes of `modules` on the warehouse file `db`."""
    outcomes, _ = validate_warehouse(FileWarehouse(db), modules)
    return outcomes


def validate(tmp_path: Path, module: Any, changes: Tables | None = None) -> list[Outcome]:
    db = build_warehouse(tmp_path / "wh.duckdb", tables_for(module, changes))
    return validated(db, [module])


def narrowed(module: ModuleType, expectation: str, severity: str) -> SimpleNamespace:
    """The module with only the named expectation in its `severity` suite.

    Same QUERY, same expectation builder, same validation path; one expectation instead of the
    whole suite keeps a bad case at ~0.1 s (GX spends ~30 ms per expectation).
    """
    declared = module.constraints if severity == CONSTRAINT else module.alerts

    def only() -> list[Expectation]:
        return [e for e in declared() if describe(e.configuration) == expectation]

    assert len(only()) == 1, f"{module.MODEL} has no {severity} {expectation!r}"
    return SimpleNamespace(
        MODEL=module.MODEL,
        TABLE=module.TABLE,
        REQUIRES=module.REQUIRES,
        QUERY=module.QUERY,
        constraints=only if severity == CONSTRAINT else list,
        alerts=list if severity == CONSTRAINT else only,
    )
