"""`python -m ingest query [--format table|csv|json] [--snapshot N] "SQL"`: read-only ad-hoc SQL.

The dashboard console's rules (warehouse.sql_policy, warehouse.readers): one SELECT or WITH over
`marts.*` and `data_quality.*` with DuckDB's analysis functions, on a read-only attachment with
file access off and the configuration locked, one thread and DuckDB's 256 MB memory cap. It
reads what the dashboard serves: the published version (file mode: the serving snapshot; team
mode: the published lake snapshot), else, before the first publish, the main file or the
latest snapshot. `--snapshot N` reads a lake as of snapshot N (time travel).

Output on stdout: `table` (rich), `csv` (a header line; nested values as JSON text) or `json`
(one JSON array of row objects). At most `--max-rows` rows (a note on stderr says when more
were left out); text is never cut. Exit 1 with a message on stderr for a refused statement, an
error DuckDB reports (an unknown table) or a warehouse that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from warehouse import readers
from warehouse.base import Warehouse
from warehouse.sql_policy import QueryRejected, validate

DEFAULT_MAX_ROWS = 10_000


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        statement = validate(args.sql)
    except QueryRejected as exc:
        errors.print(f"[red]refused:[/] {escape(str(exc))}")
        return 1
    max_rows = args.max_rows
    # WarehouseUnavailable (no file, lake unreachable, no such snapshot): ingest's main says so.
    con = readers.locked_connection(wh.reader(), snapshot=args.snapshot)
    try:
        frame = pl.from_arrow(con.sql(statement).limit(max_rows + 1).arrow())
    except duckdb.Error as exc:
        errors.print(f"[red]error:[/] DuckDB refused the query: {escape(str(exc))}")
        return 1
    finally:
        con.close()
    assert isinstance(frame, pl.DataFrame)
    if len(frame) > max_rows:
        frame = frame.head(max_rows)
        errors.print(f"note: only the first {max_rows:,} rows are shown (--max-rows).")
    write(frame, args.format, console)
    return 0


def write(frame: pl.DataFrame, fmt: str, console: Console) -> None:
    if fmt == "csv":
        sys.stdout.write(readers.csv_text(frame))
    elif fmt == "json":
        # NaN is not JSON: as null, like a missing value.
        rows = frame.with_columns(pl.col(pl.Float32, pl.Float64).fill_nan(None)).to_dicts()
        sys.stdout.write(json.dumps(rows, default=_json_value, ensure_ascii=False) + "\n")
    else:
        console.print(_table(frame))
    sys.stdout.flush()


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
