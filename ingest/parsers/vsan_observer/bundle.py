"""Static-bundle files: `jsonstats/<group>/<file>.json`, one Observer `InventoryStat` dump each.

What a file is about (group, entity type, host, entity) comes from its name and path, and from
its content (`uuid`, `hostname`, `host`, `dev`, `wdt`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ingest.parsers._common import load_json
from ingest.parsers.vsan_observer.metrics import snake
from ingest.parsers.vsan_observer.records import (
    ObserverSample,
    SeriesKey,
    is_number,
    is_time,
    sample_rows,
)
from ingest.records import Parsed, ParseError, SourceFile

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
    return _FileId(group, snake(prefix) or "unknown", None, host, None)


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


def parse_bundle_file(data: bytes, source: SourceFile) -> Parsed:
    doc = load_json(data, source)
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
            key = SeriesKey(
                capture="bundle",
                stats_group=fid.group,
                entity_type=fid.entity_type,
                family=fid.family,
                host=fid.host,
                # Nested files (pcpu, pnics, vmknic) group series by CPU / NIC / layer.
                entity="/".join(keys[:-1]) or fid.entity,
                observer_metric=keys[-1],
            )
            yield from sample_rows(key, _points(times, avgs, path, source, nulls))


def _points(
    times: list[Any], avgs: list[Any], path: str, source: SourceFile, nulls: list[int]
) -> Iterator[tuple[float, float]]:
    """The checked (time, avg) points of a series but its first; null points are counted."""
    for i, (ts, value) in enumerate(zip(times, avgs, strict=True)):
        if not is_time(ts):
            raise ParseError(source.path, f"{path}.times[{i}]", f"bad time {ts!r}")
        if value is None:
            nulls[0] += 1
            continue
        if not is_number(value):
            raise ParseError(source.path, f"{path}.avgs[{i}]", f"bad value {value!r}")
        if i == 0:
            continue  # no previous counter: 0 by construction
        yield ts, value
