r"""The header line: one `\\host\Group(instance)\Counter` cell per counter column."""

from __future__ import annotations

import csv

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.parsers.esxtop.layout import Layout, decode
from ingest.parsers.esxtop.records import COUNTERS_SCHEMA
from ingest.parsers.esxtop.repair import insert_missing_delimiters
from ingest.records import ParseError

_HEADER_NAME = (
    r"^\\\\(?P<host>[^\\]*)\\(?P<group>[^\\(]*?)(?:\((?P<instance>.*)\))?\\(?P<counter>[^\\]*)$"
)
_HAS_INSTANCE = r"^\\\\[^\\]*\\[^\\(]*\("


def header_cells(raw: bytes, layout: Layout, path: str) -> list[str]:
    line = raw[: -len(layout.terminator)]
    if layout.quoted:
        line, _ = insert_missing_delimiters(line, layout.delimiter)
    try:
        cells = next(csv.reader([decode(line)], delimiter=layout.delimiter.decode(), strict=True))
    except csv.Error as exc:
        raise ParseError(path, "line 1", f"header is not CSV: {exc}") from None
    if len(cells) < 2:
        raise ParseError(path, "line 1", "header has no counter columns")
    return cells


def counter_table(names: list[str], path: str) -> pa.Table:
    r"""Split `\\host\Group(instance)\Counter` natively, then fill the cells that are not."""
    headers = pa.array(names, pa.string())
    parts = pc.extract_regex(headers, _HEADER_NAME)
    matched = parts.is_valid()
    if not pc.any(matched).as_py():
        raise ParseError(path, "line 1", "no header cell of the form \\\\host\\Group\\Counter")
    # `Memory\Free MBytes` has no instance: extract_regex gives "" for the absent group.
    has_instance = pc.match_substring_regex(headers, _HAS_INSTANCE)
    columns = [
        parts.field("host"),
        parts.field("group"),
        pc.if_else(has_instance, parts.field("instance"), pa.scalar(None, pa.string())),
        parts.field("counter"),
    ]
    inferred = pc.invert(matched)
    if pc.any(inferred).as_py():
        columns = _inherit_names(names, matched, columns)
    host, group, instance, counter = columns
    ids = np.arange(len(names), dtype=np.int32)
    return pa.Table.from_arrays(
        [pa.array(ids), pa.array(ids + 1), host, group, instance, counter, headers, inferred],
        schema=COUNTERS_SCHEMA,
    )


def _inherit_names(names: list[str], matched: pa.Array, columns: list[pa.Array]) -> list[pa.Array]:
    r"""Give a cell that is not `\\host\...` the host, group and instance of the one before."""
    out = [column.to_pylist() for column in columns]
    for i, ok in enumerate(matched.to_pylist()):
        if ok:
            continue
        for column in out[:3]:
            column[i] = column[i - 1] if i else None
        out[3][i] = names[i].strip()
    return [pa.array(column, pa.string()) for column in out]
