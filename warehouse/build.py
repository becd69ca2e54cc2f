"""`python -m ingest build [--full] [dbt args]` and `python -m ingest locked -- CMD`: writers
that hold the warehouse while they run.

A build rebuilds what changed since the last successful one (`warehouse.build_state`): the
whole project when the dbt code changed (or on `--full`), else only the tables downstream of
the raw tables that gained or lost rows, else nothing. dbt's unit tests test code, not data:
they run in the test command (tests/dbt), never here. dbt keeps its partial parse in
dbt_project/target between builds. Extra dbt arguments give a plain `dbt build` with them
(and forget the record, so the next build is full).

Each holds the warehouse (`Warehouse.exclusive`: the file's writer lock, or the lake's build
lock), so it queues behind a load or another build instead of failing on DuckDB's file lock,
and runs as a child that dies with this process (`warehouse.child`). Neither publishes:
`python -m ingest publish` (the gate, `expectations.gate`) validates and serves.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from warehouse import build_state, reviews
from warehouse.base import REPO_ROOT, Warehouse
from warehouse.build_state import BuildPlan, BuildState, SourceTable
from warehouse.child import run_child, run_exclusive

DBT_PROJECT = REPO_ROOT / "dbt_project"
PUBLISH_HINT = "run `python -m ingest publish` to validate it and publish it to the dashboard"
USAGE_ERROR = 2
# Unit tests test code, not data: the test command runs them (tests/dbt), a build does not.
NO_UNIT_TESTS = ["--exclude-resource-type", "unit_test"]
# What only costs time in `ingest build` (about 1.5 s of a 16 s one-file build): dbt's JSON
# artifacts (manifest.json, written twice, and run_results.json: nothing here reads them; its
# partial-parse file is written either way). Not `--no-populate-cache`: dbt-duckdb then
# failed a full build with "Cache inconsistency detected: in rename".
# The log file at info, not debug: dbt's debug events (every SQL statement, every connection
# step) were 12 % of a one-file build's samples, 5 % at info (py-spy). logs/dbt.log keeps
# each node's outcome and every error; `dbt build` by hand still logs debug.
BUILD_FLAGS = ["--no-write-json", "--log-level-file", "info"]
FULL_HELP = (
    "rebuild everything (every view, table and seed, and every data test), not only the "
    "tables downstream of the raw tables that changed since the last build"
)
BUILD_DESCRIPTION = (
    "dbt build of the warehouse, under the writer lock; it does not publish. It rebuilds what "
    "changed since the last successful `ingest build`: everything when models, macros, "
    "seeds, tests, the packages the Python models import, the dbt version or the profile "
    "changed (or with --full); else only the "
    "tables downstream of the raw tables that gained or lost rows (a load, a reload, a "
    "prune, or the change-point reviews copied in first), with their data tests; else "
    "nothing. dbt's unit tests run in the test command, "
    "not here. Extra arguments (after `--`) go to a plain `dbt build`, which then rebuilds "
    "in full next time."
)
Progress = Callable[[str], None]


def dbt_command() -> list[str]:
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]


def _run(wh: Warehouse, cmd: list[str], console: Console) -> int:
    status = run_exclusive(wh, cmd)
    if status != 0:
        console.print(f"[yellow]{escape(cmd[0])} exited {status}[/]")
    return status


@dataclass(frozen=True)
class BuildOutcome:
    """What a build did: dbt's exit status (0 when there was nothing to do) and its plan."""

    status: int
    plan: BuildPlan


def _dbt_build(wh: Warehouse, extra: list[str]) -> list[str]:
    project = str(DBT_PROJECT)
    cmd = [*dbt_command(), "build", "--project-dir", project, "--profiles-dir", project]
    return [*cmd, *wh.dbt_args(), *extra]


def built_for(dbt_args: list[str], catalog: str) -> list[str]:
    """What a build is made for besides the code: dbt's target and the catalog its views name."""
    return [*dbt_args, f"catalog={catalog}"]


