"""`python -m ingest build [dbt args]` and `python -m ingest locked -- CMD`: writers that hold
the warehouse while they run.

Each holds the warehouse (`Warehouse.exclusive`: the file's writer lock, or the lake's build
lock), so it queues behind a load or another build instead of failing on DuckDB's file lock,
and runs as a child that dies with this process (`warehouse.child`). Neither publishes:
`python -m ingest publish` (the gate, `expectations.gate`) validates and serves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from warehouse import reviews
from warehouse.base import REPO_ROOT, Warehouse
from warehouse.child import run_exclusive

DBT_PROJECT = REPO_ROOT / "dbt_project"
PUBLISH_HINT = "run `python -m ingest publish` to validate it and publish it to the dashboard"
USAGE_ERROR = 2


def dbt_command() -> list[str]:
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]


def _run(wh: Warehouse, cmd: list[str], console: Console) -> int:
    status = run_exclusive(wh, cmd)
    if status != 0:
        console.print(f"[yellow]{escape(cmd[0])} exited {status}[/]")
    return status


def build(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    """`dbt build` of the project; extra arguments (after an optional `--`) go to dbt."""
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    project = str(DBT_PROJECT)
    cmd = [*dbt_command(), "build", "--project-dir", project, "--profiles-dir", project]
    # change-point reviews live outside the rebuilt marts: dbt reads their copy (warehouse.reviews)
    try:
        reviews.copy_store_into_warehouse(wh)
    except reviews.ReviewError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}; nothing was built")
        return 1
    status = _run(wh, [*cmd, *wh.dbt_args(), *extra], console)
    if status == 0:
        console.print(f"built; not yet on the dashboard: {PUBLISH_HINT}")
    return status


def locked(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
        return USAGE_ERROR
    return _run(wh, cmd, console)
