"""The rows an esxtop capture becomes, and the running totals kept while its lines are read."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class EsxtopCapture:
    pdh_header: str
    dialect: str
    line_ending: str
    host_count: int
    hosts_json: list[str]
    sample_count: int
    column_count: int
    cell_count: int
    empty_cells: int
    malformed_cells: int
    repaired_cells: int
    dropped_rows: int
    has_dates: bool
    times_reliable: bool
    times_note: str | None
    timestamp_resolution_s: int
    utc_offset_min: int
    interval_s: float | None
    first_sampled_at: dt.datetime | None
    last_sampled_at: dt.datetime | None


@dataclass(frozen=True, slots=True)
class EsxtopSampleTime:
    sample_index: int
    sampled_at: dt.datetime
    line_number: int
    timestamp_text: str


@dataclass(frozen=True, slots=True)
class EsxtopMalformedCell:
    sample_index: int
    counter_id: int
    line_number: int
    cell_text: str


COUNTERS_SCHEMA = pa.schema(
    [
        ("counter_id", pa.int32()),
        ("column_index", pa.int32()),
        ("host", pa.string()),
        ("object_group", pa.string()),
        ("instance", pa.string()),
        ("counter", pa.string()),
        ("header", pa.string()),
        ("is_name_inferred", pa.bool_()),
    ]
)

SAMPLES_SCHEMA = pa.schema(
    [
        ("sample_index", pa.int32()),
        ("counter_id", pa.int32()),
        ("value", pa.float64()),
    ]
)


@dataclass(slots=True)
class Progress:
    """Running totals while the data lines are read."""

    sample_lines: list[int] = field(default_factory=list)
    stamps: list[str] = field(default_factory=list)
    batches: list[pa.RecordBatch] = field(default_factory=list)
    malformed: list[EsxtopMalformedCell] = field(default_factory=list)
    empty_cells: int = 0
    repaired_cells: int = 0
    blank_lines: int = 0
    dropped_rows: int = 0
    trailing_values: int = 0
    dropped_line: int | None = None
    dropped_reason: str = ""
