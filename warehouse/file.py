"""The embedded warehouse: one DuckDB file on one machine (the default).

Paths
    The main file is `--db`, else `PERF_DUCKDB_PATH`, else `data/warehouse.duckdb`. Beside it:
    `<stem>.serving.duckdb` (or `PERF_SERVING_PATH`), the snapshot the dashboard reads;
    `<name>.lock`, the writers' advisory lock (`warehouse.filelock`); `<name>.unpublished`, the
    pending marker; `<stem>.validation.json`, the latest validation run.

Connections, one retry rule
    `connect()` opens the file read-write or read-only; while another process holds DuckDB's
    own file lock it retries with exponential back-off until its deadline, then raises
    `WarehouseUnavailable` with a message a user can act on. Writers wait long (a dbt build
    takes minutes); the dashboard waits a second or two and then says so.

Publish (the gate)
    DuckDB lets one process write a file and, while it does, no other process can read it. So
    the dashboard never opens the main file once a snapshot exists: the gate validates the main
    file under the writer lock and only when every constraint holds copies it onto the serving
    snapshot (`CHECKPOINT`, copy to a temporary file in the same folder, fsync, `os.replace`,
    which is atomic). Loads and builds never publish: a failing version never reaches the
    dashboard, which keeps serving the last version that passed. A reader that had the old
    snapshot open keeps its inode; new connections see the new one; nobody sees half a file.
    The latest validation run, passed or failed, is also written to `<stem>.validation.json`
    (the snapshot only ever holds versions that passed), and `status()` compares file times so
    the dashboard can say why what it shows is older than the main file (a failed validation,
    or changes, e.g. a plain `dbt build`, not yet published) and the command that fixes it.

The dashboard's reads
    Opening a DuckDB file costs 40-400 ms (it reads the catalog), and a page makes up to thirty
    reads. So a reader of the published snapshot keeps that version attached read-only, once
    per process, and each read takes a cursor on it (about a millisecond). This blocks no
    writer: loads and builds write the main file, and a publish writes a new file and renames
    it over the snapshot, which gives the snapshot a new identity (inode, change time), so the
    next read attaches the new version. The main file itself is never kept open (a writer
    needs it): before the first publish every read opens and closes it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from warehouse import filelock
from warehouse.base import (
    DUCKDB_CONFIG,
    REPO_ROOT,
    IdentityLocks,
    NoIdentityLocks,
    Reader,
    ServingStatus,
    ValidationNotRecorded,
    ValidationReport,
    Warehouse,
    WarehouseUnavailable,
    in_transaction,
    insert_validation_sql,
    kill_point,
    require_validation_table,
    rows_by_column,
    sql_text,
)

DEFAULT_DB_PATH = REPO_ROOT / "data" / "warehouse.duckdb"
SERVING_SUFFIX = ".serving.duckdb"
# How long a connection waits for DuckDB's own file lock (held by a process that skipped the
# advisory lock, or by a reader of the main file).
WRITER_CONNECT_TIMEOUT_S = 60.0
READER_CONNECT_TIMEOUT_S = 2.0
# The catalog name a file is attached under in the console's locked connection.
FILE_CATALOG = "warehouse"

T = TypeVar("T")


# --- paths -------------------------------------------------------------------------------


def main_path(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The main warehouse file: `--db`, else `PERF_DUCKDB_PATH`, else the default."""
    if cli_value:
        return Path(cli_value).expanduser().absolute()
    env = os.environ.get("PERF_DUCKDB_PATH")
    if env:
        return Path(env).expanduser().absolute()
    return DEFAULT_DB_PATH


def serving_path(db_path: Path) -> Path:
    """Where the snapshot of `db_path` is published (PERF_SERVING_PATH overrides)."""
    env = os.environ.get("PERF_SERVING_PATH")
    if env:
        return Path(env).expanduser().absolute()
    return db_path.with_name(db_path.stem + SERVING_SUFFIX)


def reading_path(db_path: Path) -> Path:
    """The file readers open: the serving snapshot once published, else the main file."""
    snapshot = serving_path(db_path)
    return snapshot if snapshot.is_file() else db_path


def pending_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".unpublished")


def validation_path(db_path: Path) -> Path:
    """`<db stem>.validation.json`: the latest validation run, passed or failed."""
    return db_path.with_name(db_path.stem + ".validation.json")


# --- connections -------------------------------------------------------------------------


