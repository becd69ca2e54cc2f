"""HCIBench's own text files in a results folder (`/opt/output/results/<test name>/`).

Usage
-----
    # as every parser (ingest.parsers):
    hcibench.parse(data, source_for(path, data)).tables["hcibench_params"]

Example
-------
An HCIBench fio parameter file (copied into each test-case folder as `fio.cfg`), trimmed
from the golden case `hcibench/hcibench__cleeistaken_hcibenchapi__fio-1vmdk-100ws-4-100rdpct-
100randompct-2threads.paramfile` (a row shows some of its fields):

    $ cat fio-1vmdk-100ws-4-100rdpct-100randompct-2threads
    ; Auto generated FIO parameter file
    ; block_size:     4
    ; interval_time:  None
    ; warmup_time:    60
    ; nb_disks:       1
    ; io_rate:        None
    ; read_pct:       100
    ; random_pct:     100
    ; nb_threads:     2
    ; working_set:    100

    [global]
    runtime=300
    time_based=1
    ramp_time=60
    readwrite=randread
    random_generator=tausworthe64
    blocksize=4
    ioengine=libaio
    group_reporting
    continue_on_error=all

    [job0]
    filename=/dev/sda
    direct=1
    size=100%
    iodepth=2

    hcibench_params: 1 row
      {"param_name": "fio-1vmdk-100ws-4-100rdpct-100randompct-2threads", "tool": "fio",
       "disks_per_vm": 1, "working_set_pct": 100.0, "block_size_bytes": 4096,
       "block_size_text": "4", "read_pct": 100.0, "random_pct": 100.0, "threads_per_disk": 2,
       "testing_time_s": 300, "warmup_s": 60, "fio_readwrite": "randread", "fio_ioengine": "libaio",
       "devices_json": ["/dev/sda"]}
    notes: ["blocksize=4 has no unit (fio reads bytes); using the header block_size 4 KiB"]

One package for the files HCIBench itself writes around the load generators' outputs (FORMATS.md
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
    all_vms_finished_early  `All the VMs finished testing early, no results summarized` (the file
                            loads with `Parsed.no_result_reason` saying so)
    resource_section        `cpu_usage_lines` | `resource_utilization_table` | None
    perf_stats_graph_url    2.8 `vSAN Performance Stats Graph:` link, as printed
    has_performance_diag    a performance_diag_result.html pointer was printed
    is_partial, cut_line    the file ends inside line `cut_line` (no line terminator, or a value
                            that stops mid-number: `CPU USAGE = 4` of `47.82%`, `199.00 MB`, a
                            table row without its closing `|`): nothing of that line is stored
                            (its values stay None, with a note) and what followed it is missing.
                            A block cut before its IOPS is dropped (rejected when it is the only
                            one); a block cut later keeps what came before, `is_partial` set

`hcibench_summary_blocks` (one row per datastore x fio job / Vdbench run definition):
    case_name, block_index, datastore_name
    job_name                fio `JOB_NAME`
    vdbench_version, run_def_text, rd_name   Vdbench `Version`, `Run Def` (and its RD name)
    vm_count                `VMs` (the VMs summarized)
    vms_finished_early      fio `There are N VMs finished testing early`; Vdbench Y - X of
                            `X out of Y VMs finished test successfully`; else 0
    is_partial              vms_finished_early > 0 (the numbers cover only part of the VMs),
                            or the block lacks values its layout prints (the file was cut in
                            or after it; missing values are None)
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
    latency_kind            `total` (`ingest.records.LatencyKind`) for every latency above:
                            HCIBench averages fio's `lat_ns` mean (total latency; its p95 from
                            `lat_ns.percentile`, `parseFioResult.rb`) or Vdbench's response
                            time; None for a block without latencies

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
    The value of a secret key (`ingest.redaction`: pass/pwd/pw/user/secret/token/key/auth/sso/
    login/cookie/...) is never stored (value_json None, is_redacted True); another value keeps
    its non-secret parts (a list of host maps minus their passwords, a URL minus its user
    info, `***` in their place) and is_redacted says something was hidden.

`hcibench_vsan_datastores` (one row per datastore block of vsan.cfg):
    case_name, datastore_name, is_local, vsan_type, host_count, disk_groups_per_host,
    total_cache_disk_size_gb, capacity_disks_per_disk_group, space_efficiency, dedupe_enabled,
    compression_enabled, fault_tolerance_text, ftm (`RAID-1` | `RAID-5` | `RAID-6` | `RAID-5/6`),
    ftt (host primary), secondary_ftt, checksum_enabled, capacity_gb, free_space_gb

`hcibench_cluster_hosts` (vsan.cfg `Cluster Hosts Map`): case_name, cluster_name, host_name

Modules: `summary` (-res.txt), `params` (fio/Vdbench parameter files), `configs` (hcibench.cfg,
perf-conf.yaml, vsan.cfg), `resources` (resource util/usage), `case_name` (the name grammar),
`case_folder` (which files belong to a test case), `records` (row types), `values`. This module
is the parser contract the registry reads: it tells the files apart and hands each to its reader.
"""

