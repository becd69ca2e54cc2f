"""The analysts' SQL console, without Streamlit so tests can call it directly.

Defence in depth, each layer enough on its own for most attacks:
1. The text must be one statement that DuckDB's own parser calls a SELECT and that starts with
   SELECT or WITH (DuckDB rewrites PRAGMA into a SELECT, so the parser's type alone is not
   enough); file and external-data functions (read_csv, glob...) and string-literal table
   scans (`from '/etc/passwd'`) are refused by name.
2. It runs on a fresh in-memory database with the warehouse attached read-only, external
   access off (no file, network, ATTACH, COPY or extension install/load), extension
   autoloading off, one thread, a memory cap, and the configuration locked so the query
   cannot turn any of that back on.
3. A watchdog interrupts the query after `timeout_s`; at most `max_rows` rows come back.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from warehouse import WarehouseUnavailable, connect

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_ROWS = 10_000

LOCKED_CONFIG: dict[str, object] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "allow_unsigned_extensions": False,
    "allow_persistent_secrets": False,
    "threads": 1,
    "max_memory": "1GB",
    # Last: once locked, no SET/RESET/PRAGMA can change the options above.
    "lock_configuration": True,
}
# What the console's in-memory database starts with; the last two options of LOCKED_CONFIG are
# set after the warehouse is attached (see locked_connection).
ATTACH_CONFIG = {
    k: v
    for k, v in LOCKED_CONFIG.items()
    if k not in ("enable_external_access", "lock_configuration")
}

# Table functions and scalar functions that read files, URLs or other databases, or run
# SQL text of their own. External access off already blocks the file ones; refusing them
# by name gives the analyst a clear reason instead of a permission error.
FORBIDDEN_FUNCTIONS = frozenset(
    {
        "read_csv",
        "read_csv_auto",
        "read_parquet",
        "parquet_scan",
        "parquet_metadata",
        "parquet_schema",
        "parquet_file_metadata",
        "parquet_kv_metadata",
        "read_json",
        "read_json_auto",
        "read_json_objects",
        "read_json_objects_auto",
        "read_ndjson",
        "read_ndjson_auto",
        "read_ndjson_objects",
        "read_text",
        "read_blob",
        "read_xlsx",
        "sniff_csv",
        "glob",
        "query",
        "query_table",
        "sqlite_scan",
        "sqlite_attach",
        "postgres_scan",
        "postgres_attach",
        "mysql_scan",
        "delta_scan",
        "iceberg_scan",
        "duckdb_secrets",
        "load_aws_credentials",
    }
)
_LEADING = re.compile(r"^[\s(]*(\w+)", re.IGNORECASE)
_IDENT_CALL = re.compile(r"\b([a-z_][a-z0-9_]*)\s*\(", re.IGNORECASE)
_FROM_STRING = re.compile(r"\b(from|join)\s*'", re.IGNORECASE)


class QueryRejected(ValueError):
    """The statement is not allowed in the console (reason in the message)."""


@dataclass(frozen=True, slots=True)
class ConsoleResult:
    frame: pl.DataFrame
    truncated: bool  # more than max_rows rows matched; only the first max_rows are in `frame`
    elapsed_s: float


def _strip_comments_and_strings(sql: str) -> str:
    """The SQL with comments removed and string/quoted-identifier contents blanked.

    Keywords inside a string literal ('how to copy') must not trip the keyword check, and a
    keyword hidden in a comment must not hide the statement's real first word.
    """
    out: list[str] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end == -1 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end == -1 else end + 2
            out.append(" ")
        elif ch in "'\"":
            end = i + 1
            while end < n:
                if sql[end] == ch:
                    if end + 1 < n and sql[end + 1] == ch:  # doubled quote escapes itself
                        end += 2
                        continue
                    break
                end += 1
            out.append(ch + " " * (end - i - 1) + ch)
            i = end + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def validate(sql: str) -> str:
    """The statement to run, or QueryRejected saying why not."""
    if not sql or not sql.strip():
        raise QueryRejected("The query is empty.")
    bare = _strip_comments_and_strings(sql)
    leading = _LEADING.match(bare)
    first = leading.group(1).lower() if leading else ""
    if first not in {"select", "with"}:
        raise QueryRejected(
            f"Only a single SELECT or WITH query is allowed (this one starts with {first!r})."
        )
    try:
        statements = duckdb.connect(":memory:").extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryRejected(f"The query does not parse: {exc}") from exc
    if len(statements) != 1:
        raise QueryRejected(f"Exactly one statement is allowed ({len(statements)} given).")
    if statements[0].type != duckdb.StatementType.SELECT:
        raise QueryRejected(f"Only SELECT is allowed (this is {statements[0].type.name}).")
    functions = sorted(
        {m.group(1).lower() for m in _IDENT_CALL.finditer(bare)} & FORBIDDEN_FUNCTIONS
    )
    if functions:
        raise QueryRejected(f"File and external functions are not allowed: {', '.join(functions)}.")
    if _FROM_STRING.search(bare):
        raise QueryRejected("Reading a file by name (FROM '<path>') is not allowed.")
    # The relation API takes the statement without its trailing semicolon.
    return statements[0].query.strip().rstrip(";").strip()


def locked_connection(path: str | Path) -> duckdb.DuckDBPyConnection:
    """An in-memory database with the warehouse ATTACHed read-only, then locked down.

    Not `duckdb.connect(path, config=LOCKED_CONFIG)`: DuckDB keeps one database instance per
    file and process, and refuses a second connection with a different configuration ("Can't
    open a connection to same database file with a different configuration"), so a console
    query would fail whenever a page's query was running, and block every page while it ran.
    An attached database is a separate instance. External access is switched off and the
    configuration locked only after the ATTACH, which needs file access.
    """
    # Reuse the main connect's checks (missing file, a writer's lock) and messages.
    connect(path, read_only=True).close()
    con = duckdb.connect(":memory:", config=ATTACH_CONFIG)
    try:
        # ATTACH takes no bound parameters; the path is our own setting, quoted as a literal.
        con.execute("attach '" + str(path).replace("'", "''") + "' as warehouse (read_only)")
        con.execute("use warehouse")
        con.execute("set enable_external_access = false")
        con.execute("set lock_configuration = true")
    except duckdb.Error as exc:
        con.close()
        raise WarehouseUnavailable(f"Cannot open {path}: {exc}") from exc
    return con


def run_query(
    path: str | Path,
    sql: str,
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_rows: int = DEFAULT_MAX_ROWS,
) -> ConsoleResult:
    """Validate and run `sql` on a locked-down read-only connection.

    Raises QueryRejected (refused before or while running, including the time limit) or
    WarehouseUnavailable.
    """
    statement = validate(sql)
    con = locked_connection(path)
    outcome: dict[str, object] = {}

    def work() -> None:
        try:
            # A relation is lazy: LIMIT wraps the query, so a huge result is never built.
            frame = con.sql(statement).limit(max_rows + 1).pl()
            outcome["frame"] = frame.head(max_rows)
            outcome["truncated"] = len(frame) > max_rows
        except Exception as exc:  # handed to the caller's thread below
            outcome["error"] = exc

    started = time.monotonic()
    worker = threading.Thread(target=work, name="sql-console", daemon=True)
    try:
        worker.start()
        worker.join(timeout_s)
        if worker.is_alive():
            con.interrupt()
            worker.join(5)
            raise QueryRejected(
                f"The query ran longer than the {timeout_s:g} s limit and was stopped."
            )
    finally:
        if not worker.is_alive():
            con.close()
    error = outcome.get("error")
    if isinstance(error, duckdb.Error):
        raise QueryRejected(f"DuckDB refused the query: {error}") from error
    if isinstance(error, Exception):
        raise error
    return ConsoleResult(
        frame=outcome["frame"],  # type: ignore[arg-type]
        truncated=bool(outcome["truncated"]),
        elapsed_s=time.monotonic() - started,
    )


def to_csv(frame: pl.DataFrame) -> bytes:
    return frame.write_csv().encode("utf-8")
