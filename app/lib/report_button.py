"""The RA comparison page's Report button: the same report as `python -m ingest report`.

The report (app/report) of the version the dashboard shows: the published one, or, before a
first publish, the main file's marts as a watermarked draft. Writing it takes seconds (chart
export and PDF), so it is made only when asked, kept for the session under the key of what it
was made from (testbed, document, served version), and offered as two downloads.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl
import streamlit as st

import warehouse
from app import report
from app.lib import db, queries
from app.lib.filters import Filters

STATE_KEY = "ra_report_files"


@dataclass(frozen=True, slots=True)
class ReportRequest:
    """What one report is made from; two equal requests give the same files."""

    where: str  # the dashboard's warehouse name (db.reading_path)
    testbed: str
    document: str | None  # a source_document of marts.published_results, or none
    served_ns: int | None  # the served version's data time: a new publish is a new report
    draft: bool  # nothing published yet: the main file's marts, watermarked


def documents_of(published: pl.DataFrame, ref_testbed: str | None) -> list[str]:
    """The documents whose printed figures are of `ref_testbed` (published_results rows)."""
    if not ref_testbed or published.is_empty():
        return []
    of_testbed = published.filter(pl.col("testbed") == ref_testbed)
    return sorted(of_testbed["source_document"].drop_nulls().unique().to_list())


def make(request: ReportRequest) -> report.ReportFiles:
    """The report's HTML and PDF (report.build; raises report.ReportError)."""
    return report.build(
        warehouse.reader_for(request.where),
        request.testbed,
        document=request.document,
        draft=request.draft,
        published=not request.draft,
    )


def controls(where: str, testbed: str | None, ref_testbed: str | None) -> None:
    """A "Report" popover: make the testbed's report with the chosen testbed's printed
    figures (the page's "Published figures of"), then download its HTML and PDF."""
    if not testbed:
        return
    status = db.serving_status()
    documents = documents_of(queries.published_results(where, Filters()), ref_testbed)
    with st.popover("Report (HTML, PDF)", icon=":material/description:"):
        document = None
        if documents:
            document = st.selectbox("Printed figures of", documents, key="ra_report_document")
        draft = status.snapshot is None
        st.caption(
            f"The RA report of {testbed}: cover, configuration, these charts with the printed "
            "figures beside the measured ones, deltas, capacity, sweeps, published vs "
            "measured, provenance and data quality, as `python -m ingest report` writes it."
            + (" Nothing is published yet: a draft, watermarked on every page." if draft else "")
        )
        request = ReportRequest(where, testbed, document, status.snapshot_as_of_ns, draft)
        if st.button("Write the report", key="ra_report_make"):
            with st.spinner("Writing the report (chart export and PDF take seconds)..."):
                try:
                    st.session_state[STATE_KEY] = (request, make(request))
                except report.ReportError as exc:
                    st.error(str(exc), icon=":material/error:")
        made = st.session_state.get(STATE_KEY)
        if made is None or made[0] != request:
            return
        files = made[1]
        left, right = st.columns(2)
        left.download_button(
            "HTML", files.html, f"{files.stem}.html", "text/html", on_click="ignore"
        )
        right.download_button(
            "PDF", files.pdf, f"{files.stem}.pdf", "application/pdf", on_click="ignore"
        )