from __future__ import annotations

import re

from ingest.parsers._common import bad_value_line, is_document
from ingest.parsers.hcibench.case_name import CaseName, parse_case_name
from ingest.parsers.hcibench.configs import parse_settings, parse_vsan_cfg
from ingest.parsers.hcibench.params import parse_fio_params, parse_vdbench_params
from ingest.parsers.hcibench.records import TABLES
from ingest.parsers.hcibench.resources import parse_resource_usage, parse_resource_util
from ingest.parsers.hcibench.summary import parse_res_txt
from ingest.records import Parsed, ParseError, SourceFile

__all__ = ["FORMAT", "PARSER_VERSION", "TABLES", "CaseName", "detect", "parse", "parse_case_name"]

FORMAT = "hcibench"
PARSER_VERSION = "3"  # 3: latency_kind

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
_SETTING_NAMES = (
    "vc", "datacenter_name", "cluster_name", "datastore_name", "number_vm", "tool",
    "vm_prefix", "easy_run", "clear_cache", "storage_policy", "network_name", "output_path",
    "testing_duration", "number_data_disk", "size_data_disk", "warm_up_disk_before_testing",
    "reuse_vm", "cleanup_vm", "workloads", "self_defined_param_file_path", "deploy_on_hosts",
    "static_enabled",
)  # fmt: skip
_SETTING_SET = frozenset(_SETTING_NAMES)


# A key that opens a line, colon right after it. The pattern starts with a newline, which the
# regex engine finds at memchr speed: 50 us over a 64 KiB head, where a multi-line `^` walked
# every character and a split with a lookup per line took 280 us (a third of a fio file's
# detection, every format before fio being asked first).
_KEY_AT_LINE_START = re.compile(r"\n([a-z0-9_]+):")


def _setting_keys(text: str) -> set[str]:
    """The settings keys that open a line (`number_vm: 8`): the text before a line's first
    colon, when it is one of the names."""
    return {key for key in _KEY_AT_LINE_START.findall("\n" + text) if key in _SETTING_SET}


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
    # substring tests first (each regex walks the whole head: most of a fio file's detection)
    if "Resource Utilization" in text and _RES_TABLE.search(text):
        return "resource_util"
    if _RES_JSON.match(text):
        return "resource_usage"
    if len(_setting_keys(text)) >= 3:
        return "settings"
    lower = name.lower()
    # Parameter files a user uploaded keep HCIBench's copy names but not its comment header.
    if lower == "fio.cfg" and _JOB_SECTION.search(text) and "fio version" not in text:
        return "fio_params"
    if lower == "vdbench.cfg" and re.search(r"^sd=", text, re.MULTILINE):
        return "vdbench_params"
    return None


def detect(head: bytes, name: str) -> bool:
    if is_document(head, name):
        return False
    return _kind(head.decode("utf-8", errors="replace"), name) is not None


_PARSERS = {
    "res_txt": parse_res_txt,
    "fio_params": parse_fio_params,
    "vdbench_params": parse_vdbench_params,
    "settings": parse_settings,
    "vsan_cfg": parse_vsan_cfg,
    "resource_util": parse_resource_util,
    "resource_usage": parse_resource_usage,
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
        location = "file" if kind == "settings" else bad_value_line(text, exc)
        raise ParseError(source.path, location, f"value of the wrong type{shown}") from None
    return parsed
