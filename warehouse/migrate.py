"""`python -m ingest migrate --to ducklake:postgres:CONNINFO`: a warehouse file into a lake.

What is copied, in one lake transaction (one snapshot: a migration killed half-way leaves the
lake as it was, and a re-run starts over):
- every table of every schema, with its rows as they are: `raw` (the source of truth: the
  `source_files` ids are kept, so every raw row still points at its file), `data_quality` (the
  validation history, which nothing could rebuild), and dbt's tables (marts, seeds), so the
  lake serves the same marts at once;
- dbt's views (staging, intermediate, some marts), re-created with their catalog renamed from
  the file's to the lake's alias. `ingest build` on the lake rebuilds all of dbt's objects
  anyway (run it, then `ingest publish`): copying them only spares the first build.
The file's sequence `raw.source_file_seq` has no lake equivalent: a lake draws random ids at or
above `FILE_ID_CEILING` (`LakeWarehouse.new_source_file_ids`), so no later lake load can reuse a
migrated id.

A lake that already holds tables is refused unless `--replace` (its schemas are then dropped,
in the same transaction). The file is read under its writer lock, the lake written under the
lake's build lock: neither changes under the copy.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
from rich.console import Console
from rich.markup import escape

from warehouse import ducklake
from warehouse.base import sql_text
from warehouse.ducklake import LAKE_ALIAS
from warehouse.file import connect as connect_file
from warehouse.file import main_path
from warehouse.filelock import writer_lock
from warehouse.lake import MIGRATED_ID_CEILING, LakeWarehouse

SOURCE_ALIAS = "migrate_source"
# Ids a warehouse file's sequence handed out stay below this (4 billion files); lake loads draw
# theirs above it, so the two ranges never meet.
FILE_ID_CEILING = MIGRATED_ID_CEILING
_SYSTEM_SCHEMAS = ("information_schema", "pg_catalog")


@dataclass(frozen=True, slots=True)
class Relation:
    schema: str
    name: str
    is_view: bool
    sql: str | None = None  # a view's CREATE statement

    @property
    def qualified(self) -> str:
        return f'"{self.schema}"."{self.name}"'


@dataclass(frozen=True, slots=True)
class Copied:
    relation: Relation
    rows: int | None  # None: a view


class MigrateError(RuntimeError):
    """The migration cannot start or did not complete (the lake is unchanged)."""


def run(args: argparse.Namespace, console: Console) -> int:
    """From the warehouse file of --db / PERF_DUCKDB_PATH into the lake of `--to`."""
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    if not ducklake.is_lake_setting(args.to):
        errors.print(f"[red]error:[/] --to must be {ducklake.LAKE_PREFIX}<conninfo>, not a file")
        return 2
    where = ducklake.address(args.to, args.data_path)  # LakeError: ingest's main says so
    lake = LakeWarehouse(where.conninfo, where.data_path)
    source = main_path(args.db)
    started = time.monotonic()
    try:
        with writer_lock(source), lake.exclusive(writes=True):
            copied = migrate(source, lake, replace=args.replace)
    except MigrateError as exc:
        errors.print(f"[red]error:[/] {escape(str(exc))}")
        return 1
    _report(console, copied, source, lake, time.monotonic() - started)
    return 0


def migrate(source: Path, tgt: LakeWarehouse, *, replace: bool = False) -> list[Copied]:
    """Copy the warehouse file `source` into the lake `tgt` (one transaction)."""
    if not source.is_file():
        raise MigrateError(f"No warehouse file at {source} to migrate (--db or PERF_DUCKDB_PATH).")
    con = tgt.connect()
    try:
        connect_file(source, read_only=True).close()  # missing, locked: a clear message
        con.execute(f"attach {sql_text(str(source))} as {SOURCE_ALIAS} (read_only)")
        relations = _relations(con, SOURCE_ALIAS)
        _check_ids(con, relations)
        present = _relations(con, LAKE_ALIAS)
        if present and not replace:
            raise MigrateError(_not_empty(tgt, present))
        return _copy_all(con, relations, present, _file_catalog(con))
    except duckdb.Error as exc:
        raise MigrateError(
            f"Migrating {source} into {tgt.describe()} failed, the lake is unchanged: "
            + ducklake.redact(str(exc))
        ) from exc
    finally:
        con.close()


def _not_empty(tgt: LakeWarehouse, present: list[Relation]) -> str:
    names = ", ".join(f"{r.schema}.{r.name}" for r in present[:5])
    more = f" and {len(present) - 5} more" if len(present) > 5 else ""
    return (
        f"The lake {tgt.describe()} is not empty ({len(present)} tables and views: {names}"
        f"{more}). migrate fills an empty lake; pass --replace to drop what it holds first."
    )


def _relations(con: duckdb.DuckDBPyConnection, catalog: str) -> list[Relation]:
    """Every user table and view of `catalog`: tables first, raw first (then by name)."""
    rows = con.execute(
        "select schema_name, table_name, false, null from duckdb_tables() "
        "where database_name = ? and not internal "
        "union all select schema_name, view_name, true, sql from duckdb_views() "
        "where database_name = ? and not internal",
        [catalog, catalog],
    ).fetchall()
    relations = [
        Relation(schema, name, is_view, sql)
        for schema, name, is_view, sql in rows
        if schema not in _SYSTEM_SCHEMAS
    ]
    return sorted(relations, key=lambda r: (r.is_view, r.schema != "raw", r.schema, r.name))


def _check_ids(con: duckdb.DuckDBPyConnection, relations: list[Relation]) -> None:
    """The file's ids must stay below the lake loads' range (see the module docstring)."""
    if not any(r.schema == "raw" and r.name == "source_files" for r in relations):
        raise MigrateError("The warehouse file has no raw.source_files: nothing was ever loaded.")
    (top,) = con.execute(
        f"select max(source_file_id) from {SOURCE_ALIAS}.raw.source_files"
    ).fetchone()
    if top is not None and top >= FILE_ID_CEILING:
        raise MigrateError(
            f"raw.source_files holds id {top}, at or above {FILE_ID_CEILING}, where lake loads "
            "draw theirs: it cannot be migrated without risking a reused id."
        )


def _file_catalog(con: duckdb.DuckDBPyConnection) -> str:
    """The catalog name dbt's views use in the file: the file's own name (its stem)."""
    (path,) = con.execute(
        "select path from duckdb_databases() where database_name = ?", [SOURCE_ALIAS]
    ).fetchone()
    return re.sub(r"\.[^./]*$", "", path.rsplit("/", 1)[-1])


def _copy_all(
    con: duckdb.DuckDBPyConnection,
    relations: list[Relation],
    present: list[Relation],
    file_catalog: str,
) -> list[Copied]:
    con.begin()
    try:
        for schema in sorted({r.schema for r in present} - {"main"}):
            con.execute(f'drop schema {LAKE_ALIAS}."{schema}" cascade')
        for old in [r for r in present if r.schema == "main"]:
            con.execute(f"drop {'view' if old.is_view else 'table'} {LAKE_ALIAS}.{old.qualified}")
        schemas = {r.schema for r in relations}
        copied = [_copy(con, r, file_catalog, schemas) for r in _in_dependency_order(relations)]
        con.execute(
            f"call {LAKE_ALIAS}.set_commit_message('ingest migrate', ?)",
            [f"migrated {len(copied)} tables and views from a warehouse file"],
        )
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return copied


def _in_dependency_order(relations: list[Relation]) -> list[Relation]:
    """Tables, then views each after the views it names (DuckDB binds a view when it is
    created, and a failed statement would abort the one transaction)."""
    tables = [r for r in relations if not r.is_view]
    pending = {(r.schema, r.name): r for r in relations if r.is_view}
    ordered: list[Relation] = []
    while pending:
        ready = [
            r
            for r in pending.values()
            if not any(_names(r, key) for key in pending if key != (r.schema, r.name))
        ]
        if not ready:  # a cycle cannot exist in DuckDB; keep the rest in name order
            ready = list(pending.values())
        for r in ready:
            ordered.append(pending.pop((r.schema, r.name)))
    return tables + ordered


def _names(view: Relation, key: tuple[str, str]) -> bool:
    """Whether the view's SQL names the relation `schema.name` (quoted or not)."""
    schema, name = (re.escape(part) for part in key)
    return (
        re.search(rf'\b"?{schema}"?\s*\.\s*"?{name}"?(?![\w$])', view.sql or "", re.I) is not None
    )


