"""What the last successful `ingest build` was built from, and what a new build must redo.

A build records, in the warehouse itself (`build_meta.last_build`, so both modes and every
machine of a team see the same record), the hash of the dbt code it ran (models, macros,
seeds, tests, dbt_project.yml, profiles.yml, the repository packages its Python models
import, the dbt and dbt-duckdb versions, the target)
and one fingerprint per raw source table: its row count and the sum of the hashes of its
rows' source-file ids (a loaded file's rows are written and deleted whole, so a load, a
reload of changed content or a prune changes it; `raw.source_files` has no such id and is
hashed row by row). The next build compares:

- no record, or other code: a full build (views, tables, seeds, data tests);
- the same code, some source tables changed: the tables downstream of those sources and
  every data test downstream of them, on tables and views alike (`dbt build --select
  source:S.T+,config.materialized:table source:S.T+,resource_type:test ...`): a changed
  build checks the changed data as a full build does. Views need no rebuild: their SQL is
  the same and they read the tables live. Seeds are unchanged by definition (they are code);
- nothing changed: nothing to build.

The fingerprints are taken before dbt starts and recorded only after it succeeded, so a load
committed during a team-mode build, or a failed build, is built again next time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import duckdb
import yaml

from warehouse.base import sql_text

STATE_SCHEMA = "build_meta"
STATE_TABLE = f"{STATE_SCHEMA}.last_build"
CODE_KEY = "<code>"  # the row holding the code hash, beside one row per source table
# Everything under these folders of the dbt project is code: a change forces a full build.
CODE_FOLDERS = ("models", "macros", "seeds", "tests", "snapshots", "analyses")
CODE_FILES = ("dbt_project.yml", "profiles.yml", "packages.yml")
CODE_PACKAGES = ("dbt-core", "dbt-duckdb", "duckdb")
FILE_ID_COLUMN = "_source_file_id"
SOURCES_KEY = re.compile(r"(?m)^sources:")
PYTHON_IMPORT = re.compile(r"(?m)^(?:from|import)\s+(\w+)")
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when it is there
# Sources only views read, written after a build: the gate's results (`ingest publish`
# appends to them) and the acceptance verdicts (`ingest accept --record`); their marts are
# views so they show without a build. A change there is no reason to build;
# tests/warehouse/test_incremental_build.py checks that no table reads them.
LIVE_SOURCES = frozenset({"data_quality", "acceptance"})
# A source table not there yet holds no rows, as an empty one: dbt's on-run-start creates
# some (the landing tables), and that alone is no change.
EMPTY = "0:0"


@dataclass(frozen=True)
class SourceTable:
    """A dbt source table: its selector name (`fio.fio_runs`) and its relation (`raw.fio_runs`)."""

    source: str
    table: str
    schema: str
    identifier: str

    @property
    def selector(self) -> str:
        return f"source:{self.source}.{self.table}"

    @property
    def relation(self) -> str:
        return f"{self.schema}.{self.identifier}"


@dataclass(frozen=True)
class BuildState:
    """The code hash and the source fingerprints of one build."""

    code_hash: str
    fingerprints: dict[str, str]  # SourceTable.selector -> fingerprint


@dataclass(frozen=True)
class BuildPlan:
    """What `ingest build` will run: `full`, `changed` sources only, or nothing."""

    kind: str  # "full" | "changed" | "nothing"
    reason: str
    changed: tuple[SourceTable, ...] = ()

    def selectors(self) -> list[str]:
        """dbt `--select` terms: the tables downstream of each changed source, and every data
        test downstream of it (a test of a view reads the changed rows through the view)."""
        return [
            f"{s.selector}+,{kind}"
            for s in self.changed
            for kind in ("config.materialized:table", "resource_type:test")
        ]


def source_tables(project: Path) -> list[SourceTable]:
    """Every source table the dbt project declares (its `sources:` YAML under models/) that
    a table reads, that is all but the LIVE_SOURCES."""
    found: list[SourceTable] = []
    for path in sorted((project / "models").rglob("*.yml")):
        text = path.read_text(encoding="utf-8")
        if not SOURCES_KEY.search(text):
            continue  # a models file: parsing every one would take seconds
        doc = yaml.load(text, Loader=YAML_LOADER) or {}
        for source in doc.get("sources") or []:
            if source["name"] in LIVE_SOURCES:
                continue
            schema = source.get("schema", source["name"])
            for table in source.get("tables") or []:
                identifier = table.get("identifier", table["name"])
                found.append(SourceTable(source["name"], table["name"], schema, identifier))
    return found


def local_packages(project: Path) -> list[Path]:
    """The repository's own packages the project's Python models import (`analysis/`): their
    code decides those models' rows as much as the models do."""
    names = {
        match
        for model in (project / "models").rglob("*.py")
        for match in PYTHON_IMPORT.findall(model.read_text(encoding="utf-8"))
    }
    root = project.parent
    return sorted(root / n for n in names if (root / n / "__init__.py").is_file())


