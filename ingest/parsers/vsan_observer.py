"""vSAN Observer (vSAN 6.x, RVC `vsan.observer`): bundle jsonstats and raw JSON-lines captures.

Two inputs, one table, one vocabulary:

* **Static bundle** (`--generate-html-bundle`, `vsan.observer_process_statsfile`, HCIBench <= 2.5
  `iotest-*` folders, or members of `vsan-observer-*.tar.gz`): every `jsonstats/<group>/<file>.json`
  is a separate source file. Its series are Observer `InventoryStat` dumps, `{"times": [epoch s],
  "avgs": [...], ...}`; `avgs` are per-second rates for counters and per-IO means for latencies.
  Group, entity type, host and entity come from the file's path and content (`uuid`, `hostname`,
  `host`, `dev`, `wdt`). `<file>_thumb.json` files are down-sampled copies: `detect` refuses them
  so they are reported as skipped, never mixed with the full files.
* **Raw capture** (`--filename F` / `--forever`: `observer.json`, gunzipped by the loader): JSON
  lines `{"type": "inventory-snapshot", "snapshot": {"vsi": {<host>: {...}}}, ...}` of cumulative
  ESXi counters. The same series the bundle holds are rebuilt here with the Observer's own rules
  (delta of a cumulative counter over the interval, or over the IO-count delta for latencies and
  congestion; a counter that goes backwards gives 0), for DOM client/owner/component manager, LSOM
  host totals, cache-disk write-buffer fill and congestion, physical disks, PCPUs, vSAN worlds and
  system memory. Unlike the Observer (Ruby integer division) means are kept as floats. Lines that
  are not valid JSON or whose counters have the wrong type are skipped, as `vsan.observer` does,
  and counted in the notes; a file with no usable line is rejected.

The first point of every series has no previous counter value and is 0 by construction: it is
dropped (for gauges such as write-buffer fill or memory it is a real reading; dropping it anyway
keeps every series on the same time axis). Null points are skipped and counted in the notes.

Table `vsan_observer_samples` (one row per series point):
    capture           `bundle` | `raw`
    stats_group       jsonstats group (`dom`, `lsom`, `pcpu`, `mem`, `misc`, `nfs`, `vm`, ...)
    entity_type       `dom_client`, `dom_owner`, `dom_compmgr` (per host), `dom_object`,
                      `dom_client_cluster`, `dom_owner_cluster`, `dom_compmgr_cluster`,
                      `dom_vm_home_cluster`, `dom_vm_disks_cluster`, `lsom_host`, `lsom_cluster`,
                      `lsom_component`, `physdisk`, `physdisk_cache_cluster`,
                      `physdisk_capacity_cluster`, `ssd`, `ssd_cluster`, `lsom_congestion`, `pcpu`,
                      `vsan_worlds` (all vSAN worlds of a host), `vsan_world`, `helper_worlds`,
                      `helper_world`, `system_mem`, `vscsi_host`, `vscsi_cluster`, `vm_vscsi`,
                      `pnic`, `vmknic`, `nfs_mount`, `nfs_cluster`; other files get their name's
                      prefix
    host              ESXi host name as the Observer knows it; None for cluster sums
    entity            disk device / disk or object UUID / pcpu / world / NIC; None when the row is
                      about the host or cluster itself
    observer_metric   the Observer's series name (`readLatency`, `wbFillPct`, `usedPct`)
    metric            warehouse name with its unit: `read_iops`, `read_bytes_per_s`,
                      `read_latency_us`, `read_latency_sq_us2`, `read_congestion`,
                      `read_sectors_per_s` (physical disk, 512-byte sectors),
                      `write_buffer_fill_pct`,
                      `used_pct`, `run_time_s_per_s` (CPU seconds per second = cores busy),
                      `mem_used_pct`, ...; unknown series get a snake_case name
    sampled_at        UTC, from the series' `times` (epoch seconds)
    value             the `avgs` point as the Observer computed it (no unit conversion)
    unit              `IO/s`, `B/s`, `us`, `us^2`, `512B-sectors/s`, `%`, `s/s`, `MiB`, `count`,
                      `number`, `1/s`; None for series whose unit is not documented
"""

