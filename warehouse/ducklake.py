"""DuckLake on PostgreSQL, the mechanics: extensions, attaching, commits, advisory locks.

`warehouse.lake.LakeWarehouse` builds team mode's warehouse from these; nothing else uses them.

Extensions
    The DuckLake and PostgreSQL extensions come as pip packages built for DuckDB 1.5.5 (pinned
    together in requirements.txt), so nothing is downloaded at run time. DuckDB looks for
    extensions in `<extension_directory>/<version>/<platform>/<name>.duckdb_extension` and the
    catalog connector is called `postgres_scanner` there: `extension_directory()` builds that
    layout once with symbolic links to the packages' files, and every lake connection (ours and
    dbt's) points `extension_directory` at it with auto-install off.

Connections
    `connect()` opens an in-memory DuckDB with the lake attached as `lake` (the alias is fixed:
    dbt's views name their catalog, so every reader must attach under the same name) and made
    the default catalog. `snapshot=` attaches the lake as of one snapshot (time travel, and the
    dashboard's published version), read-only.

Concurrency
    DuckLake has no unique constraints and no sequences, and two transactions that change the
    same table's metadata may conflict at commit. `run_with_retry()` re-runs a whole
    transaction on a commit conflict with jittered back-off; `advisory_lock()` takes a
    PostgreSQL session advisory lock (psycopg, one connection per lock) for work that must not
    overlap: one loader per file key, one `dbt build` or publish at a time. A session lock dies
    with its connection, so a loader killed with SIGKILL leaves no stale lock.

Labelled commits
    `label_commit()` names the snapshot a transaction will create (`set_commit_message`: author,
    message, JSON extra info): loads name their files, the expectations the snapshot they
    validated, a publish the snapshot it serves.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from warehouse.base import DUCKDB_CONFIG, in_transaction, sql_text

LAKE_PREFIX = "ducklake:postgres:"
LAKE_ALIAS = "lake"
DUCKDB_VERSION = "v" + duckdb.__version__
# The DuckDB extension name -> the pip package that carries its binary.
_EXTENSION_PACKAGES = {
    "ducklake": ("duckdb_extension_ducklake", "ducklake"),
    "postgres_scanner": ("duckdb_extension_postgres", "postgres"),
}
# Every form libpq takes a password in (https://www.postgresql.org/docs/current/libpq-connect.html):
# a `password=` keyword (quoted or not; also `PGPASSWORD=` written out), a URI's user info
# (`postgresql://user:PW@host`) and a URI's query parameter (`?password=PW`, `&password=PW`).
_PASSWORD_FORMS = (
    re.compile(r"""((?:\bpg)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)""", re.IGNORECASE),
    re.compile(r"((?:postgres|postgresql)://[^:/@\s]*:)([^@\s]*)(@)", re.IGNORECASE),
)

T = TypeVar("T")


class LakeError(RuntimeError):
    """The lake cannot be reached or used (PostgreSQL down, extensions missing, bad setting)."""


# --- where the lake is -------------------------------------------------------------------


@dataclass(frozen=True)
class LakeAddress:
    """A DuckLake: the libpq conninfo of its PostgreSQL catalog, and its data files' folder."""

    conninfo: str
    data_path: str  # a folder (absolute, with a trailing slash) or an object-store URL

    @property
    def uri(self) -> str:
        """What PERF_WAREHOUSE holds for this lake (a child process gets it verbatim)."""
        return LAKE_PREFIX + self.conninfo

    def describe(self) -> str:
        """For messages and logs: the password in the conninfo is never printed."""
        return f"DuckLake {LAKE_PREFIX}{redact(self.conninfo)} (data in {self.data_path})"


def _hidden(match: re.Match[str]) -> str:
    """The match with its password group (the 2nd) as `***`."""
    return match.group(1) + "***" + (match.group(3) if match.lastindex == 3 else "")


def redact(text: str) -> str:
    """`text` (a conninfo, a message quoting one) with every password shown as `***`."""
    for form in _PASSWORD_FORMS:
        text = form.sub(_hidden, text)
    return text


def is_lake_setting(value: str) -> bool:
    return value.startswith("ducklake:")


def address(value: str, data_path: str | None = None) -> LakeAddress:
    """The lake of a `ducklake:postgres:<conninfo>` setting; its data files are `data_path`,
    else PERF_LAKE_DATA_PATH (a local folder is made absolute)."""
    if not value.startswith(LAKE_PREFIX):
        raise LakeError(
            f"{redact(value)!r}: only DuckLake catalogs in PostgreSQL are supported "
            f"({LAKE_PREFIX}<conninfo>)"
        )
    conninfo = value[len(LAKE_PREFIX) :].strip()
    if not conninfo:
        raise LakeError(f"{value!r}: no PostgreSQL conninfo after {LAKE_PREFIX!r}")
    data = data_path or os.environ.get("PERF_LAKE_DATA_PATH")
    if not data:
        raise LakeError(
            "team mode needs a folder (or object-store URL) for the lake's data files: "
            "set PERF_LAKE_DATA_PATH or pass --data-path"
        )
    if "://" not in data:
        data = str(Path(data).expanduser().absolute())
    return LakeAddress(conninfo, data.rstrip("/") + "/")


