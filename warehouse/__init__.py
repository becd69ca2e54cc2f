"""The warehouse files: where they are, who may write, how to connect, how to publish.

One module that `ingest`, `app` and `expectations` all use, so none of them imports another
for infrastructure. Four jobs, each small:

Paths
    The main file is `--db`, else `PERF_DUCKDB_PATH`, else `data/warehouse.duckdb`. Beside it:
    `<stem>.serving.duckdb` (or `PERF_SERVING_PATH`), the snapshot the dashboard reads;
    `<name>.lock`, the writers' advisory lock; `<name>.unpublished`, the pending marker.

One writer at a time
    DuckDB lets one process open a file for writing; a second writer fails at once with a lock
    error. Every writer (`ingest load`, `ingest build` = dbt, `ingest locked -- CMD` for the
    expectations, `ingest publish`) first takes `fcntl.flock` on the lock file, so a second
    writer waits its turn instead of failing. The lock is advisory (an analyst's DuckDB CLI
    opened for writing skips it, hence the connection retry below), released by the kernel when
    its process dies (SIGKILL included: no stale lock), and re-entrant within a process.

Connections, one retry rule
    `connect()` opens the file read-write or read-only; while another process holds DuckDB's
    own file lock it retries with exponential back-off until its deadline, then raises
    `WarehouseUnavailable` with a message a user can act on. Writers wait long (a dbt build
    takes minutes); the dashboard waits a second or two and then says so.

Publish (the gate)
    DuckDB lets one process write a file and, while it does, no other process can read it. So
    the dashboard never opens the main file once a snapshot exists: `python -m ingest publish`
    validates the main file (the expectations, in-process, under the writer lock) and only
    when every constraint holds copies it onto the serving snapshot (`CHECKPOINT`, copy to a
    temporary file in the same folder, fsync, `os.replace`, which is atomic). Loads and builds
    never publish: a failing version never reaches the dashboard, which keeps serving the
    last version that passed. A reader that had the old snapshot open keeps its inode; new
    connections see the new one; nobody sees half a file. The latest validation run, passed
    or failed, is also written to `<stem>.validation.json`, and `status()` compares file times
    so the dashboard can say why what it shows is older than the main file (a failed
    validation, or changes, e.g. a plain `dbt build`, not yet published) and the command that
    fixes it.

    Child processes (`ingest build` runs dbt, `ingest locked -- CMD`) inherit the lock's file
    descriptor and die with their parent (PR_SET_PDEATHSIG), so the lock covers the whole
    process tree: a killed `ingest build` cannot leave dbt writing beside the next writer.

`kill_point()` lets the crash tests SIGKILL the process at named stages
(`PERF_INGEST_KILL=<stage>:<n>`, the n-th time the stage is reached); unset, it is one
dictionary look-up.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
import shutil
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

# DuckDB 1.5.5 (pinned: the DuckLake and PostgreSQL extension packages need it exactly) turns
# `qualify row_number() over (...) = 1` above a range join into an arg_min aggregate that
# allocates without bound (per_node_iops: 19 GiB, then out of memory; 1.5.6 is fine). Every
# connection of ours switches that one rewrite off; dbt's profile does the same.
DUCKDB_CONFIG: dict[str, str] = {"disabled_optimizers": "top_n_window_elimination"}

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB_PATH = REPO_ROOT / "data" / "warehouse.duckdb"
SERVING_SUFFIX = ".serving.duckdb"

# How long a writer waits for another one before giving up (a full reference load plus
# `dbt build` takes minutes, not hours). Override with PERF_WRITER_LOCK_TIMEOUT_S.
DEFAULT_WRITER_LOCK_TIMEOUT_S = 3600.0
# How long a connection waits for DuckDB's own file lock (held by a process that skipped the
# advisory lock, or by a reader of the main file).
WRITER_CONNECT_TIMEOUT_S = 60.0
READER_CONNECT_TIMEOUT_S = 2.0
_LOCK_POLL_S = 0.1


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


def reading_path(cli_value: str | os.PathLike[str] | None = None) -> Path:
    """The file readers open: the serving snapshot once published, else the main file."""
    main = main_path(cli_value)
    snapshot = serving_path(main)
    return snapshot if snapshot.is_file() else main


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


def pending_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".unpublished")


# --- crash points (tests only) -----------------------------------------------------------

_reached: Counter[str] = Counter()


def kill_point(stage: str) -> None:
    """SIGKILL this process the n-th time it reaches `stage` when PERF_INGEST_KILL says so.

    Stages: `before_commit` (a file's rows inserted, not committed), `after_commit`,
    `publish_copy` (the snapshot copy written, not yet renamed). No `finally` runs, exactly as
    when a dropped SSH session or the OOM killer ends a load.
    """
    spec = os.environ.get("PERF_INGEST_KILL")
    if not spec:
        return
    _reached[stage] += 1
    if spec == f"{stage}:{_reached[stage]}":
        os.kill(os.getpid(), signal.SIGKILL)


# --- the writer lock ---------------------------------------------------------------------


class WriterBusy(RuntimeError):
    """Another writer held the warehouse for longer than the timeout."""


# lock file -> (fd, depth): flock locks belong to an open file description, so a second
# open+flock of the same file in this process would wait for itself.
_held: dict[str, tuple[int, int]] = {}
_guard = threading.Lock()


def _writer_lock_timeout_s() -> float:
    return float(os.environ.get("PERF_WRITER_LOCK_TIMEOUT_S", DEFAULT_WRITER_LOCK_TIMEOUT_S))


@contextmanager
def writer_lock(db_path: Path, timeout_s: float | None = None) -> Iterator[None]:
    """Hold the warehouse's writer lock for the duration of the block (waits for it)."""
    key = str(lock_path(db_path.absolute()))
    with _guard:
        reentered = key in _held
        if reentered:
            fd, depth = _held[key]
            _held[key] = (fd, depth + 1)
    if not reentered:
        _acquire(key, _writer_lock_timeout_s() if timeout_s is None else timeout_s)
    try:
        yield
    finally:
        _release(key)


def held_lock_fd(db_path: Path) -> int:
    """The descriptor of the writer lock this process holds on `db_path`, for a child process
    to inherit (`pass_fds`): the lock then stays held while any of them lives."""
    with _guard:
        return _held[str(lock_path(db_path.absolute()))][0]


def _acquire(key: str, timeout_s: float) -> None:
    Path(key).parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(key, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise WriterBusy(
                    f"another writer has held {key} for over {timeout_s:g} s "
                    "(set PERF_WRITER_LOCK_TIMEOUT_S to wait longer)"
                ) from None
            time.sleep(_LOCK_POLL_S)
    with _guard:
        _held[key] = (fd, 1)


def _release(key: str) -> None:
    with _guard:
        fd, depth = _held[key]
        if depth > 1:
            _held[key] = (fd, depth - 1)
            return
        del _held[key]
    fcntl.flock(fd, fcntl.LOCK_UN)
    os.close(fd)


# --- connections -------------------------------------------------------------------------


class WarehouseUnavailable(RuntimeError):
    """The warehouse file is missing, locked by another process, or not a DuckDB database."""


def is_lock_error(exc: BaseException) -> bool:
    """DuckDB's "could not set lock" / "conflicting lock" IOException."""
    text = str(exc).lower()
    return isinstance(exc, duckdb.IOException) and "lock" in text


def connect(
    db_path: str | os.PathLike[str],
    *,
    read_only: bool = False,
    timeout_s: float | None = None,
    config: dict[str, Any] | None = None,
) -> duckdb.DuckDBPyConnection:
    """Open the warehouse, retrying while another process holds DuckDB's file lock.

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


# --- publish -----------------------------------------------------------------------------


def mark_pending(db_path: Path) -> None:
    """Note that the main file has changes the snapshot lacks (cleared by `publish`).

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


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(db_path: Path, target: Path | None = None, *, lock_timeout_s: float = 600.0) -> Path:
    """Copy a checkpointed `db_path` atomically onto the serving path; return that path.

    Only the publish gate (`python -m ingest publish`, after the expectations passed) calls
    this. The snapshot's mtime is set to the main file's change time, so "the main file is
    newer than the snapshot" means exactly "changed since it was published" (`status`).
    """
    target = target or serving_path(db_path)
    if not db_path.is_file():
        raise FileNotFoundError(f"no warehouse at {db_path} to publish")
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    with writer_lock(db_path):
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


# --- what the dashboard serves, and why ----------------------------------------------------


def validation_path(db_path: Path) -> Path:
    """`<db stem>.validation.json`: the latest validation run, passed or failed.

    The serving snapshot holds only runs that passed (a failing version is never published),
    so the dashboard reads the failing run from this side file.
    """
    return db_path.with_name(db_path.stem + ".validation.json")


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The latest validation run of a main file (what `python -m expectations` found)."""

    run_at: dt.datetime
    # changed_at_ns() of the main file once the run's results were stored: the version it
    # validated. A later change to the main file is not covered by this run.
    validated_ns: int | None
    outcomes: tuple[dict[str, Any], ...]  # the data_quality.validation_results columns

    @property
    def constraint_failures(self) -> int:
        return sum(o["success"] is False and o["severity"] == "constraint" for o in self.outcomes)


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


@dataclass(frozen=True, slots=True)
class ServingStatus:
    """What the dashboard serves against what the main file holds.

    Team mode (`warehouse.serving_lake.status`) fills the same fields from the lake's
    snapshots: `main` is the lake's description, `snapshot` "snapshot <id>", the times are
    snapshot commit times."""

    main: Path | str
    snapshot: Path | str | None  # None: nothing published yet
    snapshot_as_of_ns: int | None  # the main file's change time when it was published
    main_changed_ns: int | None  # None: no main file
    pending: bool  # a writer (load, build) ran, or was killed, since the last publish
    validation: ValidationReport | None

    @property
    def unpublished(self) -> bool:
        """The main file holds changes the dashboard does not show."""
        if self.main_changed_ns is None:
            return False
        if self.snapshot_as_of_ns is None:
            return True
        return self.pending or self.main_changed_ns > self.snapshot_as_of_ns

    @property
    def failed_newer_version(self) -> bool:
        """The latest validation failed on a version newer than the one served."""
        v = self.validation
        if v is None or v.constraint_failures == 0:
            return False
        return self.snapshot_as_of_ns is None or (v.validated_ns or 0) > self.snapshot_as_of_ns

    @property
    def changed_since_validation(self) -> bool:
        v = self.validation
        return v is None or (self.main_changed_ns or 0) > (v.validated_ns or 0)


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
