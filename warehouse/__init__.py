"""The warehouse: one interface, chosen once, that every other package talks to.

`from_settings()` is the one place the kind of warehouse is decided, from `--warehouse` /
PERF_WAREHOUSE (a DuckDB file, or `ducklake:postgres:<conninfo>` with `--data-path` /
PERF_LAKE_DATA_PATH for team mode), else the file of `--db` / PERF_DUCKDB_PATH /
data/warehouse.duckdb. It returns a `Warehouse` (warehouse.base): `FileWarehouse`
(warehouse.file) or `LakeWarehouse` (warehouse.lake). `reader_for(name)` turns a reader's
printable name (the dashboard's cache key) back into its `Reader`, and `reader_from_settings`
does the same for a child process of ours.

Beside the interface: `filelock` (one writer at a time on a file), `ducklake` (the lake's
mechanics), `readers` (the console's locked-down connection), `sql_policy` (what the console
runs), `child` (child processes that die with their parent), and the commands that work on
the warehouse itself: `build` (`ingest build` / `ingest locked`; what a build redoes is
`build_state`), `query` and `migrate`.
"""

from __future__ import annotations

import os
from pathlib import Path

from warehouse import ducklake
from warehouse.base import (
    DUCKDB_CONFIG,
    REPO_ROOT,
    MissingFile,
    Reader,
    ResultsTableMissing,
    ServingStatus,
    ValidationNotRecorded,
    ValidationReport,
    Warehouse,
    WarehouseLost,
    WarehouseUnavailable,
    WriterBusy,
    kill_point,
)
from warehouse.ducklake import LAKE_PREFIX, LakeError
from warehouse.ducklake import redact as redact_passwords
from warehouse.file import FileWarehouse, main_path, reader_of_file
from warehouse.lake import LakeWarehouse

__all__ = [
    "DUCKDB_CONFIG",
    "REPO_ROOT",
    "FileWarehouse",
    "LakeError",
    "LakeWarehouse",
    "MissingFile",
    "Reader",
    "ResultsTableMissing",
    "ServingStatus",
    "ValidationNotRecorded",
    "ValidationReport",
    "Warehouse",
    "WarehouseLost",
    "WarehouseUnavailable",
    "WriterBusy",
    "from_settings",
    "kill_point",
    "reader_for",
    "reader_from_settings",
    "redact_passwords",
]


def from_settings(
    warehouse: str | None = None,
    *,
    db: str | os.PathLike[str] | None = None,
    data_path: str | None = None,
) -> Warehouse:
    """The warehouse: `warehouse` (--warehouse), else PERF_WAREHOUSE, else the file of `db`
    (--db), PERF_DUCKDB_PATH or data/warehouse.duckdb. Raises LakeError for a lake setting
    that cannot be used (no data path, an unsupported catalog)."""
    value = warehouse or os.environ.get("PERF_WAREHOUSE") or ""
    if ducklake.is_lake_setting(value):
        where = ducklake.address(value, data_path)
        return LakeWarehouse(where.conninfo, where.data_path)
    if value:
        return FileWarehouse(Path(value).expanduser().absolute())
    return FileWarehouse(main_path(db))


def reader_for(name: str | os.PathLike[str]) -> Reader:
    """The reader a printable name stands for (`Reader.name`): a file's path, or a lake's
    name with its password shown as `***`, which is the lake of this environment."""
    text = str(name)
    if not text.startswith(LAKE_PREFIX):
        return reader_of_file(Path(text))
    try:
        return from_settings(None if "***" in text else text).reader()
    except LakeError as exc:
        raise WarehouseUnavailable(str(exc)) from exc


def reader_from_settings(settings: dict[str, str]) -> Reader:
    """The reader `Reader.child_settings()` describes (in a child process of ours)."""
    value = settings["warehouse"]
    if not value.startswith(LAKE_PREFIX):
        return reader_of_file(Path(value))
    try:
        return from_settings(value, data_path=settings.get("data_path")).reader()
    except LakeError as exc:
        raise WarehouseUnavailable(str(exc)) from exc
