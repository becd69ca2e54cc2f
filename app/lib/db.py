"""The dashboard's reads: short-lived read-only connections to the file it reads, as polars.

Connections, paths and the one retry rule live in the top-level `warehouse` module; this
layer only turns a query into a polars frame. Every read opens a connection and closes it
again, so the dashboard never holds a handle that blocks a writer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from warehouse import (
    ServingStatus,
    ValidationReport,
    WarehouseUnavailable,
    main_path,
    read_only,
    reading_path,
    status,
)

__all__ = [
    "ServingStatus",
    "ValidationReport",
    "WarehouseUnavailable",
    "main_path",
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


def read(path: str | Path, sql: str, params: Params = None) -> pl.DataFrame:
    """Run one query on a fresh read-only connection."""
    with read_only(path) as con:
        return con.execute(sql, params).pl()


def marts_columns(path: str | Path) -> dict[str, list[str]]:
    """Tables of the `marts` schema and their columns, in column order."""
    out: dict[str, list[str]] = {}
    for table, column in read(path, _MARTS_COLUMNS).iter_rows():
        out.setdefault(table, []).append(column)
    return out


def serving_status() -> ServingStatus:
    """What the dashboard serves against the main file (file times and side files only: the
    main file is never opened, so a running writer does not slow a page view)."""
    return status(main_path())
