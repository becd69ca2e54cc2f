"""Raw captures (`vsan.observer --filename F`): JSON lines of cumulative ESXi counters, from which
the series a bundle holds are rebuilt."""

from __future__ import annotations

import json
from collections.abc import Iterator

from ingest.parsers.vsan_observer.groups import BadLine, apply_host, obj, read_host
from ingest.parsers.vsan_observer.records import ObserverSample, SeriesKey, sample_rows
from ingest.parsers.vsan_observer.series import RAW_GROUP, Capture
from ingest.records import Parsed, ParseError, SourceFile

# Series computed only as inputs of others; not rows of their own.
_HELPER_SERIES = {"elapsedTime", "coreHaltTime"}


def parse_capture(data: bytes, source: SourceFile) -> Parsed:
    cap = Capture()
    good, bad, other, first_bad = 0, 0, 0, None
    for line_no, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or record.get("type") != "inventory-snapshot":
                other += 1
                continue
            hosts = obj(obj(record, "snapshot"), "vsi")
            readings = {
                name: read_host(host if isinstance(host, dict) else {})
                for name, host in hosts.items()
            }
        except (ValueError, BadLine) as exc:  # JSONDecodeError and UnicodeDecodeError too
            bad += 1
            first_bad = first_bad or f"line {line_no}: {str(exc)[:120]}"
            continue
        for name, reading in readings.items():
            apply_host(cap, name, reading)
        good += 1
    if not good:
        where = first_bad.split(":", 1)[0] if first_bad else "line 1"
        raise ParseError(source.path, where, "no valid inventory-snapshot line")
    parsed = Parsed()
    parsed.add("vsan_observer_samples", list(_capture_rows(cap)))
    if bad:
        parsed.notes.append(f"skipped {bad} bad JSON lines (first: {first_bad})")
    if other:
        parsed.notes.append(f"skipped {other} lines that are not inventory snapshots")
    return parsed


def _capture_rows(cap: Capture) -> Iterator[ObserverSample]:
    for (kind, host, entity, observer_metric, family), series in sorted(
        cap.series.items(), key=lambda item: tuple(str(k) for k in item[0])
    ):
        if observer_metric in _HELPER_SERIES or (entity or "").startswith("world:"):
            continue
        key = SeriesKey("raw", RAW_GROUP[family], kind, family, host, entity, observer_metric)
        yield from sample_rows(key, series.points[1:])  # first point: 0 by construction
