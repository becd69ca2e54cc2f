"""HCIBench's own text files in a results folder (`/opt/output/results/<test name>/`).

One module for the files HCIBench itself writes around the load generators' outputs (FORMATS.md
2.1-2.4): the `<case>-res.txt` summaries (fio and Vdbench, HCIBench 2.0-2.5 and 2.8+ layouts), the
workload parameter files (`fio.cfg` / `vdbench.cfg`, or the same under their paramfile names),
`hcibench.cfg`, `vsan.cfg`, `resource_util.info` and `resource_usage.info`. Per-VM outputs belong
to the fio parser (`<vm>.json`) and the vdbench parser (`<vm>.txt`); Observer folders to
vsan_observer. `parse_case_name()` reads the workload from a test-case name; the loader and dbt use
the same rules.

The summary's numbers are kept as printed, in the printed units, as a cross-check of what the
warehouse computes from per-VM files: "MB/s" is MiB/s (KiB/1024), latencies are plain averages of
per-VM means and 95th percentiles over VMs (`*_vm_avg`, not IO-weighted and not a percentile), and
Vdbench's `95%tile_LAT` is `avg + 1.645 x stddev` (`p95_latency_ms_normal_estimate`).

Tables
------
`hcibench_cases` (one row per -res.txt):
    case_name               test-case folder name, `[group<i>-]<paramfile>-<epoch>`
    param_name, tool, user_prefix, group_index, name_suffix
    disks_per_vm, working_set_pct, block_size_bytes, read_pct, random_pct, threads_per_disk
                            from the case name (None when the name is not HCIBench-generated)
    started_at              the epoch suffix, UTC (HCIBench's test start)
    summary_layout          `fio` | `vdbench_ruby` (parseVdbResult.rb) | `vdbench_bash`
                            (vdb-process.sh, `Datastore:` with a colon)
    hcibench_release_hint   `2.8+` (4-decimal fio latencies, `Resource Utilization` table) |
                            `<=2.5` (2-decimal fio latencies, `CPU USAGE` lines, bash layout) |
                            None when the file does not tell
    datastore_count, block_count
    all_vms_finished_early  `All the VMs finished testing early, no results summarized`
    resource_section        `cpu_usage_lines` | `resource_utilization_table` | None
    perf_stats_graph_url    2.8 `vSAN Performance Stats Graph:` link, as printed
    has_performance_diag    a performance_diag_result.html pointer was printed

`hcibench_summary_blocks` (one row per datastore x fio job / Vdbench run definition):
    case_name, block_index, datastore_name
    job_name                fio `JOB_NAME`
    vdbench_version, run_def_text, rd_name   Vdbench `Version`, `Run Def` (and its RD name)
    vm_count                `VMs` (the VMs summarized)
    vms_finished_early      fio `There are N VMs finished testing early`; Vdbench Y - X of
                            `X out of Y VMs finished test successfully`; else 0
    is_partial              vms_finished_early > 0 (the numbers cover only part of the VMs)
    iops                    `IOPS` (sum over VMs, read + write)
    throughput_mib_per_s    `THROUGHPUT` "MB/s" (really MiB/s; integer-truncated by fio layouts)
    latency_ms_vm_avg       Vdbench `LATENCY`
    read_latency_ms_vm_avg, write_latency_ms_vm_avg         `R_LATENCY`, `W_LATENCY`
    p95_read_latency_ms_vm_avg, p95_write_latency_ms_vm_avg fio `95%tile_R_LAT`, `95%tile_W_LAT`
    p95_latency_ms_normal_estimate                          Vdbench `95%tile_LAT`
    latency_decimals        decimals printed for latencies (2 or 4; Ruby round(2) prints fewer)
    read_pct_from_name      read % of the case name, for the next column
    mixed_latency_ms_summary_derived  mean latency of the mix when only the summary exists:
                            Vdbench `LATENCY`; fio R and W weighted by the read % of the case
                            name (the summary has no read/write IOPS split); None if unknown

`hcibench_unfinished_vms` (one row per VM/file the summary lists as not summarized):
    case_name, datastore_name, block_index (None for fio's one list per file)
    vm_name                 file stem of the listed file
    listed_file             the file reference as printed (a path or a results URL)
    reason                  `finished_early` (fio: no final status dump) |
                            `no_avg_line` (Vdbench: the run did not finish)

`hcibench_resource_usage` (one row per host or cluster average):
    case_name, origin       `res_txt` | `resource_util_info` | `resource_usage_info`
    cluster_name            None when the 2.5 line names no cluster
    host_name               None for a cluster average
    is_average
    cpu_usage_pct           2.8 `cpu.usage%` (logical CPUs); <=2.5 `CPU USAGE` (Observer PCPU)
    cpu_utilization_pct     2.8 `cpu.utilization%` (physical CPUs)
    mem_usage_pct           2.8 `mem.usage%`; <=2.5 `RAM USAGE`
    vsan_pcpu_usage_pct     <=2.5 `vSAN PCPU USAGE`

`hcibench_params` (one row per workload parameter file):
    case_name, param_name, tool, disks_per_vm, working_set_pct, block_size_bytes, read_pct,
    random_pct, threads_per_disk (fio iodepth, Vdbench sd threads), testing_time_s, warmup_s,
    interval_s, io_rate_text, compratio, dedupratio, dedupunit_text
    block_size_text         the block size as the file writes it (`4`, `4k`)
    fio_readwrite, fio_ioengine
    header_json             fio `; key: value` comment header / Vdbench `*` comment lines
    options_json            fio `[global]` options / Vdbench general `key=value` lines
    devices_json            one entry per disk: fio job `filename`, Vdbench `sd` lun

`hcibench_settings` (one row per leaf setting of hcibench.cfg):
    case_name, setting_key (dotted path), value_json, is_redacted
    Values of keys containing `pass`, `user`, `secret`, `token`, `key` or `credential` are never
    stored (value_json None, is_redacted True).

`hcibench_vsan_datastores` (one row per datastore block of vsan.cfg):
    case_name, datastore_name, is_local, vsan_type, host_count, disk_groups_per_host,
    total_cache_disk_size_gb, capacity_disks_per_disk_group, space_efficiency, dedupe_enabled,
    compression_enabled, fault_tolerance_text, ftm (`RAID-1` | `RAID-5` | `RAID-6` | `RAID-5/6`),
    ftt (host primary), secondary_ftt, checksum_enabled, capacity_gb, free_space_gb

`hcibench_cluster_hosts` (vsan.cfg `Cluster Hosts Map`): case_name, cluster_name, host_name
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from ingest.records import Parsed, ParseError, SourceFile

FORMAT = "hcibench"
PARSER_VERSION = "1"


# ---------------------------------------------------------------------------------------------
# test-case names


@dataclass(frozen=True, slots=True)
class CaseName:
    """What an HCIBench test-case (or parameter file) name says about the workload."""

    case_name: str
    param_name: str
    tool: str  # fio | vdbench
    user_prefix: str | None
    group_index: int | None
    disks_per_vm: int
    working_set_pct: int
    block_size_bytes: int
    block_size_text: str
    read_pct: int
    random_pct: int
    threads_per_disk: int
    name_suffix: str | None
    started_at: dt.datetime | None


_CASE_NAME = re.compile(
    r"^(?:group(?P<group>\d+)-)?"
    r"(?P<param>(?:(?P<prefix>.+?)-)?(?P<tool>fio|vdb)-(?P<disks>\d+)vmdk-(?P<ws>\d+)ws-"
    r"(?P<bs>\d+)(?P<unit>[kKmM]?)[bB]?-(?P<rd>\d+)rdpct-(?P<rand>\d+)randompct-"
    r"(?P<threads>\d+)threads(?:-(?P<suffix>[^/]+?))??)"
    r"(?:-(?P<epoch>\d{10}))?$"
)
_EPOCH_SUFFIX = re.compile(r"-(\d{10})(?:-res\.txt)?$")
_UNIT_BYTES = {"": 1024, "k": 1024, "m": 1024 * 1024}


def _epoch_at(name: str) -> dt.datetime | None:
    match = _EPOCH_SUFFIX.search(name)
    return dt.datetime.fromtimestamp(int(match.group(1)), dt.UTC) if match else None


def parse_case_name(name: str) -> CaseName | None:
    """Workload facts of `[group<i>-][<prefix>-]<fio|vdb>-<N>vmdk-<ws>ws-<bs>-<rd>rdpct-
    <rand>randompct-<T>threads[-<epoch>][-res.txt]`; None for other names.

    HCIBench writes block sizes in KiB: `4k` and a bare `4` both mean 4096 bytes.
    """
    base = posixpath.basename(name.rstrip("/")).removesuffix("-res.txt")
    match = _CASE_NAME.match(base)
    if not match:
        return None
    if not (0 <= int(match["rd"]) <= 100 and 0 <= int(match["rand"]) <= 100):
        return None
    epoch = match["epoch"]
    return CaseName(
        case_name=base,
        param_name=match["param"],
        tool="fio" if match["tool"] == "fio" else "vdbench",
        user_prefix=match["prefix"],
        group_index=int(match["group"]) if match["group"] else None,
        disks_per_vm=int(match["disks"]),
        working_set_pct=int(match["ws"]),
        block_size_bytes=int(match["bs"]) * _UNIT_BYTES[match["unit"].lower()],
        block_size_text=match["bs"] + match["unit"],
        read_pct=int(match["rd"]),
        random_pct=int(match["rand"]),
        threads_per_disk=int(match["threads"]),
        name_suffix=match["suffix"],
        started_at=dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else None,
    )


# ---------------------------------------------------------------------------------------------
# row types


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

# ---------------------------------------------------------------------------------------------
# detection

_RES_DATASTORE = re.compile(r"^Datastore\s*(=|:)\s*\S", re.MULTILINE)
_RES_MARKERS = re.compile(
    r"^(JOB_NAME\s*=|Run Def:|Version:|Resource Usage:|All the VMs finished testing early)",
    re.MULTILINE,
)
_FIO_PARAM = re.compile(r"^\s*;\s*Auto generated FIO parameter file", re.IGNORECASE | re.MULTILINE)
_VDB_PARAM = re.compile(
    r"^\*\s*Auto Generated VDBench Parameter File", re.IGNORECASE | re.MULTILINE
)
_VSAN_CFG = re.compile(r"^(Local|Remote) vSAN Datastore Name:", re.MULTILINE)
_RES_TABLE = re.compile(r"^\|\s*Resource Utilization\s*\|", re.MULTILINE)
_RES_JSON = re.compile(r'^\s*\{\s*"[^"]*"\s*:\s*\{\s*"(cpu|mem)\.\w+"\s*:')
_JOB_SECTION = re.compile(r"^\[[^\]]+\]\s*$", re.MULTILINE)
# Top-level keys of HCIBench's perf-conf.yaml (rvc-util.rb); three of them make a settings file.
_SETTING_KEYS = re.compile(
    r"^(vc|datacenter_name|cluster_name|datastore_name|number_vm|tool|vm_prefix|easy_run|"
    r"clear_cache|storage_policy|network_name|output_path|testing_duration|number_data_disk|"
    r"size_data_disk|warm_up_disk_before_testing|reuse_vm|cleanup_vm|workloads|"
    r"self_defined_param_file_path|deploy_on_hosts|static_enabled):",
    re.MULTILINE,
)


def _kind(text: str, name: str) -> str | None:
    """Which HCIBench file `text` is, from its content (the name breaks ties only)."""
    # HCIBench writes the `Datastore` line first; a document quoting a summary does not open so.
    if _RES_DATASTORE.match(text.lstrip()) and _RES_MARKERS.search(text):
        return "res_txt"
    # The generator's comment line opens the file; an article quoting one is not a parameter file.
    if _FIO_PARAM.match(text.lstrip()[:2048]):
        return "fio_params"
    if _VDB_PARAM.match(text.lstrip()[:2048]):
        return "vdbench_params"
    if _VSAN_CFG.search(text[:4096]):
        return "vsan_cfg"
    if _RES_TABLE.search(text):
        return "resource_util"
    if _RES_JSON.match(text):
        return "resource_usage"
    if len(set(m.group(1) for m in _SETTING_KEYS.finditer(text))) >= 3:
        return "settings"
    lower = name.lower()
    # Parameter files a user uploaded keep HCIBench's copy names but not its comment header.
    if lower == "fio.cfg" and _JOB_SECTION.search(text) and "fio version" not in text:
        return "fio_params"
    if lower == "vdbench.cfg" and re.search(r"^sd=", text, re.MULTILINE):
        return "vdbench_params"
    return None


def detect(head: bytes, name: str) -> bool:
    return _kind(head.decode("utf-8", errors="replace"), name) is not None


# ---------------------------------------------------------------------------------------------
# shared helpers


def _case_name(source: SourceFile) -> str | None:
    if source.hcibench_case:
        return posixpath.basename(source.hcibench_case)
    return None


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.splitlines(), start=1):
        yield number, line.rstrip()


def _fail(source: SourceFile, line_no: int, reason: str) -> ParseError:
    return ParseError(source.path, f"line {line_no}", reason)


def _float(text: str, source: SourceFile, line_no: int, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise _fail(source, line_no, f"{what}: {text!r} is not a number") from None


def _size_bytes(text: str) -> int | None:
    """`4k`, `64K`, `1m`, `512`: a size with an optional binary unit (bytes when none)."""
    match = re.fullmatch(r"(\d+)([kKmMgG]?)[bB]?", text.strip())
    if not match:
        return None
    unit = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2).lower()]
    return int(match.group(1)) * unit


# ---------------------------------------------------------------------------------------------
# -res.txt

_KV = re.compile(
    r"^(?P<key>JOB_NAME|VMs|IOPS|THROUGHPUT|LATENCY|R_LATENCY|W_LATENCY|"
    r"95%tile_R_LAT|95%tile_W_LAT|95%tile_LAT)\s*=\s*(?P<value>.*?)\s*$"
)
_VALUE_UNIT = re.compile(r"^(?P<num>-?\d+(?:\.\d+)?)\s*(?P<unit>\S+)?$")
_EARLY = re.compile(r"^There are (\d+) VMs finished testing early")
_DONE = re.compile(r"^Testing is done, (\d+) out of (\d+) VMs finished test successfully")
_USAGE_LINE = re.compile(r"^(?P<key>CPU USAGE|RAM USAGE|vSAN PCPU USAGE)\s*=\s*(?P<value>.*?)\s*$")
_EXPECTED_UNITS = {"IOPS": ("IO/S", "IO/s"), "THROUGHPUT": ("MB/s",)}
_LATENCY_KEYS = {
    "LATENCY",
    "R_LATENCY",
    "W_LATENCY",
    "95%tile_R_LAT",
    "95%tile_W_LAT",
    "95%tile_LAT",
}


@dataclass(slots=True)
class _Block:
    index: int
    datastore: str | None
    start_line: int
    values: dict[str, Any]
    early: int = 0
    decimals: int | None = None


def _vm_name(listed: str) -> str:
    return posixpath.splitext(posixpath.basename(listed.strip()))[0]


def _usage_values(text: str, source: SourceFile, line_no: int) -> list[tuple[str | None, float]]:
    """`45.3%` or `cluster1: 45.3%; cluster2: 12.0%; ` (HCIBench <= 2.5, several clusters)."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    out: list[tuple[str | None, float]] = []
    for part in parts:
        cluster, _, value = part.rpartition(":")
        number = value.strip().removesuffix("%")
        out.append((cluster.strip() or None, _float(number, source, line_no, "resource usage")))
    return out


