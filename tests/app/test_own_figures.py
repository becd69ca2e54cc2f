"""A user's own reference figures end to end, on the warehouse of a user's own fio runs
(conftest `own_warehouse`: nine real fio runs of testbed my-lab): a figures file written here
from the measured values, loaded, built and published, lands in marts.published_results,
published_vs_measured (matched to the run, with its measured value), the RA chart's points and
the report; and the pages about documents show only the documents about the warehouse's
testbeds unless their switch says all."""

from __future__ import annotations

import csv
import os
import shutil
import sys
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from app.report.data import collect
from tests.app.conftest import OWN_TESTBED, _run, query
from tests.app.test_pages import open_page
from tests.conftest import REPO

pytestmark = pytest.mark.slow

DOCUMENT = "my_lab_acceptance_test"
PUBLISHED = "app_pages/published.py"
STUDIES = "app_pages/studies.py"


def _header() -> list[str]:
    with (REPO / "dbt_project" / "seeds" / "published_results.csv").open(encoding="utf-8") as f:
        return next(csv.reader(f))


def _figure(figure_id: str, metric: str, value: float, printed: str, unit: str) -> dict:
    return {
        "figure_id": figure_id, "source_document": DOCUMENT, "table_or_figure": "Table 1",
        "testbed": OWN_TESTBED, "profile": "baseline", "read_pct": "100", "random_pct": "100",
        "block_size_bytes": "4096", "metric": metric, "value": repr(value), "unit": unit,
        "value_as_printed": printed, "qualifier": "exact", "derivation": "published",
        "chart_read": "false",
    }  # fmt: skip


@pytest.fixture(scope="module")
def measured(own_warehouse: Path) -> tuple[str, float, float]:
    """The baseline 100%-read run of my-lab: result id, IOPS, average latency (ms)."""
    ((result_id, iops, latency_ms),) = query(
        own_warehouse,
        "select result_id, iops, avg_latency_ms from marts.fct_workload_results"
        " where testbed = ? and profile = 'baseline' and read_pct = 100",
        [OWN_TESTBED],
    )
    return result_id, iops, latency_ms


@pytest.fixture(scope="module")
def with_figures(own_warehouse: Path, measured: tuple[str, float, float], tmp_path_factory) -> Path:
    """A copy of the own warehouse with a figures file loaded, built and published: the run's
    IOPS printed to the unit (a match) and twice its latency (a mismatch)."""
    work = tmp_path_factory.mktemp("own_figures")
    main = work / "warehouse.duckdb"
    shutil.copy(own_warehouse, main)
    _, iops, latency_ms = measured
    rows = [
        _figure("my-lab-t1-r100-iops", "iops", float(round(iops)), f"{round(iops):,}", "IOPS"),
        _figure("my-lab-t1-r100-lat", "avg_latency_ms", 2 * latency_ms, f"{2 * latency_ms}", "ms"),
    ]
    figures = work / "figures.csv"
    with figures.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=_header(), lineterminator="\n")
        writer.writeheader()
        writer.writerows([{c: row.get(c, "") for c in _header()} for row in rows])
    env = {**os.environ, "PERF_DUCKDB_PATH": str(main), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    py = sys.executable
    _run([py, "-m", "ingest", "load", str(figures)], env)
    target = ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    _run([py, "-m", "ingest", "build", *target], env)
    _run([py, "-m", "ingest", "publish"], env)
    return main


def test_the_figures_match_the_run_in_published_vs_measured(with_figures, measured) -> None:
    result_id, iops, latency_ms = measured
    rows = query(
        with_figures,
        "select figure_id, status, matched_result_id, measured_value from"
        " marts.published_vs_measured where source_document = ? order by figure_id",
        [DOCUMENT],
    )
    assert rows == [
        ("my-lab-t1-r100-iops", "match", result_id, pytest.approx(iops)),
        ("my-lab-t1-r100-lat", "mismatch", result_id, pytest.approx(latency_ms)),
    ]
    files = query(
        with_figures,
        "select distinct figures_file from marts.published_results where source_document = ?",
        [DOCUMENT],
    )
    assert [Path(f).name for (f,) in files] == ["figures.csv"]
    # the reference studies' figures are still there, their file NULL
    (seed,) = query(with_figures, "select count(*) from marts.reference_published_results")[0]
    assert query(
        with_figures, "select count(*) from marts.published_results where figures_file is null"
    ) == [(seed,)]


def test_the_figures_are_points_of_the_ra_chart_and_rows_of_the_report(
    with_figures, measured
) -> None:
    _, iops, _ = measured
    points = query(
        with_figures,
        "select iops_figure_id, iops from marts.ra_comparison_points"
        " where origin = 'published' and testbed = ?",
        [OWN_TESTBED],
    )
    assert points == [("my-lab-t1-r100-iops", float(round(iops)))]
    with duckdb.connect(str(with_figures), read_only=True) as con:
        data = collect(con, OWN_TESTBED, DOCUMENT)
    assert DOCUMENT in data.documents
    assert sorted(data.get("published_vs_measured")["figure_id"].to_list()) == [
        "my-lab-t1-r100-iops",
        "my-lab-t1-r100-lat",
    ]


def _shown_figures(at: AppTest) -> list[str]:
    tables = [t.value for t in at.dataframe if "figure_id" in t.value.columns]
    return sorted(tables[-1]["figure_id"]) if tables else []


def test_published_page_shows_the_own_document_only_until_switched(
    with_figures, monkeypatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(with_figures))
    at = open_page(PUBLISHED)
    assert _shown_figures(at) == ["my-lab-t1-r100-iops", "my-lab-t1-r100-lat"]
    at.toggle(key="published_documents").set_value(True).run()
    (total,) = query(with_figures, "select count(*) from marts.published_vs_measured")[0]
    assert len(_shown_figures(at)) == total > 2
    assert at.query_params["documents"] in ("1", ["1"])


def test_published_page_of_own_runs_shows_no_study_until_switched(
    own_warehouse, monkeypatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(own_warehouse))
    at = open_page(PUBLISHED)
    assert _shown_figures(at) == []
    (total,) = query(own_warehouse, "select count(*) from marts.published_vs_measured")[0]
    hidden = [c.value for c in at.caption if "are hidden" in c.value]
    assert hidden and hidden[0].startswith(f"{total:,} figures of 5 documents")
    # a link with the switch on opens on every document's figures
    at = AppTest.from_file(str(REPO / "app" / "streamlit_app.py"), default_timeout=60)
    at.run()
    at.switch_page(PUBLISHED)
    at.query_params["documents"] = "1"
    at.run()
    assert len(_shown_figures(at)) == total > 0


def test_studies_page_of_own_runs_offers_the_studies_only_when_switched(
    own_warehouse, monkeypatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(own_warehouse))
    at = open_page(STUDIES)
    assert not [box for box in at.selectbox if box.key == "studies_study"]
    assert any("No study is about a testbed" in i.value for i in at.info)
    at.toggle(key="studies_documents").set_value(True).run()
    assert len(at.selectbox(key="studies_study").options) == 4
