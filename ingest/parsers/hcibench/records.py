"""Row types of the HCIBench tables (one frozen dataclass per raw table; the columns are
described in the package docstring)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ingest.records import LatencyKind


@dataclass(frozen=True, slots=True)
class HcibenchCase:
    case_name: str
    param_name: str | None
    tool: str | None
    user_prefix: str | None
    group_index: int | None
    name_suffix: str | None
    disks_per_vm: int | None
    working_set_pct: int | None
    block_size_bytes: int | None
    read_pct: int | None
    random_pct: int | None
    threads_per_disk: int | None
    started_at: dt.datetime | None
    summary_layout: str
    hcibench_release_hint: str | None
    datastore_count: int
    block_count: int
    all_vms_finished_early: bool
    resource_section: str | None
    perf_stats_graph_url: str | None
    has_performance_diag: bool
    # The file ends mid-line (cut short): that line's values are not stored and whatever
    # followed it is missing; `cut_line` is its number.
    is_partial: bool = False
    cut_line: int | None = None


@dataclass(frozen=True, slots=True)
class HcibenchSummaryBlock:
    case_name: str
    block_index: int
    datastore_name: str | None
    job_name: str | None
    vdbench_version: str | None
    run_def_text: str | None
    rd_name: str | None
    vm_count: int | None
    vms_finished_early: int
    is_partial: bool
    iops: float | None
    throughput_mib_per_s: float | None
    latency_ms_vm_avg: float | None
    read_latency_ms_vm_avg: float | None
    write_latency_ms_vm_avg: float | None
    p95_read_latency_ms_vm_avg: float | None
    p95_write_latency_ms_vm_avg: float | None
    p95_latency_ms_normal_estimate: float | None
    latency_decimals: int | None
    read_pct_from_name: int | None
    mixed_latency_ms_summary_derived: float | None
    # Every latency of the block is `total`: HCIBench averages fio's `lat_ns` (total latency,
    # its p95 from `lat_ns.percentile`) or Vdbench's response time. None without a latency.
    latency_kind: LatencyKind | None = None


@dataclass(frozen=True, slots=True)
class HcibenchUnfinishedVm:
    case_name: str
    datastore_name: str | None
    block_index: int | None
    vm_name: str
    listed_file: str
    reason: str


@dataclass(frozen=True, slots=True)
class HcibenchResourceUsage:
    case_name: str | None
    origin: str
    cluster_name: str | None
    host_name: str | None
    is_average: bool
    cpu_usage_pct: float | None = None
    cpu_utilization_pct: float | None = None
    mem_usage_pct: float | None = None
    vsan_pcpu_usage_pct: float | None = None


@dataclass(frozen=True, slots=True)
class HcibenchParams:
    case_name: str | None
    param_name: str | None
    tool: str
    disks_per_vm: int | None
    working_set_pct: float | None
    block_size_bytes: int | None
    block_size_text: str | None
    read_pct: float | None
    random_pct: float | None
    threads_per_disk: int | None
    testing_time_s: int | None
    warmup_s: int | None
    interval_s: int | None
    io_rate_text: str | None
    compratio: float | None
    dedupratio: float | None
    dedupunit_text: str | None
    fio_readwrite: str | None
    fio_ioengine: str | None
    header_json: dict[str, Any] | list[str]
    options_json: dict[str, Any]
    devices_json: list[str]


@dataclass(frozen=True, slots=True)
class HcibenchSetting:
    case_name: str | None
    setting_key: str
    value_json: str | None
    is_redacted: bool


@dataclass(frozen=True, slots=True)
class HcibenchVsanDatastore:
    case_name: str | None
    datastore_name: str
    is_local: bool
    vsan_type: str | None
    host_count: int | None
    disk_groups_per_host: int | None
    total_cache_disk_size_gb: float | None
    capacity_disks_per_disk_group: int | None
    space_efficiency: str | None
    dedupe_enabled: bool | None
    compression_enabled: bool | None
    fault_tolerance_text: str | None
    ftm: str | None
    ftt: int | None
    secondary_ftt: int | None
    checksum_enabled: bool | None
    capacity_gb: float | None
    free_space_gb: float | None


@dataclass(frozen=True, slots=True)
class HcibenchClusterHost:
    case_name: str | None
    cluster_name: str
    host_name: str


TABLES = {
    "hcibench_cases": HcibenchCase,
    "hcibench_summary_blocks": HcibenchSummaryBlock,
    "hcibench_unfinished_vms": HcibenchUnfinishedVm,
    "hcibench_resource_usage": HcibenchResourceUsage,
    "hcibench_params": HcibenchParams,
    "hcibench_settings": HcibenchSetting,
    "hcibench_vsan_datastores": HcibenchVsanDatastore,
    "hcibench_cluster_hosts": HcibenchClusterHost,
}