def _parse_table(
    lines: list[tuple[int, str]], source: SourceFile, case: str | None, origin: str
) -> list[HcibenchResourceUsage]:
    """RVC `perf.stats_with_timerange -o table` output (terminal-table), one or more clusters."""
    rows: list[HcibenchResourceUsage] = []
    cluster: str | None = None
    columns: list[str] = []
    for line_no, line in lines:
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells == ["Resource Utilization"]:
            cluster, columns = None, []
            continue
        if cluster is None:
            cluster, columns = cells[0], cells[1:]
            continue
        values: dict[str, float] = {}
        for column, cell in zip(columns, cells[1:], strict=False):
            field = {
                "cpu.usage%": "cpu_usage_pct",
                "cpu.utilization%": "cpu_utilization_pct",
                "mem.usage%": "mem_usage_pct",
            }.get(column)
            if field and cell:
                values[field] = _float(cell, source, line_no, column)
        is_average = cells[0] == "Average"
        rows.append(
            HcibenchResourceUsage(
                case_name=case,
                origin=origin,
                cluster_name=cluster,
                host_name=None if is_average else cells[0],
                is_average=is_average,
                **values,
            )
        )
    return rows


def _parse_res_txt(text: str, source: SourceFile, parsed: Parsed) -> None:
    case = _case_name(source) or source.name.removesuffix("-res.txt")
    name = parse_case_name(case)
    blocks: list[_Block] = []
    unfinished: list[HcibenchUnfinishedVm] = []
    resource: list[HcibenchResourceUsage] = []
    datastores: list[str] = []
    layout: str | None = None
    section = "blocks"  # blocks | bad_files | early_files | resource
    pending_early = 0
    all_early = False
    perf_url: str | None = None
    has_diag = False
    resource_kind: str | None = None
    table_lines: list[tuple[int, str]] = []
    usage_lines: dict[str | None, dict[str, float]] = {}
    lines = list(_lines(text))

    def current(line_no: int) -> _Block:
        if not blocks:
            raise _fail(source, line_no, "summary value before any JOB_NAME / Version line")
        return blocks[-1]

    def new_block(line_no: int) -> _Block:
        nonlocal pending_early
        block = _Block(
            len(blocks), datastores[-1] if datastores else None, line_no, {}, early=pending_early
        )
        pending_early = 0
        blocks.append(block)
        return block

    for line_no, line in lines:
        stripped = line.strip()
        if (
            section == "resource"
            and resource_kind != "cpu_usage_lines"
            and stripped.startswith(("+", "|"))
        ):
            resource_kind = "resource_utilization_table"
            table_lines.append((line_no, stripped))
            continue
        if not stripped:
            if section in ("bad_files", "early_files"):
                section = "blocks" if section == "bad_files" else "tail"
            continue
        if stripped.startswith("=" * 10):
            if section == "bad_files":
                section = "blocks"
            continue
        datastore = re.match(r"^Datastore\s*(?P<sep>=|:)\s*(?P<name>.*?)\s*$", stripped)
        if datastore:
            datastores.append(datastore["name"])
            if datastore["sep"] == ":":
                layout = "vdbench_bash"
            section = "blocks"
            continue
        if stripped.startswith("All the VMs finished testing early"):
            all_early = True
            continue
        early = _EARLY.match(stripped)
        if early:
            pending_early = int(early.group(1))
            continue
        if stripped.startswith("Check the following results files that finished testing early"):
            section = "early_files"
            continue
        if stripped == "Resource Usage:":
            section = "resource"
            continue
        if stripped.startswith("vSAN Performance Stats Graph:"):
            perf_url = stripped.partition(":")[2].strip() or None
            continue
        if "performance_diag_result.html" in stripped:
            has_diag = True
            continue
        done = _DONE.match(stripped)
        if done:
            block = current(line_no)
            ok, total = int(done.group(1)), int(done.group(2))
            block.early = total - ok
            section = "bad_files"
            continue
        if section == "bad_files":
            unfinished.append(
                HcibenchUnfinishedVm(
                    case,
                    blocks[-1].datastore,
                    blocks[-1].index,
                    _vm_name(stripped),
                    stripped,
                    "no_avg_line",
                )
            )
            continue
        if section == "early_files":
            unfinished.append(
                HcibenchUnfinishedVm(
                    case, None, None, _vm_name(stripped), stripped, "finished_early"
                )
            )
            continue
        if section == "resource":
            usage = _USAGE_LINE.match(stripped)
            if usage:
                resource_kind = "cpu_usage_lines"
                field = {
                    "CPU USAGE": "cpu_usage_pct",
                    "RAM USAGE": "mem_usage_pct",
                    "vSAN PCPU USAGE": "vsan_pcpu_usage_pct",
                }[usage["key"]]
                if usage["value"]:
                    for cluster, value in _usage_values(usage["value"], source, line_no):
                        usage_lines.setdefault(cluster, {})[field] = value
                continue
            if stripped.startswith(("cpu.usage - ", "cpu.utilization - ")):
                continue
        version = re.match(r"^Version:\s*(?P<v>\S+)\s*$", stripped)
        if version:
            layout = layout or "vdbench_ruby"
            new_block(line_no).values["Version"] = version["v"]
            continue
        run_def = re.match(r"^Run Def:\s*(?P<rd>.*?)\s*$", stripped)
        if run_def:
            layout = layout or "vdbench_ruby"
            block = (
                blocks[-1]
                if blocks and "Run Def" not in blocks[-1].values and "IOPS" not in blocks[-1].values
                else new_block(line_no)
            )
            block.values["Run Def"] = run_def["rd"]
            continue
        kv = _KV.match(stripped)
        if kv:
            key, value = kv["key"], kv["value"]
            if key == "JOB_NAME":
                layout = layout or "fio"
                new_block(line_no).values["JOB_NAME"] = value
                continue
            block = current(line_no)
            if key in block.values:
                raise _fail(source, line_no, f"{key} appears twice in one summary block")
            if key == "VMs":
                if not value.isdigit():
                    raise _fail(source, line_no, f"VMs: {value!r} is not a count")
                block.values[key] = int(value)
                continue
            number = _VALUE_UNIT.match(value)
            if not number:
                raise _fail(source, line_no, f"{key}: {value!r} is not a number with a unit")
            unit = number["unit"]
            expected = _EXPECTED_UNITS.get(key, ("ms",))
            if unit not in expected:
                raise _fail(source, line_no, f"{key}: unit {unit!r}, expected {expected[0]!r}")
            block.values[key] = float(number["num"])
            if key in _LATENCY_KEYS:
                decimals = len(number["num"].partition(".")[2])
                block.decimals = max(block.decimals or 0, decimals)
            continue
        parsed.notes.append(f"line {line_no}: ignored {stripped[:60]!r}")

    # One row per cluster for the <= 2.5 lines (CPU, RAM and vSAN PCPU of the same cluster).
    for cluster, values in usage_lines.items():
        resource.append(
            HcibenchResourceUsage(
                case_name=case,
                origin="res_txt",
                cluster_name=cluster,
                host_name=None,
                is_average=True,
                **values,
            )
        )
    if resource_kind == "resource_utilization_table":
        resource.extend(_parse_table(table_lines, source, case, "res_txt"))
    if not datastores:
        raise ParseError(source.path, "line 1", "no 'Datastore' line: not an HCIBench summary")
    if not blocks and not all_early:
        raise ParseError(source.path, "end of file", "no summary block (JOB_NAME or Version)")
    for block in blocks:
        missing = [k for k in ("VMs", "IOPS", "THROUGHPUT") if k not in block.values]
        if missing:
            raise _fail(
                source,
                block.start_line,
                f"summary block lacks {', '.join(missing)} (file cut short?)",
            )

    layout = layout or "fio"
    parsed.add("hcibench_summary_blocks", [_block_row(case, b, name) for b in blocks])
    parsed.add("hcibench_unfinished_vms", unfinished)
    parsed.add("hcibench_resource_usage", resource)
    parsed.add(
        "hcibench_cases",
        [
            HcibenchCase(
                case_name=case,
                param_name=name.param_name if name else None,
                tool=name.tool if name else ("fio" if layout == "fio" else "vdbench"),
                user_prefix=name.user_prefix if name else None,
                group_index=name.group_index if name else None,
                name_suffix=name.name_suffix if name else None,
                disks_per_vm=name.disks_per_vm if name else None,
                working_set_pct=name.working_set_pct if name else None,
                block_size_bytes=name.block_size_bytes if name else None,
                read_pct=name.read_pct if name else None,
                random_pct=name.random_pct if name else None,
                threads_per_disk=name.threads_per_disk if name else None,
                started_at=_epoch_at(case),
                summary_layout=layout,
                hcibench_release_hint=_release_hint(layout, blocks, resource_kind),
                datastore_count=len(datastores),
                block_count=len(blocks),
                all_vms_finished_early=all_early,
                resource_section=resource_kind,
                perf_stats_graph_url=perf_url,
                has_performance_diag=has_diag,
            )
        ],
    )
    early_total = sum(b.early for b in blocks)
    if early_total:
        parsed.notes.append(
            f"{early_total} VM result(s) left out of the summary (finished early "
            "or unfinished): the summary covers part of the VMs"
        )


