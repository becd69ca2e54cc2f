"""The load job: walked files into the warehouse's `raw` schema (it never publishes).

What a load holds while it runs is the warehouse's to say (`Warehouse.loading`): a warehouse
file is written by one writer at a time (its writer lock, so a second writer waits rather than
failing on DuckDB's lock) and is marked as holding changes the dashboard does not show before
anything is written (a load killed at any point included); a lake's loaders run side by side,
each file's check-and-write serialised by the writer's identity locks. Only
`python -m ingest publish`, after validation, puts a load on the dashboard.

Files are loaded while the PATH arguments are walked (`items` is a generator): memory is
bounded by one file plus the writer's batch, not by the number of files (see `ingest.walk`).
Whatever goes wrong with one file, a parser bug or a value the writer cannot convert, is that
file's rejection (`_outcome_of`, the one per-file boundary): the load goes on to the next file,
and the summary and the exit status say so.

The pieces, one job each: `ingest.walk` (PATH -> members), `ingest.triage` (member ->
outcome), `ingest.label_resolver` (labels of a file), `ingest.writer` (batched,
all-or-nothing writes), `ingest.raw_schema` (DDL from the parsers' tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ingest.label_resolver import LabelResolver
from ingest.outcomes import LoadSummary, Outcome
from ingest.triage import triage
from ingest.walk import Member, Refused
from ingest.writer import RawWriter
from warehouse import Warehouse, WarehouseLost


def load_items(
    wh: Warehouse,
    items: Iterable[Member | Refused],
    *,
    cli_labels: Mapping[str, Any],
    known_paths: set[str],
    prune_roots: Sequence[str] = (),
    roots: Sequence[str] = (),
) -> LoadSummary:
    """Triage and store every item (publishing is the gate's job); then forget the stored
    files under `prune_roots` that the walk no longer met (`ingest load --prune`).

    `known_paths` are all the walked paths (HCIBench case folders are recognised by their
    siblings); `items` may be a generator that reports progress as it is consumed. `roots`
    are the load's PATH arguments (absolute): each stored file records the one it lay under.
    """
    resolver = LabelResolver(cli_labels)
    summary = LoadSummary()
    with wh.loading(lambda: bool(summary.stored or summary.pruned)):
        writer = RawWriter(wh, roots=roots)
        try:
            for item in items:
                summary.outcomes.append(_outcome_of(item, writer, resolver, known_paths))
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
            writer.close()  # writes the last batch: outcomes are final only after it
    return summary


def _outcome_of(
    item: Member | Refused, writer: RawWriter, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """The item's outcome; any exception while triaging it is its rejection, not the load's
    end (an integer past 2^63 that Arrow cannot hold, a name that cannot be encoded)."""
    try:
        return triage(item, writer, resolver, known_paths)
    except Exception as exc:
        # The warehouse going away is not this file's fault: it ends the load (WarehouseLost).
        writer.warehouse.raise_if_lost(exc)
        reason = f"could not be loaded ({type(exc).__name__}: {exc})"
        return Outcome.rejected(item.path, "file", reason)
