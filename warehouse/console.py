"""The analysts' SQL console: the dashboard's SQL page and `ingest query` run SQL through it.

Defence in depth, each layer enough on its own for most attacks:
1. `sql_policy.validate`: one SELECT whose every function, table function and table is on an
   allow-list (DuckDB's own parse tree, not names found in the text).
2. The query runs in a child process (`console_worker`) on a fresh in-memory database with the
   warehouse attached read-only, external access off, extension autoloading off, one thread,
   a DuckDB memory cap, and the configuration locked so the query cannot turn any of that back
   on. The child caps its own address space, each cell's length and the result's rows and
   bytes before anything reaches this process.
3. The child is killed (SIGKILL) and reaped at `timeout_s`, whatever it is doing
   (`console_pool`); at most `MAX_CHILDREN` queries run at once, so the server's cores and
   memory stay bounded however often Run is clicked.

The same limits hold for `ingest query` (a CI job cannot hang on a runaway query or grow past
the memory cap): `LIMITS_TEXT` states them for the page, `--help` and the contract.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.ipc

import warehouse
from warehouse import Reader, WarehouseUnavailable, console_pool
from warehouse.console_pool import MAX_IDLE, SPARES, shutdown
from warehouse.console_worker import LOCKED_CONFIG, Outcome, Request, locked_connection
from warehouse.readers import csv_text
from warehouse.sql_policy import QueryRejected, validate

__all__ = [
    "LOCKED_CONFIG",
    "MAX_IDLE",
    "SPARES",
    "ConsoleResult",
    "QueryRejected",
    "locked_connection",
    "run_query",
    "shutdown",
    "to_csv",
    "validate",
]

DEFAULT_TIMEOUT_S = 10.0
DEFAULT_MAX_ROWS = 10_000
DEFAULT_MAX_BYTES = 32 * 1024 * 1024  # Arrow bytes of the whole result
DEFAULT_MAX_CELL_CHARS = 2_000
# Address space a child may add to what it maps at start-up (DuckDB's own cap is 256 MB).
CHILD_MEMORY_BYTES = 768 * 1024 * 1024
# Two cores on the serving host: at most this many console queries run at once; the others
# wait for a slot until their own time limit.
MAX_CHILDREN = 2
_SLOTS = threading.BoundedSemaphore(MAX_CHILDREN)
LIMITS_TEXT = (
    f"stopped after {DEFAULT_TIMEOUT_S:g} s, at most {CHILD_MEMORY_BYTES / 2**20:g} MB of "
    f"memory (DuckDB's own cap: 256 MB), {DEFAULT_MAX_ROWS:,} rows and "
    f"{DEFAULT_MAX_BYTES / 2**20:g} MB of result"
)


@dataclass(frozen=True, slots=True)
class ConsoleResult:
    frame: pl.DataFrame
    truncated: bool  # rows or bytes were left out: `notes` says which and why
    elapsed_s: float
    notes: tuple[str, ...] = ()


def _notes(outcome: Outcome, max_rows: int, max_bytes: int, max_cell_chars: int) -> list[str]:
    """What the caps cut, in words for the analyst."""
    notes = []
    if outcome.more_rows:
        notes.append(f"Only the first {max_rows:,} rows are shown (the row limit).")
    if outcome.byte_capped and outcome.rows == 0:
        notes.append(f"No row is shown: the first row alone is larger than the "
                     f"{max_bytes / 2**20:g} MB limit.")  # fmt: skip
    elif outcome.byte_capped:
        notes.append(
            f"Only the first {outcome.rows:,} rows are shown: the result is larger than the "
            f"{max_bytes / 2**20:g} MB limit."
        )
    if outcome.cut_columns:
        notes.append(
            f"Text longer than {max_cell_chars:,} characters was cut in: "
            + ", ".join(outcome.cut_columns)
            + "."
        )
    return notes


def _run_child(
    request: Request, kind: str, timeout_s: float, limit_s: float, spares: int
) -> Outcome:
    """`request` run by a worker process, killed after `timeout_s` (what is left of the
    analyst's `limit_s`)."""
    try:
        return console_pool.run(request, kind, timeout_s, spares=spares)
    except console_pool.TimedOut:
        raise QueryRejected(
            f"The query ran longer than the {limit_s:g} s limit and was stopped "
            "(its process was ended)."
        ) from None
    except console_pool.NoAnswer as exc:
        raise QueryRejected(
            f"The query's process ended without an answer ({exc}); most likely it needed more "
            f"than the console's {CHILD_MEMORY_BYTES / 2**20:g} MB of memory."
        ) from None


def run_query(
    where: str | Path | Reader,
    sql: str,
    *,
    snapshot: int | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_rows: int = DEFAULT_MAX_ROWS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_cell_chars: int = DEFAULT_MAX_CELL_CHARS,
    spares: int = SPARES,
) -> ConsoleResult:
    """Validate `sql` and run it in a child process under the time, memory and size caps,
    on the served version of `where` (a reader or its name), or on a lake as of `snapshot`.

    Raises QueryRejected (refused before or while running, including the time limit) or
    WarehouseUnavailable.
    """
    statement = validate(sql)
    started = time.monotonic()
    if not _SLOTS.acquire(timeout=timeout_s):
        raise QueryRejected(
            f"The console is busy ({MAX_CHILDREN} queries running); try again in a moment."
        )
    try:
        with tempfile.TemporaryDirectory(prefix="sql-console-") as tmp:
            out_path = Path(tmp) / "result.arrow"
            reader = where if isinstance(where, Reader) else warehouse.reader_for(where)
            request = Request(
                reader.child_settings(), statement, str(out_path), max_rows, max_bytes,
                max_cell_chars, CHILD_MEMORY_BYTES, snapshot,
            )  # fmt: skip
            remaining = max(timeout_s - (time.monotonic() - started), 0.1)
            outcome = _run_child(request, type(reader).__name__, remaining, timeout_s, spares)
            if not outcome.ok:
                _raise_for(outcome)
            with pa.ipc.open_file(out_path) as ipc:  # read into memory, not mapped
                frame = pl.from_arrow(ipc.read_all())
    finally:
        _SLOTS.release()
    notes = _notes(outcome, max_rows, max_bytes, max_cell_chars)
    return ConsoleResult(
        frame=frame,
        truncated=bool(notes),
        elapsed_s=time.monotonic() - started,
        notes=tuple(notes),
    )


def _raise_for(outcome: Outcome) -> None:
    if outcome.error_kind == "unavailable":
        raise WarehouseUnavailable(outcome.error)
    if outcome.error_kind == "memory":
        # DuckDB's own advice (SET memory_limit...) is not open to console users: drop it.
        raise QueryRejected(
            f"The query needed more than the console's {CHILD_MEMORY_BYTES / 2**20:g} MB of "
            f"memory and was stopped ({outcome.error.splitlines()[0]}). Select fewer or "
            "smaller values, or aggregate."
        )
    raise QueryRejected(f"DuckDB refused the query: {outcome.error}")


def to_csv(frame: pl.DataFrame) -> bytes:
    """The frame as CSV; lists, arrays and structs (CSV has no nesting) as JSON text."""
    return csv_text(frame).encode("utf-8")
