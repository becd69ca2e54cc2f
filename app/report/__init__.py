"""The RA report: one testbed's results as a publishable HTML page and PDF.

`build(reader, testbed, ...)` is the one entry point (the command line `python -m ingest
report` and the dashboard's Report button both call it); it returns the files' bytes and
writes nothing. One module per job: `data` reads the marts of one version, `content` says
what each section shows, `figures` draws (the dashboard's chart builders) and exports SVG
through one browser, `tables` formats tables and CSV, `render` fills the HTML template,
`pdf` turns that HTML into a PDF (weasyprint), `cli` is the command. The browser starts
once the marts are read, and the charts export in the background while the figures are drawn
and weasyprint parses and styles the PDF's page: they run side by side on two cores.

The same version and options give the same bytes, apart from the one "generated at" line:
rows are sorted on stable keys, SVG ids are the figure numbers, and the PDF's dates are the
version's validation time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Protocol

import duckdb

from app.lib.charts import export
from app.report import content, figures, pdf, render
from app.report.data import ReportData, ReportError, collect, validation_time
from app.report.figures import Figure
from app.report.section import Section
from app.report.tables import Listing

__all__ = ["FORMATS", "ReportError", "ReportFiles", "Source", "build"]

FORMATS = ("html", "pdf")


class Source(Protocol):
    """What a report reads: a `warehouse.Reader`, or any object with its `cursor()` (the
    command line's draft reads the newest version through one)."""

    def cursor(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...

    def served_snapshot(self) -> int | None: ...


@dataclass(frozen=True)
class ReportFiles:
    """The report's files: name -> bytes (the HTML, the PDF, one CSV per figure and table)."""

    stem: str
    html: bytes | None = None
    pdf: bytes | None = None
    csv: dict[str, bytes] = field(default_factory=dict)
    figure_count: int = 0
    table_count: int = 0

    def files(self) -> Iterator[tuple[str, bytes]]:
        """(relative path, bytes) of every file, the CSVs in a folder beside the PDF."""
        if self.html is not None:
            yield f"{self.stem}.html", self.html
        if self.pdf is not None:
            yield f"{self.stem}.pdf", self.pdf
        for name, data in self.csv.items():
            yield f"{self.stem}-csv/{name}", data


def _utc_text(value: dt.datetime | None) -> str:
    if value is None:
        return "1970-01-01T00:00:00Z"
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value.isoformat(timespec="seconds") + "Z"


def _version_facts(
    data: ReportData, source: Source, *, published: bool, draft: bool
) -> list[tuple[str, str]]:
    validated = validation_time(data)
    facts = []
    if published and not draft:
        facts.append(("Version", "the published version (passed validation)"))
        facts.append(("Validated at (UTC)", _utc_text(validated).replace("T", " ")[:-1]))
    else:
        facts.append(("Version", "DRAFT: the newest data, not validated"))
    snapshot = source.served_snapshot()
    if snapshot is not None:
        facts.append(("Lake snapshot", str(snapshot)))
    return facts


def build(
    source: Source,
    testbed: str,
    *,
    document: str | None = None,
    formats: Sequence[str] = FORMATS,
    draft: bool = False,
    published: bool = True,
    generated_at: dt.datetime | None = None,
) -> ReportFiles:
    """The report of `testbed` on the version `source` reads, with the printed figures of
    `document` (a `source_document` of `marts.published_results`) beside the measured ones.

    `published`: the version `source` reads passed validation and is the published one (the
    dashboard: `serving_status().snapshot is not None`). An unvalidated version is refused
    (ReportError) unless `draft`, and a draft is watermarked on every page. Raises ReportError
    for an unknown testbed, a testbed without results, an unknown document.
    """
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ReportError(f"formats: one or more of {', '.join(FORMATS)} (got {formats!r})")
    if not published and not draft:
        raise ReportError(
            "no validated, published version to report on: run `python -m ingest publish`, "
            "or ask for a watermarked draft (--draft)"
        )
    with source.cursor() as con:
        data = collect(con, testbed, document)
    # Started once the report can be made (collect raised for an unknown testbed or document:
    # a refused report whose browser was still starting once hung under load, at exit).
    export.start_browser()  # it starts while the figures are drawn and the PDF's page styled
    cover = content.cover(data, _version_facts(data, source, published=published, draft=draft))
    sections = content.sections(data)
    exports = figures.Exports([b for s in sections for b in s.blocks if isinstance(b, Figure)])
    when = generated_at or dt.datetime.now(dt.UTC)
    meta = validation_time(data) if published and not draft else None
    if meta is None:
        meta = data.get("fct_workload_results")["ended_at"].max()
    page = partial(
        render.html,
        cover,
        draft=draft,
        generated_at=_utc_text(when).replace("T", " ").replace("Z", " UTC"),
        meta_date=_utc_text(meta),  # type: ignore[arg-type]
    )
    # the PDF first: weasyprint parses and styles its page while the charts export
    pdf_file = None
    if "pdf" in formats:
        pdf_file = pdf.pdf_bytes(page(sections, linked_charts=True), exports.svg)
    sections = _exported(sections, exports)
    html = page(sections)
    stem = f"{testbed}-report" + ("-draft" if draft else "")
    csv: dict[str, bytes] = {}
    figure_count = table_count = 0
    for section in sections:
        for block in section.blocks:
            if isinstance(block, Figure):
                if block.fig is not None:
                    figure_count += 1
                    csv[f"figure-{block.number:02d}-{block.key}.csv"] = block.points_csv.encode()
            elif isinstance(block, Listing):
                csv[f"listing-{block.number:02d}-{block.key}.csv"] = block.csv.encode()
            else:
                table_count += 1
                csv[f"table-{block.number:02d}-{block.key}.csv"] = block.csv.encode()
    return ReportFiles(
        stem=stem,
        html=html.encode() if "html" in formats else None,
        pdf=pdf_file,
        csv=csv,
        figure_count=figure_count,
        table_count=table_count,
    )


def _exported(sections: list[Section], exports: figures.Exports) -> list[Section]:
    """`sections` with every figure's SVG (waiting for the exports still under way)."""
    return [
        replace(
            s, blocks=tuple(exports.exported(b) if isinstance(b, Figure) else b for b in s.blocks)
        )
        for s in sections
    ]