def _current(wh: Warehouse, tables: list[SourceTable]) -> tuple[BuildState | None, BuildState]:
    """The recorded state and the warehouse's current one (read under the caller's hold)."""
    con = wh.connect_writer()
    try:
        # dbt's views name their catalog (`"warehouse".staging...`, the file's name): a copied
        # or renamed warehouse file keeps views that name the old one, which only a full
        # build makes again, so the catalog is part of what a build was made for
        (catalog,) = con.execute("select current_database()").fetchone()
        code = build_state.code_hash(DBT_PROJECT, built_for(wh.dbt_args(), catalog))
        current = BuildState(code, build_state.fingerprints(con, tables))
        return build_state.read_state(con), current
    finally:
        con.close()


def _record(wh: Warehouse, state: BuildState | None) -> None:
    con = wh.connect_writer()
    try:
        wh.commit(con, lambda: build_state.write_state(con, state))
    finally:
        con.close()


def plan_build(wh: Warehouse, full: bool) -> tuple[BuildPlan, BuildState]:
    """What `ingest build` would run now, and the state it would record (dbt not started)."""
    tables = build_state.source_tables(DBT_PROJECT)
    previous, current = _current(wh, tables)
    if full:
        return BuildPlan("full", "--full asked for a full build"), current
    return build_state.plan(previous, current, tables), current


def _selection(plan: BuildPlan, extra: list[str]) -> tuple[BuildPlan, list[str]]:
    """The plan as run and dbt's arguments for it: the caller's, or the plan's selection."""
    if extra:
        return BuildPlan("full", "dbt build with the arguments given"), extra
    if plan.kind == "changed":
        return plan, [*BUILD_FLAGS, "--select", *plan.selectors(), *NO_UNIT_TESTS]
    return plan, [*BUILD_FLAGS, *NO_UNIT_TESTS]


def run_build(
    wh: Warehouse,
    *,
    full: bool = False,
    dbt_args: list[str] | None = None,
    progress: Progress | None = None,
) -> BuildOutcome:
    """Build what changed since the last successful build (everything when `full`), under
    the warehouse's hold; record what was built only when dbt succeeded. `dbt_args` run a
    plain `dbt build` with them instead (and forget the record). `progress` gets one line
    per step. The page and the CLI call this."""
    say = progress or (lambda _line: None)
    extra = list(dbt_args or [])
    # Change-point reviews live outside the rebuilt marts: dbt reads their copy, refreshed
    # first, so a new decision is a changed source (warehouse.reviews).
    if reviews.copy_store_into_warehouse(wh):
        say("review decisions copied into the warehouse")
    with wh.exclusive(writes=False):
        plan, _ = plan_build(wh, full or bool(extra))
    if plan.kind == "nothing":
        say(f"nothing to build: {plan.reason}")
        return BuildOutcome(0, plan)
    with wh.exclusive(writes=True) as fds:
        plan, current = plan_build(wh, full or bool(extra))  # again: a load may have come between
        if plan.kind == "nothing":
            say(f"nothing to build: {plan.reason}")
            return BuildOutcome(0, plan)
        plan, select = _selection(plan, extra)
        say(f"{plan.kind} build: {plan.reason}")
        cmd = _dbt_build(wh, select)
        # A crash of dbt's process (DuckDB is native code) prints every thread's Python stack.
        env = {**os.environ, **wh.child_env(), "PYTHONFAULTHANDLER": "1"}
        status = run_child(cmd, env, fds)
        if status == 0:
            _record(wh, None if extra else current)
    say("built" if status == 0 else dbt_failed(status))
    return BuildOutcome(status, plan)


def dbt_failed(status: int) -> str:
    """What a failed dbt build's exit status says: a failed model or test (dbt said which
    above), or a process that was killed (a crash, out of memory)."""
    if status > 0:
        return f"dbt build exited {status}"
    try:
        name = signal.Signals(-status).name
    except ValueError:
        name = "a signal"
    return (
        f"dbt build was killed by {name} (signal {-status}); nothing is recorded, so the next "
        "`ingest build` runs the same build again; the dashboard keeps its published version"
    )


def build(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    """`ingest build`: what changed (`run_build`); extra arguments (after `--`) go to dbt."""
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    try:
        outcome = run_build(
            wh, full=args.full, dbt_args=extra, progress=lambda line: console.print(escape(line))
        )
    except reviews.ReviewError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}; nothing was built")
        return 1
    if outcome.status == 0 and outcome.plan.kind != "nothing":
        console.print(f"built; not yet on the dashboard: {PUBLISH_HINT}")
    return outcome.status


def locked(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
        return USAGE_ERROR
    return _run(wh, cmd, console)
