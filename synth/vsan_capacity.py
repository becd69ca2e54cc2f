"""Write a `VsanSpaceUsage` capacity snapshot as pyVmomi's `VmomiJSONEncoder` prints it.

The inverse of `ingest.parsers.vsan_capacity.space_usage` (docs/VSAN_CAPACITY_PERFSVC.md section
1.4a): API field names, every object with `_vimtype`, `dynamicType` and `dynamicProperty`, sizes
as integer bytes, unset optionals `null`. A snapshot carries no capture time: the study gives it
as the `captured_at` label of the folder the file is written to.

`ObjectSpace` is one `VsanObjectSpaceSummary` of `spaceDetail.spaceUsageByObjectType[]`;
`used_bytes = primary + overhead` (no temporary overhead is written). `spaceOverview` is the sum
of the object types, or, when data efficiency is on, the bytes after it (vSphere shows the
cluster's physical use there; the breakdown stays the logical "before" view).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction

_SUMMARY = "vim.cluster.VsanObjectSpaceSummary"


@dataclass(frozen=True, slots=True)
class ObjectSpace:
    """One object type's bytes: user data (primary) and what protects or serves it (overhead)."""

    obj_type: str
    primary_bytes: int
    overhead_bytes: int

    @property
    def used_bytes(self) -> int:
        return self.primary_bytes + self.overhead_bytes


@dataclass(frozen=True, slots=True)
class SpaceUsage:
    total_capacity_bytes: int
    object_spaces: tuple[ObjectSpace, ...]
    # `efficientCapacity.logicalCapacityUsed` / `physicalCapacityUsed` when data efficiency is
    # on (OSA deduplication and compression); None writes no efficientCapacity object
    logical_used_bytes: int | None = None
    physical_used_bytes: int | None = None

    @property
    def used_bytes(self) -> int:
        return sum(space.used_bytes for space in self.object_spaces)


def protected(obj_type: str, used_bytes: int, multiplier: Fraction) -> ObjectSpace:
    """An object type whose `used_bytes` hold data under a policy of `multiplier` raw bytes per
    data byte: primary = used / multiplier (rounded down), the rest is replicas or parity."""
    primary = int(Fraction(used_bytes) / multiplier)
    return ObjectSpace(obj_type, primary, used_bytes - primary)


def system(obj_type: str, used_bytes: int) -> ObjectSpace:
    """An object type without user data (file system, checksum, dedupe metadata...)."""
    return ObjectSpace(obj_type, 0, used_bytes)


def split_by_shares(total: int, shares: dict[str, Fraction]) -> dict[str, int]:
    """`total` bytes split by `shares` (summing to 1), whole bytes, the rounding remainder added
    to the first share so that the parts add up to `total` exactly."""
    if sum(shares.values()) != 1:
        raise ValueError(f"shares must sum to 1, got {sum(shares.values())}")
    parts = {name: int(total * share) for name, share in shares.items()}
    first = next(iter(parts))
    parts[first] += total - sum(parts.values())
    return parts


def _summary(obj_type: str | None, primary: int, overhead: int, physical: int | None) -> dict:
    return {
        "dynamicType": None,
        "dynamicProperty": [],
        "objType": obj_type,
        "overheadB": overhead,
        "temporaryOverheadB": 0,
        "primaryCapacityB": primary,
        "provisionCapacityB": None,
        "reservedCapacityB": None,
        "overReservedB": None,
        "physicalUsedB": physical,
        "usedB": primary + overhead,
        "objTypeExt": None,
        "objTypeExtDesc": None,
        "snapshotUsedB": None,
        "_vimtype": _SUMMARY,
    }


def _overview(usage: SpaceUsage) -> dict:
    primary = sum(space.primary_bytes for space in usage.object_spaces)
    if usage.physical_used_bytes is None:
        overhead = usage.used_bytes - primary
        return _summary(None, primary, overhead, usage.used_bytes)
    # after data efficiency: the cluster's physical use, its data share scaled alike
    physical = usage.physical_used_bytes
    primary_after = int(Fraction(primary * physical, usage.used_bytes))
    return _summary(None, primary_after, physical - primary_after, physical)


def _efficient_capacity(usage: SpaceUsage) -> dict | None:
    if usage.logical_used_bytes is None or usage.physical_used_bytes is None:
        return None
    return {
        "dynamicType": None,
        "dynamicProperty": [],
        "logicalCapacity": usage.total_capacity_bytes * 10,
        "logicalCapacityUsed": usage.logical_used_bytes,
        "physicalCapacity": usage.total_capacity_bytes,
        "physicalCapacityUsed": usage.physical_used_bytes,
        "dedupMetadataSize": None,
        "spaceEfficiencyMetadataSize": None,
        "esaDedupSpaceSaving": None,
        "esaCompressionSpaceSaving": None,
        "totalSpaceUsedWithoutOverhead": None,
        "dedupEnabledObjectSpaceUsed": None,
        "_vimtype": "vim.vsan.DataEfficiencyCapacityState",
    }


def render(usage: SpaceUsage) -> str:
    """The VsanSpaceUsage JSON text."""
    # free space is what the cluster physically holds, after data efficiency where it is on
    physical = usage.physical_used_bytes
    free = usage.total_capacity_bytes - (usage.used_bytes if physical is None else physical)
    if free < 0:
        raise ValueError("the snapshot uses more than the cluster's total capacity")
    doc = {
        "dynamicType": None,
        "dynamicProperty": [],
        "totalCapacityB": usage.total_capacity_bytes,
        "freeCapacityB": free,
        "spaceOverview": _overview(usage),
        "spaceDetail": {
            "dynamicType": None,
            "dynamicProperty": [],
            "spaceUsageByObjectType": [
                _summary(space.obj_type, space.primary_bytes, space.overhead_bytes, None)
                for space in usage.object_spaces
            ],
            "_vimtype": "vim.cluster.VsanSpaceUsageDetailResult",
        },
        "efficientCapacity": _efficient_capacity(usage),
        "whatifCapacities": [],
        "uncommittedB": None,
        "capacityHealthThreshold": None,
        "spaceEfficiencyRatio": None,
        "effectiveSpaceUsage": None,
        "_vimtype": "vim.cluster.VsanSpaceUsage",
    }
    return json.dumps(doc, indent=2) + "\n"