# --- extensions --------------------------------------------------------------------------


def extension_directory() -> Path:
    """A folder in DuckDB's layout holding the two extensions (links to the pip packages'
    files), created on first use. PERF_DUCKDB_EXTENSION_DIR overrides where."""
    override = os.environ.get("PERF_DUCKDB_EXTENSION_DIR")
    root = Path(override) if override else Path(sys.prefix, "duckdb_extensions")
    platform = duckdb.execute("pragma platform").fetchone()[0]
    folder = root / DUCKDB_VERSION / platform
    for name, (package, stem) in _EXTENSION_PACKAGES.items():
        link = folder / f"{name}.duckdb_extension"
        if link.exists():
            continue
        source = _package_extension(package, stem)
        folder.mkdir(parents=True, exist_ok=True)
        temp = link.with_name(f".{link.name}.{os.getpid()}")
        temp.unlink(missing_ok=True)
        temp.symlink_to(source)
        os.replace(temp, link)  # atomic: concurrent first uses agree
    return root


def _package_extension(package: str, stem: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LakeError(
            f"the Python package {package.replace('_', '-')} is not installed "
            "(bash scripts/setup.sh installs requirements.txt)"
        )
    base = Path(next(iter(spec.submodule_search_locations)))
    path = base / "extensions" / DUCKDB_VERSION / f"{stem}.duckdb_extension"
    if not path.is_file():
        raise LakeError(f"{path} is missing: {package} does not match DuckDB {DUCKDB_VERSION}")
    return path


def duckdb_config() -> dict[str, object]:
    """The configuration of every DuckDB instance that attaches the lake."""
    return {
        **DUCKDB_CONFIG,
        "extension_directory": str(extension_directory()),
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": True,
    }


# --- connections -------------------------------------------------------------------------


def attach_sql(lake: LakeAddress, *, read_only: bool = False, snapshot: int | None = None) -> str:
    options = [f"DATA_PATH {sql_text(lake.data_path)}"]
    if read_only or snapshot is not None:
        options.append("READ_ONLY")
    if snapshot is not None:
        options.append(f"SNAPSHOT_VERSION {int(snapshot)}")
    return f"ATTACH {sql_text(lake.uri)} AS {LAKE_ALIAS} ({', '.join(options)})"


def connect(
    lake: LakeAddress,
    *,
    read_only: bool = False,
    snapshot: int | None = None,
    config: dict[str, object] | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the lake attached as `lake` and in use."""
    con = duckdb.connect(":memory:", config={**duckdb_config(), **(config or {})})
    try:
        _attach_new_or_existing(con, attach_sql(lake, read_only=read_only, snapshot=snapshot))
        con.execute(f"USE {LAKE_ALIAS}")
    except duckdb.Error as exc:
        con.close()
        raise LakeError(f"Cannot open the lake {lake.describe()}: {redact(str(exc))}") from exc
    return con


def _attach_new_or_existing(con: duckdb.DuckDBPyConnection, sql: str, attempts: int = 5) -> None:
    """ATTACH; the first ATTACH of a new lake creates DuckLake's catalog tables, and when two
    processes do it at once one fails on PostgreSQL's unique index (`duplicate key`): by the
    time it retries, the winner's catalog exists and the ATTACH simply opens it."""
    for attempt in range(1, attempts + 1):
        try:
            con.execute(sql)
            return
        except duckdb.Error as exc:
            if "duplicate key" not in str(exc).lower() or attempt == attempts:
                raise
            time.sleep(0.2 * attempt)


def current_snapshot(con: duckdb.DuckDBPyConnection) -> int:
    """The newest snapshot id the connection sees."""
    (snapshot,) = con.execute(f"select max(snapshot_id) from {LAKE_ALIAS}.snapshots()").fetchone()
    return int(snapshot)


# --- concurrency -------------------------------------------------------------------------


def is_conflict(exc: BaseException) -> bool:
    """A DuckLake commit that lost a race to another transaction (retry it whole)."""
    text = str(exc).lower()
    # Two commits at once may also both claim the next snapshot id: PostgreSQL's primary key
    # on ducklake_snapshot refuses the second (seen with 4 loaders committing file by file).
    return isinstance(exc, duckdb.Error) and (
        "conflict" in text
        or "could not serialize" in text
        or "concurrent" in text
        or ("duplicate key" in text and "ducklake_snapshot" in text)
    )


def run_with_retry(work: Callable[[], T], *, attempts: int = 30, first_delay_s: float = 0.05) -> T:
    """Run `work` (one whole transaction, begun and committed inside it) until it commits
    without a conflict; the last conflict is raised after `attempts` tries."""
    delay = first_delay_s
    for attempt in range(1, attempts + 1):
        try:
            return work()
        except duckdb.Error as exc:
            if not is_conflict(exc) or attempt == attempts:
                raise
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 2.0)
    raise AssertionError("unreachable")


def commit(con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """`work()` in one transaction, re-run whole on a commit conflict."""
    return run_with_retry(lambda: in_transaction(con, work))


def label_commit(
    con: duckdb.DuckDBPyConnection, author: str, message: str, extra: dict[str, Any]
) -> None:
    """Label the snapshot the open transaction will create (call inside the transaction)."""
    con.execute(
        f"call {LAKE_ALIAS}.set_commit_message(?, ?, extra_info => ?)",
        [author, message, json.dumps(extra, default=str)],
    )


def commit_labelled(
    con: duckdb.DuckDBPyConnection,
    label: tuple[str, str, dict[str, Any]],
    write: Callable[[duckdb.DuckDBPyConnection], None],
) -> int:
    """Run `write(con)` in one labelled commit, re-run whole on a commit conflict; return the
    snapshot id the commit created."""

    def work() -> int:
        in_transaction(con, lambda: (label_commit(con, *label), write(con)))
        (snapshot,) = con.execute(
            f"select id from {LAKE_ALIAS}.last_committed_snapshot()"
        ).fetchone()
        return int(snapshot)

    return run_with_retry(work)


def lock_key(name: str) -> int:
    """A stable signed 64-bit advisory-lock key for `name` (PostgreSQL's bigint)."""
    digest = hashlib.sha256(b"vsan-perf:" + name.encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


BUILD_LOCK = "build-or-publish"


def catalog_session(  # -> psycopg.Connection
    lake: LakeAddress, *, connect_timeout_s: int | None = None
):
    """A PostgreSQL session on the lake's catalog database (autocommit) for advisory locks;
    closing it releases every lock it holds, and so does the death of its process. (psycopg
    is imported here: team mode only.)"""
    import psycopg

    timeout = {} if connect_timeout_s is None else {"connect_timeout": connect_timeout_s}
    try:
        return psycopg.connect(lake.conninfo, autocommit=True, **timeout)
    except psycopg.Error as exc:
        raise LakeError(
            f"Cannot reach the lake's catalog {lake.describe()}: {redact(str(exc))}"
        ) from exc


@contextmanager
def advisory_lock(lake: LakeAddress, name: str, *, timeout_s: float = 3600.0) -> Iterator[None]:
    """Hold PostgreSQL's session advisory lock `name` for the block (waits for it)."""
    conn = catalog_session(lake)
    try:
        key = lock_key(name)
        deadline = time.monotonic() + timeout_s
        while not conn.execute("select pg_try_advisory_lock(%s)", [key]).fetchone()[0]:
            if time.monotonic() > deadline:
                raise LakeError(f"{name}: another process held the lock for over {timeout_s:g} s")
            time.sleep(0.1)
        yield
    finally:
        conn.close()  # ends the session: PostgreSQL releases its advisory locks


# --- publications: which snapshot the dashboard serves ------------------------------------

# One row per publish that passed validation, in the lake itself (schema `serving`): the
# dashboard attaches the lake as of the newest row's `snapshot_id`, so it never reads a version
# that failed the expectations, and a load committed since is invisible until the next publish.
PUBLICATIONS_DDL = """
create table if not exists {alias}.serving.publications (
    snapshot_id bigint not null,          -- the snapshot the dashboard serves
    validated_snapshot_id bigint not null,  -- the snapshot the expectations read
    published_at timestamp with time zone not null,
    published_by varchar not null          -- user@host, pid
)
"""


def published_snapshot(con: duckdb.DuckDBPyConnection) -> int | None:
    """The snapshot id of the newest publication the connection sees; None before the first
    publish (or when the lake has no `serving` schema yet)."""
    exists = con.execute(
        "select count(*) from duckdb_tables() where database_name = ? "
        "and schema_name = 'serving' and table_name = 'publications'",
        [LAKE_ALIAS],
    ).fetchone()[0]
    if not exists:
        return None
    (snapshot,) = con.execute(
        f"select max(snapshot_id) from {LAKE_ALIAS}.serving.publications"
    ).fetchone()
    return None if snapshot is None else int(snapshot)


def record_publication(
    con: duckdb.DuckDBPyConnection, snapshot_id: int, validated_snapshot_id: int, by: str
) -> None:
    """Append a publication row (its own commit; retried on a conflict by the caller)."""
    con.execute(f"create schema if not exists {LAKE_ALIAS}.serving")
    con.execute(PUBLICATIONS_DDL.format(alias=LAKE_ALIAS))
    con.execute(
        f"insert into {LAKE_ALIAS}.serving.publications values (?, ?, now(), ?)",
        [snapshot_id, validated_snapshot_id, by],
    )


def connect_published(lake: LakeAddress, **kwargs: object) -> duckdb.DuckDBPyConnection | None:
    """A read-only connection to the published snapshot; None before the first publish."""
    latest = connect(lake, read_only=True)
    try:
        snapshot = published_snapshot(latest)
    finally:
        latest.close()
    if snapshot is None:
        return None
    return connect(lake, snapshot=snapshot, **kwargs)  # type: ignore[arg-type]
