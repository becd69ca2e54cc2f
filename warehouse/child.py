"""Child processes that never outlive their parent, run under the warehouse's hold.

`ingest build` runs dbt, and `ingest locked -- CMD` any writer, as a child that inherits the
writer lock's file descriptor (`Warehouse.exclusive` yields it) and gets SIGKILL when its
parent dies (PR_SET_PDEATHSIG), so the lock covers the whole process tree: a killed
`ingest build` cannot leave dbt writing beside the next writer.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Callable

from warehouse.base import Warehouse

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# Loaded before any fork: the child between fork and exec may only call what is loaded.
_LIBC = ctypes.CDLL(None, use_errno=True)


def _die_with(parent: int) -> Callable[[], None]:
    """preexec_fn: the child gets SIGKILL when `parent` dies, even if it already has."""

    def preexec() -> None:
        if _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(126)
        if os.getppid() != parent:  # the parent died before prctl: nobody holds the lock
            os._exit(126)

    return preexec


def run_child(cmd: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> int:
    """Run `cmd` as a child that dies with this process (and so never outlives the lock)."""
    return subprocess.run(
        cmd, env=env, check=False, pass_fds=pass_fds, preexec_fn=_die_with(os.getpid())
    ).returncode


def run_exclusive(wh: Warehouse, cmd: list[str]) -> int:
    """Run a writer command while holding `wh` (`Warehouse.exclusive`, marked as changing
    the data); the child gets the warehouse in its environment and dies with this process."""
    with wh.exclusive(writes=True) as fds:
        return run_child(cmd, {**os.environ, **wh.child_env()}, fds)
