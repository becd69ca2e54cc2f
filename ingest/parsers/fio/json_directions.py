"""One JSON job entry's directions (read/write/trim/mixed/sync): totals, latency spreads,
percentiles and json+ histogram bins, in the units the column names promise."""

from __future__ import annotations

from typing import Any

from ingest.parsers.fio.records import (
    NO_LATENCY,
    FioDiskUtil,
    FioJobDirection,
    FioLatencyBin,
    FioLatencyPercentile,
    LatencyStats,
    spread_columns,
)
from ingest.records import Parsed

DIRECTIONS = ("read", "write", "trim", "mixed")
_LATENCY_KINDS = ("slat", "clat", "lat")


def _latency_keys(d: dict[str, Any]) -> tuple[str, float]:
    """(key suffix, scale to ns): fio 3.x writes `clat_ns` in ns, fio 2.x `clat` in usec."""
    return ("_ns", 1.0) if "lat_ns" in d or "clat_ns" in d else ("", 1000.0)


def _stats(obj: dict[str, Any] | None, scale: float) -> LatencyStats:
    if not obj:
        return NO_LATENCY

    def scaled(key: str) -> float | None:
        value = obj.get(key)
        return None if value is None else float(value) * scale

    return (scaled("min"), scaled("max"), scaled("mean"), scaled("stddev"), obj.get("N"))


def direction_row(
    run: int, job: int, name: str, d: dict[str, Any], version: tuple[int, int]
) -> FioJobDirection:
    suffix, scale = _latency_keys(d)
    io_bytes = d.get("io_bytes", 0) or 0
    if "io_kbytes" not in d and version < (2, 21):
        io_bytes *= 1024  # "Since the dawn of time, this has outputted kilobytes"
    bw_bytes = d.get("bw_bytes")
    if bw_bytes is None:
        bw_bytes = (d.get("bw") or 0) * 1024  # bw is KiB/s in every version
    iops = float(d.get("iops") or 0)
    runtime = d.get("runtime")
    total = d.get("total_ios")
    derived = total is None
    if derived:  # fio 2.1 has no total_ios
        total = round(iops * (runtime or 0) / 1000)
    slat, clat, lat = (_stats(d.get(kind + suffix), scale) for kind in _LATENCY_KINDS)
    bw = tuple(d.get(k) for k in ("bw_min", "bw_max", "bw_mean", "bw_dev", "bw_agg", "bw_samples"))
    iops_stats = tuple(
        d.get(k) for k in ("iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples")
    )
    return FioJobDirection(
        run_index=run,
        job_index=job,
        direction=name,
        total_ios=int(total),
        is_total_ios_derived=derived,
        short_ios=d.get("short_ios"),
        drop_ios=d.get("drop_ios"),
        io_bytes=int(io_bytes),
        bw_bytes_per_s=float(bw_bytes),
        iops=iops,
        runtime_ms=runtime,
        **spread_columns(slat, clat, lat, bw, iops_stats),
    )


def percentile_rows(
    run: int, job: int, name: str, d: dict[str, Any], lat_pct_on: bool, parsed: Parsed
) -> str | None:
    """Adds the percentiles and json+ bins of one direction; returns the latency kind the main
    percentile list measures. fio 3.0-3.17 store total-latency percentiles under clat_ns when
    lat_percentiles=1 (FORMATS.md 1.2)."""
    main_kind = None
    suffix, scale = _latency_keys(d)
    has_lat_object = bool((d.get("lat_ns") or {}).get("percentile"))
    for kind in _LATENCY_KINDS:
        obj = d.get(kind + suffix) or {}
        stored_kind = "lat" if kind == "clat" and lat_pct_on and not has_lat_object else kind
        rows = [
            FioLatencyPercentile(run, job, name, stored_kind, float(p), float(v) * scale)
            for p, v in (obj.get("percentile") or {}).items()
            if float(p) > 0  # fio 2.x pads the list with "0.00": 0
        ]
        if rows:
            parsed.add("fio_latency_percentiles", rows)
            if main_kind is None or stored_kind == "lat":
                main_kind = stored_kind
        bins = obj.get("bins") or {}
        if bins:
            parsed.add(
                "fio_latency_bins",
                [
                    FioLatencyBin(run, job, name, stored_kind, int(b), int(c))
                    for b, c in bins.items()
                ],
            )
    return main_kind


def directions_of(
    job: int, entry: dict[str, Any], version: tuple[int, int], lat_pct_on: bool, parsed: Parsed
) -> tuple[list[FioJobDirection], str | None]:
    """The direction rows of one job entry (percentiles and bins go straight to `parsed`),
    and the latency kind its percentiles measure. A trim or sync block that did nothing is
    fio printing zeros for a direction the job never used: left out."""
    rows: list[FioJobDirection] = []
    kind = None
    for name in (*DIRECTIONS, "sync"):
        d = entry.get(name)
        if not isinstance(d, dict):
            continue
        if name in ("trim", "sync") and not (d.get("total_ios") or d.get("io_bytes")):
            continue
        rows.append(direction_row(0, job, name, d, version))
        kind = percentile_rows(0, job, name, d, lat_pct_on, parsed) or kind
    return rows, kind


def disk_util_rows(doc: dict[str, Any]) -> list[FioDiskUtil]:
    """fio's `disk_util` list (with the server's hostname in client mode)."""
    rows = []
    for disk in doc.get("disk_util") or []:
        util = disk.get("util")
        rows.append(
            FioDiskUtil(
                run_index=0,
                hostname=disk.get("hostname"),
                disk_name=str(disk.get("name", "")),
                read_ios=disk.get("read_ios"),
                write_ios=disk.get("write_ios"),
                read_merges=disk.get("read_merges"),
                write_merges=disk.get("write_merges"),
                read_ticks=disk.get("read_ticks"),
                write_ticks=disk.get("write_ticks"),
                in_queue_ticks=disk.get("in_queue"),
                util_pct=float(util) if util is not None else None,
            )
        )
    return rows
