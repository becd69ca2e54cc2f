"""`python -m ingest report --testbed T [--published-figures-of DOC] [--out DIR]
[--format html,pdf] [--draft]`: write a testbed's report (app.report.build) into DIR.

Reads the published version (the one that passed validation); before anything is published, or
to see data loaded since, `--draft` reads the newest version and watermarks every page. Files:
`<testbed>-report.html`, `<testbed>-report.pdf` and `<testbed>-report-csv/*.csv` (every chart's
points and every table), `-draft` in the names of a draft. Exit 0 written, 1 the report cannot
be made (unknown testbed, no results, nothing validated without --draft), 2 usage error.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from rich.console import Console
from rich.markup import escape

from app import report
from warehouse import Warehouse

DEFAULT_OUT = Path("data/reports")


def formats(text: str) -> tuple[str, ...]:
    """argparse type: `html,pdf`, `pdf` or `html`."""
    chosen = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    wrong = [f for f in chosen if f not in report.FORMATS]
    if wrong or not chosen:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a comma-separated list of {', '.join(report.FORMATS)}"
        )
    return chosen


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("--testbed", required=True, help="the testbed (label `testbed`) to report")
    cmd.add_argument(
        "--published-figures-of",
        dest="document",
        metavar="DOC",
        help="a source document of marts.published_results (e.g. micron_vsan67_sata_ra): its "
        "printed figures beside the measured ones, and its published-vs-measured table",
    )
    cmd.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help="folder for the files (default %(default)s; created when missing)",
    )
    cmd.add_argument(
        "--format",
        dest="formats",
        type=formats,
        default=report.FORMATS,
        metavar="html,pdf",
        help="which files: html, pdf or both (default); the CSVs are always written",
    )
    cmd.add_argument(
        "--draft",
        action="store_true",
        help="report the newest data even though it has not passed validation; every page "
        "is watermarked DRAFT",
    )


class _Newest:
    """The newest version (what the gate would validate next), read for a draft."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh
        self.snapshot: int | None = None

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self.wh.validation_view() as (con, snapshot):
            self.snapshot = snapshot
            yield con

    def served_snapshot(self) -> int | None:
        return self.snapshot


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    started = time.perf_counter()
    published = wh.serving_status().snapshot is not None
    source: report.Source = _Newest(wh) if args.draft else wh.reader()
    try:
        files = report.build(
            source,
            args.testbed,
            document=args.document,
            formats=args.formats,
            draft=args.draft,
            published=published,
        )
    except report.ReportError as exc:
        errors.print(f"[red]error:[/] {escape(str(exc))}")
        return 1
    out: Path = args.out
    for name, data in files.files():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in (f"{files.stem}.html", f"{files.stem}.pdf"):
        if (out / name).is_file():
            console.print(f"wrote {escape(str(out / name))}")
    console.print(
        f"{files.figure_count} figures, {files.table_count} tables; "
        f"{len(files.csv)} CSV files in {escape(str(out / (files.stem + '-csv')))} "
        f"({time.perf_counter() - started:.1f} s)"
    )
    return 0