def _copy(
    con: duckdb.DuckDBPyConnection, relation: Relation, file_catalog: str, schemas: set[str]
) -> Copied:
    con.execute(f'create schema if not exists {LAKE_ALIAS}."{relation.schema}"')
    if relation.is_view:
        con.execute(f'use {LAKE_ALIAS}."{relation.schema}"')
        con.execute(_view_in_lake(relation, file_catalog, schemas))
        return Copied(relation, None)
    con.execute(
        f"create table {LAKE_ALIAS}.{relation.qualified} as "
        f"select * from {SOURCE_ALIAS}.{relation.qualified}"
    )
    (rows,) = con.execute(f"select count(*) from {LAKE_ALIAS}.{relation.qualified}").fetchone()
    return Copied(relation, int(rows))


def _view_in_lake(relation: Relation, file_catalog: str, schemas: set[str]) -> str:
    """The view's CREATE statement naming the lake's catalog where it named the file's.

    Only a three-part name `<file catalog>.<one of the file's schemas>.` is the file's catalog:
    a file named `base.duckdb` must not turn a CTE or alias `base.x` into `lake.x`."""
    catalog = re.escape(file_catalog)
    schema = "|".join(re.escape(name) for name in sorted(schemas, key=len, reverse=True))
    pattern = rf'(?<![\w"$])"?{catalog}"?(\s*\.\s*"?(?:{schema})"?\s*\.)'
    return re.sub(pattern, rf"{LAKE_ALIAS}\1", relation.sql or "", flags=re.IGNORECASE)


def _report(
    console: Console, copied: list[Copied], source: Path, tgt: LakeWarehouse, seconds: float
) -> None:
    tables = [c for c in copied if c.rows is not None]
    for c in tables:
        console.print(f"  {c.relation.schema}.{c.relation.name}: {c.rows:,} rows")
    views = len(copied) - len(tables)
    rows = sum(c.rows or 0 for c in tables)
    console.print(
        f"Migrated {escape(str(source))} into {escape(tgt.describe())}: {len(tables)} tables "
        f"({rows:,} rows) and {views} views in {seconds:.1f} s. Next: `python -m ingest build` "
        "then `python -m ingest publish` (team mode) to validate and serve it."
    )
