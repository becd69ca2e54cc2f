"""One console query in a process of its own, so that it can really be stopped.

DuckDB cannot interrupt every operator (a `levenshtein` over 150,000-character strings runs to
its end), and a query's memory is the process's memory. So the server never runs console SQL:
it starts `python -m warehouse.console_worker`, writes one JSON request to its stdin, and kills
the process at the time limit. This process caps itself before it touches the query:

- address space (RLIMIT_AS) = what it uses after start-up + `memory_bytes`, so a runaway
  allocation fails here and never in the server; DuckDB's own `memory_limit` is below that
  and `threads` is 1, so one query uses one core, at nice 10, below the server's pages;
- the result is read in Arrow record batches, each text/blob cell cut to `max_cell_chars`,
  and reading stops at `max_rows` rows or `max_bytes` bytes, whichever comes first: the
  server never receives more than that.

The capped result goes to the Arrow IPC file named in the request; one JSON line on stdout
says what was cut, or what went wrong. The request names the warehouse by its reader's
settings (`Reader.child_settings`: a file, or a lake and its data folder), read as of the
published version.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc

import warehouse
from warehouse import WarehouseUnavailable
from warehouse.readers import LOCKED_CONFIG, locked_connection

__all__ = ["LOCKED_CONFIG", "Outcome", "Request", "locked_connection", "main", "serve"]

# Rows per Arrow batch: small, so that one batch of wide rows (lists, long text) stays far
# below the memory cap and the byte cap cuts close to its limit.
BATCH_ROWS = 128
NICENESS = 10


@dataclass(frozen=True, slots=True)
class Request:
    # `Reader.child_settings()`: may hold a lake's password (a pipe to our own child, never
    # printed), so a worker needs no environment.
    warehouse: dict[str, str]
    statement: str
    out_path: str
    max_rows: int
    max_bytes: int
    max_cell_chars: int
    memory_bytes: int
    snapshot: int | None = None  # a lake as of this snapshot; None: the served version


@dataclass(slots=True)
class Outcome:
    ok: bool = True
    error: str = ""
    error_kind: str = ""  # "unavailable" (the warehouse), "memory", or "refused" (by DuckDB)
    rows: int = 0
    bytes: int = 0
    more_rows: bool = False  # rows beyond max_rows were not read
    byte_capped: bool = False  # reading stopped at max_bytes
    cut_columns: list[str] = field(default_factory=list)  # columns with cells cut short
    headroom_bytes: int = 0  # address space left under the cap after the query
    pid: int = 0  # the worker that answered (reused while healthy)


def _vm_size_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


def limit_memory(extra_bytes: int) -> int:
    """Cap this process's address space at its current size plus `extra_bytes`; the cap.

    Relative, not absolute: the libraries already mapped (DuckDB, Arrow) reserve several
    hundred MB of address space that they never touch, and that varies by build."""
    limit = _vm_size_bytes() + extra_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return limit


def _cap_cells(batch: pa.RecordBatch, max_chars: int, cut: set[str]) -> pa.RecordBatch:
    """The batch with every text cell cut to `max_chars` characters (blobs to bytes)."""
    columns = []
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        kind = column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            lengths = pc.utf8_length(column)
            if (pc.max(lengths).as_py() or 0) > max_chars:
                column = pc.utf8_slice_codeunits(column, 0, max_chars)
                cut.add(name)
        elif (pa.types.is_binary(kind) or pa.types.is_large_binary(kind)) and (
            pc.max(pc.binary_length(column)).as_py() or 0
        ) > max_chars:
            column = pc.binary_slice(column, 0, max_chars)
            cut.add(name)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)


def _rows_within(batch: pa.RecordBatch, budget: int) -> int:
    """The most leading rows of `batch` whose Arrow size fits in `budget` bytes."""
    low, high = 0, batch.num_rows
    while low < high:
        mid = (low + high + 1) // 2
        if batch.slice(0, mid).nbytes <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def fetch_capped(
    reader: pa.RecordBatchReader, sink: pa.ipc.RecordBatchFileWriter, request: Request
) -> Outcome:
    """Copy batches from `reader` to `sink` until a row, byte or end-of-result stop."""
    outcome, cut = Outcome(), set[str]()
    for raw in reader:
        batch = _cap_cells(raw, request.max_cell_chars, cut)
        room_rows = request.max_rows - outcome.rows
        if batch.num_rows > room_rows:
            batch, outcome.more_rows = batch.slice(0, room_rows), True
        room_bytes = request.max_bytes - outcome.bytes
        if batch.nbytes > room_bytes:
            batch = batch.slice(0, _rows_within(batch, room_bytes))
            outcome.byte_capped, outcome.more_rows = True, False
        if batch.num_rows:
            sink.write_batch(batch)
            outcome.rows += batch.num_rows
            outcome.bytes += batch.nbytes
        if outcome.more_rows or outcome.byte_capped:
            break
    outcome.cut_columns = sorted(cut)
    return outcome


def run(request: Request) -> Outcome:
    con = locked_connection(
        warehouse.reader_from_settings(request.warehouse), snapshot=request.snapshot
    )
    try:
        # LIMIT on the lazy relation: rows past max_rows + 1 are never computed.
        relation = con.sql(request.statement).limit(request.max_rows + 1)
        reader = relation.to_arrow_reader(BATCH_ROWS)
        with pa.ipc.new_file(request.out_path, reader.schema) as sink:
            return fetch_capped(reader, sink, request)
    finally:
        con.close()


def serve(request: Request) -> Outcome:
    """`run`, with every failure the analyst should read turned into an Outcome."""
    try:
        return run(request)
    except WarehouseUnavailable as exc:
        return Outcome(ok=False, error=str(exc), error_kind="unavailable")
    # OSError: Arrow's reader reports DuckDB's allocation failures as an OSError.
    except (duckdb.Error, MemoryError, OSError) as exc:
        memory = isinstance(exc, MemoryError) or "out of memory" in str(exc).lower()
        return Outcome(ok=False, error=str(exc), error_kind="memory" if memory else "refused")
    except Exception as exc:  # the process boundary: the analyst reads why, the worker lives
        return Outcome(ok=False, error=f"{type(exc).__name__}: {exc}", error_kind="refused")


def _preload(request: Request) -> None:
    """Load what attaching needs before the cap is set: a lake's extensions map about 850 MB
    of address space (libraries and reservations, barely touched) once per process; counted
    under the cap, they would leave a query nothing."""
    with contextlib.suppress(WarehouseUnavailable):  # the query's own attach says what is wrong
        warehouse.reader_from_settings(request.warehouse).preload()


def main() -> int:
    """Answer requests, one JSON line each, until EOF (the server closed the pipe)."""
    limit = 0
    while line := sys.stdin.readline():
        if not line.strip():
            break
        request = Request(**json.loads(line))
        if not limit:  # once: the caps are on the whole process, for every query it serves
            _preload(request)
            limit = limit_memory(request.memory_bytes)
            # Queries yield the CPU to the server and to spare workers still starting up.
            os.nice(NICENESS)
        outcome = serve(request)
        # Memory the allocator kept after this query is not available to the next one.
        outcome.headroom_bytes, outcome.pid = limit - _vm_size_bytes(), os.getpid()
        sys.stdout.write(json.dumps(asdict(outcome)) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    # Every answer is written and every file closed: skip the interpreter's teardown of DuckDB
    # and Arrow (a fifth of a second), which the server would otherwise wait for.
    os._exit(status)
