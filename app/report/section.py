"""The parts a report is made of: its cover and its sections, each a tuple of numbered blocks
(figures, tables, listings). Shared by the section builders (app.report.content, the appendices
in app.report.appendix) and the renderer."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.report.figures import Figure
from app.report.tables import Listing, Table

Block = Figure | Table | Listing


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    intro: str
    blocks: tuple[Block, ...] = ()
    appendix: bool = False


@dataclass(frozen=True)
class Cover:
    title: str
    facts: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


# The workload columns a results table prints, in this order.
WORKLOAD_COLUMNS = ["read_pct", "block_size_bytes", "random_pct", "outstanding_io", "vm_count"]
