"""Write one HCIBench test case: the `<paramfile>-<epoch>/` folder and its `-res.txt` summary.

Layout and file formats follow FORMATS.md 2.1-2.4 and the real-format fixtures in
`tests/fixtures/hcibench/results/` (HCIBench 2.5 Vdbench, 2.5 and 2.8 fio):

    <test name>/
      <tool>-<N>vmdk-<ws>ws-<bs>-<rd>rdpct-<rand>randompct-<T>threads-<epoch>/
        <vm>.txt (Vdbench stdout) | <vm>.json (fio status dumps)   one per worker VM
        vdbench.cfg | fio.cfg      the workload parameter file
        hcibench.cfg               perf-conf.yaml without credentials
        vsan.cfg                   the vSAN datastore description
      <case>-res.txt               the summary, next to the folder

The summary is computed from the per-VM files exactly as HCIBench does (FORMATS.md 2.3,
`parseVdbResult.rb` / `vdb-process.sh`, `parseFioResult.rb`): IOPS and throughput are sums over
VMs; latencies are plain averages over VMs; Vdbench's `95%tile_LAT` is mean + 1.645 x stddev;
fio THROUGHPUT is the integer sum of `bw` (KiB/s) divided by 1024 with integer division.

The pieces are shared by the reference studies and the fixture maker
(`synth.fixtures.hcibench`): `fio_result_lines` is one job's block of a fio summary in the 2.5
or 2.8 layout, `vdbench_avg` reads one VM's `avg_` line, `resource_table` is the 2.8
`Resource Utilization` table, `fio_cfg` / `fio_cfg_per_job` the two parameter-file layouts.

API (used by the reference study modules, Vdbench and fio mode alike):

    name = case_name("vdb", disks=8, working_set_pct=100, block_size="4k", read_pct=70,
                     random_pct=100, threads=4, epoch=1528000000)
    outputs = {"hci-vdb-0-1": vdbench_text.render_stdout(...), ...}   # or fio JSON texts
    summary = vdbench_summary(outputs, resource=ResourceUsage(41.0, 30.0, 6.0))
    write_case(root, name, "vdbench", outputs, vdbench_cfg(...), vsan_cfg(VsanConfig(...)),
               hcibench_cfg({...}), summary)

Every function is pure except `write_case`, which only writes the texts it is given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import yaml

from synth.fio_json import final_fio_dump

_SECRET = re.compile(r"pass|user|secret|token|key|credential", re.IGNORECASE)
SUMMARY_RULE = "============================="  # the rule between a summary's sections


def case_name(
    tool: str,
    *,
    disks: int,
    working_set_pct: int,
    block_size: str,
    read_pct: int,
    random_pct: int,
    threads: int,
    epoch: int,
) -> str:
    """`vdb-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1528000000` (`tool` = `vdb` | `fio`)."""
    return (
        f"{tool}-{disks}vmdk-{working_set_pct}ws-{block_size}-{read_pct}rdpct-"
        f"{random_pct}randompct-{threads}threads-{epoch}"
    )


# --------------------------------------------------------------------------------------------
# parameter files


def vdbench_cfg(
    *,
    disks: int,
    threads: int,
    xfersize: str,
    read_pct: int,
    random_pct: int,
    elapsed_s: int,
    warmup_s: int,
    interval_s: int,
    rd_name: str = "run1",
    data_options: Sequence[str] = (),
    working_set_pct: int = 100,
) -> str:
    """HCIBench's generated Vdbench parameter file (`vdbench.cfg`); `data_options` are general
    lines such as `dedupratio=10` placed before the SDs (Micron RA Appendix A); the working set
    is each SD's `range=(0,<pct>)`."""
    luns = device_names(disks)
    lines = [
        "*Auto Generated VDBench Parameter File",
        f"*{disks} raw disk, {random_pct}% random, {read_pct}% read",
        "*SD:    Storage Definition",
        "*WD:    Workload Definition",
        "*RD:    Run Definition",
        "debug=86",
        "data_errors=10000",
        *data_options,
    ]
    lines += [
        f"sd=sd{i + 1},lun={lun},openflags=o_direct,hitarea=0,range=(0,{working_set_pct}),"
        f"threads={threads}"
        for i, lun in enumerate(luns)
    ]
    sds = ",".join(f"sd{i + 1}" for i in range(disks))
    lines.append(f"wd=wd1,sd=({sds}),xfersize={xfersize},rdpct={read_pct},seekpct={random_pct}")
    lines.append(
        f"rd={rd_name},wd=wd1,iorate=max,elapsed={elapsed_s},warmup={warmup_s},"
        f"interval={interval_s}"
    )
    return "\n".join(lines) + "\n"


