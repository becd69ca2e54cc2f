"""The SQL console's and `ingest query`'s connection: read-only, locked down.

`locked_connection()` is an in-memory DuckDB with the served version of the warehouse attached
read-only (`Reader.attach`: a file, or a lake as of its published snapshot), then file access
switched off (in team mode, all but the lake's data folder: DuckLake reads its Parquet files
through the file system) and the configuration locked, so a query cannot undo it. The app and
`ingest` share it (they do not import each other).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

import warehouse
from warehouse import ducklake
from warehouse.base import DUCKDB_CONFIG, Reader, WarehouseUnavailable
from warehouse.ducklake import LakeError

if TYPE_CHECKING:  # the console's workers import this module: not polars (0.3 s to import)
    import polars as pl

LOCKED_CONFIG: dict[str, object] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "allow_persistent_secrets": False,
    "threads": 1,
    "max_memory": "256MB",
    **DUCKDB_CONFIG,
    # Last: once locked, no SET/RESET/PRAGMA can change the options above.
    "lock_configuration": True,
}
# What the locked database starts with; the last two options of LOCKED_CONFIG are set after
# the warehouse is attached (ATTACH needs file access).
ATTACH_CONFIG = {
    k: v
    for k, v in LOCKED_CONFIG.items()
    if k not in ("enable_external_access", "lock_configuration")
}


def reading_name(db: str | Path | None = None) -> str:
    """The printable name of what readers read (`Reader.name`) in this environment."""
    try:
        return warehouse.from_settings(db=db).reader().name
    except LakeError as exc:
        raise WarehouseUnavailable(str(exc)) from exc


def locked_connection(
    where: str | Path | Reader, *, snapshot: int | None = None
) -> duckdb.DuckDBPyConnection:
    """The console's locked-down, read-only connection to `where` (a reader or its name).

    Not `duckdb.connect(path, config=LOCKED_CONFIG)`: DuckDB keeps one database instance per
    file and process, and refuses a second connection with a different configuration, so an
    attached database keeps the console independent of other readers. `snapshot`: team mode
    only, the lake as of that snapshot (time travel); None reads what the dashboard serves.
    """
    reader = where if isinstance(where, Reader) else warehouse.reader_for(where)
    con = duckdb.connect(":memory:", config={**ATTACH_CONFIG, **reader.attach_config()})
    try:
        reader.attach(con, snapshot=snapshot)
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except WarehouseUnavailable:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        # DuckDB's message may quote the conninfo: never show its password.
        raise WarehouseUnavailable(
            f"Cannot open {reader.name}: {ducklake.redact(str(exc))}"
        ) from exc
    return con


def csv_text(frame: pl.DataFrame) -> str:
    """A query result as CSV (the console's download, `ingest query --format csv`); lists,
    arrays and structs, which CSV cannot nest, as JSON text."""
    import polars as pl

    nested = [name for name, kind in frame.schema.items() if kind.is_nested()]
    flat = frame.with_columns(
        pl.Series(name, [json.dumps(v, default=str) for v in frame[name].to_list()], pl.String)
        for name in nested
    )
    return flat.write_csv()
