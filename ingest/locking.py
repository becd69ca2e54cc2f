"""One writer at a time: an advisory lock shared by every process that writes the warehouse.

DuckDB lets one process open a file for writing; a second writer fails at once with a lock
error. `ingest load`, `ingest build` (dbt), `ingest locked -- CMD` (e.g. the expectations) and
`ingest publish` therefore first take `fcntl.flock` on `<db>.lock` beside the warehouse, so a
second writer waits its turn instead of failing. The lock is

- advisory: a process that skips it (an analyst's DuckDB CLI opened for writing) is not
  stopped by it; the loader still retries DuckDB's own lock for a while (`_connect_with_retry`);
- released by the kernel when its process dies (SIGKILL included), so a crash never leaves a
  stale lock behind;
- re-entrant within a process: `ingest load` holds it and then publishes, which takes it again.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# How long a writer waits for another one before giving up (a full reference load plus
# `dbt build` takes minutes, not hours). Override with PERF_WRITER_LOCK_TIMEOUT_S.
DEFAULT_TIMEOUT_S = 3600.0
_POLL_S = 0.1


class WriterBusy(RuntimeError):
    """Another writer held the warehouse for longer than the timeout."""


# lock file -> (fd, depth): flock locks belong to an open file description, so a second
# open+flock of the same file in this process would wait for itself.
_held: dict[str, tuple[int, int]] = {}
_guard = threading.Lock()


def lock_path_for(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


def _timeout_s() -> float:
    return float(os.environ.get("PERF_WRITER_LOCK_TIMEOUT_S", DEFAULT_TIMEOUT_S))


@contextmanager
def writer_lock(db_path: Path, timeout_s: float | None = None) -> Iterator[None]:
    """Hold the warehouse's writer lock for the duration of the block (waits for it)."""
    key = str(lock_path_for(db_path.absolute()))
    with _guard:
        if key in _held:
            fd, depth = _held[key]
            _held[key] = (fd, depth + 1)
            reentered = True
        else:
            reentered = False
    if not reentered:
        _acquire(key, _timeout_s() if timeout_s is None else timeout_s)
    try:
        yield
    finally:
        _release(key)


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
            time.sleep(_POLL_S)
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
