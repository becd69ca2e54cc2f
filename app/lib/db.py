"""The dashboard's reads: the served version of the warehouse, as polars frames.

Pages name the warehouse by its reader's printable name (`reading_path()`: the serving
snapshot or the main file in file mode, the lake's name without its password in team mode), so
two warehouses never share a cache entry; `warehouse.reader_for` turns the name back into the
`Reader` that knows how to read it (a connection kept per process on a published version, a
short-lived one on a main file that writers need). This layer only turns a query into a frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

import warehouse
from warehouse import ServingStatus, ValidationReport, WarehouseUnavailable, readers

__all__ = [
    "ServingStatus",
    "ValidationReport",
    "WarehouseUnavailable",
    "marts_columns",
    "read",
    "read_only",
    "reading_path",
    "serving_status",
]

Params = dict[str, Any] | list[Any] | None

_MARTS_COLUMNS = (
    "select table_name, column_name from information_schema.columns"
    " where table_schema = 'marts' order by table_name, ordinal_position"
)


def reading_path(db: str | Path | None = None) -> str:
    """What the dashboard reads, as a printable name (see the module docstring)."""
    return readers.reading_name(db)


@contextmanager
def read_only(where: str | Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection (or cursor) on the served version, for one block."""
    with warehouse.reader_for(where).cursor() as con:
        yield con


def read(where: str | Path, sql: str, params: Params = None) -> pl.DataFrame:
    """Run one query on a read-only connection (`read_only`)."""
    with read_only(where) as con:
        return con.execute(sql, params).pl()


def marts_columns(where: str | Path) -> dict[str, list[str]]:
    """Tables of the `marts` schema and their columns, in column order."""
    out: dict[str, list[str]] = {}
    for table, column in read(where, _MARTS_COLUMNS).iter_rows():
        out.setdefault(table, []).append(column)
    return out


def served_snapshot(where: str | Path) -> int | None:
    """The published snapshot the dashboard serves (team mode; None for a file or before the
    first publish)."""
    return warehouse.reader_for(where).served_snapshot()


def serving_status() -> ServingStatus:
    """What the dashboard serves against what the warehouse holds (`Warehouse.serving_status`:
    file times and side files for a file, a few seconds old at most for a lake)."""
    return warehouse.from_settings().serving_status(recent_ok=True)
