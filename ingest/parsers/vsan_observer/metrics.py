"""The Observer's series names -> warehouse metric names with their unit, per family of files."""

from __future__ import annotations

import re

Metric = tuple[str, str | None]  # (warehouse metric name, unit)

# The DOM roles count reads, writes and recovery (resync) writes alike.
IO = ("read", "write", "recoveryWrite")

# Unit of a warehouse metric by how its name ends, for the series that come in pairs.
_UNITS = {
    "iops": "IO/s",
    "bytes_per_s": "B/s",
    "latency_us": "us",
    "issue_latency_us": "us",
    "sectors_per_s": "512B-sectors/s",
    "packets_per_s": "1/s",
    "drops_per_s": "1/s",
    "errors_per_s": "1/s",
}


def snake(name: str) -> str:
    """`readLatencySq` -> `read_latency_sq`: the warehouse spelling of an Observer name."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()


def _paired(sides: tuple[str, str], **observer_names: tuple[str, str]) -> dict[str, Metric]:
    """Series that come once per direction: `iops=("numReads", "numWrites")` with sides
    ("read", "write") gives numReads -> read_iops, numWrites -> write_iops, both in IO/s."""
    return {
        observer: (f"{side}_{measure}", _UNITS[measure])
        for measure, pair in observer_names.items()
        for side, observer in zip(sides, pair, strict=True)
    }


_READ_WRITE = ("read", "write")


def _dom_metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for io in IO:
        name = snake(io)
        out[f"{io}Count"] = (f"{name}_iops", "IO/s")
        out[f"{io}Bytes"] = (f"{name}_bytes_per_s", "B/s")
        out[f"{io}Latency"] = (f"{name}_latency_us", "us")
        out[f"{io}LatencySq"] = (f"{name}_latency_sq_us2", "us^2")
        out[f"{io}Congestion"] = (f"{name}_congestion", "number")
    out["receiveryWriteBytes"] = ("recovery_write_bytes_per_s", "B/s")  # sic, in the Observer
    out["totalCount"] = ("total_iops", "IO/s")
    out["numOIO"] = ("oio_per_io", "count")
    out["domClientCacheHits"] = ("client_cache_hits_total", "count")
    out["domClientCacheLookups"] = ("client_cache_lookups_total", "count")
    out["domClientCacheHitRate"] = ("client_cache_hit_rate_pct", "%")
    return out


def _lsom_metrics() -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for io in ("read", "payload", "writeLe"):
        name = snake(io)
        out[f"{io}IOs"] = (f"{name}_iops", "IO/s")
        out[f"{io}Bytes"] = (f"{name}_bytes_per_s", "B/s")
        out[f"{io}Latency"] = (f"{name}_latency_us", "us")
    for name in ("rcMemIOs", "rcSsdIOs", "rarReadIOs", "rcMissIOs", "rcPartialMissIOs", "rawarIOs"):
        out[name] = (snake(name[:-3]) + "_iops", "IO/s")
    for name in ("rawarBytes", "patchedBytes", "wastedPatchedBytes"):
        out[name] = (snake(name) + "_per_s", "B/s")
    for name in ("avgCapacityUsed", "maxCapacityUsed", "minCapacityUsed"):
        out[name] = (snake(name) + "_pct", "%")
    out["rcHitRate"] = ("rc_hit_rate_pct", "%")
    return out


CONGESTIONS = (
    "memCongestion",
    "slabCongestion",
    "ssdCongestion",
    "iopsCongestion",
    "logCongestion",
    "compCongestion",
)

_METRICS: dict[str, dict[str, Metric]] = {
    "dom": _dom_metrics(),
    "lsom": _lsom_metrics(),
    "physdisk": {
        # The Observer's physical-disk `read`/`write` are 512-byte blocks (its UI halves them
        # to show KB/s).
        **_paired(
            _READ_WRITE,
            iops=("readIOs", "writeIOs"),
            sectors_per_s=("read", "write"),
            latency_us=("readLatency", "writeLatency"),
        ),
        "dAvgLatency": ("device_latency_us", "us"),
        "gAvgLatency": ("guest_latency_us", "us"),
        "kAvgLatency": ("kernel_latency_us", "us"),
    },
    "ssd": {
        "wbFillPct": ("write_buffer_fill_pct", "%"),
        **{
            name: (snake(name) + "_pct", "%")
            for name in ("llogLogSpace", "llogDataSpace", "plogLogSpace", "plogDataSpace")
        },
    },
    "cong": {name: (snake(name), "number") for name in CONGESTIONS},
    "pcpu": {"usedPct": ("used_pct", "%")},
    # World times are converted to seconds by the Observer before the per-second average.
    "world": {
        name: (snake(name) + "_s_per_s", "s/s")
        for name in ("runTime", "waitTime", "overrunTime", "readyTime", "usedTime")
    },
    "mem": {
        "pctMemUsed": ("mem_used_pct", "%"),
        "totalMbMemUsed": ("mem_used_mib", "MiB"),
        "overcommitRatio": ("overcommit_ratio", "number"),
    },
    "vscsi": _paired(
        _READ_WRITE,
        iops=("numReads", "numWrites"),
        bytes_per_s=("bytesRead", "bytesWrite"),
        latency_us=("latencyReads", "latencyWrites"),
    ),
    "pnic": _paired(
        ("rx", "tx"),
        bytes_per_s=("rxbytes", "txbytes"),
        packets_per_s=("rxpkt", "txpkt"),
        drops_per_s=("rxdrp", "txdrp"),
        errors_per_s=("rxerror", "txerror"),
    ),
    "nfs": _paired(
        _READ_WRITE,
        iops=("reads", "writes"),
        bytes_per_s=("readBytes", "writeBytes"),
        latency_us=("readTime", "writeTime"),
        issue_latency_us=("readIssueTime", "writeIssueTime"),
    ),
}


def metric_name(family: str | None, observer_metric: str) -> Metric:
    """Warehouse metric name and unit of an Observer series in a family of files."""
    known = _METRICS.get(family or "", {}).get(observer_metric)
    return known if known else (snake(observer_metric), None)
