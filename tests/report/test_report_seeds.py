"""The seeds as reports: each of the five reference studies' report with its own printed figures.

GIVEN the warehouse the product builds (the reference dataset reconstructed from the five
studies, docs/reference_studies.md), published
WHEN a study's testbed is reported with `--published-figures-of` its document
THEN the PDF's published-vs-measured table prints one of the document's figures beside the
value the marts computed for it (the two numbers and their difference on one row, as the marts
hold them), and, where the study has documented source inconsistencies
(dbt_project/seeds/reference_exceptions.csv), names one at its figure: the status says
`inconsistent source` and the explanation is the documented reason, whole.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest

from app.report import tables
from tests.app.conftest import query
from tests.report.test_report import _pages, _report

pytestmark = pytest.mark.slow


class Study(NamedTuple):
    testbed: str
    document: str
    figure_id: str  # one printed figure the report must put beside its measured value
    inconsistent_figure_id: str | None  # a documented inconsistency of the study, if any


STUDIES = [
    Study(
        "micron-sata-vsan67",
        "micron_vsan67_sata_ra",
        "micron67-fig4-baseline-cache-r0-iops",
        "micron67-fig8-balanced-cache-r50-lat-vs-prev",
    ),
    Study(
        "micron-vsan62-vs-65",
        "micron_vsan62_vs_65_brief",
        "micron6265-table1-cache-r70-iops-delta",
        None,  # "None numeric" (docs/reference_studies.md, section 2)
    ),
    Study(
        "lenovo-sr650-vsan65",
        "lenovo_sr650_vsan65_blog",
        "lenovo-text-run4-latency-delta",
        None,  # ambiguities only (section 3)
    ),
    Study(
        "samsung-pm1743-vsan8-esa",
        "samsung_pm1743_vsan8_esa",
        "samsung-table3-read-rdma-iops",
        "samsung-exec-rdma-write-iops-delta",
    ),
    Study(
        "sfd7-vsan60-hybrid",
        "sfd7_vsan60_scaling",
        "sfd7-hybrid-64h-r100-iops",
        None,  # its inconsistencies are the blogger's wording; every figure matches
    ),
]


class Figure(NamedTuple):
    published: float
    measured: float
    difference: float
    status: str
    exception_kind: str | None
    exception_reason: str | None


def _figure(db: Path, figure_id: str) -> Figure:
    rows = query(
        db,
        "select published_value, measured_value, difference, status, exception_kind,"
        " exception_reason from marts.published_vs_measured where figure_id = ?",
        [figure_id],
    )
    assert len(rows) == 1, f"{figure_id}: {len(rows)} rows in marts.published_vs_measured"
    return Figure(*rows[0])


def _flat(text: str) -> str:
    """Text without whitespace and hyphens: a table cell's words as pdftotext joins the
    lines it wrapped (a hyphen at a line's end is dropped)."""
    return re.sub(r"[\s\-]+", "", text)


def _reading_order(pdf: Path) -> str:
    """The PDF's text cell by cell (pdftotext without -layout keeps a cell's lines together)."""
    return subprocess.run(
        ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def reports(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("seed-reports")
    pdfs = {}
    for study in STUDIES:
        done = _report(
            warehouse, out, "--testbed", study.testbed, "--published-figures-of",
            study.document, "--format", "pdf",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr + done.stdout
        pdfs[study.testbed] = out / f"{study.testbed}-report.pdf"
    return pdfs


@pytest.mark.parametrize("study", STUDIES, ids=[s.document for s in STUDIES])
def test_a_studys_report_prints_its_figures_beside_the_measured_ones(
    study: Study, reports: dict[str, Path], warehouse: Path
) -> None:
    pages = _pages(reports[study.testbed])
    figure = _figure(warehouse, study.figure_id)
    assert figure.status == "match"
    # one row of the table: printed value, measured value, difference (layout text: a row's
    # first lines share a line)
    pair = r"\s+".join(
        re.escape(tables.cell(v))
        for v in (figure.published, figure.measured, round(figure.difference, 3))
    )
    rows = [
        line
        for page in pages
        for line in page.splitlines()
        if re.search(rf"\s{pair}\s+match\b", line)
    ]
    assert rows, f"no row prints {pair}"
    # the row begins with the figure's id (its first line, where the cell wraps)
    first = [row.split()[0] for row in rows]
    assert any(len(t) >= 6 and study.figure_id.startswith(t) for t in first), first


@pytest.mark.parametrize(
    "study",
    [s for s in STUDIES if s.inconsistent_figure_id],
    ids=[s.document for s in STUDIES if s.inconsistent_figure_id],
)
def test_a_studys_documented_inconsistency_is_named_at_its_figure(
    study: Study, reports: dict[str, Path], warehouse: Path
) -> None:
    assert study.inconsistent_figure_id is not None
    figure = _figure(warehouse, study.inconsistent_figure_id)
    assert figure.exception_kind == "inconsistent_source" and figure.exception_reason
    text = _flat(_reading_order(reports[study.testbed]))
    # its status naming the inconsistency, and the documented reason, whole
    assert _flat(f"{figure.status}: inconsistent source") in text
    assert _flat(figure.exception_reason) in text
