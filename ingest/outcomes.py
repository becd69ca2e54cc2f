"""What happened to each file of a load, and the load's exit status."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Status(enum.StrEnum):
    LOADED = "loaded"  # new rows stored
    REPLACED = "replaced"  # stored, replacing an earlier version (other bytes, labels, parser)
    UNCHANGED = "unchanged"  # the same bytes, labels and parser version are already stored
    SKIPPED = "skipped"  # not tool output, or a format no parser reads
    REJECTED = "rejected"  # tool output that cannot be loaded: the exit status says so
    LABELS = "labels"  # a run.yaml, read for the files after it


@dataclass(slots=True)
class Outcome:
    path: str
    status: Status
    format: str | None = None
    rows: int = 0
    location: str = ""
    reason: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def rejected(cls, path: str, location: str, reason: str, fmt: str | None = None) -> Outcome:
        return cls(path, Status.REJECTED, fmt, location=location, reason=reason)

    @classmethod
    def skipped(cls, path: str, reason: str) -> Outcome:
        return cls(path, Status.SKIPPED, reason=reason)

    def reject(self, location: str, reason: str) -> None:
        """Turn a parsed file into a rejected one (its rows were not stored)."""
        self.status = Status.REJECTED
        self.location = location
        self.reason = reason
        self.rows = 0


@dataclass(slots=True)
class LoadSummary:
    outcomes: list[Outcome] = field(default_factory=list)

    def by_status(self, *statuses: Status) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def stored(self) -> list[Outcome]:
        """Files whose rows this load wrote (new, or replacing an earlier version)."""
        return self.by_status(Status.LOADED, Status.REPLACED)

    @property
    def exit_code(self) -> int:
        return 1 if self.by_status(Status.REJECTED) else 0
