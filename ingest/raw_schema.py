"""The `raw` schema: one table per parser table, plus `raw.source_files`.

The parsers declare their tables (row dataclasses or Arrow schemas in each module's
`TABLES`); this module turns those declarations into DuckDB DDL and brings a warehouse
file up to date with them. Columns are only ever added: a newer parser version may add a
column, and rows loaded by an older version keep NULL there.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from ingest import tables
from ingest.registry import PARSERS

# Every raw row carries the `raw.source_files` id of the file it came from.
SOURCE_FILE_ID = "_source_file_id"

_DUCKDB_TYPES = {
    pa.int64(): "BIGINT",
    pa.int32(): "INTEGER",
    pa.int16(): "SMALLINT",
    pa.float64(): "DOUBLE",
    pa.float32(): "FLOAT",
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
    pa.bool_(): "BOOLEAN",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
    pa.date32(): "DATE",
}

SOURCE_FILES_DDL = """
create table if not exists raw.source_files (
    source_file_id bigint not null,
    path varchar not null,
    name varchar not null,
    folder varchar not null,
    sha256 varchar not null,
    size_bytes bigint not null,
    format varchar not null,
    parser_version varchar not null,
    labels_json varchar not null,
    result_per varchar not null,
    hcibench_case varchar,
    row_count bigint not null,
    notes_json varchar not null,
    loaded_at timestamptz not null
)
"""


def table_schema(spec: Any) -> pa.Schema:
    """The Arrow schema of a `TABLES` entry (a row dataclass or already a schema)."""
    return spec if isinstance(spec, pa.Schema) else tables.arrow_schema(spec)


def duckdb_type(arrow_type: pa.DataType) -> str:
    if pa.types.is_dictionary(arrow_type):
        return duckdb_type(arrow_type.value_type)
    try:
        return _DUCKDB_TYPES[arrow_type]
    except KeyError:
        raise TypeError(f"no DuckDB type for Arrow type {arrow_type}") from None


def raw_tables() -> dict[str, pa.Schema]:
    """Every raw table the parsers declare (without `_source_file_id`), by name."""
    return {
        name: table_schema(spec)
        for module in PARSERS.values()
        for name, spec in module.TABLES.items()
    }


def _column(field: pa.Field) -> str:
    return f'"{field.name}" {duckdb_type(field.type)}'


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create what is missing of the raw schema; add columns newer parsers declare."""
    con.execute("create schema if not exists raw")
    con.execute("create sequence if not exists raw.source_file_seq start 1")
    con.execute(SOURCE_FILES_DDL)
    existing = set(
        con.execute(
            "select table_name, column_name from information_schema.columns "
            "where table_schema = 'raw'"
        ).fetchall()
    )
    known_tables = {table for table, _ in existing}
    for name, schema in raw_tables().items():
        if name not in known_tables:
            columns = ", ".join(_column(f) for f in schema)
            con.execute(f"create table raw.{name} ({columns}, {SOURCE_FILE_ID} bigint not null)")
            continue
        for f in schema:
            if (name, f.name) not in existing:
                con.execute(f"alter table raw.{name} add column {_column(f)}")
