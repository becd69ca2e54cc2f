"""The load job: walked files into the warehouse's `raw` schema (it never publishes).

What a load holds while it runs is the warehouse's to say (`Warehouse.loading`): a warehouse
file is written by one writer at a time (its writer lock, so a second writer waits rather than
failing on DuckDB's lock) and is marked as holding changes the dashboard does not show before
anything is written (a load killed at any point included); a lake's loaders run side by side,
each file's check-and-write serialised by the writer's identity locks. Only
`python -m ingest publish`, after validation, puts a load on the dashboard.

Files are loaded while the PATH arguments are walked (`items` is a generator), in two steps
per file, each taken in walk order: the first (read, screen, label; `_first_step`) as the walk
meets the file, which also hands its parse to the worker processes of `ingest.parse_pool`
unless the file looks already loaded; the last (check against the warehouse, take the parse,
stage; `_last_step`) once every file before it is staged. Between the two a file waits in a
bounded window (`_Window`), so memory is bounded by the window plus the writer's batch, not by
the number of files (see `ingest.walk`), and outcomes, ids and the summary are those of a load
that parses in one process. Whatever goes wrong with one file, a parser bug or a value Arrow
cannot hold, is that file's rejection (`_failed`, the one per-file boundary): the load goes on
to the next file, and the summary and the exit status say so.

The pieces, one job each: `ingest.walk` (PATH -> members), `ingest.triage` (member ->
outcome), `ingest.parse_step` (bytes -> Arrow tables), `ingest.parse_pool` (parse steps in
worker processes), `ingest.label_resolver` (labels of a file), `ingest.writer` (batched,
all-or-nothing writes), `ingest.raw_schema` (DDL from the parsers' tables).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ingest.label_resolver import LabelResolver
from ingest.outcomes import LoadSummary, Outcome
from ingest.parse_pool import WINDOW_BYTES, ParsePool, Ticket, parse_workers
from ingest.parse_step import unexpected_failure
from ingest.triage import (
    Prepared,
    detect_here,
    likely_unchanged,
    may_be_loaded,
    stage_prepared,
    triage,
)
from ingest.walk import Member, Refused
from ingest.writer import Identity, RawWriter
from warehouse import Warehouse, WarehouseLost


def load_items(
    wh: Warehouse,
    items: Iterable[Member | Refused],
    *,
    cli_labels: Mapping[str, Any],
    known_paths: set[str],
    prune_roots: Sequence[str] = (),
    roots: Sequence[str] = (),
    parse_pool: ParsePool | None = None,
) -> LoadSummary:
    """Triage and store every item (publishing is the gate's job); then forget the stored
    files under `prune_roots` that the walk no longer met (`ingest load --prune`).

    `known_paths` are all the walked paths (HCIBench case folders are recognised by their
    siblings); `items` may be a generator that reports progress as it is consumed. `roots`
    are the load's PATH arguments (absolute): each stored file records the one it lay under.
    `parse_pool` parses files ahead in worker processes (by default one of
    PERF_INGEST_PARSE_WORKERS workers, see `ingest.parse_pool`); the load closes it.
    """
    resolver = LabelResolver(cli_labels)
    summary = LoadSummary()
    with wh.loading(lambda: bool(summary.stored or summary.pruned)):
        writer = RawWriter(wh, roots=roots)
        pool = parse_pool or ParsePool(parse_workers())
        try:
            window = _Window(pool.window_files)
            for item in items:
                window.add(_first_step(item, writer, resolver, known_paths, pool))
                while window.full():
                    summary.outcomes.append(_finish_oldest(window, writer, pool))
            while window:
                summary.outcomes.append(_finish_oldest(window, writer, pool))
            if prune_roots:
                seen = known_paths | {o.path for o in summary.outcomes}
                summary.pruned = writer.prune(list(prune_roots), seen)
        except WarehouseLost as lost:
            writer.abandon(lost)  # the staged batch was never written
            summary.lost = (
                f"{lost} The {writer.committed:,} files committed before it stay stored; the "
                "files after them were not loaded. Re-run the same load once the warehouse "
                "answers again: stored files are skipped."
            )
        finally:
            try:
                pool.close()
                summary.workers_failed = pool.start_failure
            finally:
                writer.close()  # writes the last batch: outcomes are final only after it
    return summary


@dataclass(slots=True)
class _InFlight:
    """A walked item between its first step (taken as the walk meets it) and its last (taken
    in walk order, once every item before it is staged): its outcome when the first step
    decided it, else the prepared file and its parse when it looked worth parsing ahead."""

    path: str
    outcome: Outcome | None = None
    prepared: Prepared | None = None
    parse: Ticket | None = None

    @property
    def held_bytes(self) -> int:
        return self.prepared.held_bytes if self.prepared else 0


class _Window:
    """The items met and not finished yet, oldest first: at most `files` of them, and past
    the oldest, at most `WINDOW_BYTES` of file bytes (so a large file is finished before the
    next file is read, as without workers)."""

    def __init__(self, files: int) -> None:
        self._files = files
        self._items: deque[_InFlight] = deque()
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def add(self, flight: _InFlight) -> None:
        self._items.append(flight)
        self._bytes += flight.held_bytes

    def full(self) -> bool:
        return len(self._items) >= self._files or self._bytes >= WINDOW_BYTES

    def pop(self) -> _InFlight:
        flight = self._items.popleft()
        self._bytes -= flight.held_bytes
        return flight

    def identities(self) -> list[Identity]:
        """The identities of the files still to be checked, oldest first."""
        return [
            (f.prepared.source.path, f.prepared.source.sha256, f.prepared.source.hcibench_case)
            for f in self._items
            if f.prepared is not None
        ]


def _first_step(
    item: Member | Refused,
    writer: RawWriter,
    resolver: LabelResolver,
    known_paths: set[str],
    pool: ParsePool,
) -> _InFlight:
    """Read, screen and label the item in walk order (labels apply to the files after
    them); hand its parse to the pool now unless it looks already loaded."""
    try:
        found = triage(item, resolver, known_paths)
    except Exception as exc:
        return _InFlight(item.path, outcome=_failed(item.path, exc, writer))
    if isinstance(found, Outcome):
        return _InFlight(item.path, outcome=found)
    if _asked_ahead(may_be_loaded, writer, found):  # its format decides: detect it here
        found = detect_here(found)
        if isinstance(found, Outcome):
            return _InFlight(item.path, outcome=found)
        if _asked_ahead(likely_unchanged, writer, found):
            return _InFlight(item.path, prepared=found)
    return _InFlight(item.path, prepared=found, parse=pool.submit(found.job))


def _asked_ahead(
    question: Callable[[RawWriter, Prepared], bool], writer: RawWriter, prepared: Prepared
) -> bool:
    """The answer to a question asked of the warehouse ahead of the file's turn; True when
    it fails (the file is then parsed at its turn, where its check's failure counts)."""
    try:
        return question(writer, prepared)
    except Exception:
        return True


def _finish_oldest(window: _Window, writer: RawWriter, pool: ParsePool) -> Outcome:
    """The oldest item's last step, its identity keys taken with the window's (one catalog
    round trip for the window's files in team mode, `RawWriter.claim_ahead`)."""
    writer.claim_ahead(window.identities())
    return _last_step(window.pop(), writer, pool)


def _last_step(flight: _InFlight, writer: RawWriter, pool: ParsePool) -> Outcome:
    """The item's outcome: the file checked against the warehouse and, when it needs it,
    parsed (ahead, or now) and staged."""
    prepared = flight.prepared
    if prepared is None:
        assert flight.outcome is not None
        return flight.outcome
    ticket = flight.parse or pool.here(prepared.job)
    try:
        return stage_prepared(writer, prepared, ticket.result)
    except Exception as exc:
        return _failed(flight.path, exc, writer)


def _failed(path: str, exc: Exception, writer: RawWriter) -> Outcome:
    """Any exception while loading a file is its rejection, not the load's end (the one
    per-file boundary); the warehouse going away is not the file's fault: it ends the load
    (WarehouseLost)."""
    writer.warehouse.raise_if_lost(exc)
    return unexpected_failure(path, exc)
