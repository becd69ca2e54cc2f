"""Write a hand-entered vSAN capacity observation (`capacity.yaml`).

The schema is the one `ingest.parsers.vsan_capacity` accepts (its module docstring): exactly the
keys used_before, used_after, unit, ratio_reported, captured_at and the optional testbed, ftm,
ftt, source_document, notes. It stands for a figure that exists only as a screenshot of the
vSphere capacity view (e.g. Micron vSAN 6.7 RA, Appendix C, Figure 16). Numbers are written as
printed (two decimals for TB); the unit label is kept as printed (vSphere's `TB` is TiB).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import yaml


@dataclass(frozen=True, slots=True)
class CapacityObservation:
    used_before: float
    used_after: float
    unit: str
    ratio_reported: str  # as written, e.g. "8.21x": its digits decide the tolerance
    captured_at: dt.date | dt.datetime
    testbed: str | None = None
    ftm: str | None = None
    ftt: int | None = None
    source_document: str | None = None
    notes: str | None = None


def render(observation: CapacityObservation, comment: str = "") -> str:
    """The capacity.yaml text; `comment` lines go first, each prefixed with `# `."""
    fields = {
        "used_before": observation.used_before,
        "used_after": observation.used_after,
        "unit": observation.unit,
        "ratio_reported": observation.ratio_reported,
        "captured_at": observation.captured_at,
        "testbed": observation.testbed,
        "ftm": observation.ftm,
        "ftt": observation.ftt,
        "source_document": observation.source_document,
        "notes": observation.notes,
    }
    body = yaml.safe_dump(
        {k: v for k, v in fields.items() if v is not None}, sort_keys=False, width=100
    )
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    return head + body