from __future__ import annotations

import datetime as dt
import json
import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ingest.records import Parsed, ParseError, SourceFile

FORMAT = "vsan_observer"
PARSER_VERSION = "1"


@dataclass(frozen=True, slots=True)
class ObserverSample:
    capture: str
    stats_group: str
    entity_type: str
    host: str | None
    entity: str | None
    observer_metric: str
    metric: str
    sampled_at: dt.datetime
    value: float
    unit: str | None


TABLES = {"vsan_observer_samples": ObserverSample}

# ---------------------------------------------------------------- metric vocabulary

_IO = ("read", "write", "recoveryWrite")


def _snake(name: str) -> str:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()


def _dom_metrics() -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    for io in _IO:
        name = _snake(io)
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


def _lsom_metrics() -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    for io in ("read", "payload", "writeLe"):
        name = _snake(io)
        out[f"{io}IOs"] = (f"{name}_iops", "IO/s")
        out[f"{io}Bytes"] = (f"{name}_bytes_per_s", "B/s")
        out[f"{io}Latency"] = (f"{name}_latency_us", "us")
    for name in ("rcMemIOs", "rcSsdIOs", "rarReadIOs", "rcMissIOs", "rcPartialMissIOs", "rawarIOs"):
        out[name] = (_snake(name[:-3]) + "_iops", "IO/s")
    for name in ("rawarBytes", "patchedBytes", "wastedPatchedBytes"):
        out[name] = (_snake(name) + "_per_s", "B/s")
    for name in ("avgCapacityUsed", "maxCapacityUsed", "minCapacityUsed"):
        out[name] = (_snake(name) + "_pct", "%")
    out["rcHitRate"] = ("rc_hit_rate_pct", "%")
    return out


_METRICS: dict[str, dict[str, tuple[str, str | None]]] = {
    "dom": _dom_metrics(),
    "lsom": _lsom_metrics(),
    "physdisk": {
        "readIOs": ("read_iops", "IO/s"),
        "writeIOs": ("write_iops", "IO/s"),
        # The Observer's physical-disk `read`/`write` are 512-byte blocks (its UI halves them
        # to show KB/s).
        "read": ("read_sectors_per_s", "512B-sectors/s"),
        "write": ("write_sectors_per_s", "512B-sectors/s"),
        "readLatency": ("read_latency_us", "us"),
        "writeLatency": ("write_latency_us", "us"),
        "dAvgLatency": ("device_latency_us", "us"),
        "gAvgLatency": ("guest_latency_us", "us"),
        "kAvgLatency": ("kernel_latency_us", "us"),
    },
    "ssd": {
        "wbFillPct": ("write_buffer_fill_pct", "%"),
        "llogLogSpace": ("llog_log_space_pct", "%"),
        "llogDataSpace": ("llog_data_space_pct", "%"),
        "plogLogSpace": ("plog_log_space_pct", "%"),
        "plogDataSpace": ("plog_data_space_pct", "%"),
    },
    "cong": {
        name: (_snake(name), "number")
        for name in (
            "memCongestion",
            "slabCongestion",
            "ssdCongestion",
            "iopsCongestion",
            "logCongestion",
            "compCongestion",
        )
    },
    "pcpu": {"usedPct": ("used_pct", "%")},
    # World times are converted to seconds by the Observer before the per-second average.
    "world": {
        name: (_snake(name) + "_s_per_s", "s/s")
        for name in ("runTime", "waitTime", "overrunTime", "readyTime", "usedTime")
    },
    "mem": {
        "pctMemUsed": ("mem_used_pct", "%"),
        "totalMbMemUsed": ("mem_used_mib", "MiB"),
        "overcommitRatio": ("overcommit_ratio", "number"),
    },
    "vscsi": {
        "numReads": ("read_iops", "IO/s"),
        "numWrites": ("write_iops", "IO/s"),
        "bytesRead": ("read_bytes_per_s", "B/s"),
        "bytesWrite": ("write_bytes_per_s", "B/s"),
        "latencyReads": ("read_latency_us", "us"),
        "latencyWrites": ("write_latency_us", "us"),
    },
    "pnic": {
        "rxbytes": ("rx_bytes_per_s", "B/s"),
        "txbytes": ("tx_bytes_per_s", "B/s"),
        "rxpkt": ("rx_packets_per_s", "1/s"),
        "txpkt": ("tx_packets_per_s", "1/s"),
        "rxdrp": ("rx_drops_per_s", "1/s"),
        "txdrp": ("tx_drops_per_s", "1/s"),
        "rxerror": ("rx_errors_per_s", "1/s"),
        "txerror": ("tx_errors_per_s", "1/s"),
    },
    "nfs": {
        "reads": ("read_iops", "IO/s"),
        "writes": ("write_iops", "IO/s"),
        "readBytes": ("read_bytes_per_s", "B/s"),
        "writeBytes": ("write_bytes_per_s", "B/s"),
        "readTime": ("read_latency_us", "us"),
        "writeTime": ("write_latency_us", "us"),
        "readIssueTime": ("read_issue_latency_us", "us"),
        "writeIssueTime": ("write_issue_latency_us", "us"),
    },
}


