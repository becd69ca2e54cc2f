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

Team mode (PERF_WAREHOUSE=ducklake:postgres:...): the path the pages pass is the lake's reading
name (warehouse.readers.reading_name, password redacted). The published snapshot is attached
read-only once (`_kept_lake`) and every read takes a cursor on it; whether a newer publication
exists is asked at most every `LAKE_CHECK_S` seconds (a page makes thirty reads), and a new one
is attached and served from then on. Before the first publish the reads see the latest
snapshot, as file mode reads the main file until then.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

import warehouse
from warehouse import (
    ServingStatus,
    ValidationReport,
    WarehouseUnavailable,
    lake,
    main_path,
    readers,
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
# How often the lake is asked for a newer publication (seconds).
LAKE_CHECK_S = 3.0
# How long a failed lake read waits to learn whether the catalog is still there.
CATALOG_PROBE_TIMEOUT_S = 5


@dataclass(slots=True)
class _LakeReader:
    """One lake's kept connections: `latest` follows new commits (it answers "which snapshot
    is published?" and serves reads before the first publish); `served` holds the published
    snapshot attached."""

    latest: duckdb.DuckDBPyConnection
    served: duckdb.DuckDBPyConnection
    snapshot: int | None  # the published snapshot `served` holds; None: nothing published
    checked_at: float


_lakes: dict[str, _LakeReader] = {}


def reading_path(db: str | Path | None = None) -> str | Path:
    """What the dashboard reads: the serving snapshot once published, else the main file; in
    team mode the lake's printable name (warehouse.readers.reading_name)."""
    name = readers.reading_name(db)
    return name if readers.is_lake_name(name) else Path(name)


def _attach(path: Path) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory database with `path` attached read-only, and the attached name.

    ATTACH opens the file itself: `duckdb.connect(path)` could hand back an instance still
    open on the replaced version (DuckDB caches instances by path). The name is the one
    DuckDB gives the file when it opens it directly (ATTACH without AS): dbt's views name
    their catalog (`"warehouse".staging....`), and the snapshot keeps the main file's name.
    """
    con = duckdb.connect(config=warehouse.DUCKDB_CONFIG)
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


def _refresh(reader: _LakeReader, tgt: lake.Target) -> None:
    """Serve the newest publication if it changed since the last check."""
    probe = reader.latest.cursor()
    try:
        published = lake.published_snapshot(probe)
    finally:
        probe.close()
    reader.checked_at = time.monotonic()
    if published == reader.snapshot:
        return
    served = reader.latest if published is None else lake.connect(tgt, snapshot=published)
    if reader.served is not reader.latest:
        _retired.append(reader.served)
    reader.served, reader.snapshot = served, published


def _kept_lake(where: str) -> duckdb.DuckDBPyConnection:
    """The connection holding the lake's served snapshot (see the module docstring)."""
    try:
        tgt = readers.reader_target(where)
    except lake.LakeError as exc:
        raise WarehouseUnavailable(str(exc)) from exc
    with _kept_lock:
        reader = _lakes.get(tgt.uri)
        try:
            if reader is None:
                latest = lake.connect(tgt, read_only=True)
                reader = _LakeReader(latest, latest, None, 0.0)
                _refresh(reader, tgt)
                _lakes[tgt.uri] = reader
            elif time.monotonic() - reader.checked_at >= LAKE_CHECK_S:
                _refresh(reader, tgt)
        except (lake.LakeError, duckdb.Error) as exc:
            _lakes.pop(tgt.uri, None)  # the next read connects afresh
            raise _unreadable(tgt, exc) from exc
        return reader.served


def _unreadable(tgt: lake.Target, reason: Exception) -> WarehouseUnavailable:
    """What the pages say of a lake they cannot read. PostgreSQL's own message may quote the
    conninfo: its password is never shown."""
    return WarehouseUnavailable(
        f"The team warehouse {tgt.describe()} cannot be read: {lake.redact(str(reason))}"
    )


def _unavailable_if_catalog_is_gone(where: str, failed: duckdb.Error) -> None:
    """A lake read failed: if the catalog cannot be reached (PostgreSQL stopped, network cut)
    forget the kept connection (the next read connects afresh) and raise what the pages say
    for an unreadable warehouse; any other error is the query's own and is left to rise."""
    tgt = readers.reader_target(where)
    try:
        lake.catalog_session(tgt, connect_timeout_s=CATALOG_PROBE_TIMEOUT_S).close()
    except lake.LakeError as gone:
        with _kept_lock:
            _lakes.pop(tgt.uri, None)
            _lake_statuses.pop(tgt.uri, None)
        raise _unreadable(tgt, gone) from failed


def served_snapshot(where: str) -> int | None:
    """The published snapshot the dashboard serves from the lake `where` (None: none yet)."""
    _kept_lake(where)
    reader = _lakes.get(readers.reader_target(where).uri)
    return None if reader is None else reader.snapshot


@contextmanager
def read_only(path: str | Path, **kwargs: Any) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection for one block: a cursor on the kept snapshot connection (the
    lake's, in team mode), else a short-lived connection (warehouse.read_only)."""
    if readers.is_lake_name(path):
        cursor = _kept_lake(str(path)).cursor()
        try:
            cursor.execute(f"USE {lake.LAKE_ALIAS}")
            yield cursor
        except duckdb.Error as exc:
            _unavailable_if_catalog_is_gone(str(path), exc)
            raise
        finally:
            cursor.close()
        return
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
    main file is never opened, so a running writer does not slow a page view). In team mode:
    the published snapshot against the lake's newest data (`_lake_status`)."""
    name = readers.reading_name()
    if readers.is_lake_name(name):
        return _lake_status(name)
    return status(main_path())


# Team mode: the lake's serving status, kept `LAKE_CHECK_S` (target uri -> (when, status)).
_lake_statuses: dict[str, tuple[float, ServingStatus]] = {}


def _lake_status(name: str) -> ServingStatus:
    """warehouse.serving_lake.status (snapshot times for file times, the lake's validation
    history), asked at most every LAKE_CHECK_S seconds like the served snapshot. When the lake
    cannot be asked, an empty status: the page's first read then says what is wrong."""
    from warehouse import serving_lake

    try:
        tgt = readers.reader_target(name)
        held = _lake_statuses.get(tgt.uri)
        if held is not None and time.monotonic() - held[0] < LAKE_CHECK_S:
            return held[1]
        found = serving_lake.status(tgt)
    except (lake.LakeError, duckdb.Error):
        return ServingStatus(Path(name), None, None, None, False, None)
    _lake_statuses[tgt.uri] = (time.monotonic(), found)
    reader = _lakes.get(tgt.uri)
    if reader is not None:
        # The next read asks again too: the pages' cache is cleared when this status names a
        # new snapshot (ui.forget_old_snapshot), so the reads must not lag behind it.
        reader.checked_at = 0.0
    return found
