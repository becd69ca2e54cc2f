"""What happened to each file of a load, and the load's exit status."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from ingest.redaction import redact_text
from ingest.walk import valid_text

# Notes that say data was left out or cannot be trusted as written: the summary shows them
# even with --quiet (other notes, e.g. "times taken as UTC", only without it). Parsers word
# such notes with one of these verbs ("dropped the last row", "skipped 3 bad JSON lines").
_DATA_LOSS = re.compile(
    r"\b(dropped|dropping|skipped|ignored|discarded|truncated|cut|unreliable|"
    r"not (?:loaded|kept|used|stored))\b",
    re.IGNORECASE,
)


# `ingest load`'s exit status when the warehouse went away mid-load (0 loaded, 1 some file
# rejected, 2 a usage error): not a file's fault, and a re-run completes the load.
EXIT_LOST = 3


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
    # Why a stored file yields no workload result (Parsed.no_result_reason), else None.
    no_result: str | None = None

    def __post_init__(self) -> None:
        # Every text here is printed and may be stored: an undecodable byte of a file name
        # (in the path, or quoted by an OS error in the reason) must not break either.
        self.path = valid_text(self.path)
        self.location = valid_text(self.location)
        self.reason = redact_text(valid_text(self.reason))  # it may quote a secret line
        self.notes = [valid_text(note) for note in self.notes]
        self.no_result = valid_text(self.no_result) if self.no_result else None

    @classmethod
    def rejected(cls, path: str, location: str, reason: str, fmt: str | None = None) -> Outcome:
        return cls(path, Status.REJECTED, fmt, location=location, reason=reason)

    @classmethod
    def skipped(cls, path: str, reason: str) -> Outcome:
        return cls(path, Status.SKIPPED, reason=reason)

    def reject(self, location: str, reason: str) -> None:
        """Turn a parsed file into a rejected one (its rows were not stored)."""
        self.status = Status.REJECTED
        self.location = valid_text(location)
        self.reason = redact_text(valid_text(reason))
        self.rows = 0
        self.no_result = None

    def data_loss_notes(self) -> list[str]:
        """The notes that say data was dropped or is unreliable."""
        return [note for note in self.notes if _DATA_LOSS.search(note)]


@dataclass(slots=True)
class LoadSummary:
    outcomes: list[Outcome] = field(default_factory=list)
    # Why the load stopped before its end: the warehouse went away (its commits stay).
    lost: str | None = None
    # Stored files forgotten by `--prune`: gone from a loaded folder or archive.
    pruned: list[str] = field(default_factory=list)
    # Why the parse workers could not start (ingest.parse_pool): the files were parsed in
    # the loading process instead, slower but the same.
    workers_failed: str | None = None

    def by_status(self, *statuses: Status) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def stored(self) -> list[Outcome]:
        """Files whose rows this load wrote (new, or replacing an earlier version)."""
        return self.by_status(Status.LOADED, Status.REPLACED)

    @property
    def no_result(self) -> list[Outcome]:
        """Stored files that yield no workload result, with the reason."""
        return [o for o in self.stored if o.no_result]

    @property
    def exit_code(self) -> int:
        """0 all loaded, 1 some file rejected, 3 the warehouse went away mid-load (2, a usage
        error, is the command line's)."""
        if self.lost is not None:
            return EXIT_LOST
        return 1 if self.by_status(Status.REJECTED) else 0
