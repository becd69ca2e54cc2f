"""The other writers: `build` (dbt), `locked -- CMD` (any writer) and `publish` (the gate).

Each runs under the warehouse's writer lock, so it queues behind a load instead of failing
on DuckDB's file lock. `build` and `locked` never publish: `publish` validates the main file
(the expectations, in-process, under the same lock) and copies it onto the dashboard's serving
snapshot only when every constraint holds; otherwise it exits 1 and the dashboard keeps the
last version that passed (see `warehouse/__init__.py`).

The lock belongs to the whole process tree: a child (dbt, CMD) inherits the lock's file
descriptor, so the lock stays held while it runs, and gets SIGKILL when its parent dies
(PR_SET_PDEATHSIG), so a killed `ingest build` cannot leave dbt writing beside the next writer.

Team mode (PERF_WAREHOUSE=ducklake:postgres:...): the lock is PostgreSQL's advisory lock
`BUILD_LOCK`, one build or publish at a time across machines (loads go on meanwhile: each
reads and commits its own snapshots); dbt runs the profile's `lake` target; publish validates
one snapshot and records the publication in the lake (`warehouse.serving_lake`), no file copy.
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
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

import warehouse
from ingest.commands import USAGE_ERROR
from warehouse import lake, serving_lake

if TYPE_CHECKING:
    from expectations.cli import Validation

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


def _run_child(cmd: list[str], env: dict[str, str], pass_fds: tuple[int, ...] = ()) -> int:
    """Run `cmd` as a child that dies with this process (and so never outlives the lock)."""
    return subprocess.run(
        cmd, env=env, check=False, pass_fds=pass_fds, preexec_fn=_die_with(os.getpid())
    ).returncode


def run_locked(cmd: list[str], tgt: lake.Target, console: Console) -> int:
    """Run a writer command under the writer lock (file) or BUILD_LOCK (lake); the child
    gets the warehouse in its environment and dies with this process."""
    if tgt.is_lake:
        env = {
            **os.environ,
            "PERF_WAREHOUSE": tgt.uri,
            "PERF_LAKE_DATA_PATH": tgt.data_path or "",
            # dbt's `lake` profile reads it: the pip packages' extensions, no download
            "PERF_DUCKDB_EXTENSION_DIR": str(lake.extension_directory()),
        }
        with lake.advisory_lock(tgt, lake.BUILD_LOCK):
            status = _run_child(cmd, env)
    else:
        db_path = tgt.file or warehouse.main_path()
        env = {**os.environ, "PERF_DUCKDB_PATH": str(db_path)}
        with warehouse.writer_lock(db_path):
            warehouse.mark_pending(db_path)
            status = _run_child(cmd, env, (warehouse.held_lock_fd(db_path),))
    if status != 0:
        console.print(f"[yellow]{escape(cmd[0])} exited {status}[/]")
    return status


def _target(args: argparse.Namespace) -> lake.Target:
    """The command's warehouse (`ingest.__main__` already exported --warehouse/--data-path)."""
    return lake.target(file_default=warehouse.main_path(args.db))


def _dbt_command() -> list[str]:
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]


def build(args: argparse.Namespace, console: Console) -> int:
    """`dbt build` of the project; extra arguments (after an optional `--`) go to dbt."""
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    project = str(DBT_PROJECT)
    tgt = _target(args)
    profile = ["--target", "lake"] if tgt.is_lake else []
    cmd = [*_dbt_command(), "build", "--project-dir", project, "--profiles-dir", project]
    status = run_locked([*cmd, *profile, *extra], tgt, console)
    if status == 0:
        console.print(f"built; not yet on the dashboard: {PUBLISH_HINT}")
    return status


def locked(args: argparse.Namespace, console: Console) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
        return USAGE_ERROR
    return run_locked(cmd, _target(args), console)


def _refusal(run: Validation) -> tuple[str, int] | None:
    """Why a validation run may not be published, and the exit status; None: it may."""
    from expectations.store import ResultsTableMissing

    if run.failed_constraints:
        return f"{run.failed_constraints} constraint failures", 1
    if run.not_stored is not None and not isinstance(run.not_stored, ResultsTableMissing):
        return f"results not stored: {run.not_stored}", 3
    return None


def publish(args: argparse.Namespace, console: Console) -> int:
    """The gate: validate under the writer lock; publish only when every constraint holds.

    Exit 0 published, 1 a constraint failed (nothing published), 2 no warehouse, 3 the
    results could not be stored (nothing published).
    """
    from expectations.cli import validate_and_record  # imported late: GX takes seconds

    tgt = _target(args)
    if tgt.is_lake:
        return _publish_lake(tgt, console)
    db_path = tgt.file or warehouse.main_path(args.db)
    if not db_path.is_file():
        console.print(f"[red]error:[/] no warehouse at {db_path} (run `python -m ingest load`)")
        return USAGE_ERROR
    with warehouse.writer_lock(db_path):
        run = validate_and_record(db_path, console, failures_only=True)
        refusal = _refusal(run)
        if refusal is not None:
            _refused(console, refusal[0], _file_keeps(db_path))
            return refusal[1]
        target = warehouse.publish(db_path)
    _note_not_stored(run, console)
    console.print(f"validated and published {target}")
    return 0


def _publish_lake(tgt: lake.Target, console: Console) -> int:
    """Team mode: validate the newest snapshot under BUILD_LOCK; when every constraint holds,
    record the publication of the results' snapshot (see `warehouse.serving_lake`)."""
    from expectations.cli import validate_and_record_lake  # imported late: GX takes seconds

    with lake.advisory_lock(tgt, lake.BUILD_LOCK):
        run = validate_and_record_lake(tgt, console, failures_only=True)
        refusal = _refusal(run)
        if refusal is not None:
            _refused(console, refusal[0], _lake_keeps(tgt))
            return refusal[1]
        validated = run.validated_snapshot
        assert validated is not None  # set by every lake run
        served = serving_lake.publish(
            tgt, validated, run.results_snapshot, serving_lake.publisher()
        )
    _note_not_stored(run, console)
    console.print(
        f"validated snapshot {validated} and published snapshot {served} of {tgt.describe()}"
    )
    return 0


def _note_not_stored(run: Validation, console: Console) -> None:
    if run.not_stored is not None:  # raw tables only: dbt has not created the results table
        console.print(f"[yellow]note:[/] {escape(str(run.not_stored))}")


def _file_keeps(db_path: Path) -> str:
    snapshot = warehouse.serving_path(db_path)
    if snapshot.is_file():
        return f"the dashboard keeps serving {snapshot}"
    return "nothing has been published yet"


def _lake_keeps(tgt: lake.Target) -> str:
    con = lake.connect(tgt, read_only=True)
    try:
        served = lake.published_snapshot(con)
    finally:
        con.close()
    if served is None:
        return "nothing has been published yet"
    return f"the dashboard keeps serving snapshot {served}"


def _refused(console: Console, why: str, keeps: str) -> None:
    console.print(
        f"[red]not published:[/] {escape(why)}; {keeps}. The failures are listed above, on the "
        "dashboard's Data quality page and by `python -m expectations --failures-only`.",
        soft_wrap=True,
    )
