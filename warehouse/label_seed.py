"""The run-label definitions seed, read as records: one reader for every package.

`dbt_project/seeds/label_definitions.csv` says each known label's key, type, range, allowed
values, unit and meaning. The loader checks labels against it (`ingest.label_definitions`),
the Add results page draws its form from it (`app.lib.label_form`), and dbt casts with it.
`app` may not import `ingest` (docs/ARCHITECTURE.md), so the reading lives here, where both
already import from; each adds its own behaviour by subclassing `LabelRow`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from warehouse.base import REPO_ROOT

LABEL_SEED = REPO_ROOT / "dbt_project" / "seeds" / "label_definitions.csv"
LABEL_TYPES = ("text", "int", "bool", "choice", "text_list", "size")


@dataclass(frozen=True, slots=True)
class LabelRow:
    """One row of label_definitions.csv."""

    key: str  # `nodes`, or `workload.read_pct` for a key of the workload map
    type: str  # one of LABEL_TYPES
    min_value: int | None
    max_value: int | None
    allowed: tuple[str, ...]
    unit: str
    meaning: str


Row = TypeVar("Row", bound=LabelRow)


def _optional_int(text: str) -> int | None:
    return int(text) if text.strip() else None


def read_label_rows(path: Path = LABEL_SEED, record: type[Row] = LabelRow) -> tuple[Row, ...]:
    """Every row of the seed, in its order, as `record`; an unknown type names its row."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for number, row in enumerate(rows, start=2):  # line 1 is the header
        if row["type"] not in LABEL_TYPES:
            raise ValueError(f"{path}:{number}: label {row['key']}: unknown type {row['type']!r}")
    return tuple(
        record(
            key=row["key"],
            type=row["type"],
            min_value=_optional_int(row["min_value"]),
            max_value=_optional_int(row["max_value"]),
            allowed=tuple(a for a in row["allowed_values"].split("|") if a),
            unit=row["unit"],
            meaning=row["meaning"],
        )
        for row in rows
    )
