"""Row types of the fio tables (one frozen dataclass per raw table) and the helpers that fill
their wide latency/bandwidth column groups, shared by the JSON, terse and normal readers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from ingest.records import LatencyKind, RunState


@dataclass(frozen=True, slots=True)
class FioRun:
    run_index: int
    fio_version: str | None
    output_format: str
    terse_version: int | None
    is_client_mode: bool
    status_dump_count: int
    is_finished: bool
    ended_at: dt.datetime | None
    local_time_text: str | None
    global_options_json: dict | None
    leading_text: str | None


@dataclass(frozen=True, slots=True)
class FioJob:
    run_index: int
    job_index: int
    jobname: str
    groupid: int
    hostname: str | None
    port: int | None
    is_all_clients_aggregate: bool
    state: RunState
    state_reason: str | None
    error_code: int
    eta_s: int | None
    elapsed_s: int | None
    job_runtime_ms: int | None
    started_at: dt.datetime | None
    ended_at: dt.datetime | None
    usr_cpu_pct: float | None
    sys_cpu_pct: float | None
    ctx: int | None
    majf: int | None
    minf: int | None
    rw: str | None
    read_pct: int | None
    random_pct: int | None
    block_size_bytes: int | None
    iodepth: int | None
    numjobs: int | None
    ioengine: str | None
    options_json: dict | None
    workload_key: str
    percentile_kind: str | None
    # True when the block size was not in the file and was derived from bytes per I/O
    # (terse output lists no job options).
    is_block_size_derived: bool = False


@dataclass(frozen=True, slots=True)
class FioJobDirection:
    run_index: int
    job_index: int
    direction: str
    total_ios: int
    is_total_ios_derived: bool
    short_ios: int | None
    drop_ios: int | None
    io_bytes: int
    bw_bytes_per_s: float
    iops: float
    runtime_ms: int | None
    slat_min_ns: float | None
    slat_max_ns: float | None
    slat_mean_ns: float | None
    slat_stddev_ns: float | None
    slat_samples: int | None
    clat_min_ns: float | None
    clat_max_ns: float | None
    clat_mean_ns: float | None
    clat_stddev_ns: float | None
    clat_samples: int | None
    lat_min_ns: float | None
    lat_max_ns: float | None
    lat_mean_ns: float | None
    lat_stddev_ns: float | None
    lat_samples: int | None
    bw_min_kib_per_s: float | None
    bw_max_kib_per_s: float | None
    bw_mean_kib_per_s: float | None
    bw_stddev_kib_per_s: float | None
    bw_agg_pct: float | None
    bw_samples: int | None
    iops_min: float | None
    iops_max: float | None
    iops_mean: float | None
    iops_stddev: float | None
    iops_samples: int | None
    # Why measures of this row were set to NULL (an overflowed latency, a latency longer than
    # the job ran, NaN/Infinity, a negative value); None when every measure is sound.
    unsound_reason: str | None = None
    # The mean latency the row offers as its average, and which span it measures: fio's total
    # `lat` when sound, else its completion `clat`; None for a direction that did no I/O.
    avg_latency_mean_ns: float | None = None
    avg_latency_kind: LatencyKind | None = None


@dataclass(frozen=True, slots=True)
class FioLatencyPercentile:
    run_index: int
    job_index: int
    direction: str
    latency_kind: str
    percentile: float
    latency_ns: float


@dataclass(frozen=True, slots=True)
class FioLatencyBin:
    run_index: int
    job_index: int
    direction: str
    latency_kind: str
    bin_ns: int
    io_count: int


@dataclass(frozen=True, slots=True)
class FioInterval:
    run_index: int
    job_index: int
    dump_index: int
    direction: str
    elapsed_end_ms: int
    interval_ms: int
    ios: int
    io_bytes: int
    iops: float | None
    bw_bytes_per_s: float | None
    lat_mean_ns: float | None
    # `total` when lat_mean_ns is fio's `lat`, `completion` when only `clat` was there.
    avg_latency_kind: LatencyKind | None = None


@dataclass(frozen=True, slots=True)
class FioDiskUtil:
    run_index: int
    hostname: str | None
    disk_name: str
    read_ios: int | None
    write_ios: int | None
    read_merges: int | None
    write_merges: int | None
    read_ticks: int | None
    write_ticks: int | None
    in_queue_ticks: int | None
    util_pct: float | None


TABLES = {
    "fio_runs": FioRun,
    "fio_jobs": FioJob,
    "fio_job_directions": FioJobDirection,
    "fio_latency_percentiles": FioLatencyPercentile,
    "fio_latency_bins": FioLatencyBin,
    "fio_intervals": FioInterval,
    "fio_disk_util": FioDiskUtil,
}


# The line of the file that holds a row's values, for the text forms (terse, the report), so
# an error about a value points at its line: (run_index, job_index, direction) for a
# direction's values, (run_index, job_index, "") for the job's own line (its record or block
# header), (-1, n, "disk") for the n-th fio_disk_util row.
RowLines = dict[tuple[int, int, str], int]

# (min, max, mean, stddev, samples) of one latency kind, in ns; any may be None.
LatencyStats = tuple[float | None, float | None, float | None, float | None, int | None]
NO_LATENCY: LatencyStats = (None, None, None, None, None)
# (min, max, mean, stddev, agg %, samples) of bandwidth in KiB/s.
BandwidthStats = tuple[Any, Any, Any, Any, Any, Any]
NO_BANDWIDTH: BandwidthStats = (None,) * 6
# (min, max, mean, stddev, samples) of IOPS.
IopsStats = tuple[Any, Any, Any, Any, Any]
NO_IOPS: IopsStats = (None,) * 5


def spread_columns(
    slat: LatencyStats = NO_LATENCY,
    clat: LatencyStats = NO_LATENCY,
    lat: LatencyStats = NO_LATENCY,
    bw: BandwidthStats = NO_BANDWIDTH,
    iops: IopsStats = NO_IOPS,
) -> dict[str, Any]:
    """The `fio_job_directions` columns that describe a spread (latency, bandwidth and IOPS
    min/max/mean/stddev/samples) as keyword arguments, so every reader fills them alike."""
    columns: dict[str, Any] = {}
    for kind, stats in (("slat", slat), ("clat", clat), ("lat", lat)):
        for name, value in zip(("min", "max", "mean", "stddev"), stats[:4], strict=True):
            columns[f"{kind}_{name}_ns"] = value
        columns[f"{kind}_samples"] = stats[4]
    for name, value in zip(("min", "max", "mean", "stddev"), bw[:4], strict=True):
        columns[f"bw_{name}_kib_per_s"] = value
    columns["bw_agg_pct"], columns["bw_samples"] = bw[4], bw[5]
    for name, value in zip(("min", "max", "mean", "stddev", "samples"), iops, strict=True):
        columns[f"iops_{name}"] = value
    return columns


def cpu_columns(cpu: tuple[Any, Any, Any, Any, Any] | None) -> dict[str, Any]:
    """The `fio_jobs` cpu columns from (usr %, sys %, ctx, majf, minf), all None when unknown."""
    usr, sys_, ctx, majf, minf = cpu or (None,) * 5
    return {"usr_cpu_pct": usr, "sys_cpu_pct": sys_, "ctx": ctx, "majf": majf, "minf": minf}


# `fio_jobs` columns the terse and normal reports never carry: only JSON has hosts and times.
NO_HOST_OR_TIMES: dict[str, Any] = {
    "hostname": None,
    "port": None,
    "eta_s": None,
    "elapsed_s": None,
    "started_at": None,
    "ended_at": None,
}