def metric_name(family: str | None, observer_metric: str) -> tuple[str, str | None]:
    """Warehouse metric name and unit of an Observer series in a family of files."""
    known = _METRICS.get(family or "", {}).get(observer_metric)
    return known if known else (_snake(observer_metric), None)


# ---------------------------------------------------------------- bundle file kinds

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"


@dataclass(frozen=True, slots=True)
class _Kind:
    pattern: re.Pattern[str]
    entity_type: str
    family: str | None
    group: str


def _kind(regex: str, entity_type: str, family: str | None, group: str) -> _Kind:
    return _Kind(re.compile(regex), entity_type, family, group)


# First match wins; named groups `host` and `entity` say what the file name carries.
_KINDS: tuple[_Kind, ...] = (
    _kind(r"^domobj-client-(?P<host>.+)$", "dom_client", "dom", "dom"),
    _kind(r"^domobj-total-(?P<host>.+)$", "dom_owner", "dom", "dom"),
    _kind(r"^domobj-compmgr-(?P<host>.+)$", "dom_compmgr", "dom", "dom"),
    _kind(r"^domobj-(?P<entity>.+)$", "dom_object", "dom", "dom"),
    _kind(r"^domclientsum$", "dom_client_cluster", "dom", "dom"),
    _kind(r"^domownersum$", "dom_owner_cluster", "dom", "dom"),
    _kind(r"^domcompmgrsum$", "dom_compmgr_cluster", "dom", "dom"),
    _kind(r"^domvmhomesum$", "dom_vm_home_cluster", "dom", "dom"),
    _kind(r"^domvmdiskssum$", "dom_vm_disks_cluster", "dom", "dom"),
    _kind(r"^lsomhost-(?P<host>.+)$", "lsom_host", "lsom", "lsom"),
    _kind(r"^lsomsum$", "lsom_cluster", "lsom", "lsom"),
    _kind(r"^lsomcomp-(?P<entity>.+)$", "lsom_component", "lsom", "lsom"),
    _kind(r"^physdiskcachesum$", "physdisk_cache_cluster", "physdisk", "lsom"),
    _kind(r"^physdiskcapacitysum$", "physdisk_capacity_cluster", "physdisk", "lsom"),
    _kind(r"^physdisk-(?P<host>.+)-(?P<entity>[0-9a-f]{32})$", "physdisk", "physdisk", "lsom"),
    _kind(rf"^cong-(?P<host>.+)-(?P<entity>{_UUID})$", "lsom_congestion", "cong", "lsom"),
    _kind(r"^ssdsum$", "ssd_cluster", "ssd", "lsom"),
    _kind(r"^ssd-(?P<entity>.+)$", "ssd", "ssd", "lsom"),
    _kind(r"^pcpu-(?P<host>.+)$", "pcpu", "pcpu", "pcpu"),
    _kind(r"^wdtsum-(?P<host>.+)$", "vsan_worlds", "world", "pcpu"),
    _kind(r"^wdt-(?P<entity>.+)$", "vsan_world", "world", "pcpu"),
    _kind(r"^helperworldsum-(?P<host>.+)$", "helper_worlds", "world", "pcpu"),
    _kind(r"^helperworld-(?P<entity>.+)$", "helper_world", "world", "pcpu"),
    _kind(r"^system-(?P<host>.+)$", "system_mem", "mem", "mem"),
    _kind(r"^vscsihost-(?P<host>.+)$", "vscsi_host", "vscsi", "misc"),
    _kind(r"^vscsisum$", "vscsi_cluster", "vscsi", "misc"),
    _kind(r"^vscsi-(?P<entity>.+)$", "vm_vscsi", "vscsi", "vm"),
    _kind(r"^pnics-(?P<host>.+)$", "pnic", "pnic", "misc"),
    _kind(r"^vmknic-(?P<host>.+)$", "vmknic", None, "misc"),
    _kind(r"^nfssum$", "nfs_cluster", "nfs", "nfs"),
    _kind(r"^nfsmnt-(?P<entity>.+)$", "nfs_mount", "nfs", "nfs"),
)

