"""Command line: `python -m ingest load PATH... [--label K=V ...] [--db FILE]`.

Also `build` (dbt build under the writer lock), `publish` (refresh the dashboard's serving
snapshot) and `locked -- CMD` (any other writer, e.g. the expectations, under the writer
lock); see `ingest/publish.py` for why writers queue and the dashboard reads a snapshot.

Exit status: 0 when nothing was rejected, 1 when some file was rejected (the
others still load), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from ingest import labels as run_labels
from ingest.load import LabelResolver, LoadSummary, Outcome, Warehouse, collect, load_member
from ingest.locking import WriterBusy, writer_lock
from ingest.publish import clear_pending, mark_pending, needs_publish, publish
from ingest.settings import warehouse_path
from ingest.walk import ARCHIVE_SEP, Member, Refused

USAGE_ERROR = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ingest", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    load = commands.add_parser("load", help="load tool outputs (files, folders, archives)")
    load.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    load.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="run label that overrides run.yaml files (repeatable)",
    )
    load.add_argument(
        "--db", help="warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"
    )
    load.add_argument("--quiet", action="store_true", help="no progress bar, summary counts only")

    reference = commands.add_parser(
        "reference", help="write the reference dataset (the five source studies) into DIR"
    )
    reference.add_argument("dir", type=Path, metavar="DIR")

    db_help = "warehouse file (default: $PERF_DUCKDB_PATH or data/warehouse.duckdb)"
    build = commands.add_parser(
        "build", help="dbt build under the writer lock, then publish the serving snapshot"
    )
    build.add_argument("--db", help=db_help)
    build.add_argument("dbt_args", nargs=argparse.REMAINDER, help="extra `dbt build` arguments")
    pub = commands.add_parser("publish", help="publish the dashboard's serving snapshot")
    pub.add_argument("--db", help=db_help)
    locked = commands.add_parser(
        "locked", help="run CMD under the writer lock, then publish (e.g. the expectations)"
    )
    locked.add_argument("--db", help=db_help)
    locked.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD")
    return parser


def _short(path: str, roots: list[Path]) -> str:
    """Paths relative to the PATH arguments read better in a summary."""
    for root in roots:
        base = root.absolute().as_posix()
        if path == base:
            return root.name
        if path.startswith(base + "/") or path.startswith(base + ARCHIVE_SEP):
            return path[len(base.rsplit("/", 1)[0]) + 1 :]
    return path


def _print_summary(console: Console, summary: LoadSummary, roots: list[Path], quiet: bool) -> None:
    counts = {
        "loaded": len(summary.by_status("loaded", "replaced")),
        "already loaded (unchanged)": len(summary.by_status("unchanged")),
        "skipped": len(summary.by_status("skipped")),
        "rejected": len(summary.by_status("rejected")),
    }
    replaced = len(summary.by_status("replaced"))
    rows = sum(o.rows for o in summary.by_status("loaded", "replaced"))
    if not quiet:
        notes = [o for o in summary.by_status("loaded", "replaced") if o.notes]
        for outcome in notes:
            for note in outcome.notes:
                console.print(
                    f"[yellow]note[/] {escape(_short(outcome.path, roots))}: {escape(note)}",
                    soft_wrap=True,
                )
        for outcome in summary.by_status("skipped"):
            console.print(
                f"[dim]skipped[/] {escape(_short(outcome.path, roots))}: {escape(outcome.reason)}",
                soft_wrap=True,
            )
    # One line per rejected file, so logs can be grepped and paths copied.
    for outcome in summary.by_status("rejected"):
        console.print(
            f"[red]rejected[/] {escape(_short(outcome.path, roots))}: {escape(outcome.location)}: "
            f"{escape(outcome.reason)}",
            soft_wrap=True,
        )
    parts = [f"{n} {label}" for label, n in counts.items()]
    extra = f" ({replaced} replaced an earlier version)" if replaced else ""
    console.print(
        f"[bold]Summary:[/] {', '.join(parts)}{extra}; {rows:,} rows written.", soft_wrap=True
    )


def _run_load(args: argparse.Namespace, console: Console) -> int:
    missing = [p for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        console.print(f"[red]error:[/] no such file or folder: {', '.join(map(str, missing))}")
        return USAGE_ERROR
    try:
        cli_labels = run_labels.parse_label_args(args.label)
    except run_labels.LabelError as exc:
        console.print(f"[red]error:[/] {exc}")
        return USAGE_ERROR

    items = collect(args.paths)
    known_paths = {item.path for item in items}
    resolver = LabelResolver(cli_labels)
    summary = LoadSummary()
    db_path = warehouse_path(args.db)
    # One writer at a time for the whole load; the dashboard reads the serving snapshot
    # meanwhile, and a second writer waits here rather than failing on DuckDB's lock.
    with writer_lock(db_path):
        # Set before writing, so a load killed at any point makes the next one publish.
        stale = needs_publish(db_path)
        mark_pending(db_path)
        _load_items(items, db_path, resolver, known_paths, summary, args, console)
        if stale or summary.by_status("loaded", "replaced"):
            publish(db_path)
        else:
            clear_pending(db_path)
    _print_summary(console, summary, args.paths, args.quiet)
    return summary.exit_code


def _load_items(
    items: list[Member | Refused],
    db_path: Path,
    resolver: LabelResolver,
    known_paths: set[str],
    summary: LoadSummary,
    args: argparse.Namespace,
    console: Console,
) -> None:
    warehouse = Warehouse(db_path)
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=args.quiet,
    )
    try:
        with progress:
            task = progress.add_task("loading", total=len(items))
            for item in items:
                progress.update(task, description=f"loading {item.path.rsplit('/', 1)[-1][:40]}")
                summary.outcomes.append(_handle(item, warehouse, resolver, known_paths))
                progress.advance(task)
    finally:
        warehouse.close()


def _handle(
    item: Member | Refused, warehouse: Warehouse, resolver: LabelResolver, known: set[str]
) -> Outcome:
    if isinstance(item, Refused):
        return Outcome(item.path, "rejected", location="archive", reason=item.reason)
    if item.path.rsplit("/", 1)[-1] in run_labels.LABEL_FILE_NAMES:
        try:
            resolver.add_label_file(item)
        except run_labels.LabelError as exc:
            return Outcome(item.path, "rejected", location=exc.origin, reason=exc.reason)
        return Outcome(item.path, "labels")
    return load_member(warehouse, item, resolver, known)


def _run_reference(args: argparse.Namespace, console: Console) -> int:
    from ingest.reference.dataset import write_reference_dataset

    written = write_reference_dataset(args.dir)
    console.print(f"wrote {len(written)} files of the reference dataset into {args.dir}")
    return 0


def _run_locked(cmd: list[str], db_path: Path, console: Console) -> int:
    """Run a writer command under the writer lock; publish when it succeeds."""
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db_path)}
    with writer_lock(db_path):
        mark_pending(db_path)
        status = subprocess.run(cmd, env=env, check=False).returncode
        if status == 0:
            publish(db_path)
        else:
            console.print(f"[yellow]not published:[/] {cmd[0]} exited {status}")
    return status


def _run_build(args: argparse.Namespace, console: Console) -> int:
    project = str(Path(__file__).resolve().parent.parent / "dbt_project")
    extra = [a for i, a in enumerate(args.dbt_args) if (i, a) != (0, "--")]
    script = Path(sys.executable).with_name("dbt")  # the venv's dbt, whatever PATH says
    dbt = [str(script)] if script.is_file() else [sys.executable, "-m", "dbt.cli.main"]
    cmd = [*dbt, "build", "--project-dir", project, "--profiles-dir", project, *extra]
    return _run_locked(cmd, warehouse_path(args.db), console)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except WriterBusy as exc:  # another writer kept the warehouse past the timeout
        Console(stderr=True, highlight=False).print(f"[red]error:[/] {escape(str(exc))}")
        return 1


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    # `ingest build --select x` hands options it does not know to dbt.
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "build":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "build":
        args.dbt_args = [*unknown, *args.dbt_args]
    console = Console(stderr=False, highlight=False)
    if args.command == "reference":
        return _run_reference(args, console)
    if args.command == "build":
        return _run_build(args, console)
    if args.command == "publish":
        target = publish(warehouse_path(args.db))
        console.print(f"published {target}")
        return 0
    if args.command == "locked":
        cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
        if not cmd:
            console.print("[red]error:[/] locked needs a command: ingest locked -- CMD ...")
            return USAGE_ERROR
        return _run_locked(cmd, warehouse_path(args.db), console)
    return _run_load(args, console)


if __name__ == "__main__":
    sys.exit(main())