def _code_files(project: Path) -> Iterable[Path]:
    for name in CODE_FILES:
        if (project / name).is_file():
            yield project / name
    for folder in CODE_FOLDERS:
        if (project / folder).is_dir():
            yield from sorted(p for p in (project / folder).rglob("*") if p.is_file())
    for package in local_packages(project):
        yield from sorted(package.rglob("*.py"))


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def code_hash(project: Path, target_args: Iterable[str]) -> str:
    """One hash of the project's code, the dbt packages' versions and the target chosen."""
    digest = hashlib.sha256()
    for path in _code_files(project):
        digest.update(str(path.relative_to(project.parent)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for package in CODE_PACKAGES:
        digest.update(f"{package}=={_version(package)}\0".encode())
    digest.update(" ".join(target_args).encode())
    return digest.hexdigest()


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """Columns of every table in the connection's current database, by `schema.table`."""
    rows = con.execute(
        "select schema_name || '.' || table_name, column_name from duckdb_columns() "
        "where database_name = current_database()"
    ).fetchall()
    columns: dict[str, set[str]] = {}
    for relation, column in rows:
        columns.setdefault(relation, set()).add(column)
    return columns


def fingerprints(con: duckdb.DuckDBPyConnection, tables: list[SourceTable]) -> dict[str, str]:
    """Row count and summed id (or row) hashes of each source table (EMPTY if missing)."""
    columns = _columns(con)
    found: dict[str, str] = {}
    for table in tables:
        names = columns.get(table.relation)
        if names is None:
            found[table.selector] = EMPTY
            continue
        hashed = FILE_ID_COLUMN if FILE_ID_COLUMN in names else "t"
        count, total = con.execute(
            f"select count(*), coalesce(sum(hash({hashed})), 0) from {table.relation} t"
        ).fetchone()
        found[table.selector] = f"{count}:{total}"
    return found


def read_state(con: duckdb.DuckDBPyConnection) -> BuildState | None:
    """The last successful build's record, or None (never built by `ingest build`)."""
    exists = con.execute(
        "select count(*) from duckdb_tables() where database_name = current_database() "
        f"and schema_name = {sql_text(STATE_SCHEMA)} and table_name = 'last_build'"
    ).fetchone()[0]
    if not exists:
        return None
    rows = con.execute(f"select source, fingerprint from {STATE_TABLE}").fetchall()
    values = dict(rows)
    code = values.pop(CODE_KEY, None)
    return None if code is None else BuildState(code, values)


def write_state(con: duckdb.DuckDBPyConnection, state: BuildState | None) -> None:
    """Replace the record (in the caller's transaction); None forgets it (next build: full)."""
    con.execute(f"create schema if not exists {STATE_SCHEMA}")
    con.execute(f"create table if not exists {STATE_TABLE} (source varchar, fingerprint varchar)")
    con.execute(f"delete from {STATE_TABLE}")
    if state is not None:
        rows = [(CODE_KEY, state.code_hash), *state.fingerprints.items()]
        # Literals, not bound parameters: the first Python value bound to a statement makes
        # DuckDB's client import pandas, 0.3 s of every `ingest build` (read_state likewise).
        values = ", ".join(f"({sql_text(source)}, {sql_text(value)})" for source, value in rows)
        con.execute(f"insert into {STATE_TABLE} values {values}")


def plan(previous: BuildState | None, current: BuildState, tables: list[SourceTable]) -> BuildPlan:
    """Full when there is no record or the code differs; else the changed sources, if any."""
    if previous is None:
        return BuildPlan("full", "no record of an earlier `ingest build` in this warehouse")
    if previous.code_hash != current.code_hash:
        return BuildPlan(
            "full",
            "models, macros, seeds, tests, the dbt version, the profile or the warehouse's"
            " catalog (a copied or renamed file) changed",
        )
    changed = tuple(
        t
        for t in tables
        if previous.fingerprints.get(t.selector) != current.fingerprints.get(t.selector)
    )
    if not changed:
        return BuildPlan("nothing", "no source table and no code changed since the last build")
    names = ", ".join(t.relation for t in changed)
    return BuildPlan("changed", f"rows changed in {names}", changed)