def is_lock_error(exc: BaseException) -> bool:
    """DuckDB's "could not set lock" / "conflicting lock" IOException."""
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def connect(
    db_path: str | os.PathLike[str],
    *,
    read_only: bool = False,
    timeout_s: float | None = None,
    config: dict[str, Any] | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open the file, retrying while another process holds DuckDB's file lock.

    The one retry rule for every process: back off from 50 ms to 1 s until `timeout_s`
    (default: 60 s for writers, 2 s for readers), then raise WarehouseUnavailable naming the
    file and what to do. A missing file is an error for readers (DuckDB would create one).
    """
    path = Path(db_path)
    if read_only and not path.is_file():
        raise WarehouseUnavailable(
            f"No warehouse at {path}. Build it first (`bash scripts/main.sh --no-serve`) "
            "or point PERF_DUCKDB_PATH at an existing warehouse file."
        )
    if timeout_s is None:
        timeout_s = READER_CONNECT_TIMEOUT_S if read_only else WRITER_CONNECT_TIMEOUT_S
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only, config=config or {})
            break
        except duckdb.IOException as exc:
            if not is_lock_error(exc):
                raise WarehouseUnavailable(f"Cannot open {path}: {exc}") from exc
            if time.monotonic() > deadline:
                raise WarehouseUnavailable(
                    f"The warehouse {path} is locked by another process (a load, `dbt build`, "
                    "or a DuckDB CLI with the main file open). Try again when it has finished."
                ) from exc
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
    # SET, not connect(config=): DuckDB shares one instance per file and process and refuses a
    # second connection whose configuration differs, so the setting must not be part of it.
    for name, value in DUCKDB_CONFIG.items():
        con.execute(f"SET {name} = '{value}'")
    return con


@contextmanager
def read_only(
    db_path: str | os.PathLike[str], **kwargs: Any
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short-lived read-only connection, closed when the block ends."""
    con = connect(db_path, read_only=True, **kwargs)
    try:
        yield con
    finally:
        con.close()


# --- the pending marker and change times ----------------------------------------------------


def mark_pending(db_path: Path) -> None:
    """Note that the main file has changes the snapshot lacks (cleared by `publish_copy`).

    Writers set it before they write; a writer killed at any point, or a publish killed
    before its rename, leaves it, so the dashboard says a newer version awaits publishing.
    A plain `dbt build` does not set it: `changed_at_ns` (file times) catches that case.
    """
    pending_path(db_path).touch()


def clear_pending(db_path: Path) -> None:
    pending_path(db_path).unlink(missing_ok=True)


def needs_publish(db_path: Path) -> bool:
    return pending_path(db_path).exists() or not serving_path(db_path).exists()


def changed_at_ns(db_path: Path) -> int | None:
    """When the main file last changed: the newer of the file and its WAL (a writer killed
    before its checkpoint leaves its changes in `<db>.wal`). None when there is no file."""
    times = [
        f.stat().st_mtime_ns for f in (db_path, db_path.with_name(db_path.name + ".wal"))
        if f.is_file()
    ]  # fmt: skip
    return max(times) if times else None


# --- publish -----------------------------------------------------------------------------


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish_copy(
    db_path: Path, target: Path | None = None, *, lock_timeout_s: float = 600.0
) -> Path:
    """Copy a checkpointed `db_path` atomically onto the serving path; return that path.

    Only the publish gate calls this (after the expectations passed). The snapshot's mtime is
    set to the main file's change time, so "the main file is newer than the snapshot" means
    exactly "changed since it was published" (`status`).
    """
    target = target or serving_path(db_path)
    if not db_path.is_file():
        raise FileNotFoundError(f"no warehouse at {db_path} to publish")
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with filelock.writer_lock(db_path):
        # A publisher killed mid-copy leaves its temporary file; under the lock none is live.
        for stale in target.parent.glob(f".{target.name}.*.tmp"):
            stale.unlink(missing_ok=True)
        # Keep DuckDB's own write lock while copying: a process that ignores the advisory
        # lock (a CLI session) cannot change the file under the copy.
        con = connect(db_path, timeout_s=lock_timeout_s)
        try:
            con.execute("checkpoint")
            as_of = changed_at_ns(db_path) or time.time_ns()
            try:
                with open(db_path, "rb") as src, open(temp, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1024 * 1024)
                    dst.flush()
                    os.fsync(dst.fileno())
                os.utime(temp, ns=(time.time_ns(), as_of))
                kill_point("publish_copy")
                os.replace(temp, target)
            finally:
                temp.unlink(missing_ok=True)
            _fsync_dir(target.parent)
            clear_pending(db_path)
        finally:
            con.close()
    return target


# --- the latest validation run --------------------------------------------------------------


def write_validation_report(db_path: Path, run_at: dt.datetime, outcomes: list[dict]) -> None:
    """Replace the side file atomically (temporary file, fsync, rename): readers never see
    half a report."""
    target = validation_path(db_path)
    body = {"run_at": run_at.isoformat(), "validated_ns": changed_at_ns(db_path)}
    text = json.dumps({**body, "outcomes": outcomes}, indent=1, default=str)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def read_validation_report(db_path: Path) -> ValidationReport | None:
    """The side file's run, or None when no validation has run (or the file is unreadable:
    the dashboard then says no validation ran rather than failing)."""
    try:
        data = json.loads(validation_path(db_path).read_text(encoding="utf-8"))
        return ValidationReport(
            run_at=dt.datetime.fromisoformat(data["run_at"]),
            validated_ns=data.get("validated_ns"),
            outcomes=tuple(data["outcomes"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def status(db_path: Path) -> ServingStatus:
    """File times and the side files only: cheap enough for every page view."""
    snapshot = serving_path(db_path)
    as_of = snapshot.stat().st_mtime_ns if snapshot.is_file() else None
    return ServingStatus(
        main=db_path,
        snapshot=snapshot if as_of is not None else None,
        snapshot_as_of_ns=as_of,
        main_changed_ns=changed_at_ns(db_path),
        pending=pending_path(db_path).exists(),
        validation=read_validation_report(db_path),
    )


# --- readers -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Kept:
    identity: tuple[int, int]  # inode, change time: a publish renames a new file over it
    con: duckdb.DuckDBPyConnection
    catalog: str


# Snapshot path -> the connection that holds its current version attached.
_kept: dict[Path, _Kept] = {}
# Replaced versions stay open a while: closing a connection closes the cursors other
# sessions may still be reading from.
_retired: deque[duckdb.DuckDBPyConnection] = deque(maxlen=4)
_kept_lock = threading.Lock()


def _attach(path: Path) -> tuple[duckdb.DuckDBPyConnection, str]:
    """An in-memory database with `path` attached read-only, and the attached name.

    ATTACH opens the file itself: `duckdb.connect(path)` could hand back an instance still
    open on the replaced version (DuckDB caches instances by path). The name is the one
    DuckDB gives the file when it opens it directly (ATTACH without AS): dbt's views name
    their catalog (`"warehouse".staging....`), and the snapshot keeps the main file's name.
    """
    con = duckdb.connect(config=DUCKDB_CONFIG)
    con.execute(f"ATTACH {sql_text(str(path))} (READ_ONLY)")
    (name,) = con.execute(
        "select database_name from duckdb_databases() where path = ?", [str(path)]
    ).fetchone()
    return con, name


class FileReader(Reader):
    """Reads one file: a published snapshot through a connection kept per process (see the
    module docstring), any other file through a connection per read."""

    def __init__(self, path: Path, *, keep: bool) -> None:
        self.path = path
        self.keep = keep

    @property
    def name(self) -> str:
        return str(self.path)

    def _kept_connection(self) -> _Kept | None:
        """The kept connection to the current version of the snapshot; None when the file
        cannot be attached (the short-lived connection then reports what is wrong)."""
        path = self.path.absolute()
        try:
            info = os.stat(path)
        except OSError:
            return None
        identity = (info.st_ino, info.st_ctime_ns)
        with _kept_lock:
            held = _kept.get(path)
            if held is not None and held.identity == identity:
                return held
            try:
                con, catalog = _attach(path)
            except (duckdb.Error, TypeError):
                return None
            if held is not None:
                _retired.append(held.con)
            _kept[path] = _Kept(identity, con, catalog)
            return _kept[path]

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        kept = self._kept_connection() if self.keep else None
        if kept is None:
            with read_only(self.path) as con:
                yield con
            return
        cursor = kept.con.cursor()
        try:
            cursor.execute('USE "' + kept.catalog.replace('"', '""') + '"')
            yield cursor
        finally:
            cursor.close()

    def attach_config(self) -> dict[str, object]:
        return {}

    def attach(self, con: duckdb.DuckDBPyConnection, *, snapshot: int | None = None) -> None:
        if snapshot is not None:
            raise WarehouseUnavailable("--snapshot reads a lake as of a snapshot: team mode only")
        # Reuse connect's checks (missing file, a writer's lock) and messages.
        connect(self.path, read_only=True).close()
        # ATTACH takes no bound parameters; the path is our own setting, quoted as a literal.
        con.execute(f"attach {sql_text(str(self.path))} as {FILE_CATALOG} (read_only)")
        con.execute(f"use {FILE_CATALOG}")

    def child_settings(self) -> dict[str, str]:
        return {"warehouse": str(self.path)}


def reader_of_file(path: Path) -> FileReader:
    """The reader of one file; kept open only when it is the published snapshot of the
    configured main file (a main file kept open would block its writers)."""
    try:
        keep = path.absolute() == serving_path(main_path())
    except OSError:
        keep = False
    return FileReader(path, keep=keep)


# --- the warehouse -------------------------------------------------------------------------


class FileWarehouse(Warehouse):
    """A DuckDB file with its serving snapshot beside it (see the module docstring)."""

    def __init__(self, main: Path) -> None:
        self.main = main

    def __repr__(self) -> str:
        return f"FileWarehouse({str(self.main)!r})"

    def describe(self) -> str:
        return str(self.main)

    def missing_reason(self) -> str | None:
        if self.main.is_file():
            return None
        return f"no warehouse at {self.main} (run `python -m ingest load`)"

    def reader(self) -> FileReader:
        return reader_of_file(reading_path(self.main))

    # --- who may write

    @contextmanager
    def exclusive(self, *, writes: bool) -> Iterator[tuple[int, ...]]:
        with filelock.writer_lock(self.main):
            if writes:
                mark_pending(self.main)
            yield (filelock.held_fd(self.main),)

    @contextmanager
    def loading(self, stored_any: Callable[[], bool]) -> Iterator[None]:
        """The writer lock for the whole load, and the pending marker set before anything is
        written (cleared again when the load stored nothing and none was pending)."""
        with filelock.writer_lock(self.main):
            was_pending = needs_publish(self.main)
            mark_pending(self.main)
            yield
            if not (was_pending or stored_any()):
                clear_pending(self.main)  # nothing new: the snapshot is still current

    def identity_locks(self) -> IdentityLocks:
        return NoIdentityLocks()  # one writer at a time holds the file

    # --- writing

    def connect_writer(self, *, timeout_s: float | None = None) -> duckdb.DuckDBPyConnection:
        """Ids come from the sequence `raw.source_file_seq`: in load order (the crash tests
        read a killed load's prefix by id)."""
        self.main.parent.mkdir(parents=True, exist_ok=True)
        con = connect(self.main, timeout_s=timeout_s)
        con.execute("create schema if not exists raw")
        con.execute("create sequence if not exists raw.source_file_seq start 1")
        return con

    def new_source_file_ids(self, con: duckdb.DuckDBPyConnection, count: int) -> list[int]:
        rows = con.execute("select nextval('raw.source_file_seq') from range(?)", [count])
        return [int(new_id) for (new_id,) in rows.fetchall()]

    def commit(self, con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
        return in_transaction(con, work)

    def label_commit(
        self, con: duckdb.DuckDBPyConnection, author: str, message: str, extra: dict[str, Any]
    ) -> None:
        pass  # a file keeps no history of its commits

    # --- building

    def child_env(self) -> dict[str, str]:
        return {"PERF_DUCKDB_PATH": str(self.main), "PERF_WAREHOUSE": str(self.main)}

    def dbt_args(self) -> list[str]:
        return []  # the profile's default target reads PERF_DUCKDB_PATH

    def folder(self) -> Path | None:
        return self.main.parent

    # --- the gate

    @contextmanager
    def validation_view(self) -> Iterator[tuple[duckdb.DuckDBPyConnection, int | None]]:
        # The gate holds the writer lock, so the file does not change under the run; another
        # process that skipped the lock is waited for as long as a writer waits.
        with read_only(self.main, timeout_s=WRITER_CONNECT_TIMEOUT_S) as con:
            yield con, None

    def record_validation(
        self, run_at: dt.datetime, rows: list[dict[str, Any]], validated: int | None
    ) -> int | None:
        """Append to the results table, and replace the side file even when the append
        failed, so the dashboard can show a failing run whatever happened to the table."""
        failure: ValidationNotRecorded | None = None
        try:
            self._append_validation(run_at, rows)
        except ValidationNotRecorded as exc:
            failure = exc
        try:
            write_validation_report(self.main, run_at, rows)
        except OSError as exc:
            failure = failure or ValidationNotRecorded(f"side file not written: {exc}")
        if failure is not None:
            raise failure
        return None

    def _append_validation(self, run_at: dt.datetime, rows: list[dict[str, Any]]) -> None:
        try:
            con = connect(self.main)
        except WarehouseUnavailable as exc:
            raise ValidationNotRecorded(str(exc)) from exc
        try:
            require_validation_table(con)
            columns, values = rows_by_column(rows)
            sql = insert_validation_sql(columns)
            in_transaction(con, lambda: con.executemany(sql, [(run_at, *v) for v in values]))
        finally:
            con.close()

    def publish(self, validated: int | None, recorded: int | None) -> str:
        return f"validated and published {publish_copy(self.main)}"

    def served(self) -> str | None:
        snapshot = serving_path(self.main)
        return str(snapshot) if snapshot.is_file() else None

    def serving_status(self, *, recent_ok: bool = False) -> ServingStatus:
        return status(self.main)  # file times: always fresh