def _release_hint(layout: str, blocks: list[_Block], resource_kind: str | None) -> str | None:
    if resource_kind == "resource_utilization_table":
        return "2.8+"
    if layout == "vdbench_bash" or resource_kind == "cpu_usage_lines":
        return "<=2.5"
    if layout == "fio" and blocks and blocks[0].decimals is not None:
        return "2.8+" if blocks[0].decimals >= 4 else "<=2.5"
    return None


def _block_row(case: str, block: _Block, name: CaseName | None) -> HcibenchSummaryBlock:
    values = block.values
    read_pct = name.read_pct if name else None
    r_lat, w_lat, lat = values.get("R_LATENCY"), values.get("W_LATENCY"), values.get("LATENCY")
    if lat is not None:
        mixed = lat
    elif read_pct is not None and r_lat is not None and w_lat is not None:
        mixed = (read_pct * r_lat + (100 - read_pct) * w_lat) / 100
    else:
        mixed = None
    run_def = values.get("Run Def")
    rd_name = None
    if run_def:
        match = re.match(r"RD=([^;]+)", run_def)
        rd_name = match.group(1).strip() if match else None
    return HcibenchSummaryBlock(
        case_name=case,
        block_index=block.index,
        datastore_name=block.datastore,
        job_name=values.get("JOB_NAME"),
        vdbench_version=values.get("Version"),
        run_def_text=run_def,
        rd_name=rd_name,
        vm_count=values.get("VMs"),
        vms_finished_early=block.early,
        is_partial=block.early > 0,
        iops=values.get("IOPS"),
        throughput_mib_per_s=values.get("THROUGHPUT"),
        latency_ms_vm_avg=lat,
        read_latency_ms_vm_avg=r_lat,
        write_latency_ms_vm_avg=w_lat,
        p95_read_latency_ms_vm_avg=values.get("95%tile_R_LAT"),
        p95_write_latency_ms_vm_avg=values.get("95%tile_W_LAT"),
        p95_latency_ms_normal_estimate=values.get("95%tile_LAT"),
        latency_decimals=block.decimals,
        read_pct_from_name=read_pct,
        mixed_latency_ms_summary_derived=mixed,
    )


