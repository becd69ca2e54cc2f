"""Publish the serving snapshot the dashboard reads: `python -m ingest publish [--db FILE]`.

Why a snapshot: DuckDB lets one process write a file, and while a writer holds it no other
process can even read it (and a reader holding it makes a writer fail). A dashboard reading
the main file would either fail during every load and `dbt build`, or make them fail.

So there are two files side by side:

- `data/warehouse.duckdb` (`PERF_DUCKDB_PATH`, `--db`): the main file. Only writers open it
  (`ingest load`, `ingest build` = dbt, the expectations via `ingest locked -- ...`), one at
  a time, serialised by the advisory lock in `ingest.locking` (`<db>.lock`), so a second
  writer waits instead of failing.
- `data/warehouse.serving.duckdb` (`<db stem>.serving.duckdb` beside the main file, or
  `PERF_SERVING_PATH`): a read-only copy for the dashboard. After each successful step a
  writer publishes: take the writer lock, open the main file, `CHECKPOINT` (everything in
  the file, nothing left in the WAL), copy it to a temporary file in the same folder, fsync,
  then `os.replace` it onto the serving path, which is atomic. A reader that had the old
  snapshot open keeps reading the old inode undisturbed; new connections see the new one;
  nobody ever sees half a file. `ingest load` and `ingest build` publish on their own at the
  end; `ingest publish` does it by hand.

Until the first publish there is no snapshot and the dashboard falls back to the main file
(read-only, with a bounded retry while a writer holds it).

Analysts can open either file with the DuckDB CLI (`duckdb -readonly data/warehouse.serving.duckdb`
never disturbs a writer; opening the main file blocks writers while the CLI is open).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ingest.faults import kill_point
from ingest.locking import writer_lock

SERVING_SUFFIX = ".serving.duckdb"


def serving_path(db_path: Path) -> Path:
    """Where the snapshot of `db_path` is published (PERF_SERVING_PATH overrides)."""
    env = os.environ.get("PERF_SERVING_PATH")
    if env:
        return Path(env).expanduser().absolute()
    return db_path.with_name(db_path.stem + SERVING_SUFFIX)


def _pending_marker(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".unpublished")


def mark_pending(db_path: Path) -> None:
    """Note that the main file has changes the snapshot lacks (cleared by `publish`).

    Writers set it before they write; a writer killed at any point, or a publish killed
    before its rename, leaves it, so the next `ingest load` publishes even when it has
    nothing new to load.
    """
    _pending_marker(db_path).touch()


def clear_pending(db_path: Path) -> None:
    _pending_marker(db_path).unlink(missing_ok=True)


def needs_publish(db_path: Path) -> bool:
    return _pending_marker(db_path).exists() or not serving_path(db_path).exists()


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(db_path: Path, target: Path | None = None, *, lock_timeout_s: float = 600.0) -> Path:
    """Copy a checkpointed `db_path` atomically onto the serving path; return that path."""
    # Imported here: the dashboard imports `serving_path` and must not pull in every parser.
    from ingest.load import _connect_with_retry

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
        con = _connect_with_retry(db_path, lock_timeout_s)
        try:
            con.execute("checkpoint")
            try:
                with open(db_path, "rb") as src, open(temp, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1024 * 1024)
                    dst.flush()
                    os.fsync(dst.fileno())
                kill_point("publish_copy")
                os.replace(temp, target)
            finally:
                temp.unlink(missing_ok=True)
            _fsync_dir(target.parent)
            _pending_marker(db_path).unlink(missing_ok=True)
        finally:
            con.close()
    return target
