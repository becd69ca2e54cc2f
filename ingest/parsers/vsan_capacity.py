"""vSAN capacity and data-efficiency snapshots: `VsanSpaceUsage` and hand-entered observations.

Three inputs, one row per capture in `raw.vsan_capacity_snapshots`:

* `VsanSpaceUsage` as JSON (the result of `VsanSpaceReportSystem.VsanQuerySpaceUsage`,
  serialized by pyVmomi's `VmomiJSONEncoder` (`"_vimtype"`), the VI/JSON REST API
  (`"_typeName"`), or any collector that keeps the API's camelCase names). All sizes are bytes.
* the same object as XML (pyVmomi `SoapAdapter.Serialize`, `<obj xsi:type="vim25:VsanSpaceUsage">`,
  or a `VsanQuerySpaceUsageResponse` body).
* `capacity.yaml`, a hand-entered observation for results that exist only as a screenshot of the
  vSphere capacity view or a figure in a paper (schema below).

Tables
------
`vsan_capacity_snapshots` (one row per file):
    source_kind                    `space_usage_json` | `space_usage_xml` | `hand_entered`
    captured_at                    UTC; hand-entered only (a VsanSpaceUsage object has no time:
                                   give it as a label)
    testbed, ftm, ftt, source_document, notes   hand-entered only
    total_capacity_bytes, free_capacity_bytes   `totalCapacityB`, `freeCapacityB`
    logical_used_bytes             "used before": `efficientCapacity.logicalCapacityUsed`, or
                                   `used_before` x unit_bytes (rounded to whole bytes)
    physical_used_bytes            "used after": `efficientCapacity.physicalCapacityUsed`, or
                                   `used_after` x unit_bytes
    logical_capacity_bytes, physical_capacity_bytes, dedup_metadata_bytes,
    compression_metadata_bytes, esa_dedup_saving_bytes, esa_compression_saving_bytes,
    used_without_overhead_bytes, dedup_enabled_object_used_bytes
                                   the other `efficientCapacity` fields (absent before 6.6 / 9.0 /
                                   9.1; None when absent)
    uncommitted_bytes              `uncommittedB`
    has_efficient_capacity         False when data efficiency was off (no `efficientCapacity`)
    used_before_value, used_after_value, unit_label, unit_bytes
                                   hand-entered numbers as printed, the label as printed and the
                                   bytes one unit stands for
    ratio_computed                 logical_used / physical_used (the vSphere OSA "ratio")
    ratio_reported                 hand-entered ratio, or `spaceEfficiencyRatio.overallRatio`
    ratio_reported_source          `hand_entered` | `spaceEfficiencyRatio.overallRatio`
    ratio_reported_text            the ratio as written (decides the rounding tolerance)
    ratio_tolerance                half a unit in the last printed digit (8.21 -> 0.005)
    ratio_matches_reported         |computed - reported| <= tolerance; hand-entered only, because
                                   ESA's overallRatio "excludes all the system overhead" and is not
                                   logical/physical by definition
    compression_ratio, dedup_ratio, dedup_enabled_ratio, thin_provision_ratio,
    snapshot_saving_ratio          `spaceEfficiencyRatio` (9.0 / 9.1), plain multipliers
    effective_total_usable_bytes, effective_free_usable_bytes, effective_actual_written_bytes,
    effective_over_reserved_bytes, effective_total_provision_bytes
                                   `effectiveSpaceUsage` (9.1)

`vsan_space_usage_by_object_type` (API snapshots only; one row for `spaceOverview` and one per
`spaceDetail.spaceUsageByObjectType[]` entry):
    scope                          `overview` | `object_type`
    obj_type                       API `objType` (None for the overview); unknown values kept
    obj_type_ext                   `objTypeExt` (7.1+)
    overhead_bytes, temporary_overhead_bytes, primary_capacity_bytes, provision_capacity_bytes,
    reserved_capacity_bytes, over_reserved_bytes, physical_used_bytes, used_bytes,
    snapshot_used_bytes            the `VsanObjectSpaceSummary` fields, bytes

capacity.yaml schema
--------------------
A YAML mapping with exactly these keys (anything else is rejected, naming the key and its line):

    used_before: 28.58          # required, number > 0, "used before" as printed
    used_after: 3.48            # required, number > 0, "used after" as printed
    unit: TB                    # required, the unit label as printed: B KB MB GB TB PB
                                #   (or KiB MiB GiB TiB PiB)
    ratio_reported: 8.21        # required, number > 0, or a string like "8.21x"
    captured_at: 2019-05-01     # required, YAML date or timestamp (no zone = UTC)
    testbed: micron-vsan67      # optional text
    ftm: RAID-1                 # optional, RAID-1 | RAID-5 | RAID-6
    ftt: 1                      # optional int 0..3
    source_document: "Micron RA, Appendix C"   # optional text
    notes: "capacity test, OSR 0%"             # optional text

Unit convention: vSphere (Client and PowerCLI) prints binary multiples with decimal-looking labels,
so `TB` here means TiB (1024**4 bytes), `GB` GiB, and so on; `KiB`..`PiB` mean the same. The label
is kept as printed. The ratio does not depend on the unit.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import yaml
from yaml.constructor import ConstructorError, SafeConstructor

from ingest.records import Parsed, ParseError, SourceFile

FORMAT = "vsan_capacity"
PARSER_VERSION = "1"


@dataclass(frozen=True, slots=True)
class CapacitySnapshot:
    source_kind: str
    captured_at: dt.datetime | None
    testbed: str | None
    ftm: str | None
    ftt: int | None
    source_document: str | None
    notes: str | None
    total_capacity_bytes: int | None
    free_capacity_bytes: int | None
    logical_used_bytes: int | None
    physical_used_bytes: int | None
    logical_capacity_bytes: int | None
    physical_capacity_bytes: int | None
    dedup_metadata_bytes: int | None
    compression_metadata_bytes: int | None
    esa_dedup_saving_bytes: int | None
    esa_compression_saving_bytes: int | None
    used_without_overhead_bytes: int | None
    dedup_enabled_object_used_bytes: int | None
    uncommitted_bytes: int | None
    has_efficient_capacity: bool
    used_before_value: float | None
    used_after_value: float | None
    unit_label: str | None
    unit_bytes: int | None
    ratio_computed: float | None
    ratio_reported: float | None
    ratio_reported_source: str | None
    ratio_reported_text: str | None
    ratio_tolerance: float | None
    ratio_matches_reported: bool | None
    compression_ratio: float | None
    dedup_ratio: float | None
    dedup_enabled_ratio: float | None
    thin_provision_ratio: float | None
    snapshot_saving_ratio: float | None
    effective_total_usable_bytes: int | None
    effective_free_usable_bytes: int | None
    effective_actual_written_bytes: int | None
    effective_over_reserved_bytes: int | None
    effective_total_provision_bytes: int | None


@dataclass(frozen=True, slots=True)
class ObjectTypeSpace:
    scope: str
    obj_type: str | None
    obj_type_ext: str | None
    overhead_bytes: int | None
    temporary_overhead_bytes: int | None
    primary_capacity_bytes: int | None
    provision_capacity_bytes: int | None
    reserved_capacity_bytes: int | None
    over_reserved_bytes: int | None
    physical_used_bytes: int | None
    used_bytes: int | None
    snapshot_used_bytes: int | None


TABLES = {
    "vsan_capacity_snapshots": CapacitySnapshot,
    "vsan_space_usage_by_object_type": ObjectTypeSpace,
}

# vSphere labels binary multiples with SI-looking names; see the module docstring.
UNIT_BYTES: dict[str, int] = {
    "B": 1,
    "KB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
    "PB": 1024**5,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "PiB": 1024**5,
}

_FTMS = ("RAID-1", "RAID-5", "RAID-6")
_RATIO_TEXT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[xX]?\s*$")
# Float noise allowance on top of the printed-digit tolerance (8.2126 vs 8.21 +- 0.005 is exact
# arithmetic in decimal, not in binary floating point).
_EPSILON = 1e-9

_YAML_USED = re.compile(rb"^used_before\s*:", re.MULTILINE)
_YAML_AFTER = re.compile(rb"^used_after\s*:", re.MULTILINE)


def detect(head: bytes, name: str) -> bool:
    if b"totalCapacityB" in head and (
        b"VsanSpaceUsage" in head or b'"freeCapacityB"' in head or b'"spaceOverview"' in head
    ):
        return True
    return bool(_YAML_USED.search(head) and _YAML_AFTER.search(head))


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = _decode(data, source)
    stripped = text.lstrip()
    if stripped.startswith("<"):
        root = _xml_root(text, source)
        return _from_space_usage(root, "space_usage_xml", source)
    if stripped.startswith(("{", "[")):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(
                source.path, f"line {exc.lineno}, column {exc.colno}", f"invalid JSON: {exc.msg}"
            ) from None
        return _from_space_usage(_json_root(doc, source), "space_usage_json", source)
    return _from_observation(text, source)


# ---------------------------------------------------------------- VsanSpaceUsage (JSON and XML)


def _decode(data: bytes, source: SourceFile) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(source.path, f"byte {exc.start}", "not UTF-8 text") from None


def _json_root(doc: Any, source: SourceFile) -> dict[str, Any]:
    # A collector may wrap the object (`{"returnval": {...}}`); one level is enough in practice.
    if isinstance(doc, dict) and "totalCapacityB" not in doc:
        inner = [v for v in doc.values() if isinstance(v, dict) and "totalCapacityB" in v]
        if len(inner) == 1:
            doc = inner[0]
    if not isinstance(doc, dict) or "totalCapacityB" not in doc:
        raise ParseError(source.path, "$", "no VsanSpaceUsage object (totalCapacityB missing)")
    return doc


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _xml_root(text: str, source: SourceFile) -> dict[str, Any]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line, column = exc.position
        raise ParseError(
            source.path, f"line {line}, column {column + 1}", f"invalid XML: {exc}"
        ) from None
    # A SOAP body or response wraps the object in <returnval>; find the element holding the fields.
    for element in root.iter():
        if any(_local(child.tag) == "totalCapacityB" for child in element):
            return _xml_to_dict(element)
    raise ParseError(source.path, "$", "no VsanSpaceUsage object (totalCapacityB missing)")


_XML_LISTS = {"spaceUsageByObjectType", "whatifCapacities"}


def _xml_to_dict(element: ET.Element) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for child in element:
        name = _local(child.tag)
        value: Any = _xml_to_dict(child) if len(child) else (child.text or "")
        if name in _XML_LISTS:
            out.setdefault(name, []).append(value)
        else:
            out[name] = value
    return out


def _int_field(obj: Mapping[str, Any], key: str, path: str, source: SourceFile) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ParseError(source.path, f"{path}.{key}", f"expected a byte count, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    raise ParseError(source.path, f"{path}.{key}", f"expected a byte count, got {value!r}")


def _float_field(obj: Mapping[str, Any], key: str, path: str, source: SourceFile) -> float | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    raise ParseError(source.path, f"{path}.{key}", f"expected a number, got {value!r}")


def _object(obj: Mapping[str, Any], key: str, path: str, source: SourceFile) -> dict[str, Any]:
    value = obj.get(key)
    if value is None or value == "":
        return {}
    if not isinstance(value, dict):
        raise ParseError(source.path, f"{path}.{key}", f"expected an object, got {value!r}")
    return value


def _from_space_usage(root: dict[str, Any], kind: str, source: SourceFile) -> Parsed:
    def num(obj: Mapping[str, Any], key: str, path: str) -> int | None:
        return _int_field(obj, key, path, source)

    def ratio(obj: Mapping[str, Any], key: str, path: str) -> float | None:
        return _float_field(obj, key, path, source)

    if num(root, "totalCapacityB", "$") is None:
        raise ParseError(source.path, "$.totalCapacityB", "required field is null")
    eff = _object(root, "efficientCapacity", "$", source)
    meta = _object(eff, "spaceEfficiencyMetadataSize", "$.efficientCapacity", source)
    ratios = _object(root, "spaceEfficiencyRatio", "$", source)
    effective = _object(root, "effectiveSpaceUsage", "$", source)
    e, r, f = "$.efficientCapacity", "$.spaceEfficiencyRatio", "$.effectiveSpaceUsage"
    m = e + ".spaceEfficiencyMetadataSize"

    logical = num(eff, "logicalCapacityUsed", e)
    physical = num(eff, "physicalCapacityUsed", e)
    overall = ratio(ratios, "overallRatio", r)
    snapshot = CapacitySnapshot(
        source_kind=kind,
        captured_at=None,
        testbed=None,
        ftm=None,
        ftt=None,
        source_document=None,
        notes=None,
        total_capacity_bytes=num(root, "totalCapacityB", "$"),
        free_capacity_bytes=num(root, "freeCapacityB", "$"),
        logical_used_bytes=logical,
        physical_used_bytes=physical,
        logical_capacity_bytes=num(eff, "logicalCapacity", e),
        physical_capacity_bytes=num(eff, "physicalCapacity", e),
        # Newer builds nest the dedupe metadata size; the 6.6 field may be absent then.
        dedup_metadata_bytes=num(eff, "dedupMetadataSize", e) or num(meta, "dedupMetadataSize", m),
        compression_metadata_bytes=num(meta, "compressionMetadataSize", m),
        esa_dedup_saving_bytes=num(eff, "esaDedupSpaceSaving", e),
        esa_compression_saving_bytes=num(eff, "esaCompressionSpaceSaving", e),
        used_without_overhead_bytes=num(eff, "totalSpaceUsedWithoutOverhead", e),
        dedup_enabled_object_used_bytes=num(eff, "dedupEnabledObjectSpaceUsed", e),
        uncommitted_bytes=num(root, "uncommittedB", "$"),
        has_efficient_capacity=bool(eff),
        used_before_value=None,
        used_after_value=None,
        unit_label=None,
        unit_bytes=None,
        ratio_computed=(logical / physical) if logical is not None and physical else None,
        ratio_reported=overall,
        ratio_reported_source="spaceEfficiencyRatio.overallRatio" if overall is not None else None,
        ratio_reported_text=None,
        ratio_tolerance=None,
        ratio_matches_reported=None,
        compression_ratio=ratio(ratios, "compressionRatio", r),
        dedup_ratio=ratio(ratios, "dedupRatio", r),
        dedup_enabled_ratio=ratio(ratios, "dedupEnabledRatio", r),
        thin_provision_ratio=ratio(ratios, "thinProvisionRatio", r),
        snapshot_saving_ratio=ratio(ratios, "snapshotSavingRatio", r),
        effective_total_usable_bytes=num(effective, "totalUsableB", f),
        effective_free_usable_bytes=num(effective, "freeUsableB", f),
        effective_actual_written_bytes=num(effective, "actualWrittenB", f),
        effective_over_reserved_bytes=num(effective, "overReservedB", f),
        effective_total_provision_bytes=num(effective, "totalProvisionB", f),
    )

    rows = []
    overview = _object(root, "spaceOverview", "$", source)
    if overview:
        rows.append(_object_space(overview, "overview", "$.spaceOverview", source))
    detail = _object(root, "spaceDetail", "$", source)
    entries = detail.get("spaceUsageByObjectType") or []
    if not isinstance(entries, list):
        raise ParseError(source.path, "$.spaceDetail.spaceUsageByObjectType", "expected a list")
    for i, entry in enumerate(entries):
        path = f"$.spaceDetail.spaceUsageByObjectType[{i}]"
        if not isinstance(entry, dict):
            raise ParseError(source.path, path, f"expected an object, got {entry!r}")
        rows.append(_object_space(entry, "object_type", path, source))

    parsed = Parsed()
    parsed.add("vsan_capacity_snapshots", [snapshot])
    parsed.add("vsan_space_usage_by_object_type", rows)
    parsed.notes.append(
        "a VsanSpaceUsage object carries no capture time: give it as label captured_at"
    )
    if not eff:
        parsed.notes.append("no efficientCapacity: data efficiency was off, no ratio")
    return parsed


def _object_space(obj: Mapping[str, Any], scope: str, path: str, source: SourceFile):
    def num(key: str) -> int | None:
        return _int_field(obj, key, path, source)

    obj_type = obj.get("objType")
    if obj_type is not None and not isinstance(obj_type, str):
        raise ParseError(source.path, f"{path}.objType", f"expected text, got {obj_type!r}")
    ext = obj.get("objTypeExt")
    return ObjectTypeSpace(
        scope=scope,
        obj_type=obj_type or None,
        obj_type_ext=str(ext) if ext not in (None, "") else None,
        overhead_bytes=num("overheadB"),
        temporary_overhead_bytes=num("temporaryOverheadB"),
        primary_capacity_bytes=num("primaryCapacityB"),
        provision_capacity_bytes=num("provisionCapacityB"),
        reserved_capacity_bytes=num("reservedCapacityB"),
        over_reserved_bytes=num("overReservedB"),
        physical_used_bytes=num("physicalUsedB"),
        used_bytes=num("usedB"),
        snapshot_used_bytes=num("snapshotUsedB"),
    )


# ---------------------------------------------------------------- capacity.yaml


@dataclass(frozen=True, slots=True)
class _Field:
    required: bool
    check: Callable[[yaml.Node, Any], Any]  # returns the typed value or raises ValueError


def _positive_number(node: yaml.Node, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(f"expected a number > 0, got {node.value!r}")
    return float(value)


def _ratio(node: yaml.Node, value: Any) -> tuple[float, str]:
    # Keep the text as written: its number of decimals sets the rounding tolerance.
    text = str(node.value) if isinstance(node, yaml.ScalarNode) else ""
    match = _RATIO_TEXT.match(text)
    if isinstance(value, bool) or not match or float(match.group(1)) <= 0:
        raise ValueError(f'expected a ratio > 0 such as 8.21 or "8.21x", got {text!r}')
    return float(match.group(1)), match.group(1)


def _unit(node: yaml.Node, value: Any) -> str:
    if not isinstance(value, str) or value not in UNIT_BYTES:
        raise ValueError(f"expected one of {', '.join(UNIT_BYTES)}, got {value!r}")
    return value


def _timestamp(node: yaml.Node, value: Any) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
    raise ValueError(f"expected a date or timestamp (2019-05-01T10:00:00Z), got {value!r}")


def _text(node: yaml.Node, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected text, got {value!r}")
    return value


def _ftm(node: yaml.Node, value: Any) -> str:
    if value not in _FTMS:
        raise ValueError(f"expected one of {', '.join(_FTMS)}, got {value!r}")
    return value


def _ftt(node: yaml.Node, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ValueError(f"expected an integer 0..3, got {value!r}")
    return value


_SCHEMA: dict[str, _Field] = {
    "used_before": _Field(True, _positive_number),
    "used_after": _Field(True, _positive_number),
    "unit": _Field(True, _unit),
    "ratio_reported": _Field(True, _ratio),
    "captured_at": _Field(True, _timestamp),
    "testbed": _Field(False, _text),
    "ftm": _Field(False, _ftm),
    "ftt": _Field(False, _ftt),
    "source_document": _Field(False, _text),
    "notes": _Field(False, _text),
}


def _yaml_mapping(text: str, source: SourceFile) -> yaml.MappingNode:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "end of file"
        raise ParseError(source.path, where, f"invalid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ParseError(source.path, "line 1", f"invalid YAML: {exc}") from None
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 1 if node is not None else 1
        raise ParseError(source.path, f"line {line}", "a capacity observation must be a mapping")
    return node


def _read_observation(text: str, source: SourceFile) -> dict[str, Any]:
    node = _yaml_mapping(text, source)
    constructor = SafeConstructor()
    values: dict[str, Any] = {}
    for key_node, value_node in node.value:
        line = f"line {key_node.start_mark.line + 1}"
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in _SCHEMA:
            known = ", ".join(_SCHEMA)
            raise ParseError(source.path, line, f"unknown key {key!r} (known: {known})")
        if key in values:
            raise ParseError(source.path, line, f"duplicate key {key!r}")
        try:
            raw = constructor.construct_object(value_node, deep=True)
            values[key] = _SCHEMA[key].check(value_node, raw)
        except (ValueError, ConstructorError) as exc:
            raise ParseError(source.path, line, f"{key}: {exc}") from None
    missing = [k for k, spec in _SCHEMA.items() if spec.required and k not in values]
    if missing:
        where = f"line {node.start_mark.line + 1}"
        raise ParseError(source.path, where, f"missing required key(s): {', '.join(missing)}")
    return values


def ratio_tolerance(ratio_text: str) -> float:
    """Half a unit in the last printed digit: '8.21' -> 0.005, '8' -> 0.5."""
    try:
        exponent = Decimal(ratio_text).as_tuple().exponent
    except InvalidOperation:
        raise ValueError(f"not a number: {ratio_text!r}") from None
    return float(Decimal(5).scaleb(int(exponent) - 1))


def _from_observation(text: str, source: SourceFile) -> Parsed:
    obs = _read_observation(text, source)
    before, after, unit = obs["used_before"], obs["used_after"], obs["unit"]
    reported, reported_text = obs["ratio_reported"]
    unit_bytes = UNIT_BYTES[unit]
    computed = before / after
    tolerance = ratio_tolerance(reported_text)
    snapshot = CapacitySnapshot(
        source_kind="hand_entered",
        captured_at=obs["captured_at"],
        testbed=obs.get("testbed"),
        ftm=obs.get("ftm"),
        ftt=obs.get("ftt"),
        source_document=obs.get("source_document"),
        notes=obs.get("notes"),
        total_capacity_bytes=None,
        free_capacity_bytes=None,
        logical_used_bytes=round(before * unit_bytes),
        physical_used_bytes=round(after * unit_bytes),
        logical_capacity_bytes=None,
        physical_capacity_bytes=None,
        dedup_metadata_bytes=None,
        compression_metadata_bytes=None,
        esa_dedup_saving_bytes=None,
        esa_compression_saving_bytes=None,
        used_without_overhead_bytes=None,
        dedup_enabled_object_used_bytes=None,
        uncommitted_bytes=None,
        has_efficient_capacity=True,
        used_before_value=before,
        used_after_value=after,
        unit_label=unit,
        unit_bytes=unit_bytes,
        ratio_computed=computed,
        ratio_reported=reported,
        ratio_reported_source="hand_entered",
        ratio_reported_text=reported_text,
        ratio_tolerance=tolerance,
        ratio_matches_reported=abs(computed - reported) <= tolerance + _EPSILON,
        compression_ratio=None,
        dedup_ratio=None,
        dedup_enabled_ratio=None,
        thin_provision_ratio=None,
        snapshot_saving_ratio=None,
        effective_total_usable_bytes=None,
        effective_free_usable_bytes=None,
        effective_actual_written_bytes=None,
        effective_over_reserved_bytes=None,
        effective_total_provision_bytes=None,
    )
    parsed = Parsed()
    parsed.add("vsan_capacity_snapshots", [snapshot])
    if not snapshot.ratio_matches_reported:
        parsed.notes.append(
            f"ratio {before}/{after} = {computed:.4f} differs from the reported "
            f"{reported_text} by more than {tolerance}"
        )
    return parsed