# ---------------------------------------------------------------------------------------------
# parameter files


def _param_identity(source: SourceFile) -> tuple[str | None, str | None]:
    """(case name, parameter file name): `fio.cfg` copies take the name from the case."""
    case = _case_name(source)
    from_file = parse_case_name(source.name)
    if from_file:
        return case, from_file.param_name
    from_case = parse_case_name(case) if case else None
    return case, from_case.param_name if from_case else None


_FIO_RW = {  # readwrite -> (read %, random %) when rwmixread / percentage_random do not say
    "read": (100, 0),
    "write": (0, 0),
    "randread": (100, 100),
    "randwrite": (0, 100),
    "rw": (50, 0),
    "readwrite": (50, 0),
    "randrw": (50, 100),
}


def _parse_fio_params(text: str, source: SourceFile, parsed: Parsed) -> None:
    header: dict[str, Any] = {}
    sections: list[tuple[str, dict[str, str]]] = []
    for line_no, line in _lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith((";", "#")):
            key, sep, value = stripped.lstrip(";#").partition(":")
            if sep and key.strip():
                header[key.strip()] = value.strip()
            continue
        section = re.fullmatch(r"\[(?P<name>[^\]]+)\]", stripped)
        if section:
            sections.append((section["name"], {}))
            continue
        if not sections:
            raise _fail(source, line_no, "fio option outside any [section]")
        key, _, value = stripped.partition("=")
        if not re.fullmatch(r"[A-Za-z_][\w-]*", key.strip()):
            raise _fail(source, line_no, f"not an fio option line: {stripped[:40]!r}")
        sections[-1][1][key.strip()] = value.strip()
    if not sections:
        raise ParseError(source.path, "end of file", "no [global] or [job] section")

    global_opts = next((opts for name, opts in sections if name == "global"), {})
    jobs = [opts for name, opts in sections if name != "global"]

    def option(key: str, *aliases: str) -> str | None:
        for k in (key, *aliases):
            for opts in (*jobs[:1], global_opts):
                if k in opts:
                    return opts[k]
        return None

    rw = option("readwrite", "rw")
    rw_mix = _FIO_RW.get((rw or "").split(":")[0])
    read_pct = _header_number(header, "read_pct")
    if read_pct is None:
        mix = option("rwmixread")
        read_pct = float(mix) if mix else (float(rw_mix[0]) if rw_mix else None)
    random_pct = _header_number(header, "random_pct")
    if random_pct is None:
        pct = option("percentage_random")
        random_pct = float(pct) if pct else (float(rw_mix[1]) if rw_mix else None)
    bs_text = option("blocksize", "bs")
    header_bs = header.get("block_size")
    # HCIBench's header gives the block size in KiB; a bare number in the job file is what the
    # generator copied (fio itself would read it as bytes), so the header wins.
    block_size = (
        int(float(header_bs) * 1024)
        if header_bs and _is_number(header_bs)
        else _size_bytes(bs_text)
        if bs_text
        else None
    )
    if bs_text and bs_text.isdigit() and header_bs:
        parsed.notes.append(
            f"blocksize={bs_text} has no unit (fio reads bytes); using the "
            f"header block_size {header_bs} KiB"
        )
    iodepth = option("iodepth")
    threads = _header_number(header, "nb_threads")
    size = option("size")
    working_set = _header_number(header, "working_set")
    if working_set is None and size and size.endswith("%"):
        working_set = float(size[:-1])
    disks = _header_number(header, "nb_disks")
    case, param_name = _param_identity(source)
    parsed.add(
        "hcibench_params",
        [
            HcibenchParams(
                case_name=case,
                param_name=param_name,
                tool="fio",
                disks_per_vm=int(disks) if disks is not None else len(jobs),
                working_set_pct=working_set,
                block_size_bytes=block_size,
                block_size_text=bs_text,
                read_pct=read_pct,
                random_pct=random_pct,
                threads_per_disk=int(threads)
                if threads is not None
                else (int(iodepth) if iodepth else None),
                testing_time_s=_int_or_none(option("runtime"))
                or _int_or_none(header.get("testing_time")),
                warmup_s=_int_or_none(option("ramp_time"))
                or _int_or_none(header.get("warmup_time")),
                interval_s=_int_or_none(header.get("interval_time")),
                io_rate_text=option("rate_iops") or _none_text(header.get("io_rate")),
                compratio=None,
                dedupratio=None,
                dedupunit_text=None,
                fio_readwrite=rw,
                fio_ioengine=option("ioengine"),
                header_json=header,
                options_json=global_opts,
                devices_json=[opts.get("filename", "") for opts in jobs],
            )
        ],
    )