def device_names(disks: int) -> list[str]:
    """The worker VM's data disks as HCIBench's parameter files name them: /dev/sda, ..."""
    return [f"/dev/sd{chr(ord('a') + i)}" for i in range(disks)]


def fio_cfg_comment(
    *,
    block_size_kib: int,
    runtime_s: int,
    warmup_s: int,
    disks: int,
    read_pct: int,
    random_pct: int,
    threads: int,
    working_set_pct: int,
) -> list[str]:
    """The comment block that opens every HCIBench-generated fio job file, blank line included."""
    return [
        "; Auto generated FIO parameter file",
        f"; block_size:     {block_size_kib}",
        f"; testing_time:   {runtime_s} ",
        "; interval_time:  None",
        f"; warmup_time:    {warmup_s}",
        f"; nb_disks:       {disks}",
        "; io_rate:        None",
        f"; read_pct:       {read_pct}",
        f"; random_pct:     {random_pct}",
        f"; nb_threads:     {threads}",
        f"; working_set:    {working_set_pct}",
        "",
    ]


def fio_cfg(
    *,
    disks: int,
    iodepth: int,
    block_size_kib: int,
    read_pct: int,
    random_pct: int,
    runtime_s: int,
    warmup_s: int,
    working_set_pct: int,
) -> str:
    """HCIBench's generated fio job file (`fio.cfg`): comment header, `[global]` with
    `group_reporting`, one `[jobN]` per disk (FORMATS.md 2.2)."""
    if random_pct == 100:
        readwrite = "randrw"
    elif random_pct == 0:
        readwrite = "rw"
    else:
        readwrite = f"randrw\npercentage_random={random_pct}"
    lines = fio_cfg_comment(
        block_size_kib=block_size_kib,
        runtime_s=runtime_s,
        warmup_s=warmup_s,
        disks=disks,
        read_pct=read_pct,
        random_pct=random_pct,
        threads=iodepth,
        working_set_pct=working_set_pct,
    )
    lines += [
        "[global]",
        f"runtime={runtime_s}",
        f"ramp_time={warmup_s}",
        "time_based=1",
        f"readwrite={readwrite}",
        f"rwmixread={read_pct}",
        "random_generator=tausworthe64",
        f"blocksize={block_size_kib}k",
        "ioengine=libaio",
        f"iodepth={iodepth}",
        "group_reporting",
        "continue_on_error=all",
    ]
    for i, device in enumerate(device_names(disks)):
        lines += ["", f"[job{i}]", f"filename={device}", "direct=1"]
        if working_set_pct != 100:
            lines.append(f"size={working_set_pct}%")
    return "\n".join(lines) + "\n"


def fio_cfg_per_job(
    *,
    disks: int,
    threads: int,
    block_size_kib: int,
    read_pct: int,
    random_pct: int,
    runtime_s: int,
    working_set_pct: int,
) -> str:
    """The other `fio.cfg` layout HCIBench writes (the fixtures' builds): no ramp, `readwrite`
    named for pure reads or writes, `rwmixread` only when mixed, and `size` and `iodepth` on
    every `[jobN]` instead of in `[global]`."""
    pure = {(100, 100): "randread", (0, 100): "randwrite", (100, 0): "read", (0, 0): "write"}
    mixed = "randrw" if random_pct == 100 else "rw"
    readwrite = pure.get((read_pct, random_pct), mixed)
    lines = fio_cfg_comment(
        block_size_kib=block_size_kib,
        runtime_s=runtime_s,
        warmup_s=0,
        disks=disks,
        read_pct=read_pct,
        random_pct=random_pct,
        threads=threads,
        working_set_pct=working_set_pct,
    )
    lines += ["[global]", f"runtime={runtime_s}", "time_based=1", f"readwrite={readwrite}"]
    if readwrite in ("randrw", "rw"):
        lines.append(f"rwmixread={read_pct}")
    lines += [
        "random_generator=tausworthe64",
        f"blocksize={block_size_kib}k",
        "ioengine=libaio",
        "group_reporting",
        "continue_on_error=all",
        "",
    ]
    for i, device in enumerate(device_names(disks)):
        lines += [
            f"[job{i}]",
            f"filename={device}",
            "direct=1",
            f"size={working_set_pct}%",
            f"iodepth={threads}",
            "",
        ]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# vsan.cfg and hcibench.cfg


