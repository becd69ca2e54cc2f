"""Keep the first of what a capture holds twice: a counter column, a sample time.

A duplicated `\\host\\Physical Cpu(_Total)\\% Util Time` column (two captures pasted side by
side, a hand-edited file) or a sample written twice would give downstream two values for one
(host, counter, time): host CPU would be counted twice and the marts' unique keys break. The
first is kept, the rest dropped, and the parser says how many in the notes.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ingest.parsers.esxtop.records import Progress

_NAME = ("host", "object_group", "instance", "counter")


def duplicate_counters(counters: pa.Table) -> tuple[list[int], str | None]:
    """counter_ids whose (host, group, instance, counter) repeat an earlier column's, and a
    note naming the first of them."""
    names = zip(*(counters.column(c).to_pylist() for c in _NAME), strict=True)
    ids = counters.column("counter_id").to_pylist()
    headers = counters.column("header")
    first: dict[tuple, int] = {}
    repeats: list[int] = []
    for position, name in enumerate(names):
        if name in first:
            repeats.append(position)
        else:
            first[name] = position
    if not repeats:
        return [], None
    at = repeats[0]
    original = first[tuple(counters.column(c)[at].as_py() for c in _NAME)]
    # 1-based columns of the file, the timestamp being column 1
    note = (
        f"{len(repeats)} counter columns repeat an earlier column: dropped, the first kept "
        f"(e.g. column {ids[at] + 2}, {headers[at].as_py()}, repeats column {ids[original] + 2})"
    )
    return [ids[p] for p in repeats], note


def drop_cells(
    samples: pa.Table, progress: Progress, counter_ids: list[int], sample_indexes: list[int]
) -> pa.Table:
    """The samples without the given counters' and samples' cells; the empty and malformed
    cell counts follow, so the capture row still adds up."""
    if not counter_ids and not sample_indexes:
        return samples
    gone = pc.or_(
        pc.is_in(samples.column("counter_id"), pa.array(counter_ids, pa.int32())),
        pc.is_in(samples.column("sample_index"), pa.array(sample_indexes, pa.int32())),
    )
    dropped_columns, dropped_samples = set(counter_ids), set(sample_indexes)
    kept_bad = [
        cell
        for cell in progress.malformed
        if cell.counter_id not in dropped_columns and cell.sample_index not in dropped_samples
    ]
    nulls_gone = samples.column("value").filter(gone).null_count
    progress.empty_cells -= nulls_gone - (len(progress.malformed) - len(kept_bad))
    progress.malformed = kept_bad
    return samples.filter(pc.invert(gone))