def _is_number(text: str) -> bool:
    return bool(re.fullmatch(r"\d+(\.\d+)?", text.strip()))


def _header_number(header: dict[str, Any], key: str) -> float | None:
    value = header.get(key)
    return float(value) if isinstance(value, str) and _is_number(value) else None


def _int_or_none(text: str | None) -> int | None:
    return int(text) if text and text.strip().isdigit() else None


def _none_text(text: str | None) -> str | None:
    return None if text in (None, "", "None") else text


def _split_params(text: str) -> dict[str, str]:
    """`sd=sd1,lun=/dev/sda,range=(0,100),threads=8`, commas inside parentheses kept."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    parts.append(current)
    out: dict[str, str] = {}
    for part in parts:
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out


def _parse_vdbench_params(text: str, source: SourceFile, parsed: Parsed) -> None:
    comments: list[str] = []
    general: dict[str, Any] = {}
    sds: list[dict[str, str]] = []
    wds: list[dict[str, str]] = []
    rds: list[dict[str, str]] = []
    for line_no, line in _lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("*", "#")):
            comments.append(stripped.lstrip("*#").strip())
            continue
        if "=" not in stripped:
            raise _fail(source, line_no, f"not a Vdbench parameter line: {stripped[:40]!r}")
        key = stripped.partition("=")[0].strip().lower()
        if key in ("sd", "wd", "rd"):
            {"sd": sds, "wd": wds, "rd": rds}[key].append(_split_params(stripped))
        elif key in ("hd", "fsd", "fwd"):
            general.setdefault(key, []).append(stripped)
        else:
            general[key] = stripped.partition("=")[2].strip()
    if not sds or not wds or not rds:
        raise ParseError(
            source.path, "end of file", "Vdbench parameter file needs sd=, wd= and rd= lines"
        )
    wd, rd, sd = wds[0], rds[0], sds[0]
    working_set = None
    range_match = re.fullmatch(r"\(\s*[\d.]+\s*,\s*([\d.]+)\s*\)", sd.get("range", ""))
    if range_match:
        working_set = float(range_match.group(1))
    xfersize = wd.get("xfersize") or wd.get("xf")
    seek = wd.get("seekpct") or wd.get("seek")
    random_pct = {"random": 100.0, "seq": 0.0, "sequential": 0.0, "eof": 0.0}.get(
        (seek or "").lower(), float(seek) if seek and _is_number(seek) else None
    )
    rdpct = wd.get("rdpct")
    case, param_name = _param_identity(source)
    parsed.add(
        "hcibench_params",
        [
            HcibenchParams(
                case_name=case,
                param_name=param_name,
                tool="vdbench",
                disks_per_vm=len(sds),
                working_set_pct=working_set,
                block_size_bytes=_size_bytes(xfersize) if xfersize else None,
                block_size_text=xfersize,
                read_pct=float(rdpct) if rdpct and _is_number(rdpct) else None,
                random_pct=random_pct,
                threads_per_disk=_int_or_none(sd.get("threads")),
                testing_time_s=_int_or_none(rd.get("elapsed")),
                warmup_s=_int_or_none(rd.get("warmup")),
                interval_s=_int_or_none(rd.get("interval")),
                io_rate_text=rd.get("iorate"),
                compratio=float(general["compratio"])
                if _is_number(str(general.get("compratio", "x")))
                else None,
                dedupratio=float(general["dedupratio"])
                if _is_number(str(general.get("dedupratio", "x")))
                else None,
                dedupunit_text=general.get("dedupunit"),
                fio_readwrite=None,
                fio_ioengine=None,
                header_json=comments,
                options_json=general,
                devices_json=[s.get("lun", "") for s in sds],
            )
        ],
    )


# ---------------------------------------------------------------------------------------------
# hcibench.cfg

_SECRET = re.compile(r"pass|user|secret|token|key|credential", re.IGNORECASE)


def _leaves(value: Any, prefix: str) -> Iterator[tuple[str, Any, bool]]:
    """(dotted key, value, is secret) for every leaf; a secret key hides its whole subtree."""
    if isinstance(value, dict):
        for key, child in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if _SECRET.search(str(key)):
                yield path, None, True
            else:
                yield from _leaves(child, path)
    else:
        yield prefix, value, False


# hcibench.cfg / perf-conf.yaml are a few KiB; PyYAML reads ~3 MB/s, so a huge "settings"
# file would hang a load for minutes: beyond this it is not HCIBench's configuration.
_MAX_SETTINGS_BYTES = 1024 * 1024


def _parse_settings(text: str, source: SourceFile, parsed: Parsed) -> None:
    if len(text) > _MAX_SETTINGS_BYTES:
        raise ParseError(
            source.path,
            f"byte {_MAX_SETTINGS_BYTES}",
            f"over {_MAX_SETTINGS_BYTES:,} bytes: too large for an HCIBench settings file",
        )
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        location = f"line {mark.line + 1}" if mark else "end of file"
        # Never echo the offending text: it may be a credential.
        raise ParseError(source.path, location, "hcibench.cfg is not valid YAML") from None
    if not isinstance(document, dict):
        raise ParseError(source.path, "line 1", "hcibench.cfg is not a YAML mapping")
    case = _case_name(source)
    rows = [
        HcibenchSetting(case, key, None if secret else json.dumps(value, default=str), secret)
        for key, value, secret in _leaves(document, "")
    ]
    parsed.add("hcibench_settings", rows)


# ---------------------------------------------------------------------------------------------
# vsan.cfg

_FTM = re.compile(r"RAID-?(1|5/6|5|6)", re.IGNORECASE)


def _parse_vsan_cfg(text: str, source: SourceFile, parsed: Parsed) -> None:
    case = _case_name(source)
    stores: list[dict[str, Any]] = []
    hosts: list[HcibenchClusterHost] = []
    in_hosts_map = False
    cluster: str | None = None
    for line_no, line in _lines(text):
        stripped = line.strip()
        if not stripped or stripped == "---":
            continue
        if stripped.startswith("====="):
            continue
        if stripped == "Cluster Hosts Map":
            in_hosts_map = True
            continue
        if in_hosts_map:
            if stripped.startswith("- "):
                if cluster is None:
                    raise _fail(source, line_no, "host listed before any cluster name")
                hosts.append(HcibenchClusterHost(case, cluster, stripped[2:].strip().strip("'\"")))
            elif stripped.endswith(":"):
                cluster = stripped[:-1].strip().strip("'\"")
            else:
                raise _fail(
                    source, line_no, f"unexpected line in Cluster Hosts Map: {stripped[:40]!r}"
                )
            continue
        name = re.match(r"^(Local|Remote) vSAN Datastore Name:\s*(.*)$", stripped)
        if name:
            stores.append(
                {"datastore_name": name.group(2).strip(), "is_local": name.group(1) == "Local"}
            )
            continue
        key, sep, value = stripped.partition(":")
        if not sep:
            raise _fail(source, line_no, f"expected 'Key: value', found {stripped[:40]!r}")
        if not stores:
            raise _fail(source, line_no, "setting before the 'vSAN Datastore Name' line")
        stores[-1][key.strip()] = value.strip()
    if not stores:
        raise ParseError(source.path, "end of file", "no 'vSAN Datastore Name' line")
    parsed.add("hcibench_vsan_datastores", [_vsan_row(case, s, source) for s in stores])
    parsed.add("hcibench_cluster_hosts", hosts)


def _gb(text: str | None) -> float | None:
    if not text:
        return None
    match = re.fullmatch(r"([\d.]+)\s*GB", text.strip("'\" "))
    return float(match.group(1)) if match else None


def _vsan_row(case: str | None, facts: dict[str, Any], source: SourceFile) -> HcibenchVsanDatastore:
    efficiency = facts.get("Space Efficiency")
    dedupe = compression = None
    if efficiency:
        lower = efficiency.lower()
        dedupe = "dedup" in lower
        compression = "compression" in lower
    ftm_text = facts.get("Fault Tolerance Preference")
    ftm_match = _FTM.search(ftm_text or "")
    ftm = f"RAID-{ftm_match.group(1)}" if ftm_match else None
    checksum_disabled = facts.get("Checksum Disabled")
    return HcibenchVsanDatastore(
        case_name=case,
        datastore_name=facts["datastore_name"],
        is_local=facts["is_local"],
        vsan_type=facts.get("vSAN Type"),
        host_count=_int_or_none(facts.get("Number of Hosts")),
        disk_groups_per_host=_int_or_none(facts.get("Disk Groups per Host")),
        total_cache_disk_size_gb=_gb(facts.get("Total Cache Disk Size")),
        capacity_disks_per_disk_group=_int_or_none(facts.get("Capacity Disk per Disk Group")),
        space_efficiency=efficiency,
        dedupe_enabled=dedupe,
        compression_enabled=compression,
        fault_tolerance_text=ftm_text,
        ftm=ftm,
        ftt=_int_or_none(facts.get("Host Primary Fault Tolerance")),
        secondary_ftt=_int_or_none(facts.get("Host Secondary Fault Tolerance")),
        checksum_enabled=None if checksum_disabled is None else checksum_disabled.lower() != "true",
        capacity_gb=_gb(facts.get("Capacity")),
        free_space_gb=_gb(facts.get("Freespace")),
    )


# ---------------------------------------------------------------------------------------------
# resource files


def _parse_resource_util(text: str, source: SourceFile, parsed: Parsed) -> None:
    lines = [(n, line.strip()) for n, line in _lines(text)]
    rows = _parse_table(lines, source, _case_name(source), "resource_util_info")
    if not rows:
        raise ParseError(
            source.path, "end of file", "no host rows in the Resource Utilization table"
        )
    parsed.add("hcibench_resource_usage", rows)


def _parse_resource_usage(text: str, source: SourceFile, parsed: Parsed) -> None:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            source.path, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None
    if not isinstance(document, dict):
        raise ParseError(source.path, "line 1", "expected a JSON object of clusters")
    rows = []
    for cluster, metrics in document.items():
        if not isinstance(metrics, dict):
            raise ParseError(
                source.path, "line 1", f"cluster {cluster!r}: expected an object of averages"
            )
        values = {}
        for metric, field in (
            ("cpu.usage", "cpu_usage_pct"),
            ("cpu.utilization", "cpu_utilization_pct"),
            ("mem.usage", "mem_usage_pct"),
        ):
            value = metrics.get(metric)
            if value is not None and not isinstance(value, int | float):
                raise ParseError(
                    source.path, "line 1", f"cluster {cluster!r}: {metric} is not a number"
                )
            values[field] = None if value is None else float(value)
        rows.append(
            HcibenchResourceUsage(
                case_name=_case_name(source),
                origin="resource_usage_info",
                cluster_name=cluster,
                host_name=None,
                is_average=True,
                **values,
            )
        )
    parsed.add("hcibench_resource_usage", rows)


# ---------------------------------------------------------------------------------------------

_PARSERS = {
    "res_txt": _parse_res_txt,
    "fio_params": _parse_fio_params,
    "vdbench_params": _parse_vdbench_params,
    "settings": _parse_settings,
    "vsan_cfg": _parse_vsan_cfg,
    "resource_util": _parse_resource_util,
    "resource_usage": _parse_resource_usage,
}


def parse(data: bytes, source: SourceFile) -> Parsed:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(source.path, f"byte {exc.start}", "not UTF-8 text") from None
    kind = _kind(text, source.name)
    if kind is None:
        raise ParseError(
            source.path, "line 1", "not an HCIBench summary, parameter, config or resource file"
        )
    parsed = Parsed()
    try:
        _PARSERS[kind](text, source, parsed)
    except (ValueError, TypeError, OverflowError) as exc:
        # A value of the wrong shape where HCIBench writes a number (`rwmixread=5x0`).
        # Settings files may hold credentials: their values are never echoed.
        shown = "" if kind == "settings" else f": {exc}"
        location = "file" if kind == "settings" else _bad_value_line(text, exc)
        raise ParseError(source.path, location, f"value of the wrong type{shown}") from None
    return parsed


def _bad_value_line(text: str, exc: Exception) -> str:
    """`line N` of the first line holding the value a conversion choked on (quoted in `exc`)."""
    quoted = re.search(r"'([^']{1,200})'", str(exc))
    at = text.find(quoted.group(1)) if quoted else -1
    return f"line {text.count(chr(10), 0, at) + 1}" if at >= 0 else "line 1"
