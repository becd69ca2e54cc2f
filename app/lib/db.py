"""The dashboard's reads: short-lived read-only connections to the file it reads, as polars.

Connections, paths and the one retry rule live in the top-level `warehouse` module; this
layer only turns a query into a polars frame. Every read opens a connection and closes it
again, so the dashboard never holds a handle that blocks a writer.

Opening a DuckDB file costs 40-400 ms (it reads the catalog), and a page makes up to thirty
reads. So while the dashboard reads a published serving snapshot, this process keeps that
version attached read-only (`_kept_connection`) and each read takes a cursor on it (about a
millisecond). This blocks no writer: loads and builds write the main file, and a publish
writes a new file and renames it over the snapshot, which gives the snapshot a new identity
(inode, change time), so the next read attaches the new version. The main file itself is
never kept open (a writer needs it).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

import warehouse
from warehouse import (
    ServingStatus,
    ValidationReport,
    WarehouseUnavailable,
    main_path,
    reading_path,
    serving_path,
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


# Snapshot path -> (its identity, the connection that holds that version attached, the
# attached database's name).
_kept: dict[Path, tuple[tuple[int, int], duckdb.DuckDBPyConnection, str]] = {}
# Replaced versions stay open a while: closing a connection closes the cursors other
# sessions may still be reading from.
_retired: deque[duckdb.DuckDBPyConnection] = deque(maxlen=4)
_kept_lock = threading.Lock()


def _attach(path: Path) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory database with `path` attached read-only, and the attached name.

    ATTACH opens the file itself: `duckdb.connect(path)` could hand back an instance still
    open on the replaced version (DuckDB caches instances by path). The name is the one
    DuckDB gives the file when it opens it directly (ATTACH without AS): dbt's views name
    their catalog (`"warehouse".staging....`), and the snapshot keeps the main file's name.
    """
    con = duckdb.connect()
    literal = str(path).replace("'", "''")
    con.execute(f"ATTACH '{literal}' (READ_ONLY)")
    (name,) = con.execute(
        "select database_name from duckdb_databases() where path = ?", [str(path)]
    ).fetchone()
    return con, name


def _kept_connection(path: Path) -> tuple[duckdb.DuckDBPyConnection, str] | None:
    """The kept connection to the current version of the published snapshot `path` and the
    attached database's name; None for any other file (see the module docstring)."""
    try:
        if path.absolute() != serving_path(main_path()):
            return None
        info = os.stat(path)
    except (OSError, WarehouseUnavailable):
        return None
    identity = (info.st_ino, info.st_ctime_ns)
    with _kept_lock:
        held = _kept.get(path)
        if held is not None and held[0] == identity:
            return held[1], held[2]
        try:
            con, name = _attach(path.absolute())
        except (duckdb.Error, TypeError):
            return None  # the short-lived connection then reports what is wrong
        if held is not None:
            _retired.append(held[1])
        _kept[path] = (identity, con, name)
        return con, name


@contextmanager
def read_only(path: str | Path, **kwargs: Any) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for one block: a cursor on the kept snapshot connection, else
    a short-lived connection (warehouse.read_only)."""
    kept = _kept_connection(Path(path))
    if kept is None:
        with warehouse.read_only(path, **kwargs) as con:
            yield con
        return
    con, name = kept
    cursor = con.cursor()
    try:
        cursor.execute('USE "' + name.replace('"', '""') + '"')
        yield cursor
    finally:
        cursor.close()


def read(path: str | Path, sql: str, params: Params = None) -> pl.DataFrame:
    """Run one query on a read-only connection (`read_only`)."""
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
