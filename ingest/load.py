"""The load job: walked files into the warehouse's `raw` schema (it never publishes).

One writer at a time for the whole load (`warehouse.writer_lock`): the dashboard reads the
serving snapshot meanwhile, and a second writer waits for the lock rather than failing on
DuckDB's. The pending marker is set before anything is written, so the dashboard knows the
main file holds changes it does not show (a load killed at any point included); only
`python -m ingest publish`, after validation, puts them on the dashboard.

Files are loaded while the PATH arguments are walked (`items` is a generator): memory is
bounded by one file plus the writer's batch, not by the number of files (see `ingest.walk`).
Whatever goes wrong with one file, a parser bug or a value the writer cannot convert, is that
file's rejection (`_outcome_of`, the one per-file boundary): the load goes on to the next file,
and the summary and the exit status say so.

Team mode (a DuckLake, `warehouse.lake`): no writer lock and no pending marker. Loaders run
side by side, on several machines; the writer serialises each file's check-and-write with
PostgreSQL advisory locks on its identity, and what the dashboard serves is the publish gate's
`serving.publications` row, which a load never touches.

The pieces, one job each: `ingest.walk` (PATH -> members), `ingest.triage` (member ->
outcome), `ingest.label_resolver` (labels of a file), `ingest.writer` (batched,
all-or-nothing writes), `ingest.raw_schema` (DDL from the parsers' tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import warehouse
from ingest.label_resolver import LabelResolver
from ingest.outcomes import LoadSummary, Outcome
from ingest.triage import triage
from ingest.walk import Member, Refused
from ingest.writer import RawWriter
from warehouse.lake import Target


def load_items(
    where: Path | Target,
    items: Iterable[Member | Refused],
    *,
    cli_labels: Mapping[str, Any],
    known_paths: set[str],
) -> LoadSummary:
    """Triage and store every item (publishing is the gate's job).

    `where` is the warehouse file, or a Target (a file or a lake); `known_paths` are all the
    walked paths (HCIBench case folders are recognised by their siblings); `items` may be a
    generator that reports progress as it is consumed.
    """
    tgt = where if isinstance(where, Target) else Target(file=where)
    resolver = LabelResolver(cli_labels)
    summary = LoadSummary()
    with _file_mode_guard(tgt, summary):
        writer = RawWriter(tgt)
        try:
            for item in items:
                summary.outcomes.append(_outcome_of(item, writer, resolver, known_paths))
        finally:
            writer.close()  # writes the last batch: outcomes are final only after it
    return summary


@contextmanager
def _file_mode_guard(tgt: Target, summary: LoadSummary) -> Iterator[None]:
    """A warehouse file: the writer lock for the whole load, and the pending marker set before
    anything is written (cleared again when the load stored nothing and none was pending).
    A lake needs neither (see the module's docstring)."""
    if tgt.is_lake or tgt.file is None:
        yield
        return
    db_path = tgt.file
    with warehouse.writer_lock(db_path):
        was_pending = warehouse.needs_publish(db_path)
        warehouse.mark_pending(db_path)
        yield
        if not (was_pending or summary.stored):
            warehouse.clear_pending(db_path)  # nothing new: the snapshot is still current


def _outcome_of(
    item: Member | Refused, writer: RawWriter, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """The item's outcome; any exception while triaging it is its rejection, not the load's
    end (an integer past 2^63 that Arrow cannot hold, a name that cannot be encoded)."""
    try:
        return triage(item, writer, resolver, known_paths)
    except Exception as exc:
        reason = f"could not be loaded ({type(exc).__name__}: {exc})"
        return Outcome.rejected(item.path, "file", reason)
