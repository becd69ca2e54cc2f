"""`python -m ingest query [--format table|csv|json] [--snapshot N] "SQL"`: read-only ad-hoc SQL.

The dashboard console's rules and limits (`warehouse.console`): one SELECT or WITH over
`marts.*` and `data_quality.*` with DuckDB's analysis functions, on a read-only attachment with
file access off and the configuration locked, in a child process that is stopped at the time
limit (`--timeout`, default the console's 10 s) and capped in memory (the console's cap) and in
result size, so a CI job can neither hang nor grow without bound. It reads what the dashboard
serves: the published version (file mode: the serving snapshot; team mode: the published lake
snapshot), else, before the first publish, the main file or the latest snapshot. `--snapshot N`
reads a lake as of snapshot N (time travel).

Output on stdout: `table` (rich), `csv` (a header line; nested values as JSON text) or `json`
(one JSON array of row objects; NaN and Infinity, which JSON lacks, as null). At most
`--max-rows` rows and the console's result size (a note on stderr says what was left out);
text is never cut shorter than that. Exit 1 with a message on stderr for a refused or stopped
statement, an error DuckDB reports (an unknown table) or a warehouse that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from warehouse import console as sql_console
from warehouse import readers
from warehouse.base import Warehouse
from warehouse.sql_policy import QueryRejected

DEFAULT_MAX_ROWS = 10_000


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1 (`--max-rows -5` is a usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        # WarehouseUnavailable (no file, lake unreachable, no such snapshot): ingest's main says so.
        result = sql_console.run_query(
            wh.reader(),
            args.sql,
            snapshot=args.snapshot,
            timeout_s=args.timeout,
            max_rows=args.max_rows,
            # Text is not cut shorter than the result's byte cap allows.
            max_cell_chars=sql_console.DEFAULT_MAX_BYTES,
            spares=0,  # one query: no worker started ahead for a next one
        )
    except QueryRejected as exc:
        errors.print(f"[red]refused:[/] {escape(str(exc))}")
        return 1
    for note in result.notes:
        errors.print(f"note: {escape(note)}")
    write(result.frame, args.format, console)
    return 0


def write(frame: pl.DataFrame, fmt: str, console: Console) -> None:
    if fmt == "csv":
        sys.stdout.write(readers.csv_text(frame))
    elif fmt == "json":
        # NaN and Infinity are not JSON: as null, like a missing value (nested ones too).
        rows = [_finite(row) for row in frame.to_dicts()]
        text = json.dumps(rows, default=_json_value, ensure_ascii=False, allow_nan=False)
        sys.stdout.write(text + "\n")
    else:
        console.print(_table(frame))
    sys.stdout.flush()


def _finite(value: object) -> object:
    """`value` with every NaN or infinite float, at any depth, as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _json_value(value: object) -> object:
    """Dates and times as ISO 8601, decimals and the rest as their text."""
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def _table(frame: pl.DataFrame) -> Table:
    table = Table(caption=f"{len(frame):,} rows")
    for name in frame.columns:
        table.add_column(escape(name), overflow="fold")  # values wrap, never cut
    for row in frame.iter_rows():
        table.add_row(*("NULL" if v is None else escape(str(v)) for v in row))
    return table
