"""The other writers: `build` (dbt), `locked -- CMD` (any writer) and `publish` (the gate).

Each runs under the warehouse's writer lock, so it queues behind a load instead of failing
on DuckDB's file lock. `build` and `locked` never publish: `publish` validates the main file
(the expectations, in-process, under the same lock) and copies it onto the dashboard's serving
snapshot only when every constraint holds; otherwise it exits 1 and the dashboard keeps the
last version that passed (see `warehouse.py`).

The lock belongs to the whole process tree: a child (dbt, CMD) inherits the lock's file
descriptor, so the lock stays held while it runs, and gets SIGKILL when its parent dies
(PR_SET_PDEATHSIG), so a killed `ingest build` cannot leave dbt writing beside the next writer.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape

import warehouse
from ingest.commands import USAGE_ERROR

DBT_PROJECT = warehouse.REPO_ROOT / "dbt_project"
PUBLISH_HINT = "run `python -m ingest publish` to validate it and publish it to the dashboard"
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


def run_locked(cmd: list[str], db_path: Path, console: Console) -> int:
    """Run a writer command under the writer lock, which the child shares and dies with."""
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db_path)}
    with warehouse.writer_lock(db_path):
        warehouse.mark_pending(db_path)
        status = subprocess.run(
            cmd,
            env=env,
            check=False,
            pass_fds=(warehouse.held_lock_fd(db_path),),
            preexec_fn=_die_with(os.getpid()),
        ).returncode
    if status != 0:
        console.print(f"[yellow]{escape(cmd[0])} exited {status}[/]")
    return status


def _dbt_command() -> list[str]:
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]


def build(args: argparse.Namespace, console: Console) -> int:
    """`dbt build` of the project; extra arguments (after an optional `--`) go to dbt."""
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    project = str(DBT_PROJECT)
    cmd = [*_dbt_command(), "build", "--project-dir", project, "--profiles-dir", project, *extra]
    status = run_locked(cmd, warehouse.main_path(args.db), console)
    if status == 0:
        console.print(f"built; not yet on the dashboard: {PUBLISH_HINT}")
    return status


def locked(args: argparse.Namespace, console: Console) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
        return USAGE_ERROR
    return run_locked(cmd, warehouse.main_path(args.db), console)


def publish(args: argparse.Namespace, console: Console) -> int:
    """The gate: validate under the writer lock; publish only when every constraint holds.

    Exit 0 published, 1 a constraint failed (nothing published), 2 no warehouse, 3 the
    results could not be stored (nothing published).
    """
    from expectations.cli import validate_and_record  # imported late: GX takes seconds
    from expectations.store import ResultsTableMissing

    db_path = warehouse.main_path(args.db)
    if not db_path.is_file():
        console.print(f"[red]error:[/] no warehouse at {db_path} (run `python -m ingest load`)")
        return USAGE_ERROR
    with warehouse.writer_lock(db_path):
        run = validate_and_record(db_path, console, failures_only=True)
        if run.failed_constraints:
            _refused(console, db_path, f"{run.failed_constraints} constraint failures")
            return 1
        if run.not_stored is not None and not isinstance(run.not_stored, ResultsTableMissing):
            _refused(console, db_path, f"results not stored: {run.not_stored}")
            return 3
        target = warehouse.publish(db_path)
    if run.not_stored is not None:  # raw tables only: dbt has not created the results table
        console.print(f"[yellow]note:[/] {escape(str(run.not_stored))}")
    console.print(f"validated and published {target}")
    return 0


def _refused(console: Console, db_path: Path, why: str) -> None:
    snapshot = warehouse.serving_path(db_path)
    keeps = (
        f"the dashboard keeps serving {snapshot}"
        if snapshot.is_file()
        else "nothing has been published yet"
    )
    console.print(
        f"[red]not published:[/] {escape(why)}; {keeps}. The failures are listed above, on the "
        "dashboard's Data quality page and by `python -m expectations --failures-only`.",
        soft_wrap=True,
    )
