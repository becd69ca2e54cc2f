"""`python -m ingest load PATH... [--label K=V ...] [--db FILE | --warehouse W] [--quiet]`.

Checks the arguments, shows a progress bar while the load job runs (files are loaded while
the PATH arguments are walked), then prints one line per note, skipped, no-result and rejected
file and the summary counts. `--quiet` drops the progress bar, the skipped files and the
plain notes, never what says data is missing: rejected files, files that loaded with no
result, and notes that say data was dropped or is unreliable. Exit status: 0 when nothing was
rejected, 1 when some file was rejected (the others still load), 2 for a usage error.
The load runs with pandas refused (`ingest.without_pandas`): its import was a third of a
one-file load.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

import warehouse
from ingest.labels import LabelError, parse_label_args
from ingest.load import load_items
from ingest.outcomes import LoadSummary, Outcome, Status
from ingest.walk import ARCHIVE_SEP, Member, Refused, Walk, valid_text
from ingest.without_pandas import pandas_refused
from warehouse import Warehouse

USAGE_ERROR = 2


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    missing = [p for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        console.print(f"[red]error:[/] no such file or folder: {', '.join(map(str, missing))}")
        return USAGE_ERROR
    try:
        cli_labels = parse_label_args(args.label)
    except LabelError as exc:
        console.print(f"[red]error:[/] {exc}")
        return USAGE_ERROR
    walk = Walk(args.paths)
    with pandas_refused():
        summary = load_items(
            wh,
            _with_progress(walk, console, quiet=args.quiet),
            cli_labels=cli_labels,
            known_paths=walk.known_paths,
            prune_roots=[valid_text(p.absolute().as_posix()) for p in args.paths]
            if args.prune
            else (),
            roots=[valid_text(Path(os.path.abspath(p)).as_posix()) for p in args.paths],
        )
    print_summary(console, summary, args.paths, args.quiet)
    stderr = Console(stderr=True, highlight=False, soft_wrap=True)
    if summary.workers_failed is not None:
        stderr.print(
            "[yellow]warning:[/] the parse workers could not start "
            f"({escape(summary.workers_failed)}); every file was parsed in this process "
            "(PERF_INGEST_PARSE_WORKERS=0 does so without trying)"
        )
    if summary.lost is not None:
        stderr.print(f"[red]error:[/] {escape(warehouse.redact_passwords(summary.lost))}")
    return summary.exit_code


def _with_progress(walk: Walk, console: Console, *, quiet: bool) -> Iterator[Member | Refused]:
    """The walk's items, with a transient progress bar over the listed files on disk (an
    archive advances it once, when its last member is done)."""
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=quiet,
    )
    with progress:
        task = progress.add_task("loading", total=len(walk))
        on_disk = None
        for item in walk:
            disk = item.path.split(ARCHIVE_SEP, 1)[0]
            if on_disk is not None and disk != on_disk:
                progress.advance(task)
            on_disk = disk
            progress.update(task, description=f"loading {item.path.rsplit('/', 1)[-1][:40]}")
            yield item


def _short(path: str, roots: list[Path]) -> str:
    """Paths relative to the PATH arguments read better in a summary."""
    for root in roots:
        base = valid_text(root.absolute().as_posix())
        if path == base:
            return root.name
        if path.startswith(base + "/") or path.startswith(base + ARCHIVE_SEP):
            return path[len(base.rsplit("/", 1)[0]) + 1 :]
    return path


def _line(console: Console, tag: str, outcome: Outcome, roots: list[Path], text: str) -> None:
    console.print(f"{tag} {escape(_short(outcome.path, roots))}: {escape(text)}", soft_wrap=True)


def print_summary(console: Console, summary: LoadSummary, roots: list[Path], quiet: bool) -> None:
    for outcome in summary.stored:
        # Notes that say data was dropped or is unreliable are shown even with --quiet.
        for note in outcome.data_loss_notes() if quiet else outcome.notes:
            _line(console, "[yellow]note[/]", outcome, roots, note)
    if not quiet:
        for outcome in summary.by_status(Status.SKIPPED):
            _line(console, "[dim]skipped[/]", outcome, roots, outcome.reason)
    # One line per file that loaded without a result, and per rejected file, always: logs can
    # be grepped for them and paths copied.
    for outcome in summary.no_result:
        _line(console, "[yellow]no result[/] ", outcome, roots, outcome.no_result or "")
    for outcome in summary.by_status(Status.REJECTED):
        _line(console, "[red]rejected[/]", outcome, roots, f"{outcome.location}: {outcome.reason}")
    for path in summary.pruned:  # rows removed: shown even with --quiet
        console.print(
            f"[yellow]pruned[/] {escape(_short(path, roots))}: gone from disk", soft_wrap=True
        )
    console.print(f"[bold]Summary:[/] {summary_counts(summary)}", soft_wrap=True)


def summary_counts(summary: LoadSummary) -> str:
    """`48 loaded (2 with no result), 0 already loaded (unchanged), 12 skipped, 1 rejected;
    116,757 rows written.`"""
    no_result = len(summary.no_result)
    counts = {
        f"loaded ({no_result} with no result)" if no_result else "loaded": len(summary.stored),
        "already loaded (unchanged)": len(summary.by_status(Status.UNCHANGED)),
        "skipped": len(summary.by_status(Status.SKIPPED)),
        "rejected": len(summary.by_status(Status.REJECTED)),
    }
    replaced = len(summary.by_status(Status.REPLACED))
    rows = sum(o.rows for o in summary.stored)
    parts = ", ".join(f"{n} {label}" for label, n in counts.items())
    extra = f" ({replaced} replaced an earlier version)" if replaced else ""
    pruned = f", {len(summary.pruned)} pruned (gone from disk)" if summary.pruned else ""
    return f"{parts}{extra}{pruned}; {rows:,} rows written."
