"""The load job: walked files into the warehouse's `raw` schema, then publish.

One writer at a time for the whole load (`warehouse.writer_lock`): the dashboard reads the
serving snapshot meanwhile, and a second writer waits for the lock rather than failing on
DuckDB's. The pending marker is set before anything is written, so a load killed at any
point makes the next one publish even when it has nothing new to load.

The pieces, one job each: `ingest.walk` (PATH -> members), `ingest.triage` (member ->
outcome), `ingest.label_resolver` (labels of a file), `ingest.writer` (batched,
all-or-nothing writes), `ingest.raw_schema` (DDL from the parsers' tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import warehouse
from ingest.label_resolver import LabelResolver
from ingest.outcomes import LoadSummary
from ingest.triage import triage
from ingest.walk import Member, Refused
from ingest.writer import RawWriter


def load_items(
    db_path: Path,
    items: Iterable[Member | Refused],
    *,
    cli_labels: Mapping[str, Any],
    known_paths: set[str],
) -> LoadSummary:
    """Triage and store every item under the writer lock; publish when anything changed.

    `known_paths` are all the walked paths (HCIBench case folders are recognised by their
    siblings); `items` may be a generator that reports progress as it is consumed.
    """
    resolver = LabelResolver(cli_labels)
    summary = LoadSummary()
    with warehouse.writer_lock(db_path):
        stale = warehouse.needs_publish(db_path)
        warehouse.mark_pending(db_path)
        writer = RawWriter(db_path)
        try:
            for item in items:
                summary.outcomes.append(triage(item, writer, resolver, known_paths))
        finally:
            writer.close()  # writes the last batch: outcomes are final only after it
        if stale or summary.stored:
            warehouse.publish(db_path)
        else:
            warehouse.clear_pending(db_path)
    return summary
