"""`python -m ingest report`: the Micron RA report on the product's warehouse.

GIVEN the warehouse the product builds (reference dataset included, validated and published)
WHEN the report of micron-sata-vsan67 is written with the Micron RA's printed figures
THEN the PDF's text holds the numbers the marts hold (the baseline 100 %-read cache IOPS) and
the charts' axis titles (text, so the charts are vector); the HTML refers to no other host;
an unvalidated version gets a report only as a draft, watermarked on every page; an unknown
testbed is a clear error; and the same version gives the same bytes but for one line.
Page images of the PDF are saved under tests/report/artifacts/ for review.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest

from tests.app.conftest import query

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).with_name("artifacts")
TESTBED = "micron-sata-vsan67"
DOCUMENT = "micron_vsan67_sata_ra"


def _report(db: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "ingest", "report", "--db", str(db), "--out", str(out), *extra]
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900)


def _pages(pdf: Path) -> list[str]:
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return [page for page in text.split("\f") if page.strip()]


@pytest.fixture(scope="module")
def micron(warehouse: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    done = _report(warehouse, out, "--testbed", TESTBED, "--published-figures-of", DOCUMENT)
    assert done.returncode == 0, done.stderr + done.stdout
    # page images for review
    ARTIFACTS.mkdir(exist_ok=True)
    for old in ARTIFACTS.glob(f"{TESTBED}-*.png"):
        old.unlink()
    pdf = out / f"{TESTBED}-report.pdf"
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(ARTIFACTS / TESTBED)], check=True)
    return out


def _baseline_cache_read_iops(db: Path) -> float:
    ((iops,),) = query(
        db,
        "select iops from marts.fct_workload_results where testbed = ? and profile ="
        " 'baseline' and working_set = 'cache' and read_pct = 100",
        [TESTBED],
    )
    return iops


def test_the_pdf_holds_the_marts_figures_and_vector_charts(micron: Path, warehouse: Path) -> None:
    pages = _pages(micron / f"{TESTBED}-report.pdf")
    text = "\n".join(pages)
    # THEN the baseline 100 %-read cache IOPS the marts hold is printed (tables: no decimals)
    assert f"{_baseline_cache_read_iops(warehouse):,.0f}" in text
    # ... the axis titles of the charts are text: the charts are vector, not pictures
    for title in ("IOPS (IO/s)", "Average latency (ms)", "Read mix (% reads)"):
        assert title in text, title
    # ... the cover, the comparison and the appendices are there, and no draft mark
    for heading in ("micron-sata-vsan67", "Published vs measured", "Appendix A: provenance"):
        assert heading in text, heading
    assert "DRAFT" not in text
    # ... the CSV of every chart and table beside the PDF
    csvs = sorted((micron / f"{TESTBED}-report-csv").glob("*.csv"))
    assert any(p.name.startswith("figure-") for p in csvs)
    assert any(p.name.startswith("table-") for p in csvs)


def test_the_appendix_lists_each_results_files_within_the_load_root_with_sha256(
    micron: Path, warehouse: Path
) -> None:
    # GIVEN the files of the first Micron result, as the loader recorded them
    files = query(
        warehouse,
        "select result_id, load_root, path_in_root, sha256 from marts.fct_result_source_files"
        " where result_id = (select min(result_id) from marts.fct_workload_results"
        " where testbed = ?) order by path_in_root",
        [TESTBED],
    )
    assert files and all(root for _, root, _, _ in files), "loaded without a recorded root"
    html = (micron / f"{TESTBED}-report.html").read_text()
    # THEN the appendix says paths are within the folder given to `ingest load`
    assert "relative to the folder given to `ingest load`" in html
    # ... heads the result with its folder within that root, and lists each file's sha256
    # beside its path within the result's folder; the absolute path is not printed
    result_id, root = files[0][:2]
    folder = os.path.commonpath([path for _, _, path, _ in files])
    if len(files) == 1:
        folder = os.path.dirname(folder)
    assert f"<h4>Result {result_id} · {folder}</h4>" in html
    for _, _, path, sha in files:
        assert re.search(rf"{sha}\s+{re.escape(path[len(folder) + 1 :])}\n", html), path
        assert f"{root}/{path}" not in html


class _Urls(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name in ("src", "href", "xlink:href", "action") or name == "style"):
                self.urls += [value] if name != "style" else _css_urls(value)


def _css_urls(css: str) -> list[str]:
    return [m.strip("'\" ") for m in re.findall(r"url\(([^)]*)\)", css)]


def test_the_html_refers_to_no_other_host(micron: Path) -> None:
    html = (micron / f"{TESTBED}-report.html").read_text(encoding="utf-8")
    parser = _Urls()
    parser.feed(html)
    urls = parser.urls + _css_urls(html) + re.findall(r"@import\s+['\"]?([^'\";]+)", html)
    assert urls, "the page should hold its CSV downloads at least"
    foreign = [u for u in urls if not (u.startswith("#") or u.startswith("data:"))]
    assert foreign == []
    assert "<script" not in html  # no plotly.js: the charts are SVG


def test_an_unvalidated_version_is_reported_only_as_a_watermarked_draft(
    warehouse: Path, tmp_path: Path
) -> None:
    # GIVEN a copy of the main file and nothing published beside it
    main = tmp_path / "db" / "warehouse.duckdb"
    main.parent.mkdir()
    shutil.copy(warehouse, main)
    args = ("--testbed", "lenovo-sr650-vsan65", "--format", "pdf")
    refused = _report(main, tmp_path / "out", *args)
    assert refused.returncode == 1
    assert "--draft" in refused.stderr
    done = _report(main, tmp_path / "out", *args, "--draft")
    assert done.returncode == 0, done.stderr
    pages = _pages(tmp_path / "out" / "lenovo-sr650-vsan65-report-draft.pdf")
    assert pages and all("DRAFT" in page for page in pages)


@pytest.mark.parametrize("testbed", ["no-such-testbed", "unknown"])
def test_a_testbed_without_results_is_a_clear_error(
    warehouse: Path, tmp_path: Path, testbed: str
) -> None:
    done = _report(warehouse, tmp_path, "--testbed", testbed)
    assert done.returncode == 1
    assert f"testbed {testbed!r} has no workload results" in done.stderr
    assert "micron-sata-vsan67" in done.stderr  # it names the testbeds there are
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_document_is_a_clear_error(warehouse: Path, tmp_path: Path) -> None:
    done = _report(warehouse, tmp_path, "--testbed", TESTBED, "--published-figures-of", "x")
    assert done.returncode == 1
    assert "no published figures of document 'x'" in done.stderr


def test_the_same_version_gives_the_same_bytes(warehouse: Path) -> None:
    import warehouse as wh_package
    from app import report
    from app.report import render

    reader = wh_package.from_settings(None, db=warehouse).reader()
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    first = report.build(reader, "lenovo-sr650-vsan65", generated_at=when)
    second = report.build(reader, "lenovo-sr650-vsan65", generated_at=when)
    assert first.html == second.html
    assert first.pdf == second.pdf
    assert first.csv == second.csv
    # a later run differs in its "generated at" line only
    later = report.build(reader, "lenovo-sr650-vsan65", formats=("html",))
    assert later.html != first.html
    assert render.without_generated_line(later.html.decode()) == render.without_generated_line(
        first.html.decode()
    )


def test_a_scaling_testbeds_report_draws_iops_per_node_by_node_count(
    warehouse: Path, tmp_path: Path
) -> None:
    # GIVEN SFD7's hybrid cluster, measured at 4 to 64 nodes
    testbed = "sfd7-vsan60-hybrid"
    done = _report(warehouse, tmp_path, "--testbed", testbed, "--format", "pdf")
    assert done.returncode == 0, done.stderr + done.stdout
    # THEN its per-node section is a chart (axis titles as text) whose CSV holds the mart's
    # IOPS per node of every result, beside the table
    text = "\n".join(_pages(tmp_path / f"{testbed}-report.pdf"))
    assert "Nodes in the cluster" in text and "IOPS per node (IO/s)" in text
    (csv_file,) = (tmp_path / f"{testbed}-report-csv").glob("figure-*-per_node_iops.csv")
    plotted = pl.read_csv(csv_file)
    expected = query(
        warehouse,
        "select result_id, iops_per_node from marts.scaling_points"
        " where testbed = ? and iops_per_node is not null order by result_id",
        [testbed],
    )
    assert len(expected) >= 2
    got = dict(plotted.select("result_id", "iops_per_node").rows())
    assert got == pytest.approx(dict(expected))