@dataclass(frozen=True, slots=True)
class VsanConfig:
    """What `get-vsan-info.rb` writes into vsan.cfg (FORMATS.md 2.4). The defaults are the
    common testbed (2 disk groups of 3 capacity disks per host, RAID-1 FTT=1, no space
    efficiency, checksums on), so a study states only what differs."""

    hosts: Sequence[str]
    total_cache_disk_size_gb: int
    capacity_gb: int
    free_space_gb: int
    disk_groups_per_host: int = 2
    capacity_disks_per_disk_group: int = 3
    space_efficiency: str = "None"  # None | Compression Only | Deduplication/Compression
    # RAID-1(Mirroring)-Performance | RAID-5/6(ErasureCoding)-Capacity
    fault_tolerance: str = "RAID-1(Mirroring)-Performance"
    ftt: int = 1
    checksum_disabled: bool = False
    vsan_type: str = "All-Flash"
    datastore_name: str = "vsanDatastore"
    cluster_name: str = "vSAN-Cluster"


def vsan_cfg(config: VsanConfig) -> str:
    hosts = "\n".join(f"- {host}" for host in config.hosts)
    return (
        f"Local vSAN Datastore Name: {config.datastore_name}\n"
        f"vSAN Type: {config.vsan_type}\n"
        f"Number of Hosts: {len(config.hosts)}\n"
        f"Disk Groups per Host: {config.disk_groups_per_host}\n"
        f"Total Cache Disk Size: {config.total_cache_disk_size_gb} GB\n"
        f"Capacity Disk per Disk Group: {config.capacity_disks_per_disk_group}\n"
        f"Space Efficiency: {config.space_efficiency}\n"
        f"Fault Tolerance Preference: {config.fault_tolerance}\n"
        f"Host Primary Fault Tolerance: {config.ftt}\n"
        "Host Secondary Fault Tolerance: 0\n"
        f"Checksum Disabled: {config.checksum_disabled}\n"
        "---\n"
        f"Capacity: {config.capacity_gb} GB\n"
        f"Freespace: {config.free_space_gb} GB\n"
        "Local: 'True'\n"
        "=============================================\n"
        "Cluster Hosts Map\n"
        "---\n"
        f"{config.cluster_name}:\n{hosts}\n"
    )


def hcibench_cfg(settings: Mapping[str, object]) -> str:
    """perf-conf.yaml as HCIBench copies it into the case; credentials are refused, not
    written (HCIBench strips username/password lines)."""
    for key in settings:
        if _SECRET.search(key):
            raise ValueError(f"hcibench.cfg must not carry credentials: {key!r}")
    return yaml.safe_dump(dict(settings), sort_keys=False, default_flow_style=False)


# --------------------------------------------------------------------------------------------
# the -res.txt summary


@dataclass(frozen=True, slots=True)
class ResourceUsage:
    """HCIBench <= 2.5 `Resource Usage:` lines (cluster averages, percent)."""

    cpu_usage_pct: float
    ram_usage_pct: float
    vsan_pcpu_usage_pct: float | None = None


def resource_lines(usage: ResourceUsage) -> str:
    text = f"CPU USAGE  = {usage.cpu_usage_pct:.2f}%\nRAM USAGE  = {usage.ram_usage_pct:.2f}%\n"
    if usage.vsan_pcpu_usage_pct is not None:
        text += f"vSAN PCPU USAGE = {usage.vsan_pcpu_usage_pct:.2f}%\n"
    return text


