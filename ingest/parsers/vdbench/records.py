"""The rows Vdbench output becomes (columns documented in the package docstring)."""

from __future__ import annotations

import datetime as dt
import enum
import posixpath
from dataclasses import dataclass
from typing import Any

from ingest.records import LatencyKind, RunState, SourceFile


class OutputKind(enum.StrEnum):
    stdout = "stdout"
    summary = "summary"
    totals = "totals"
    logfile = "logfile"
    flatfile = "flatfile"


class WorkloadKind(enum.StrEnum):
    """What the run drove: raw storage (sd=/wd=/rd= with iorate) or files (fsd=/fwd=/rd= with
    fwdrate), whose lines print other columns."""

    raw = "raw"
    filesystem = "filesystem"


class XfersizeSource(enum.StrEnum):
    """Where a run's configured transfer size was read (see `vdbench.xfersize`)."""

    flatfile = "flatfile"  # the raw flatfile's `xfersize` column
    for_loops = "for_loops"  # `For loops: xfersize=8k` on the run line
    parameter_file = "parameter_file"  # wd=/fwd=/rd= lines in the same text
    hcibench_case = "hcibench_case"  # the HCIBench test case the output belongs to


class FsOperation(enum.StrEnum):
    """The file operations a file-system run reports a rate and response time for, in the
    order Vdbench prints them (`Vdb/FwdStats.java`)."""

    mkdir = "mkdir"
    rmdir = "rmdir"
    create = "create"
    open = "open"
    close = "close"
    delete = "delete"
    getattr = "getattr"
    setattr = "setattr"
    access = "access"
    copy = "copy"
    move = "move"


@dataclass(frozen=True, slots=True)
class VdbenchOutput:
    output_kind: OutputKind
    case_name: str | None
    vm_name: str | None
    vdbench_version: str | None
    vdbench_build_text: str | None
    column_layout: str | None
    workload_kind: WorkloadKind | None
    has_cpu_columns: bool | None
    report_created_at: dt.datetime | None
    run_count: int
    interval_count: int
    completed_successfully: bool | None
    # The load generators the report shows: hosts of summary.html's `Link to HOST reports`
    # (else the hosts of the slave names), and the slave JVMs (`-l hd1-0`, `Slave hd1-0`).
    host_count: int | None = None
    slave_count: int | None = None


def vm_name(source: SourceFile) -> str | None:
    """The worker VM of an HCIBench test case: HCIBench keeps its stdout as `<vm>.txt`."""
    return posixpath.splitext(source.name)[0] if source.hcibench_case is not None else None


# The measures an interval line and an avg_ (totals) line both print, declared once. Row types
# list their own key columns first and these after them: a dataclass puts the fields of the
# base listed last first, hence `class VdbenchRun(Measures, _RunKey)`. The mixin has no
# __slots__ of its own, because two slotted bases cannot be combined.
@dataclass(frozen=True)
class Measures:
    iops: float | None = None
    mib_per_s: float | None = None
    bytes_per_io: int | None = None
    read_pct: float | None = None
    resp_ms: float | None = None
    read_resp_ms: float | None = None
    write_resp_ms: float | None = None
    resp_max_ms: float | None = None
    read_max_ms: float | None = None
    write_max_ms: float | None = None
    resp_stddev_ms: float | None = None
    read_stddev_ms: float | None = None
    write_stddev_ms: float | None = None
    queue_depth: float | None = None
    cpu_sys_user_pct: float | None = None
    cpu_sys_pct: float | None = None
    # Printed by file-system runs only: reads and writes per second and MiB/s of each.
    read_iops: float | None = None
    write_iops: float | None = None
    read_mib_per_s: float | None = None
    write_mib_per_s: float | None = None
    # A file-system run's per-operation columns, as printed: {"open": {"rate_per_s": 5992.0,
    # "resp_ms": 6.315}, ...} for each operation (FsOperation) the line has columns for.
    fs_operations_json: dict[str, dict[str, float | None]] | None = None
    # Every latency of the row (resp, read/write resp, max, stddev, the operations' resp) is
    # Vdbench's response time: `total`. None when the row holds no latency.
    latency_kind: LatencyKind | None = None


@dataclass(frozen=True, slots=True)
class _RunKey:
    run_index: int
    rd_name: str
    rd_text: str | None
    io_rate_text: str | None
    elapsed_s: int | None
    warmup_s: int | None
    for_loops: str | None
    is_format_run: bool
    started_tod: str | None
    state: RunState
    state_reason: str | None
    avg_label: str | None
    first_interval: int | None
    last_interval: int | None
    ended_tod: str | None
    interval_count: int


@dataclass(frozen=True, slots=True)
class VdbenchRun(Measures, _RunKey):
    # Printed in the avg_ row of a flatfile only (xfersize also from the run line or the
    # parameter lines, see `vdbench.xfersize`).
    requested_iops: float | None = None
    is_max_rate: bool | None = None
    # The configured transfer size, when the output holds it (never the mean bytes_per_io).
    xfersize_bytes: int | None = None
    xfersize_source: XfersizeSource | None = None
    xfersize_unknown_reason: str | None = None
    threads: int | None = None
    requested_read_pct: float | None = None
    read_hit_pct: float | None = None
    write_hit_pct: float | None = None
    requested_seek_pct: float | None = None
    lun_size_gib: float | None = None
    compratio_requested: float | None = None
    dedupratio_requested: float | None = None
    cpu_user_pct: float | None = None
    cpu_wait_pct: float | None = None
    cpu_idle_pct: float | None = None
    extra_json: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class _IntervalKey:
    run_index: int
    rd_name: str
    interval_index: int
    tod: str
    tod_ms: int
    local_timestamp_text: str | None = None


@dataclass(frozen=True, slots=True)
class VdbenchInterval(Measures, _IntervalKey):
    pass
