"""The PDF's charts: weasyprint's page shows each chart as an image it asks the report for
(app.report.pdf), so the charts can still be exporting while the page is parsed.

GIVEN a page of two figures with their SVGs (text in them, so pdftotext reads the charts)
WHEN its PDF is made from the page with the charts inline, and from the page with the charts
as images served by the report
THEN the two PDFs are the same bytes; and an error while a chart is served stops the PDF and is
raised as it is, not drawn as a missing picture.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import plotly.graph_objects as go
import pytest

from app.report import pdf, render
from app.report.figures import Figure
from app.report.section import Cover, Section


def _svg(label: str, height: int) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="{height}" '
        f'viewBox="0 0 1000 {height}"><rect x="10" y="10" width="300" height="100" '
        f'style="fill: rgb(0, 114, 178); fill-opacity: 1;"/><text x="20" y="150" '
        f'style="font-family: Inter, Arial, sans-serif; font-size: 13px;">{label}</text></svg>'
    )


SVGS = {1: _svg("IOPS (IO/s)", 520), 2: _svg("Average latency (ms)", 400)}


def _page(*, linked: bool) -> str:
    blocks = tuple(
        Figure(f"f{n}", f"caption {n}", go.Figure(), "a\n1\n", number=n, svg=svg)
        for n, svg in SVGS.items()
    )
    return render.html(
        Cover("A report", (("Testbed", "t"),)),
        [Section("charts", "Charts", "", blocks)],
        draft=False,
        generated_at="-",
        meta_date="2026-01-01T00:00:00Z",
        linked_charts=linked,
    )


def test_charts_served_as_images_make_the_same_pdf_as_inline_svgs(tmp_path: Path) -> None:
    linked = _page(linked=True)
    assert "<svg" not in linked and pdf.chart_url(2) in linked
    inline = pdf.pdf_bytes(_page(linked=False))
    served = pdf.pdf_bytes(linked, SVGS.__getitem__)
    assert served == inline
    (tmp_path / "r.pdf").write_bytes(served)
    text = subprocess.run(
        ["pdftotext", str(tmp_path / "r.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    assert "IOPS (IO/s)" in text and "Average latency (ms)" in text


def test_an_error_serving_a_chart_stops_the_pdf_and_is_raised_as_it_is() -> None:
    def failing(number: int) -> str:
        raise RuntimeError(f"figure {number}: the browser is gone")

    with pytest.raises(RuntimeError, match="figure 1: the browser is gone"):
        pdf.pdf_bytes(_page(linked=True), failing)
