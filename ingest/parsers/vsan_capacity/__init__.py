"""vSAN capacity and data-efficiency snapshots: `VsanSpaceUsage` and hand-entered observations.

Usage
-----
    # as every parser (ingest.parsers):
    vsan_capacity.parse(data, source_for(path, data)).tables["vsan_capacity_snapshots"]

Example
-------
Trimmed (null and dynamic fields left out) from the golden case
`vsan_capacity/vsan_capacity__generated-locally__pyvmomi-9.1.1.0__VsanSpaceUsage_esa_9x__
VmomiJSONEncoder.json` (a vSAN ESA `VsanQuerySpaceUsage` result as pyVmomi writes it,
synthetic values; a row shows some of its fields):

    $ cat space_usage.json
    {
      "totalCapacityB": 109951162777600,
      "freeCapacityB": 87960930222080,
      "spaceOverview": {
        "overheadB": 7146825580544,
        "temporaryOverheadB": 0,
        "primaryCapacityB": 14843406974976,
        "physicalUsedB": 21990232555520,
        "usedB": 21990232555520,
        "_vimtype": "vim.cluster.VsanObjectSpaceSummary"
      },
      "efficientCapacity": {
        "logicalCapacityUsed": 32985348833280,
        "physicalCapacityUsed": 21990232555520,
        "esaDedupSpaceSaving": 4398046511104,
        "esaCompressionSpaceSaving": 6597069766656,
        "totalSpaceUsedWithoutOverhead": 14843406974976,
        "_vimtype": "vim.vsan.DataEfficiencyCapacityState"
      },
      "spaceEfficiencyRatio": {
        "overallRatio": 1.74,
        "compressionRatio": 1.45,
        "dedupRatio": 1.2,
        "_vimtype": "vim.vsan.VsanSpaceEfficiencyRatio"
      },
      "_vimtype": "vim.cluster.VsanSpaceUsage"
    }

    vsan_capacity_snapshots: 1 row
      {"source_kind": "space_usage_json", "captured_at": null,
       "total_capacity_bytes": 109951162777600, "free_capacity_bytes": 87960930222080,
       "logical_used_bytes": 32985348833280, "physical_used_bytes": 21990232555520,
       "esa_dedup_saving_bytes": 4398046511104, "esa_compression_saving_bytes": 6597069766656,
       "used_without_overhead_bytes": 14843406974976, "ratio_computed": 1.5, "ratio_reported": 1.74,
       "ratio_reported_source": "spaceEfficiencyRatio.overallRatio", "compression_ratio": 1.45,
       "dedup_ratio": 1.2}
    vsan_space_usage_by_object_type: 1 row
      {"scope": "overview", "obj_type": null, "overhead_bytes": 7146825580544,
       "primary_capacity_bytes": 14843406974976, "physical_used_bytes": 21990232555520,
       "used_bytes": 21990232555520}
    notes: ["a VsanSpaceUsage object carries no capture time: give it as label captured_at"]

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

The capacity.yaml schema and unit convention are in `observation.py`; `space_usage.py` reads the
API object.
"""

from __future__ import annotations

import re

from ingest.parsers._common import decode_utf8, half_unit_of_last_digit, is_document
from ingest.parsers.vsan_capacity.observation import UNIT_BYTES, from_observation
from ingest.parsers.vsan_capacity.records import CapacitySnapshot, ObjectTypeSpace
from ingest.parsers.vsan_capacity.space_usage import from_json, from_xml
from ingest.records import Parsed, SourceFile

__all__ = [
    "FORMAT",
    "PARSER_VERSION",
    "TABLES",
    "UNIT_BYTES",
    "CapacitySnapshot",
    "ObjectTypeSpace",
    "detect",
    "parse",
    "ratio_tolerance",
]

FORMAT = "vsan_capacity"
PARSER_VERSION = "1"

TABLES = {
    "vsan_capacity_snapshots": CapacitySnapshot,
    "vsan_space_usage_by_object_type": ObjectTypeSpace,
}

# The tolerance of a reported ratio: half a unit in its last printed digit (8.21 -> 0.005).
ratio_tolerance = half_unit_of_last_digit

_YAML_USED = re.compile(rb"^used_before\s*:", re.MULTILINE)
_YAML_AFTER = re.compile(rb"^used_after\s*:", re.MULTILINE)


def detect(head: bytes, name: str) -> bool:
    """A `VsanSpaceUsage` as JSON or XML (the document starts there), or an observation
    file's `used_before:`/`used_after:` lines."""
    if is_document(head, name):
        return False
    starts_as_object = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"[", b"<")
    if (
        starts_as_object
        and b"totalCapacityB" in head
        and (b"VsanSpaceUsage" in head or b'"freeCapacityB"' in head or b'"spaceOverview"' in head)
    ):
        return True
    # The literals first: each multi-line regex walks the whole head (240 us of every fio
    # file's detection), a substring test runs at memchr speed.
    return (
        b"used_before" in head
        and b"used_after" in head
        and bool(_YAML_USED.search(head) and _YAML_AFTER.search(head))
    )


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = decode_utf8(data, source)
    stripped = text.lstrip()
    if stripped.startswith("<"):
        return from_xml(text, source)
    if stripped.startswith(("{", "[")):
        return from_json(text, source)
    return from_observation(text, source)
