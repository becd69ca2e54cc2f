"""The `raw` schema: one table per parser table, plus `raw.source_files`.

The parsers declare their tables (row dataclasses or Arrow schemas in each module's
`TABLES`); this module turns those declarations into DuckDB DDL and brings a warehouse
file (or a lake) up to date with them. Columns are only ever added: a newer parser version
may add a column, and rows loaded by an older version keep NULL there.

Ids of `raw.source_files` are the warehouse's to draw (`Warehouse.new_source_file_ids`). The
schema is brought up to date in one transaction (`Warehouse.commit`: in a lake one snapshot,
re-run whole when another loader created it at the same moment).
"""

from __future__ import annotations

from typing import Any

import duckdb
import pyarrow as pa

from ingest import tables
from ingest.registry import PARSERS
from warehouse import Warehouse

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

# Columns `raw.source_files` gained after warehouses were made: added where missing (NULL for
# the files loaded before). Where a file was found: the `ingest load` PATH argument it lay
# under and its path relative to that root (the report's provenance appendix).
SOURCE_FILES_ADDED = {"load_root": "VARCHAR", "path_in_root": "VARCHAR"}


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


def ensure_schema(con: duckdb.DuckDBPyConnection, wh: Warehouse) -> None:
    """Create what is missing of the raw schema; add columns newer parsers declare. One
    transaction: the loser of two loaders creating it at once re-runs it, finds the tables
    and adds nothing."""
    wh.commit(con, lambda: _create_missing(con, prime=wh.primes_new_tables))


def _create_missing(con: duckdb.DuckDBPyConnection, *, prime: bool) -> None:
    con.execute("create schema if not exists raw")
    existing = set(
        con.execute(
            "select table_name, column_name from information_schema.columns "
            "where table_schema = 'raw' and table_catalog = current_database()"
        ).fetchall()
    )
    known_tables = {table for table, _ in existing}
    created = []
    if "source_files" not in known_tables:
        con.execute(SOURCE_FILES_DDL)
        created.append("source_files")
    for column, sql_type in SOURCE_FILES_ADDED.items():
        if ("source_files", column) not in existing:
            con.execute(f"alter table raw.source_files add column {column} {sql_type}")
    for name, schema in raw_tables().items():
        if name not in known_tables:
            columns = ", ".join(_column(f) for f in schema)
            con.execute(f"create table raw.{name} ({columns}, {SOURCE_FILE_ID} bigint not null)")
            created.append(name)
            continue
        for f in schema:
            if (name, f.name) not in existing:
                con.execute(f"alter table raw.{name} add column {_column(f)}")
    for name in created if prime else ():
        _prime(con, name)


# DuckLake 1.5.5 scans a table that never held a row slowly (measured: 50-150 ms a query, 2-4
# ms once a row was ever inserted), and a loader reads raw.source_files once per file and
# deletes from every raw table when it replaces a file. A placeholder row inserted and
# deleted in the transaction that creates the table leaves it empty (in every snapshot) but
# on the fast path. Id 0 is never a file's (ids start at 1). A DuckDB file does not need it
# (`Warehouse.primes_new_tables`): there the 29 placeholder rows were half the creation of a
# new file warehouse (75 -> 38 ms).
_PLACEHOLDER_FILE = (
    "insert into raw.source_files (source_file_id, path, name, folder, sha256, size_bytes, "
    "format, parser_version, labels_json, result_per, hcibench_case, row_count, notes_json, "
    "loaded_at) values (0, '', '', '', '', 0, '', '', '{}', '', null, 0, '[]', now())"
)


def _prime(con: duckdb.DuckDBPyConnection, table: str) -> None:
    if table == "source_files":
        con.execute(_PLACEHOLDER_FILE)
        con.execute("delete from raw.source_files where source_file_id = 0")
        return
    con.execute(f"insert into raw.{table} ({SOURCE_FILE_ID}) values (0)")
    con.execute(f"delete from raw.{table} where {SOURCE_FILE_ID} = 0")
