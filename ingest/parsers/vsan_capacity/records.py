"""The rows a capacity snapshot becomes (columns documented in the package docstring).

Keyword-only with None defaults: each input fills the columns it has, and a column it lacks is
visibly absent rather than listed as `None` in every constructor.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class CapacitySnapshot:
    source_kind: str
    captured_at: dt.datetime | None = None
    testbed: str | None = None
    ftm: str | None = None
    ftt: int | None = None
    source_document: str | None = None
    notes: str | None = None
    total_capacity_bytes: int | None = None
    free_capacity_bytes: int | None = None
    logical_used_bytes: int | None = None
    physical_used_bytes: int | None = None
    logical_capacity_bytes: int | None = None
    physical_capacity_bytes: int | None = None
    dedup_metadata_bytes: int | None = None
    compression_metadata_bytes: int | None = None
    esa_dedup_saving_bytes: int | None = None
    esa_compression_saving_bytes: int | None = None
    used_without_overhead_bytes: int | None = None
    dedup_enabled_object_used_bytes: int | None = None
    uncommitted_bytes: int | None = None
    has_efficient_capacity: bool
    used_before_value: float | None = None
    used_after_value: float | None = None
    unit_label: str | None = None
    unit_bytes: int | None = None
    ratio_computed: float | None = None
    ratio_reported: float | None = None
    ratio_reported_source: str | None = None
    ratio_reported_text: str | None = None
    ratio_tolerance: float | None = None
    ratio_matches_reported: bool | None = None
    compression_ratio: float | None = None
    dedup_ratio: float | None = None
    dedup_enabled_ratio: float | None = None
    thin_provision_ratio: float | None = None
    snapshot_saving_ratio: float | None = None
    effective_total_usable_bytes: int | None = None
    effective_free_usable_bytes: int | None = None
    effective_actual_written_bytes: int | None = None
    effective_over_reserved_bytes: int | None = None
    effective_total_provision_bytes: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
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
