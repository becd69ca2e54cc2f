"""The other writers: `build` (dbt), `locked -- CMD` (e.g. the expectations) and `publish`.

Each runs under the warehouse's writer lock, so it queues behind a load instead of failing
on DuckDB's file lock, and publishes the dashboard's serving snapshot when it succeeds
(see `warehouse.py` for why the dashboard reads a snapshot).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

import warehouse
from ingest.commands import USAGE_ERROR

DBT_PROJECT = warehouse.REPO_ROOT / "dbt_project"


def run_locked(cmd: list[str], db_path: Path, console: Console) -> int:
    """Run a writer command under the writer lock; publish when it succeeds."""
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db_path)}
    with warehouse.writer_lock(db_path):
        warehouse.mark_pending(db_path)
        status = subprocess.run(cmd, env=env, check=False).returncode
        if status == 0:
            warehouse.publish(db_path)
        else:
            console.print(f"[yellow]not published:[/] {cmd[0]} exited {status}")
    return status


def _dbt_command() -> list[str]:
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]


def build(args: argparse.Namespace, console: Console) -> int:
    """`dbt build` of the project; extra arguments (after an optional `--`) go to dbt."""
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    project = str(DBT_PROJECT)
    cmd = [*_dbt_command(), "build", "--project-dir", project, "--profiles-dir", project, *extra]
    return run_locked(cmd, warehouse.main_path(args.db), console)


def locked(args: argparse.Namespace, console: Console) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
        return USAGE_ERROR
    return run_locked(cmd, warehouse.main_path(args.db), console)


def publish(args: argparse.Namespace, console: Console) -> int:
    target = warehouse.publish(warehouse.main_path(args.db))
    console.print(f"published {target}")
    return 0
