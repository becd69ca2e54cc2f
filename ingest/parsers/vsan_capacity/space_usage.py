"""`VsanSpaceUsage` objects, as JSON (pyVmomi, VI/JSON, collectors) or XML (SOAP)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from ingest.parsers._common import load_json, load_xml, xml_name
from ingest.parsers.vsan_capacity.records import CapacitySnapshot, ObjectTypeSpace
from ingest.records import Parsed, ParseError, SourceFile

_NO_OBJECT = "no VsanSpaceUsage object (totalCapacityB missing)"
_XML_LISTS = {"spaceUsageByObjectType", "whatifCapacities"}

# Snapshot column <- API field, per object of a VsanSpaceUsage (`$` is the object itself). The
# fields are read in the order the columns are listed, so a file with several bad fields is
# rejected at the first of them.
_TOTALS = {"total_capacity_bytes": "totalCapacityB", "free_capacity_bytes": "freeCapacityB"}
_USED = {  # $.efficientCapacity: "used before" and "used after" data efficiency
    "logical_used_bytes": "logicalCapacityUsed",
    "physical_used_bytes": "physicalCapacityUsed",
}
_CAPACITIES = {  # $.efficientCapacity
    "logical_capacity_bytes": "logicalCapacity",
    "physical_capacity_bytes": "physicalCapacity",
}
_SAVINGS = {  # $.efficientCapacity, vSAN 8 ESA and later
    "esa_dedup_saving_bytes": "esaDedupSpaceSaving",
    "esa_compression_saving_bytes": "esaCompressionSpaceSaving",
    "used_without_overhead_bytes": "totalSpaceUsedWithoutOverhead",
    "dedup_enabled_object_used_bytes": "dedupEnabledObjectSpaceUsed",
}
_RATIOS = {  # $.spaceEfficiencyRatio, plain multipliers
    "compression_ratio": "compressionRatio",
    "dedup_ratio": "dedupRatio",
    "dedup_enabled_ratio": "dedupEnabledRatio",
    "thin_provision_ratio": "thinProvisionRatio",
    "snapshot_saving_ratio": "snapshotSavingRatio",
}
_EFFECTIVE = {  # $.effectiveSpaceUsage
    "effective_total_usable_bytes": "totalUsableB",
    "effective_free_usable_bytes": "freeUsableB",
    "effective_actual_written_bytes": "actualWrittenB",
    "effective_over_reserved_bytes": "overReservedB",
    "effective_total_provision_bytes": "totalProvisionB",
}
_OBJECT_SPACE = {  # a VsanObjectSpaceSummary
    "overhead_bytes": "overheadB",
    "temporary_overhead_bytes": "temporaryOverheadB",
    "primary_capacity_bytes": "primaryCapacityB",
    "provision_capacity_bytes": "provisionCapacityB",
    "reserved_capacity_bytes": "reservedCapacityB",
    "over_reserved_bytes": "overReservedB",
    "physical_used_bytes": "physicalUsedB",
    "used_bytes": "usedB",
    "snapshot_used_bytes": "snapshotUsedB",
}


def from_json(text: str, source: SourceFile) -> Parsed:
    doc = load_json(text, source)
    # A collector may wrap the object (`{"returnval": {...}}`); one level is enough in practice.
    if isinstance(doc, dict) and "totalCapacityB" not in doc:
        inner = [v for v in doc.values() if isinstance(v, dict) and "totalCapacityB" in v]
        if len(inner) == 1:
            doc = inner[0]
    if not isinstance(doc, dict) or "totalCapacityB" not in doc:
        raise ParseError(source.path, "$", _NO_OBJECT)
    return _from_space_usage(doc, "space_usage_json", source)


def from_xml(text: str, source: SourceFile) -> Parsed:
    root = load_xml(text, source)
    # A SOAP body or response wraps the object in <returnval>; find the element holding the fields.
    for element in root.iter():
        if any(xml_name(child.tag) == "totalCapacityB" for child in element):
            return _from_space_usage(_xml_to_dict(element), "space_usage_xml", source)
    raise ParseError(source.path, "$", _NO_OBJECT)


def _xml_to_dict(element: ET.Element) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for child in element:
        name = xml_name(child.tag)
        value: Any = _xml_to_dict(child) if len(child) else (child.text or "")
        if name in _XML_LISTS:
            out.setdefault(name, []).append(value)
        else:
            out[name] = value
    return out


def _from_space_usage(root: dict[str, Any], kind: str, source: SourceFile) -> Parsed:
    parsed = Parsed()
    parsed.add("vsan_capacity_snapshots", [_snapshot(root, kind, source)])
    parsed.add("vsan_space_usage_by_object_type", _object_spaces(root, source))
    parsed.notes.append(
        "a VsanSpaceUsage object carries no capture time: give it as label captured_at"
    )
    if not _object(root, "efficientCapacity", "$", source):
        parsed.notes.append("no efficientCapacity: data efficiency was off, no ratio")
    return parsed


def _snapshot(root: dict[str, Any], kind: str, source: SourceFile) -> CapacitySnapshot:
    if _int_field(root, "totalCapacityB", "$", source) is None:
        raise ParseError(source.path, "$.totalCapacityB", "required field is null")
    e, r, f = "$.efficientCapacity", "$.spaceEfficiencyRatio", "$.effectiveSpaceUsage"
    m = e + ".spaceEfficiencyMetadataSize"
    eff = _object(root, "efficientCapacity", "$", source)
    meta = _object(eff, "spaceEfficiencyMetadataSize", e, source)
    ratios = _object(root, "spaceEfficiencyRatio", "$", source)
    effective = _object(root, "effectiveSpaceUsage", "$", source)
    used = _ints(eff, _USED, e, source)
    logical, physical = used["logical_used_bytes"], used["physical_used_bytes"]
    overall = _float_field(ratios, "overallRatio", r, source)
    return CapacitySnapshot(
        source_kind=kind,
        **_ints(root, _TOTALS, "$", source),
        **used,
        **_ints(eff, _CAPACITIES, e, source),
        # Newer builds nest the dedupe metadata size; the 6.6 field may be absent then.
        dedup_metadata_bytes=_int_field(eff, "dedupMetadataSize", e, source)
        or _int_field(meta, "dedupMetadataSize", m, source),
        compression_metadata_bytes=_int_field(meta, "compressionMetadataSize", m, source),
        **_ints(eff, _SAVINGS, e, source),
        uncommitted_bytes=_int_field(root, "uncommittedB", "$", source),
        has_efficient_capacity=bool(eff),
        ratio_computed=(logical / physical) if logical is not None and physical else None,
        ratio_reported=overall,
        ratio_reported_source="spaceEfficiencyRatio.overallRatio" if overall is not None else None,
        **{name: _float_field(ratios, key, r, source) for name, key in _RATIOS.items()},
        **_ints(effective, _EFFECTIVE, f, source),
    )


def _object_spaces(root: dict[str, Any], source: SourceFile) -> list[ObjectTypeSpace]:
    """`spaceOverview`, then each `spaceDetail.spaceUsageByObjectType[]` entry."""
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
    return rows


def _object_space(
    obj: Mapping[str, Any], scope: str, path: str, source: SourceFile
) -> ObjectTypeSpace:
    obj_type = obj.get("objType")
    if obj_type is not None and not isinstance(obj_type, str):
        raise ParseError(source.path, f"{path}.objType", f"expected text, got {obj_type!r}")
    ext = obj.get("objTypeExt")
    return ObjectTypeSpace(
        scope=scope,
        obj_type=obj_type or None,
        obj_type_ext=str(ext) if ext not in (None, "") else None,
        **_ints(obj, _OBJECT_SPACE, path, source),
    )


def _ints(
    obj: Mapping[str, Any], fields: dict[str, str], path: str, source: SourceFile
) -> dict[str, int | None]:
    return {name: _int_field(obj, key, path, source) for name, key in fields.items()}


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
