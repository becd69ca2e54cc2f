"""vSAN performance service (vSAN 6.2+, 7, 8 OSA/ESA): `VsanPerfEntityMetricCSV` series.

Usage
-----
    # as every parser (ingest.parsers):
    vsan_perfsvc.parse(data, source_for(path, data)).tables["vsan_perfsvc_samples"]

Example
-------
Trimmed to one entity, two metrics and three times from the golden case
`vsan_perfsvc/vsan_perfsvc__generated-locally__pyvmomi-9.1.1.0__VsanPerfEntityMetricCSV_array__
VmomiJSONEncoder.json` (a `VsanPerfQueryPerf` result as pyVmomi's VmomiJSONEncoder writes it,
synthetic values; the first row shows every field, the others some):

    $ cat perf.json
    [
      {
        "entityRefId": "cluster-domclient:52b8d0c2-1f9c-4e3a-9d7e-0a1b2c3d4e5f",
        "sampleInfo": "2026-06-08 12:00:00,2026-06-08 12:05:00,2026-06-08 12:10:00",
        "value": [
          {
            "metricId": {
              "label": "iopsRead",
              "metricsCollectInterval": 300
            },
            "values": "41210,41388,41007"
          },
          {
            "metricId": {
              "label": "latencyAvgRead",
              "metricsCollectInterval": 300
            },
            "values": "812,805,826"
          }
        ]
      }
    ]

    vsan_perfsvc_samples: 6 rows
      {"source_kind": "api_json", "entity_type": "cluster-domclient",
       "entity_id": "52b8d0c2-1f9c-4e3a-9d7e-0a1b2c3d4e5f", "metric": "iopsRead",
       "powercli_name": null, "sampled_at": "2026-06-08T12:00:00+00:00", "value": 41210.0,
       "unit": "IO/s", "collect_interval_s": 300, "is_client_local_time": false}
      {"metric": "iopsRead", "sampled_at": "2026-06-08T12:05:00+00:00", "value": 41388.0}
      {"metric": "iopsRead", "sampled_at": "2026-06-08T12:10:00+00:00", "value": 41007.0}
      {"metric": "latencyAvgRead", "sampled_at": "2026-06-08T12:00:00+00:00", "value": 812.0}
      {"metric": "latencyAvgRead", "sampled_at": "2026-06-08T12:05:00+00:00", "value": 805.0}
      {"metric": "latencyAvgRead", "sampled_at": "2026-06-08T12:10:00+00:00", "value": 826.0}

Inputs (detected from content):

* JSON list of `VsanPerfEntityMetricCSV` (the result of `VsanPerformanceManager.VsanPerfQueryPerf`)
  as written by pyVmomi's `VmomiJSONEncoder`, the VI/JSON API or the shape HCIBench's
  `PerfStatsParser.ParseJson` reads: `[{"entityRefId", "sampleInfo", "value": [{"metricId":
  {"label", "metricsCollectInterval"}, "values"}]}]`.
* the vm-support / HCIBench-debug "SOAP stats dump" (`vsan-perfsvc-status.py ... with_dump`,
  `perf-stats.txt`): a `--------------SOAP stats dump--------------` line, then one
  `ArrayOfVsanPerfEntityMetricCSV` XML document per line, segments separated by
  `--------------Stats Segment Separator--------------`. A whole SOAP `VsanPerfQueryPerfResponse`
  body is read the same way.
* PowerCLI `Get-VsanStat ... | Export-Csv` (`"Entity","Name","Time"[,"Unit"],"Value"`), a lower
  fidelity input: `Time` is the client's local time in its culture's format (stored as if it were
  UTC, with `is_client_local_time` set), `Entity` is an object name, and the unit is whatever
  PowerCLI printed in `Unit` (None when the column is absent).

`sampleInfo` is comma-separated naive UTC timestamps (`YYYY-MM-DD HH:MM:SS[.ffffff]`); `values` is
comma-separated, one per timestamp, with `None` or an empty field for a missing point (skipped and
counted in the notes). An entity with an empty `sampleInfo` has no samples and adds no rows.

Table `vsan_perfsvc_samples` (one row per entity x metric x timestamp):
    source_kind            `api_json` | `soap_dump` | `powercli_csv`
    entity_type            API entity type (`cluster-domclient`, `host-domcompmgr`, `vsan-cpu`);
                           None for PowerCLI rows (a view name does not say cluster vs host)
    entity_id              the id after the first `:` of `entityRefId` (cluster or node UUID,
                           composite ids keep their `|`); PowerCLI: the entity's name
    metric                 API label (`iopsRead`, `latencyAvgRead`, ...); PowerCLI names are mapped
                           to API labels where the published mapping gives one, else kept
    powercli_name          PowerCLI `ViewName.MetricName`, PowerCLI rows only
    sampled_at             UTC
    value                  as reported (no unit conversion)
    unit                   raw unit of the API value: `us` (latency; the graph says time_ms but
                           the values are microseconds), `B/s` (throughput), `IO/s` (IOPS), `%`,
                           `permille` (packet loss), `bytes`, `count`, `number` (congestion and
                           other plain numbers); None when the label is not known. PowerCLI rows
                           carry PowerCLI's own `Unit` text.
    collect_interval_s     `metricId.metricsCollectInterval` (300 by default), None if absent
    is_client_local_time   True for PowerCLI times without an explicit offset
    latency_kind           `total` for a latency metric (`latencyAvgRead`, ...: the whole time
                           at the reported layer, as the service reports it), else None
                           (`ingest.records.LatencyKind`)
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ingest.parsers._common import decode_utf8, is_document, load_json, load_xml, xml_name
from ingest.records import LatencyKind, Parsed, ParseError, SourceFile

FORMAT = "vsan_perfsvc"
PARSER_VERSION = "2"  # 2: latency_kind


@dataclass(frozen=True, slots=True)
class PerfSample:
    source_kind: str
    entity_type: str | None
    entity_id: str
    metric: str
    powercli_name: str | None
    sampled_at: dt.datetime
    value: float
    unit: str | None
    collect_interval_s: int | None
    is_client_local_time: bool
    # `total` for a latency metric (its API unit is us), None for the others.
    latency_kind: LatencyKind | None = None


TABLES = {"vsan_perfsvc_samples": PerfSample}

DUMP_HEADER = "--------------SOAP stats dump--------------"
# The script writes the header as a line of its own; text that mentions it mid-line is not one.
_DUMP_HEADER_LINE = re.compile(rb"^" + re.escape(DUMP_HEADER.encode()) + rb"\s*$", re.MULTILINE)
SEGMENT_SEPARATOR = "--------------Stats Segment Separator--------------"

# PowerCLI Get-VsanStat names -> API labels (William Lam's published mapping; the view prefix
# says client (VMConsumption) or backend (Backend) but not cluster vs host).
POWERCLI_LABELS: dict[str, str] = {
    "VMConsumption.ReadIops": "iopsRead",
    "VMConsumption.WriteIops": "iopsWrite",
    "VMConsumption.WriteIop": "iopsWrite",  # spelled so in the published cluster table
    "VMConsumption.ReadThroughput": "throughputRead",
    "VMConsumption.WriteThroughput": "throughputWrite",
    "VMConsumption.AverageReadLatency": "latencyAvgRead",
    "VMConsumption.AverageWriteLatency": "latencyAvgWrite",
    "VMConsumption.Congestion": "congestion",
    "VMConsumption.OutstandingIO": "oio",
    "VMConsumption.ClientCacheHitRate": "clientCacheHitRate",
    "VMConsumption.ClientCacheHitsIops": "clientCacheHits",
    "Backend.ReadIops": "iopsRead",
    "Backend.WriteIops": "iopsWrite",
    "Backend.RecoveryWriteIops": "iopsRecWrite",
    "Backend.ResyncReadIops": "iopsResyncRead",
    "Backend.ReadThroughput": "throughputRead",
    "Backend.WriteThroughput": "throughputWrite",
    "Backend.RecoveryWriteThroughput": "throughputRecWrite",
    "Backend.ResyncReadThroughput": "tputResyncRead",
    "Backend.AverageReadLatency": "latencyAvgRead",
    "Backend.AverageWriteLatency": "latencyAvgWrite",
    "Backend.RecoveryWriteAverageLatency": "latencyAvgRecWrite",
    "Backend.ResyncReadLatency": "latAvgResyncRead",
    "Backend.Congestion": "congestion",
    "Backend.OutstandingIO": "oio",
}

_EXACT_UNITS: dict[str, str] = {
    "congestion": "number",
    "oio": "count",
    "numOio": "count",
    "readCount": "count",
    "writeCount": "count",
    "ioCount": "count",
    "clientCacheHits": "IO/s",
    "dedupRatio": "number",  # scale (x1 or x100) not verified on a real capture
}

# Ordered: first match wins. Raw units per the research note (latency us, throughput B/s).
_UNIT_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"LossRate$"), "permille"),
    (re.compile(r"^iops"), "IO/s"),
    (re.compile(r"^(throughput|tput)"), "B/s"),
    (re.compile(r"^(latency|lat[A-Z]|avgLat)"), "us"),
    (re.compile(r"(Pct|HitRate|HitRt)$"), "%"),
    (re.compile(r"^(capacity|rcSize|wbSize|ddpTotalCap|ddpFreeCap|total|used|free)"), "bytes"),
    (re.compile(r"[cC]ongestion$"), "number"),
)

_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_POWERCLI_TIME_FORMATS = (
    "%m/%d/%Y %I:%M:%S %p",  # en-US, as in the published Get-VsanStat output
    "%m/%d/%Y %H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S",
)
_POWERCLI_HEADER = re.compile(rb'^"?Entity"?,"?Name"?,"?Time"?', re.IGNORECASE)


def latency_kind_of(label: str) -> LatencyKind | None:
    """A latency metric's kind: the performance service reports the whole time an I/O spent
    at the layer of the entity (DOM client: from the VM's I/O entering vSAN until it
    completed), so `total`; None for a metric that is no latency."""
    return LatencyKind.total if unit_of(label) == "us" else None


def unit_of(label: str) -> str | None:
    """Raw unit of a performance-service label, or None when unknown."""
    if label in _EXACT_UNITS:
        return _EXACT_UNITS[label]
    for pattern, unit in _UNIT_RULES:
        if pattern.search(label):
            return unit
    return None


def detect(head: bytes, name: str) -> bool:
    if is_document(head, name):
        return False
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith((b"[", b"{")):
        return b'"entityRefId"' in head and b'"sampleInfo"' in head
    if _DUMP_HEADER_LINE.search(head):
        return True
    if text.startswith(b"<") and (
        b"VsanPerfEntityMetricCSV" in head or b"VsanPerfQueryPerfResponse" in head
    ):
        return True
    return bool(_POWERCLI_HEADER.match(text.replace(b" ", b"")))


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = decode_utf8(data, source)
    stripped = text.lstrip()
    parsed = Parsed()
    counts = {"missing": 0, "empty_entities": 0}
    if stripped.startswith(("[", "{")):
        rows = list(_from_json(text, source, counts))
    elif stripped.startswith(("<", DUMP_HEADER)):
        rows = list(_from_dump(text, source, counts))
    elif _POWERCLI_HEADER.match(stripped.replace(" ", "").encode()):
        rows = list(_from_powercli(text, source))
        parsed.notes.append("PowerCLI Get-VsanStat: times are client local time, stored as UTC")
    else:
        raise ParseError(source.path, "line 1", "not a vSAN performance-service export")
    if counts["missing"]:
        parsed.notes.append(f"skipped {counts['missing']} missing values (None or empty)")
    if counts["empty_entities"]:
        parsed.notes.append(
            f"{counts['empty_entities']} entities had no samples (empty sampleInfo)"
        )
    if not rows:
        # A query over a time range the service holds no data for: a real, empty answer.
        parsed.no_result_reason = (
            "no performance samples (a header or entities with an empty sampleInfo only)"
        )
    parsed.add("vsan_perfsvc_samples", rows)
    return parsed


# ---------------------------------------------------------------- shared series logic


def _split_ref(ref: str, source: SourceFile, where: str) -> tuple[str, str]:
    entity_type, sep, entity_id = ref.strip().partition(":")
    if not sep or not entity_type or not entity_id:
        raise ParseError(source.path, where, f"entityRefId {ref!r} is not <type>:<id>")
    return entity_type, entity_id


def _timestamps(sample_info: str, source: SourceFile, where: str) -> list[dt.datetime]:
    out = []
    for raw in sample_info.split(","):
        stamp = raw.strip().split(".", 1)[0]  # RVC and some builds append .ffffff
        try:
            out.append(dt.datetime.strptime(stamp, _TIME_FORMAT).replace(tzinfo=dt.UTC))
        except ValueError:
            raise ParseError(source.path, where, f"bad sampleInfo timestamp {raw!r}") from None
    return out


def _series_rows(
    kind: str,
    entity: tuple[str, str],
    times: list[dt.datetime],
    series: tuple[str, str, int | None],
    source: SourceFile,
    where: str,
    counts: dict[str, int],
) -> Iterator[PerfSample]:
    label, values_text, interval = series
    values = values_text.split(",") if values_text else []
    if len(values) != len(times):
        raise ParseError(
            source.path,
            where,
            f"{label}: {len(values)} values for {len(times)} timestamps",
        )
    unit = unit_of(label)
    for stamp, raw in zip(times, values, strict=True):
        raw = raw.strip()
        if raw in ("", "None"):
            counts["missing"] += 1
            continue
        try:
            value = float(raw)
        except ValueError:
            raise ParseError(source.path, where, f"{label}: bad value {raw!r}") from None
        yield PerfSample(
            source_kind=kind,
            entity_type=entity[0],
            entity_id=entity[1],
            metric=label,
            powercli_name=None,
            sampled_at=stamp,
            value=value,
            unit=unit,
            collect_interval_s=interval,
            is_client_local_time=False,
            latency_kind=latency_kind_of(label),
        )


def _interval(value: Any, source: SourceFile, where: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: 1e999 reads as infinity
        raise ParseError(source.path, where, f"bad metricsCollectInterval {value!r}") from None


# ---------------------------------------------------------------- JSON


def _from_json(text: str, source: SourceFile, counts: dict[str, int]) -> Iterator[PerfSample]:
    doc = load_json(text, source)
    entities = doc if isinstance(doc, list) else [doc]
    for i, entity in enumerate(entities):
        where = f"$[{i}]"
        if not isinstance(entity, dict) or not isinstance(entity.get("entityRefId"), str):
            raise ParseError(source.path, where, "not a VsanPerfEntityMetricCSV (no entityRefId)")
        ref = _split_ref(entity["entityRefId"], source, f"{where}.entityRefId")
        sample_info = entity.get("sampleInfo") or ""
        if not isinstance(sample_info, str):
            raise ParseError(source.path, f"{where}.sampleInfo", "expected text")
        if not sample_info.strip():
            counts["empty_entities"] += 1
            continue
        times = _timestamps(sample_info, source, f"{where}.sampleInfo")
        for j, series in enumerate(entity.get("value") or []):
            swhere = f"{where}.value[{j}]"
            metric_id = series.get("metricId") if isinstance(series, dict) else None
            label = metric_id.get("label") if isinstance(metric_id, dict) else None
            values = series.get("values") if isinstance(series, dict) else None
            if not isinstance(label, str) or not isinstance(values, (str, type(None))):
                raise ParseError(source.path, swhere, "expected metricId.label and values text")
            interval = _interval(metric_id.get("metricsCollectInterval"), source, swhere)
            yield from _series_rows(
                "api_json", ref, times, (label, values or "", interval), source, swhere, counts
            )


# ---------------------------------------------------------------- SOAP stats dump / XML


def _child(element: ET.Element, name: str) -> ET.Element | None:
    for child in element:
        if xml_name(child.tag) == name:
            return child
    return None


def _from_xml_doc(
    xml_text: str, line_no: int, source: SourceFile, counts: dict[str, int]
) -> Iterator[PerfSample]:
    root = load_xml(xml_text, source, first_line=line_no)
    # Elements that hold an <entityRefId> child are VsanPerfEntityMetricCSV objects, whatever
    # they are called (<VsanPerfEntityMetricCSV> in the dump, <returnval> in a SOAP response).
    found = False
    for element in root.iter():
        ref_el = _child(element, "entityRefId")
        if ref_el is None:
            continue
        found = True
        where = f"line {line_no}"
        ref = _split_ref(ref_el.text or "", source, where)
        sample_el = _child(element, "sampleInfo")
        sample_info = (sample_el.text or "") if sample_el is not None else ""
        if not sample_info.strip():
            counts["empty_entities"] += 1
            continue
        times = _timestamps(sample_info, source, where)
        for value_el in (c for c in element if xml_name(c.tag) == "value"):
            metric_el = _child(value_el, "metricId")
            label_el = _child(metric_el, "label") if metric_el is not None else None
            if label_el is None or not (label_el.text or "").strip():
                raise ParseError(source.path, where, f"{ref[0]}: value without metricId.label")
            interval_el = _child(metric_el, "metricsCollectInterval")
            interval = _interval(
                interval_el.text if interval_el is not None else None, source, where
            )
            values_el = _child(value_el, "values")
            values = (values_el.text or "") if values_el is not None else ""
            series = (label_el.text.strip(), values, interval)
            yield from _series_rows("soap_dump", ref, times, series, source, where, counts)
    if not found:
        raise ParseError(source.path, f"line {line_no}", "XML holds no VsanPerfEntityMetricCSV")


def _from_dump(text: str, source: SourceFile, counts: dict[str, int]) -> Iterator[PerfSample]:
    stripped = text.lstrip()
    if not stripped.startswith(DUMP_HEADER):
        # A single XML document (SOAP response body) rather than the line-per-document dump.
        first_line = text[: len(text) - len(stripped)].count("\n") + 1
        yield from _from_xml_doc(text, first_line, source, counts)
        return
    for line_no, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line in (DUMP_HEADER, SEGMENT_SEPARATOR):
            continue
        if not line.startswith("<"):
            raise ParseError(source.path, f"line {line_no}", f"unexpected text {line[:60]!r}")
        yield from _from_xml_doc(line, line_no, source, counts)


# ---------------------------------------------------------------- PowerCLI Get-VsanStat CSV


def _powercli_time(raw: str, source: SourceFile, where: str) -> tuple[dt.datetime, bool]:
    raw = raw.strip()
    try:
        stamp = dt.datetime.fromisoformat(raw)
        if stamp.tzinfo is not None:
            return stamp.astimezone(dt.UTC), False
    except ValueError:
        pass
    for fmt in _POWERCLI_TIME_FORMATS:
        try:
            return dt.datetime.strptime(raw, fmt).replace(tzinfo=dt.UTC), True
        except ValueError:
            continue
    raise ParseError(source.path, where, f"unrecognised Time {raw!r}")


def _powercli_value(raw: str, source: SourceFile, where: str) -> float:
    text = raw.strip()
    if "," in text and "." not in text:  # decimal comma cultures (de-DE, fr-FR)
        text = text.replace(",", ".")
    try:
        return float(text)
    except ValueError:
        raise ParseError(source.path, where, f"bad Value {raw!r}") from None


def _from_powercli(text: str, source: SourceFile) -> Iterator[PerfSample]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        yield from _powercli_records(reader, source)
    except csv.Error as exc:  # e.g. a field over the csv module's 128 KiB limit
        # line_num counts the lines of the records read before the bad one.
        where = f"line {reader.line_num + 1}"
        raise ParseError(source.path, where, f"bad CSV: {exc}") from None


def _powercli_records(reader: csv.DictReader, source: SourceFile) -> Iterator[PerfSample]:
    fields = {name.strip().lower(): name for name in reader.fieldnames or []}
    missing = [k for k in ("entity", "name", "time", "value") if k not in fields]
    if missing:
        raise ParseError(source.path, "line 1", f"missing column(s): {', '.join(missing)}")
    for record in reader:
        where = f"line {reader.line_num}"
        if None in record.values() or None in record:
            raise ParseError(source.path, where, "wrong number of fields")
        entity, name = record[fields["entity"]].strip(), record[fields["name"]].strip()
        if not entity or not name:
            raise ParseError(source.path, where, "empty Entity or Name")
        stamp, is_local = _powercli_time(record[fields["time"]], source, where)
        unit = (record[fields["unit"]].strip() or None) if "unit" in fields else None
        yield PerfSample(
            source_kind="powercli_csv",
            entity_type=None,
            entity_id=entity,
            metric=POWERCLI_LABELS.get(name, name),
            powercli_name=name,
            sampled_at=stamp,
            value=_powercli_value(record[fields["value"]], source, where),
            unit=unit,
            collect_interval_s=None,
            is_client_local_time=is_local,
            latency_kind=latency_kind_of(POWERCLI_LABELS.get(name, name)),
        )
