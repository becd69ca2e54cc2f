"""Short-lived read-only connections to the warehouse.

Every query opens `duckdb.connect(path, read_only=True)`, reads, and closes again, so the
dashboard never holds a handle that blocks `dbt build` or `python -m ingest load` (DuckDB lets
one process write a file, and a writer's lock also keeps readers from other processes out).
While a writer holds the lock we retry briefly and then say so instead of failing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from ingest import settings
from ingest.publish import serving_path

__all__ = [
    "WarehouseUnavailable",
    "marts_columns",
    "read_df",
    "read_only",
    "warehouse_path",
]

LOCK_RETRIES = 4
LOCK_RETRY_DELAY_S = 0.5


def warehouse_path(cli_value: str | None = None) -> Path:
    """The file the dashboard reads: the serving snapshot, else the main warehouse file.

    Writers publish `<db stem>.serving.duckdb` (or `PERF_SERVING_PATH`) after each load and
    build (ingest/publish.py), so reading it never blocks them nor waits for them. Before the
    first publish only the main file exists; it is read with the bounded lock retry below.
    """
    main = settings.warehouse_path(cli_value)
    snapshot = serving_path(main)
    return snapshot if snapshot.is_file() else main


class WarehouseUnavailable(RuntimeError):
    """The warehouse file is missing, locked by a writer, or not a DuckDB database."""


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc).lower()
    return "lock" in text and ("conflicting" in text or "could not set" in text)


def connect_read_only(
    path: str | Path,
    *,
    config: dict[str, Any] | None = None,
    retries: int = LOCK_RETRIES,
    delay_s: float = LOCK_RETRY_DELAY_S,
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-only; raise WarehouseUnavailable with a message a user can act on."""
    db_file = Path(path)
    if not db_file.is_file():
        raise WarehouseUnavailable(
            f"No warehouse at {db_file}. Build it first (`bash scripts/main.sh --no-serve`) "
            "or point PERF_DUCKDB_PATH at an existing warehouse file."
        )
    for attempt in range(retries + 1):
        try:
            return duckdb.connect(str(db_file), read_only=True, config=config or {})
        except duckdb.IOException as exc:
            if not _is_lock_error(exc):
                raise WarehouseUnavailable(f"Cannot open {db_file}: {exc}") from exc
            if attempt == retries:
                raise WarehouseUnavailable(
                    f"The warehouse {db_file} is locked by a writer (probably `dbt build` or "
                    "`python -m ingest load`). Try again when it has finished."
                ) from exc
            time.sleep(delay_s)
    raise AssertionError("unreachable")  # the loop returns or raises


@contextmanager
def read_only(path: str | Path, **kwargs: Any) -> Iterator[duckdb.DuckDBPyConnection]:
    con = connect_read_only(path, **kwargs)
    try:
        yield con
    finally:
        con.close()


def read_df(path: str | Path, sql: str, params: dict[str, Any] | list[Any] | None = None):
    """Run one query on a fresh read-only connection and return a pandas DataFrame."""
    with read_only(path) as con:
        return con.execute(sql, params).df() if params else con.execute(sql).df()


def marts_columns(path: str | Path) -> dict[str, list[str]]:
    """Tables of the `marts` schema and their columns, in column order."""
    df: pd.DataFrame = read_df(
        path,
        "select table_name, column_name from information_schema.columns "
        "where table_schema = 'marts' order by table_name, ordinal_position",
    )
    out: dict[str, list[str]] = {}
    for table, column in zip(df["table_name"], df["column_name"], strict=True):
        out.setdefault(table, []).append(column)
    return out