_JSONL_START = re.compile(rb'^\s*\{\s*"type"\s*:\s*"inventory-snapshot"')


def detect(head: bytes, name: str) -> bool:
    if _JSONL_START.match(head):
        return True
    if name.endswith("_thumb.json"):
        return False  # down-sampled copy of a full file: skipped on purpose
    start = head.lstrip()[:1]
    return start == b"{" and b'"stats"' in head and b'"times"' in head and b'"avgs"' in head


def parse(data: bytes, source: SourceFile) -> Parsed:
    if _JSONL_START.match(data[:4096]):
        return _parse_capture(data, source)
    if source.name.endswith("_thumb.json"):
        raise ParseError(source.path, "file name", "a _thumb.json file is down-sampled: not loaded")
    return _parse_bundle_file(data, source)


# Epoch seconds a datetime can hold (up to 9999-12-31): beyond that a stamp is corrupt.
_MAX_TS = 253402300799.0


def _is_time(ts: Any) -> bool:
    return _is_number(ts) and 0 <= ts <= _MAX_TS


def _utc(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# ---------------------------------------------------------------- bundle (jsonstats)


@dataclass(frozen=True, slots=True)
class _FileId:
    group: str
    entity_type: str
    family: str | None
    host: str | None
    entity: str | None


def _identify(source: SourceFile, doc: Mapping[str, Any]) -> _FileId:
    stem = source.name[:-5] if source.name.endswith(".json") else source.name
    # Path is `.../jsonstats/<group>/<file>.json` (possibly inside `archive.tar.gz!/`).
    parent = posixpath.basename(posixpath.dirname(source.path.replace("!/", "/")))
    content_host = doc.get("hostname") or doc.get("host")
    for kind in _KINDS:
        match = kind.pattern.match(stem)
        if not match:
            continue
        groups = match.groupdict()
        host = content_host if isinstance(content_host, str) else groups.get("host")
        entity = groups.get("entity")
        if kind.entity_type == "physdisk" and isinstance(doc.get("dev"), str):
            entity = doc["dev"]  # the device name; the file name only has its MD5
        if kind.entity_type in ("vsan_world", "helper_world"):
            world = doc.get("wdt") or doc.get("helperworld")
            entity = world if isinstance(world, str) else entity
        if kind.entity_type == "dom_object" and isinstance(doc.get("uuid"), str):
            entity = doc["uuid"]
        group = parent if parent and parent != "jsonstats" and "." not in parent else kind.group
        return _FileId(group, kind.entity_type, kind.family, host, entity)
    prefix = stem.split("-", 1)[0]
    group = doc.get("group") if isinstance(doc.get("group"), str) else parent or "unknown"
    host = content_host if isinstance(content_host, str) else None
    return _FileId(group, _snake(prefix) or "unknown", None, host, None)


def _series_in(node: Any, path: str, trail: tuple[str, ...]) -> Iterator[tuple[tuple, str, dict]]:
    """(grouping keys, JSON path, InventoryStat) for every series under a `stats` object."""
    if not isinstance(node, dict):
        return
    for key, value in node.items():
        if not isinstance(value, dict):
            continue
        sub = f"{path}.{key}"
        if "times" in value:
            yield (*trail, key), sub, value
        else:
            yield from _series_in(value, sub, (*trail, key))


def _bundle_rows(
    doc: Mapping[str, Any], fid: _FileId, source: SourceFile, nulls: list[int]
) -> Iterator[ObserverSample]:
    roots = [(k, doc[k]) for k in ("stats", "pnics") if isinstance(doc.get(k), dict)]
    if not roots:
        raise ParseError(source.path, "$", "no stats object: not an Observer jsonstats file")
    for root_key, root in roots:
        for keys, path, stat in _series_in(root, f"$.{root_key}", ()):
            times, avgs = stat.get("times"), stat.get("avgs")
            if not isinstance(times, list) or not isinstance(avgs, list):
                raise ParseError(source.path, path, "series needs `times` and `avgs` lists")
            if len(times) != len(avgs):
                raise ParseError(
                    source.path, path, f"{len(times)} times but {len(avgs)} avgs (a _thumb file?)"
                )
            observer_metric = keys[-1]
            # Nested files (pcpu, pnics, vmknic) group series by CPU / NIC / layer.
            entity = "/".join(keys[:-1]) or fid.entity
            metric, unit = metric_name(fid.family, observer_metric)
            for i, (ts, value) in enumerate(zip(times, avgs, strict=True)):
                if not _is_time(ts):
                    raise ParseError(source.path, f"{path}.times[{i}]", f"bad time {ts!r}")
                if value is None:
                    nulls[0] += 1
                    continue
                if not _is_number(value):
                    raise ParseError(source.path, f"{path}.avgs[{i}]", f"bad value {value!r}")
                if i == 0:
                    continue  # no previous counter: 0 by construction
                yield ObserverSample(
                    capture="bundle",
                    stats_group=fid.group,
                    entity_type=fid.entity_type,
                    host=fid.host,
                    entity=entity,
                    observer_metric=observer_metric,
                    metric=metric,
                    sampled_at=_utc(ts),
                    value=value,
                    unit=unit,
                )


def _parse_bundle_file(data: bytes, source: SourceFile) -> Parsed:
    try:
        doc = json.loads(data)
    except UnicodeDecodeError as exc:
        raise ParseError(source.path, f"byte {exc.start}", "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ParseError(
            source.path, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None
    if not isinstance(doc, dict):
        raise ParseError(source.path, "$", "expected a JSON object")
    fid = _identify(source, doc)
    nulls = [0]
    rows = list(_bundle_rows(doc, fid, source, nulls))
    parsed = Parsed()
    parsed.add("vsan_observer_samples", rows)
    if nulls[0]:
        parsed.notes.append(f"skipped {nulls[0]} null points")
    if not rows:
        parsed.notes.append("no series with more than one point")
    return parsed


# ---------------------------------------------------------------- raw JSON-lines capture


@dataclass(slots=True)
class _Series:
    """The Observer's `InventoryStat#add` / `#addStatic`, keeping (time, avg) points."""

    points: list[tuple[float, float]] = field(default_factory=list)
    prev: float | None = None
    prev_ts: float = 0.0
    delta: float = 0.0

    def add(self, ts: float, value: float | None, div: float | None = None) -> None:
        if self.prev is None or value is None or self.prev > value:
            delta = 0.0  # first point, missing value or counter reset
        else:
            delta = value - self.prev
        if div is None:
            span = ts - self.prev_ts
            avg = delta / span if span else 0.0
        else:
            avg = delta / div if div else 0.0
        self.points.append((ts, avg))
        self.prev, self.prev_ts, self.delta = value, ts, delta

    def add_static(self, ts: float, value: float) -> None:
        self.points.append((ts, value))
        self.prev, self.prev_ts, self.delta = value, ts, value


class _BadLine(ValueError):
    pass


def _num(obj: Any, *keys: str) -> float | None:
    """Number at a key path of a snapshot, None when absent; wrong type makes the line bad."""
    for key in keys:
        if obj is None:
            return None
        if not isinstance(obj, dict):
            raise _BadLine(f"{key}: expected an object")
        obj = obj.get(key)
    if obj is None:
        return None
    if not _is_number(obj):
        raise _BadLine(f"{'.'.join(keys)}: expected a number, got {obj!r}")
    if keys[-1].endswith("-taken") and not _is_time(obj):
        raise _BadLine(f"{'.'.join(keys)}: time {obj!r} out of range")
    return float(obj)


def _obj(obj: Any, key: str) -> dict[str, Any]:
    value = obj.get(key) if isinstance(obj, dict) else None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _BadLine(f"{key}: expected an object")
    return value


_DOM_ROLES = (("client", "dom_client"), ("owner", "dom_owner"), ("compmgr", "dom_compmgr"))
_DOM_SUFFIXES = ("Count", "Bytes", "LatencySumUs", "LatencySqSumUs", "CongestionSum")
_DOM_COUNTERS = (
    *(f"{io}{suffix}" for io in _IO for suffix in _DOM_SUFFIXES),
    "ioCount",
    "numOIOSum",
)
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
_CONGESTIONS = tuple(_METRICS["cong"])


def _extract_host(host: dict[str, Any]) -> dict[str, Any]:
    """Plain numbers from one host's `vsi` object; raises _BadLine on wrong types."""
    out: dict[str, Any] = {}
    owners_ts = _num(host, "dom.owners.stats-taken")
    for role, _ in _DOM_ROLES:
        stats = _obj(host, f"dom.{role}.stats")
        ts = _num(host, f"dom.{role}.stats-taken") or owners_ts
        if stats and ts is not None:
            out[f"dom.{role}"] = (ts, {k: _num(stats, k) for k in _DOM_COUNTERS})

    lsom_ts = _num(host, "lsom.disks-taken")
    disks = _obj(host, "lsom.disks")
    if lsom_ts is not None and disks:
        caches, totals = {}, dict.fromkeys(_LSOM_COUNTERS, 0.0)
        for uuid, disk in disks.items():
            info = _obj(disk, "info")
            if info.get("type") == "cache":
                caches[uuid] = {
                    "wbFreeSpace": _num(info, "wbFreeSpace"),
                    "wbSize": _num(info, "wbSize"),
                    **{c: _num(info, c) for c in _CONGESTIONS},
                }
            if info.get("type") != "data":  # tier-2 stats are already in the cache tier's
                agg = _obj(info, "aggStats")
                for key in _LSOM_COUNTERS:
                    totals[key] += _num(agg, key) or 0.0
        out["lsom"] = (lsom_ts, caches, totals)

    disk_ts = _num(host, "disks-taken")
    phys = _obj(host, "disks.stats")
    if disk_ts is not None and phys:
        out["disks"] = (
            disk_ts,
            {
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
            },
        )

    pcpu_ts = _num(host, "pcpus-taken")
    if pcpu_ts is not None:
        out["pcpus"] = (
            pcpu_ts,
            {
                cpu: (_num(info, "elapsedTime"), _num(info, "coreHaltTime"))
                for cpu, info in _obj(host, "pcpus").items()
            },
        )

    wdt_ts = _num(host, "worldlets-taken")
    if wdt_ts is not None:
        worlds = _obj(host, "worldlets")
        out["worldlets"] = (wdt_ts, {w: _num(info, "runTime") for w, info in worlds.items()})

    mem = _obj(host, "system.mem")
    mem_ts = lsom_ts if lsom_ts is not None else wdt_ts
    if mem and mem_ts is not None:
        free, total = _num(mem, "comprehensive", "free"), _num(mem, "comprehensive", "kernel")
        if free is None or not total:
            raise _BadLine("system.mem.comprehensive: free/kernel missing")
        out["mem"] = (mem_ts, free, total)
    return out


@dataclass
class _Capture:
    """Series rebuilt from the raw counters, keyed like the bundle's files."""

    series: dict[tuple[str, str, str | None, str, str | None], _Series] = field(
        default_factory=lambda: defaultdict(_Series)
    )

    def get(self, kind: str, host: str, entity: str | None, metric: str) -> _Series:
        family = _RAW_FAMILY[kind]
        return self.series[(kind, host, entity, metric, family)]


_RAW_FAMILY = {
    "dom_client": "dom",
    "dom_owner": "dom",
    "dom_compmgr": "dom",
    "lsom_host": "lsom",
    "ssd": "ssd",
    "lsom_congestion": "cong",
    "physdisk": "physdisk",
    "pcpu": "pcpu",
    "vsan_worlds": "world",
    "system_mem": "mem",
}
_RAW_GROUP = {
    "dom": "dom",
    "lsom": "lsom",
    "ssd": "lsom",
    "cong": "lsom",
    "physdisk": "lsom",
    "pcpu": "pcpu",
    "world": "pcpu",
    "mem": "mem",
}


def _apply_host(cap: _Capture, name: str, x: dict[str, Any]) -> None:
    for role, kind in _DOM_ROLES:
        if f"dom.{role}" not in x:
            continue
        ts, c = x[f"dom.{role}"]
        for io in _IO:
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

    if "lsom" in x:
        ts, caches, totals = x["lsom"]
        for io, prefix in (("read", "read"), ("payload", "payload"), ("writeLe", "writeLe")):
            ios = cap.get("lsom_host", name, None, f"{io}IOs")
            ios.add(ts, totals[f"{prefix}IoCount"])
            cap.get("lsom_host", name, None, f"{io}Latency").add(
                ts, totals[f"{prefix}IoTime"], ios.delta
            )
            byte_key = "bytesRead" if io == "read" else f"{prefix}DataBytes"
            cap.get("lsom_host", name, None, f"{io}Bytes").add(ts, totals[byte_key])
        for uuid, info in caches.items():
            if info["wbFreeSpace"] is not None and info["wbSize"]:
                # As the Observer: 100 - whole percent free.
                free_pct = int(info["wbFreeSpace"] * 100.0 / info["wbSize"])
                cap.get("ssd", name, uuid, "wbFillPct").add_static(ts, 100 - free_pct)
            for cong in _CONGESTIONS:
                if info[cong] is not None:
                    cap.get("lsom_congestion", name, uuid, cong).add_static(ts, info[cong])

    if "disks" in x:
        ts, devices = x["disks"]
        for dev, d in devices.items():
            reads = cap.get("physdisk", name, dev, "readIOs")
            writes = cap.get("physdisk", name, dev, "writeIOs")
            reads.add(ts, d["readOps"])
            writes.add(ts, d["writeOps"])
            cap.get("physdisk", name, dev, "read").add(ts, d["blocksRead"])
            cap.get("physdisk", name, dev, "write").add(ts, d["blocksWritten"])
            cap.get("physdisk", name, dev, "readLatency").add(ts, d["totalTimeReads"], reads.delta)
            cap.get("physdisk", name, dev, "writeLatency").add(
                ts, d["totalTimeWrites"], writes.delta
            )
            if d["totalTime"] is not None:
                cap.get("physdisk", name, dev, "gAvgLatency").add(
                    ts, d["totalTime"], reads.delta + writes.delta
                )

    if "pcpus" in x:
        ts, cpus = x["pcpus"]
        for cpu, (elapsed, core_halt) in cpus.items():
            e = cap.get("pcpu", name, cpu, "elapsedTime")
            h = cap.get("pcpu", name, cpu, "coreHaltTime")
            e.add(ts, elapsed or 0.0)
            h.add(ts, core_halt or 0.0)
            used = 100.0 - (h.delta * 100.0 / e.delta) if e.delta > 0 else 0.0
            cap.get("pcpu", name, cpu, "usedPct").add_static(ts, used)

    if "worldlets" in x:
        ts, worlds = x["worldlets"]
        # Per-world rates (ns -> s, over the interval), summed per host like `wdtsum`.
        total = 0.0
        for world, run_ns in worlds.items():
            series = cap.get("vsan_worlds", name, f"world:{world}", "runTime")
            series.add(ts, run_ns / 1e9 if run_ns is not None else 0.0)
            total += series.points[-1][1]
        cap.get("vsan_worlds", name, None, "runTime").add_static(ts, total)

    if "mem" in x:
        ts, free, total = x["mem"]
        cap.get("system_mem", name, None, "totalMbMemUsed").add_static(ts, (total - free) / 1024)
        cap.get("system_mem", name, None, "pctMemUsed").add_static(ts, 100 - free * 100 / total)


# Series computed only as inputs of others; not rows of their own.
_HELPER_SERIES = {"elapsedTime", "coreHaltTime"}


def _capture_rows(cap: _Capture) -> Iterator[ObserverSample]:
    for (kind, host, entity, observer_metric, family), series in sorted(
        cap.series.items(), key=lambda item: tuple(str(k) for k in item[0])
    ):
        if observer_metric in _HELPER_SERIES or (entity or "").startswith("world:"):
            continue
        metric, unit = metric_name(family, observer_metric)
        for ts, value in series.points[1:]:  # first point: 0 by construction
            yield ObserverSample(
                capture="raw",
                stats_group=_RAW_GROUP[family],
                entity_type=kind,
                host=host,
                entity=entity,
                observer_metric=observer_metric,
                metric=metric,
                sampled_at=_utc(ts),
                value=value,
                unit=unit,
            )


def _parse_capture(data: bytes, source: SourceFile) -> Parsed:
    cap = _Capture()
    good, bad, other, first_bad = 0, 0, 0, None
    for line_no, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or record.get("type") != "inventory-snapshot":
                other += 1
                continue
            hosts = _obj(_obj(record, "snapshot"), "vsi")
            extracted = {
                name: _extract_host(host if isinstance(host, dict) else {})
                for name, host in hosts.items()
            }
        except (ValueError, _BadLine) as exc:  # JSONDecodeError and UnicodeDecodeError too
            bad += 1
            first_bad = first_bad or f"line {line_no}: {str(exc)[:120]}"
            continue
        for name, x in extracted.items():
            _apply_host(cap, name, x)
        good += 1
    if not good:
        where = first_bad.split(":", 1)[0] if first_bad else "line 1"
        raise ParseError(source.path, where, "no valid inventory-snapshot line")
    rows = list(_capture_rows(cap))
    parsed = Parsed()
    parsed.add("vsan_observer_samples", rows)
    if bad:
        parsed.notes.append(f"skipped {bad} bad JSON lines (first: {first_bad})")
    if other:
        parsed.notes.append(f"skipped {other} lines that are not inventory snapshots")
    return parsed
