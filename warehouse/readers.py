"""How readers open the warehouse: the dashboard, its SQL console and `ingest query`.

Readers name the warehouse by one string (`reading_name()`): the file they read in file mode
(the serving snapshot once published, else the main file), or in team mode the lake's
`ducklake:postgres:<conninfo>` with the password shown as `***`, so the name can be printed and
handed to a child process (the console's workers) without leaking it; `reader_target()` turns
the name back into the lake of PERF_WAREHOUSE / PERF_LAKE_DATA_PATH, which every child inherits.

In team mode a reader sees the published snapshot (`serving.publications`, see warehouse.lake),
and the latest snapshot before the first publish (as file mode reads the main file until then).

`locked_connection()` is the console's connection, shared with `ingest query` (the app and
`ingest` do not import each other): an in-memory DuckDB with the warehouse attached read-only,
then file access switched off (in team mode, all but the lake's data folder: DuckLake reads its
Parquet files through the file system) and the configuration locked, so a query cannot undo it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

import warehouse
from warehouse import WarehouseUnavailable, lake
from warehouse.lake import LAKE_PREFIX, LakeError, Target

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
    **warehouse.DUCKDB_CONFIG,
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
# The catalog name a file warehouse is attached under (the lake's is warehouse.lake.LAKE_ALIAS).
FILE_CATALOG = "warehouse"


def is_lake_name(where: str | Path) -> bool:
    return str(where).startswith(LAKE_PREFIX)


def reading_name(db: str | Path | None = None) -> str:
    """What readers read, as one printable string (see the module docstring)."""
    tgt = lake.target(file_default=warehouse.main_path(db))
    if tgt.is_lake:
        return LAKE_PREFIX + lake.redact(tgt.conninfo or "")
    return str(warehouse.reading_path(db))


def reader_target(where: str | Path) -> Target:
    """The warehouse a reading name stands for. A redacted lake name is the lake of the
    environment; a file name is that file."""
    text = str(where)
    if not is_lake_name(text):
        return Target(file=Path(text))
    return lake.target(None if "***" in text else text)


def published_or_latest(con: duckdb.DuckDBPyConnection) -> int:
    """The snapshot a reader serves: the published one, else (nothing published yet) the
    latest, as file mode reads the main file until the first publish."""
    published = lake.published_snapshot(con)
    return lake.current_snapshot(con) if published is None else published


def _attach_file(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    # Reuse the main connect's checks (missing file, a writer's lock) and messages.
    warehouse.connect(path, read_only=True).close()
    # ATTACH takes no bound parameters; the path is our own setting, quoted as a literal.
    literal = str(path).replace("'", "''")
    con.execute(f"attach '{literal}' as {FILE_CATALOG} (read_only)")
    con.execute(f"use {FILE_CATALOG}")


def _attach_lake(con: duckdb.DuckDBPyConnection, tgt: Target, snapshot: int | None) -> None:
    """The lake attached read-only as of `snapshot` (None: published, else latest)."""
    con.execute(lake.attach_sql(tgt, read_only=True))
    if snapshot is None:
        snapshot = published_or_latest(con)
    elif snapshot > lake.current_snapshot(con) or snapshot < 0:
        raise WarehouseUnavailable(
            f"The lake has no snapshot {snapshot} (the latest is {lake.current_snapshot(con)}); "
            "`select snapshot_id, snapshot_time, changes from lake.snapshots()` lists them."
        )
    con.execute(f"detach {lake.LAKE_ALIAS}")
    con.execute(lake.attach_sql(tgt, snapshot=snapshot))
    con.execute(f"use {lake.LAKE_ALIAS}")
    data = tgt.data_path or ""
    if "://" not in data:  # DuckLake reads its Parquet files through the file system
        con.execute("set allowed_directories = [" + "'" + data.replace("'", "''") + "']")


def locked_connection(
    where: str | Path | Target, *, snapshot: int | None = None
) -> duckdb.DuckDBPyConnection:
    """The console's locked-down, read-only connection to `where` (a reading name).

    Not `duckdb.connect(path, config=LOCKED_CONFIG)`: DuckDB keeps one database instance per
    file and process, and refuses a second connection with a different configuration, so an
    attached database keeps the console independent of other readers. `snapshot`: team mode
    only, the lake as of that snapshot (time travel); None reads what the dashboard serves.
    """
    tgt, config = _target_and_config(where)
    if snapshot is not None and not tgt.is_lake:
        raise WarehouseUnavailable("--snapshot reads a lake as of a snapshot: team mode only")
    con = duckdb.connect(":memory:", config=config)
    try:
        if tgt.is_lake:
            _attach_lake(con, tgt, snapshot)
        else:
            _attach_file(con, tgt.file or Path())
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except WarehouseUnavailable:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        # DuckDB's message may quote the conninfo: never show its password.
        raise WarehouseUnavailable(
            f"Cannot open {tgt.describe()}: {lake.redact(str(exc))}"
        ) from exc
    return con


def _target_and_config(where: str | Path | Target) -> tuple[Target, dict[str, object]]:
    """The target and the locked database's start-up configuration (in team mode with the
    extension directory of warehouse.lake: nothing is downloaded)."""
    try:
        tgt = where if isinstance(where, Target) else reader_target(where)
        if not tgt.is_lake:
            return tgt, ATTACH_CONFIG
        # DuckLake's ATTACH looks its catalog's credentials up in the persistent secret
        # storage (also where an object store's keys for the data path live); the console's
        # statements cannot read or create secrets (warehouse.sql_policy).
        return tgt, {**lake.duckdb_config(), **ATTACH_CONFIG, "allow_persistent_secrets": True}
    except LakeError as exc:
        raise WarehouseUnavailable(str(exc)) from exc


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
