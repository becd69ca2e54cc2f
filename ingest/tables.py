"""Turn parser row types into Arrow schemas and tables.

Each raw table is declared once, as a frozen dataclass in a parser's `TABLES`.
Its field annotations decide the column types, so the warehouse schema is the
code's schema: `int` -> BIGINT, `float` -> DOUBLE, `str` -> VARCHAR, `bool` ->
BOOLEAN, `datetime` -> TIMESTAMPTZ (UTC), and `dict`/`list` fields -> VARCHAR
holding JSON text (their column names end in `_json`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import types
import typing
from functools import cache
from operator import attrgetter
from typing import Any

import pyarrow as pa

from ingest.redaction import redact_mapping, redact_strings

_SCALARS: dict[Any, pa.DataType] = {
    int: pa.int64(),
    float: pa.float64(),
    str: pa.string(),
    bool: pa.bool_(),
    dt.datetime: pa.timestamp("us", tz="UTC"),
    dt.date: pa.date32(),
}


def _arrow_type(annotation: Any) -> tuple[pa.DataType, bool]:
    """Arrow type of a field annotation, and whether values are JSON-encoded."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        resolved = {_arrow_type(m) for m in members}
        if len(resolved) == 1:  # e.g. `dict | list`: both JSON text
            return resolved.pop()
        if len(members) != 1:
            raise TypeError(f"unsupported union {annotation!r}")
        return _arrow_type(members[0])
    if annotation in _SCALARS:
        return _SCALARS[annotation], False
    if isinstance(annotation, type) and issubclass(annotation, str):  # str Enums
        return pa.string(), False
    if origin in (dict, list, tuple) or annotation in (dict, list, tuple, Any):
        return pa.string(), True
    raise TypeError(f"unsupported field type {annotation!r}")


@cache
def _columns(record_type: type) -> tuple[tuple[str, pa.DataType, bool], ...]:
    hints = typing.get_type_hints(record_type)
    return tuple((f.name, *_arrow_type(hints[f.name])) for f in dataclasses.fields(record_type))


@cache
def arrow_schema(record_type: type) -> pa.Schema:
    """The Arrow schema of a record dataclass (made once a type: every file asks for it)."""
    return pa.schema([(name, arrow_type) for name, arrow_type, _ in _columns(record_type)])


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(redact_mapping(value), sort_keys=True, default=str)


def _plain(value: Any) -> Any:
    # str Enums become their value; everything else is already Arrow-ready.
    return value.value if isinstance(value, enum.Enum) else value


def to_arrow(record_type: type, rows: list[Any]) -> pa.Table:
    """Rows of one record type as an Arrow table, column by column."""
    columns = _columns(record_type)
    arrays = []
    for name, arrow_type, is_json in columns:
        values = list(map(attrgetter(name), rows))  # C-level loop: rows run to 10^5 a file
        if is_json:
            values = [_json_text(v) for v in values]
        elif pa.types.is_string(arrow_type):
            values = [_plain(v) for v in values]
        array = pa.array(values, type=arrow_type)
        # Every stored text passes here or `_json_text`: secrets are hidden once, for all.
        is_text = pa.types.is_string(arrow_type) and not is_json  # JSON: `redact_mapping`
        arrays.append(redact_strings(array) if is_text else array)
    return pa.Table.from_arrays(arrays, schema=arrow_schema(record_type))
