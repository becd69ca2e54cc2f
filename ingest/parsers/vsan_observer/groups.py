"""One reader per counter group of a raw capture's host snapshot (`vsi.<host>`).

Each group is read in two steps: `read` takes the plain numbers out of one host's snapshot
(raising `BadLine` on a wrong type, so a bad line is skipped whole, before any series moves),
and `apply` adds them to the host's series as the Observer computes them (delta of a cumulative
counter over the interval, or over the IO-count delta for latencies and congestion).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ingest.parsers.vsan_observer.metrics import CONGESTIONS, IO
from ingest.parsers.vsan_observer.records import is_number, is_time
from ingest.parsers.vsan_observer.series import Capture

Snapshot = dict[str, Any]


class BadLine(ValueError):
    """A snapshot line whose counters have the wrong type: skipped, as `vsan.observer` does."""


def _num(obj: Any, *keys: str) -> float | None:
    """Number at a key path of a snapshot, None when absent; wrong type makes the line bad."""
    for key in keys:
        if obj is None:
            return None
        if not isinstance(obj, dict):
            raise BadLine(f"{key}: expected an object")
        obj = obj.get(key)
    if obj is None:
        return None
    if not is_number(obj):
        raise BadLine(f"{'.'.join(keys)}: expected a number, got {obj!r}")
    if keys[-1].endswith("-taken") and not is_time(obj):
        raise BadLine(f"{'.'.join(keys)}: time {obj!r} out of range")
    return float(obj)


def obj(parent: Any, key: str) -> dict[str, Any]:
    """The object at `key`, {} when absent; anything else makes the line bad."""
    value = parent.get(key) if isinstance(parent, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadLine(f"{key}: expected an object")
    return value


# ---------------------------------------------------------------- DOM client / owner / compmgr

_DOM_ROLES = (("client", "dom_client"), ("owner", "dom_owner"), ("compmgr", "dom_compmgr"))
_DOM_SUFFIXES = ("Count", "Bytes", "LatencySumUs", "LatencySqSumUs", "CongestionSum")
_DOM_COUNTERS = (
    *(f"{io}{suffix}" for io in IO for suffix in _DOM_SUFFIXES),
    "ioCount",
    "numOIOSum",
)


def _read_dom(host: Snapshot) -> dict[str, Any] | None:
    out = {}
    owners_ts = _num(host, "dom.owners.stats-taken")
    for role, kind in _DOM_ROLES:
        stats = obj(host, f"dom.{role}.stats")
        ts = _num(host, f"dom.{role}.stats-taken") or owners_ts
        if stats and ts is not None:
            out[kind] = (ts, {k: _num(stats, k) for k in _DOM_COUNTERS})
    return out or None


def _apply_dom(cap: Capture, name: str, roles: dict[str, Any]) -> None:
    for kind, (ts, c) in roles.items():
        for io in IO:
            count = cap.get(kind, name, None, f"{io}Count")
            count.add(ts, c[f"{io}Count"])
            cap.get(kind, name, None, f"{io}Congestion").add(
                ts, c[f"{io}CongestionSum"], count.delta
            )
            cap.get(kind, name, None, f"{io}Bytes").add(ts, c[f"{io}Bytes"])
            cap.get(kind, name, None, f"{io}Latency").add(ts, c[f"{io}LatencySumUs"], count.delta)
            cap.get(kind, name, None, f"{io}LatencySq").add(
                ts, c[f"{io}LatencySqSumUs"], count.delta
            )
        total = cap.get(kind, name, None, "totalCount")
        total.add(ts, c["ioCount"])
        cap.get(kind, name, None, "numOIO").add(ts, c["numOIOSum"], total.delta)


# ---------------------------------------------------------------- LSOM: host totals, cache disks

_LSOM_COUNTERS = (
    "readIoCount",
    "readIoTime",
    "bytesRead",
    "payloadIoCount",
    "payloadIoTime",
    "payloadDataBytes",
    "writeLeIoCount",
    "writeLeIoTime",
    "writeLeDataBytes",
)


def _read_lsom(host: Snapshot) -> tuple[float, dict, dict] | None:
    lsom_ts = _num(host, "lsom.disks-taken")
    disks = obj(host, "lsom.disks")
    if lsom_ts is None or not disks:
        return None
    caches, totals = {}, dict.fromkeys(_LSOM_COUNTERS, 0.0)
    for uuid, disk in disks.items():
        info = obj(disk, "info")
        if info.get("type") == "cache":
            caches[uuid] = {
                "wbFreeSpace": _num(info, "wbFreeSpace"),
                "wbSize": _num(info, "wbSize"),
                **{c: _num(info, c) for c in CONGESTIONS},
            }
        if info.get("type") != "data":  # tier-2 stats are already in the cache tier's
            agg = obj(info, "aggStats")
            for key in _LSOM_COUNTERS:
                totals[key] += _num(agg, key) or 0.0
    return lsom_ts, caches, totals


def _apply_lsom(cap: Capture, name: str, reading: tuple[float, dict, dict]) -> None:
    ts, caches, totals = reading
    for io in ("read", "payload", "writeLe"):
        ios = cap.get("lsom_host", name, None, f"{io}IOs")
        ios.add(ts, totals[f"{io}IoCount"])
        cap.get("lsom_host", name, None, f"{io}Latency").add(ts, totals[f"{io}IoTime"], ios.delta)
        byte_key = "bytesRead" if io == "read" else f"{io}DataBytes"
        cap.get("lsom_host", name, None, f"{io}Bytes").add(ts, totals[byte_key])
    for uuid, info in caches.items():
        if info["wbFreeSpace"] is not None and info["wbSize"]:
            # As the Observer: 100 - whole percent free.
            free_pct = int(info["wbFreeSpace"] * 100.0 / info["wbSize"])
            cap.get("ssd", name, uuid, "wbFillPct").add_static(ts, 100 - free_pct)
        for cong in CONGESTIONS:
            if info[cong] is not None:
                cap.get("lsom_congestion", name, uuid, cong).add_static(ts, info[cong])


# ---------------------------------------------------------------- physical disks


def _read_disks(host: Snapshot) -> tuple[float, dict] | None:
    disk_ts = _num(host, "disks-taken")
    phys = obj(host, "disks.stats")
    if disk_ts is None or not phys:
        return None
    return disk_ts, {
        dev: {
            "readOps": _num(info, "readOps"),
            "writeOps": _num(info, "writeOps"),
            "blocksRead": _num(info, "blocksRead"),
            "blocksWritten": _num(info, "blocksWritten"),
            "totalTimeReads": _num(info, "latency", "totalTimeReads"),
            "totalTimeWrites": _num(info, "latency", "totalTimeWrites"),
            "totalTime": _num(info, "latency", "totalTime"),
        }
        for dev, info in phys.items()
    }


def _apply_disks(cap: Capture, name: str, reading: tuple[float, dict]) -> None:
    ts, devices = reading
    for dev, d in devices.items():
        reads = cap.get("physdisk", name, dev, "readIOs")
        writes = cap.get("physdisk", name, dev, "writeIOs")
        reads.add(ts, d["readOps"])
        writes.add(ts, d["writeOps"])
        cap.get("physdisk", name, dev, "read").add(ts, d["blocksRead"])
        cap.get("physdisk", name, dev, "write").add(ts, d["blocksWritten"])
        cap.get("physdisk", name, dev, "readLatency").add(ts, d["totalTimeReads"], reads.delta)
        cap.get("physdisk", name, dev, "writeLatency").add(ts, d["totalTimeWrites"], writes.delta)
        if d["totalTime"] is not None:
            cap.get("physdisk", name, dev, "gAvgLatency").add(
                ts, d["totalTime"], reads.delta + writes.delta
            )


# ---------------------------------------------------------------- PCPUs, vSAN worlds, memory


def _read_pcpus(host: Snapshot) -> tuple[float, dict] | None:
    pcpu_ts = _num(host, "pcpus-taken")
    if pcpu_ts is None:
        return None
    return pcpu_ts, {
        cpu: (_num(info, "elapsedTime"), _num(info, "coreHaltTime"))
        for cpu, info in obj(host, "pcpus").items()
    }


def _apply_pcpus(cap: Capture, name: str, reading: tuple[float, dict]) -> None:
    ts, cpus = reading
    for cpu, (elapsed, core_halt) in cpus.items():
        e = cap.get("pcpu", name, cpu, "elapsedTime")
        h = cap.get("pcpu", name, cpu, "coreHaltTime")
        e.add(ts, elapsed or 0.0)
        h.add(ts, core_halt or 0.0)
        used = 100.0 - (h.delta * 100.0 / e.delta) if e.delta > 0 else 0.0
        cap.get("pcpu", name, cpu, "usedPct").add_static(ts, used)


def _read_worlds(host: Snapshot) -> tuple[float, dict] | None:
    wdt_ts = _num(host, "worldlets-taken")
    if wdt_ts is None:
        return None
    return wdt_ts, {w: _num(info, "runTime") for w, info in obj(host, "worldlets").items()}


def _apply_worlds(cap: Capture, name: str, reading: tuple[float, dict]) -> None:
    ts, worlds = reading
    # Per-world rates (ns -> s, over the interval), summed per host like `wdtsum`.
    total = 0.0
    for world, run_ns in worlds.items():
        series = cap.get("vsan_worlds", name, f"world:{world}", "runTime")
        series.add(ts, run_ns / 1e9 if run_ns is not None else 0.0)
        total += series.points[-1][1]
    cap.get("vsan_worlds", name, None, "runTime").add_static(ts, total)


def _read_mem(host: Snapshot) -> tuple[float, float, float] | None:
    mem = obj(host, "system.mem")
    # Memory has no stamp of its own: the Observer uses the LSOM one, else the worlds'.
    lsom_ts = _num(host, "lsom.disks-taken")
    mem_ts = lsom_ts if lsom_ts is not None else _num(host, "worldlets-taken")
    if not mem or mem_ts is None:
        return None
    free, total = _num(mem, "comprehensive", "free"), _num(mem, "comprehensive", "kernel")
    if free is None or not total:
        raise BadLine("system.mem.comprehensive: free/kernel missing")
    return mem_ts, free, total


def _apply_mem(cap: Capture, name: str, reading: tuple[float, float, float]) -> None:
    ts, free, total = reading
    cap.get("system_mem", name, None, "totalMbMemUsed").add_static(ts, (total - free) / 1024)
    cap.get("system_mem", name, None, "pctMemUsed").add_static(ts, 100 - free * 100 / total)


# ---------------------------------------------------------------- all groups of a host


@dataclass(frozen=True, slots=True)
class _Group:
    read: Callable[[Snapshot], Any]  # the group's numbers in one host's snapshot, or None
    apply: Callable[[Capture, str, Any], None]  # add them to that host's series


_GROUPS = (
    _Group(_read_dom, _apply_dom),
    _Group(_read_lsom, _apply_lsom),
    _Group(_read_disks, _apply_disks),
    _Group(_read_pcpus, _apply_pcpus),
    _Group(_read_worlds, _apply_worlds),
    _Group(_read_mem, _apply_mem),
)

HostReading = list[tuple[_Group, Any]]


def read_host(host: Snapshot) -> HostReading:
    """Every group's numbers in one host's snapshot; raises BadLine on a wrong type."""
    readings = ((group, group.read(host)) for group in _GROUPS)
    return [(group, numbers) for group, numbers in readings if numbers is not None]


def apply_host(cap: Capture, name: str, reading: HostReading) -> None:
    for group, numbers in reading:
        group.apply(cap, name, numbers)
