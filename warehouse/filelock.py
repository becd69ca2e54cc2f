"""One writer at a time on a warehouse file: an advisory `flock` every writer takes first.

DuckDB lets one process open a file for writing; a second writer fails at once with a lock
error. Every writer of a warehouse file (`ingest load`, `ingest build` = dbt, `ingest locked --
CMD`, `ingest publish`) first takes `fcntl.flock` on `<name>.lock` beside it, so a second writer
waits its turn instead of failing. The lock is advisory (an analyst's DuckDB CLI opened for
writing skips it, hence the connection retry in `warehouse.file.connect`), released by the
kernel when its process dies (SIGKILL included: no stale lock), and re-entrant within a process.

Child processes (`ingest build` runs dbt) inherit the lock's file descriptor (`held_fd`) and
die with their parent (`warehouse.child`), so the lock covers the whole process tree.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from warehouse.base import WriterBusy

# How long a writer waits for another one before giving up (a full reference load plus
# `dbt build` takes minutes, not hours). Override with PERF_WRITER_LOCK_TIMEOUT_S.
DEFAULT_WRITER_LOCK_TIMEOUT_S = 3600.0
_LOCK_POLL_S = 0.1

# lock file -> (fd, depth): flock locks belong to an open file description, so a second
# open+flock of the same file in this process would wait for itself.
_held: dict[str, tuple[int, int]] = {}
_guard = threading.Lock()


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


def writer_lock_timeout_s() -> float:
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
        _acquire(key, writer_lock_timeout_s() if timeout_s is None else timeout_s)
    try:
        yield
    finally:
        _release(key)


def held_fd(db_path: Path) -> int:
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