def ruby_round2(value: float) -> str:
    """Ruby `Float#round(2).to_s`: half away from zero, shortest repr (`26487.8`, `0.0`)."""
    rounded = float(Decimal(repr(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    return repr(rounded)


def resource_table(
    cluster: str, hosts: Sequence[str], host_values: Sequence[tuple[float, float, float]]
) -> tuple[str, dict]:
    """HCIBench >= 2.6 `Resource Utilization` (RVC terminal-table, `resource_util.info`) of
    per-host (cpu.usage, cpu.utilization, mem.usage) percentages, and the averages hash it
    keeps in `resource_usage.info`."""
    headings = [cluster, "cpu.usage%", "cpu.utilization%", "mem.usage%"]
    rows = [
        [h, *(ruby_round2(v) for v in vals)] for h, vals in zip(hosts, host_values, strict=False)
    ]
    averages = [float(ruby_round2(sum(float(r[i]) for r in rows) / len(rows))) for i in range(1, 4)]
    avg_row = ["Average", *(repr(a) for a in averages)]
    widths = [max(len(str(r[i])) for r in [headings, *rows, avg_row]) for i in range(4)]
    sep = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    inner = len(sep) - 2

    def row(cells: list[str]) -> str:
        return "|" + "|".join(f" {c:<{w}} " for c, w in zip(cells, widths, strict=True)) + "|"

    title = "|" + "Resource Utilization".center(inner) + "|"
    lines = ["+" + "-" * inner + "+", title, sep, row(headings), sep]
    lines += [row(r) for r in rows] + [sep, row(avg_row), sep]
    table = "\n".join(lines) + "\n"
    text = (
        table + "\n\ncpu.usage - Provides statistics for logical CPUs. This is based on CPU "
        "Hyperthreading.\ncpu.utilization - Provides statistics for physical CPUs."
    )
    averages_hash = {
        cluster: dict(zip(["cpu.usage", "cpu.utilization", "mem.usage"], averages, strict=True))
    }
    return text, averages_hash


@dataclass(frozen=True, slots=True)
class VdbenchAvg:
    """What HCIBench reads from one VM's Vdbench stdout (parseVdbResult.rb): the banner's
    version, the `Starting RD=` text and the `avg_` line's columns."""

    version: str
    rd_text: str
    iops: float
    mib_per_s: float
    resp_ms: float
    read_resp_ms: float
    write_resp_ms: float
    stddev_ms: float


def vdbench_avg(text: str) -> VdbenchAvg | None:
    """The `avg_` figures of one `<vm>.txt`; None when the run did not finish (no `avg_`)."""
    version = re.search(r"Vdbench distribution: (vdbench\d+)", text)
    rd = re.search(r"Starting (RD=.*?)\s*$", text, re.MULTILINE)
    avg = re.search(r"^\S+\s+avg_\d+-\d+\s+(.*)$", text, re.MULTILINE)
    if avg is None:
        return None
    if not (version and rd):
        raise ValueError("not a Vdbench stdout (version or RD= line missing)")
    cols = avg.group(1).split()
    # 50407 has read max and write max where 50406 has resp max: stddev shifts by one
    stddev_index = 9 if version.group(1) == "vdbench50407" else 8
    return VdbenchAvg(
        version=version.group(1),
        rd_text=rd.group(1),
        iops=float(cols[0]),
        mib_per_s=float(cols[1]),
        resp_ms=float(cols[4]),
        read_resp_ms=float(cols[5]),
        write_resp_ms=float(cols[6]),
        stddev_ms=float(cols[stddev_index]),
    )


def _finished_avg(text: str) -> VdbenchAvg:
    avg = vdbench_avg(text)
    if avg is None:
        raise ValueError("not a finished Vdbench stdout (avg_ line missing)")
    return avg


def vdbench_summary(
    vm_outputs: Mapping[str, str],
    *,
    resource: ResourceUsage,
    datastore: str = "vsanDatastore",
    p95_of_printed_means: bool = False,
) -> str:
    """`-res.txt` of a Vdbench case in the HCIBench 2.5 `vdb-process.sh` layout.

    `95%tile_LAT` is mean + 1.645 x stddev. vdb-process.sh computes it in `bc` from the
    4-decimal means it has just printed (`p95_of_printed_means=True`, as the fixtures do); the
    reference dataset was generated from the unrounded means and keeps that so its files stay
    the same (the two differ by at most 0.0002 ms).
    """
    avgs = [_finished_avg(text) for _, text in sorted(vm_outputs.items())]
    n = len(avgs)
    lat = sum(a.resp_ms for a in avgs) / n
    stddev = sum(a.stddev_ms for a in avgs) / n
    if p95_of_printed_means:
        lat, stddev = float(f"{lat:.4f}"), float(f"{stddev:.4f}")
        p95 = stddev * 1.645 + lat
    else:
        p95 = lat + 1.645 * stddev
    return (
        f"Datastore:  {datastore}\n"
        f"{SUMMARY_RULE}\n"
        f"Version:    {avgs[0].version}\n"
        f"Run Def:    {avgs[0].rd_text}\n"
        f"VMs         = {n}\n"
        f"IOPS        = {sum(a.iops for a in avgs):.2f} IO/s\n"
        f"THROUGHPUT  = {sum(a.mib_per_s for a in avgs):.2f} MB/s\n"
        f"LATENCY     = {lat:.4f} ms\n"
        f"R_LATENCY   = {sum(a.read_resp_ms for a in avgs) / n:.4f} ms\n"
        f"W_LATENCY   = {sum(a.write_resp_ms for a in avgs) / n:.4f} ms\n"
        f"95%tile_LAT = {p95:.4f} ms\n"
        f"{SUMMARY_RULE}\n"
        "Resource Usage:\n" + resource_lines(resource)
    )


def fio_result_lines(jobs: Sequence[dict], *, release: str = "2.5") -> list[str]:
    """The `JOB_NAME` ... `95%tile_W_LAT` lines parseFioResult.rb prints for one fio job over
    the VMs (`jobs`: that job of each VM's final dump). IOPS add up; THROUGHPUT is the integer
    sum of `bw` (KiB/s) // 1024; latencies are plain means over the VMs. HCIBench 2.5 prints 2
    decimals and truncates p95 to whole ms by integer division, 2.8 prints 4 decimals."""
    n = len(jobs)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    throughput = sum(j["read"]["bw"] + j["write"]["bw"] for j in jobs) // 1024
    decimals = 2 if release == "2.5" else 4

    def mean_ms(direction: str) -> str:
        value = sum(j[direction]["lat_ns"]["mean"] for j in jobs) / (n * 1_000_000)
        return f"{value:.{decimals}f}"

    def p95_ms(direction: str) -> str:
        percentiles = (j[direction]["lat_ns"].get("percentile", {}) for j in jobs)
        total = sum(int(p.get("95.000000", 0)) for p in percentiles)
        value = total // (n * 1_000_000) if release == "2.5" else total / (n * 1_000_000.0)
        return f"{value:.{decimals}f}"

    return [
        f"JOB_NAME\t= {jobs[0]['jobname']}",
        f"VMs\t\t= {n}",
        f"IOPS\t\t= {iops:.2f} IO/S",
        f"THROUGHPUT\t= {throughput:.2f} MB/s",
        f"R_LATENCY\t= {mean_ms('read')} ms",
        f"W_LATENCY\t= {mean_ms('write')} ms",
        f"95%tile_R_LAT\t= {p95_ms('read')} ms",
        f"95%tile_W_LAT\t= {p95_ms('write')} ms",
    ]


def fio_summary(
    vm_outputs: Mapping[str, str], *, resource: ResourceUsage, datastore: str = "vsanDatastore"
) -> str:
    """`-res.txt` of a fio case in the HCIBench 2.5 `parseFioResult.rb` layout (one block per
    fio job, normally `job0` because of group_reporting)."""
    return (
        f"Datastore     = {datastore}\n"
        f"{SUMMARY_RULE}\n"
        + fio_summary_blocks(vm_outputs)
        + "Resource Usage:\n"
        + resource_lines(resource)
    )


def fio_summary_blocks(vm_outputs: Mapping[str, str]) -> str:
    """The job blocks of a 2.5 fio `-res.txt` (each closed by the rule), from the per-VM
    outputs' final dumps."""
    dumps = [final_fio_dump(text) for _, text in sorted(vm_outputs.items())]
    blocks = []
    for index in range(len(dumps[0]["jobs"])):
        lines = fio_result_lines([d["jobs"][index] for d in dumps], release="2.5")
        blocks.append("\n".join([*lines, SUMMARY_RULE]) + "\n")
    return "".join(blocks)


# --------------------------------------------------------------------------------------------
# the case on disk


def write_case(
    root: Path,
    name: str,
    tool: str,
    vm_outputs: Mapping[str, str],
    params_text: str,
    vsan_cfg_text: str,
    hcibench_cfg_text: str,
    summary_text: str,
) -> list[Path]:
    """Write `root/name/` (per-VM files, parameter file, hcibench.cfg, vsan.cfg) and
    `root/name-res.txt`; `tool` is `vdbench` or `fio`. Returns the files written."""
    if tool not in ("vdbench", "fio"):
        raise ValueError("tool must be vdbench or fio")
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".txt" if tool == "vdbench" else ".json"
    texts = {f"{vm}{suffix}": text for vm, text in sorted(vm_outputs.items())}
    texts[f"{tool}.cfg"] = params_text
    texts["hcibench.cfg"] = hcibench_cfg_text
    texts["vsan.cfg"] = vsan_cfg_text
    written = []
    for file_name, text in texts.items():
        path = folder / file_name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    summary = root / f"{name}-res.txt"
    summary.write_text(summary_text, encoding="utf-8")
    written.append(summary)
    return written
