"""The RA comparison chart and page (issue 28): published figures beside the measured bars,
a latency line only between adjacent points, one legend entry per series, the workload in
the subtitle, printed figures of another workload left out unless drawn anyway, and every
selector in the URL.

The pure tests build frames by hand; the page tests read the reference warehouse and a
warehouse of only a user's own fio runs (made here with Debian's fio).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib import charts
from app.lib.charts.common import PALETTE
from app.lib.charts.layout import _subtitle_lines
from app.lib.charts.ra import natural_key
from app.lib.views import ra_comparison as view
from tests.app.conftest import REPO, query
from tests.app.test_studies import figures

APP = REPO / "app" / "streamlit_app.py"
PAGE = "app_pages/ra_comparison.py"
MICRON = "micron-sata-vsan67"


def points(origin: str, oio: int, vms: int, mixes=(0, 50, 100), **extra) -> pl.DataFrame:
    n = len(mixes)
    return pl.DataFrame(
        {
            "origin": [origin] * n,
            "testbed": [extra.get("testbed", "lab")] * n,
            "result_id": [f"r{oio}-{m}" if origin == "measured" else None for m in mixes],
            "iops_figure_id": [None if origin == "measured" else f"f{oio}-{m}" for m in mixes],
            "latency_figure_id": [None] * n,
            "published_source": [extra.get("source") if origin == "published" else None] * n,
            "run_configuration": [""] * n,
            "working_set": ["cache"] * n,
            "profile": ["baseline"] * n,
            "read_pct": list(mixes),
            "block_size_bytes": [4096] * n,
            "random_pct": [100] * n,
            "outstanding_io": [oio] * n,
            "vm_count": [vms] * n,
            "nodes": [extra.get("nodes")] * n,
            "iops": [1000.0 * oio + m for m in mixes],
            "avg_latency_ms": [1.0 + m / 100 for m in mixes],
        },
        schema_overrides={"nodes": pl.Int64, "published_source": pl.String},
    )


# --- which printed points may stand beside the measured ones ------------------------------------


def test_a_printed_point_of_another_workload_is_refused_and_the_keys_named() -> None:
    measured = points("measured", 16, 1)
    published = pl.concat(
        [
            points("published", 512, 16, testbed="doc", source="Figure 10", nodes=4),
            points("published", 16, 1, (70,), testbed="doc", source="Table 2", nodes=4),
        ]
    )
    found = view.compare_workloads(measured, published)
    # Table 2 ran the measured workload (nodes: the runs do not say, which contradicts nothing)
    assert found.comparable["iops_figure_id"].to_list() == ["f16-70"]
    assert found.differing["iops_figure_id"].to_list() == ["f512-0", "f512-50", "f512-100"]
    assert found.keys == ("outstanding_io", "vm_count")
    assert found.statement() == "published: OIO 512, 16 VMs · measured: OIO 16, 1 VM"
    assert found.unstated == ("nodes",)
    assert found.unstated_text() == "not stated by the measured runs: nodes"


def test_the_chart_leaves_out_another_workload_unless_drawn_anyway() -> None:
    measured = points("measured", 16, 1)
    published = points("published", 512, 16, testbed="doc", source="Figure 10")
    rows = view.chart_rows(measured, published, "lab", "doc", [""])
    assert rows.data["origin"].to_list() == ["measured"] * 3
    assert rows.left_out == 3
    assert view.refusal(rows, "doc") == (
        "3 published figures of doc are not drawn: no measured point ran their workload "
        "(published: OIO 512, 16 VMs · measured: OIO 16, 1 VM)"
    )
    assert view.subtitle(rows, "lab", "doc", []).split("<br>") == [
        "testbed lab · 4K · random · OIO 16 · 1 VM · baseline profile",
        view.refusal(rows, "doc"),
    ]
    anyway = view.chart_rows(measured, published, "lab", "doc", [""], anyway=True)
    assert anyway.data["origin"].to_list() == ["measured"] * 3 + ["published"] * 3
    assert anyway.left_out == 0
    assert view.subtitle(anyway, "lab", "doc", ["lab"]).split("<br>") == [
        "4K · random · baseline profile · lab: reconstructed from published figures",
        "hatched: published figures of doc (Figure 10)",
        "drawn although workloads differ: published: OIO 512, 16 VMs · measured: OIO 16, 1 VM",
    ]


def test_a_documents_own_figures_of_the_same_workload_are_drawn() -> None:
    measured = points("measured", 512, 16)
    published = points("published", 512, 16, (100,), source="Figure 10")
    rows = view.chart_rows(measured, published, "lab", "lab", [""])
    assert rows.left_out == 0 and rows.data.height == 4
    assert view.subtitle(rows, "lab", "lab", []).split("<br>") == [
        "testbed lab · 4K · random · OIO 512 · 16 VMs · baseline profile",
        "hatched: published figures of lab (Figure 10)",
    ]


def test_configurations_are_named_by_what_tells_them_apart() -> None:
    labels, shared = view.short_configurations(
        ["block_size=4K, ftm=RAID-5, transport=tcp", "block_size=4K, ftm=RAID-5, transport=rdma"]
    )
    assert labels == {
        "block_size=4K, ftm=RAID-5, transport=tcp": "transport=tcp",
        "block_size=4K, ftm=RAID-5, transport=rdma": "transport=rdma",
    }
    assert shared == "block_size=4K, ftm=RAID-5"
    # one configuration: all of it is shared (the subtitle says it), none is a legend's
    assert view.short_configurations(["vsan_version=6.7"]) == (
        {"vsan_version=6.7": ""},
        "vsan_version=6.7",
    )


def test_numbers_sort_as_numbers() -> None:
    assert sorted(["100% read", "0% read", "70% read"], key=natural_key) == [
        "0% read", "70% read", "100% read",
    ]  # fmt: skip
    rows = pl.DataFrame({"outstanding_io": [512, 16, 1024], "vm_count": [1, 1, 1]})
    assert view.values_text(rows, ["outstanding_io", "vm_count"]) == (
        "outstanding I/O 16 or 512 or 1,024, 1 VM"
    )


# --- the chart ------------------------------------------------------------------------------------


def ra_chart(anyway: bool = True):
    measured = points("measured", 16, 1, (0, 30, 50, 70, 100))
    published = points("published", 512, 16, (0, 50, 100), testbed="doc", source="Figure 10")
    rows = view.chart_rows(measured, published, "lab", "doc", [""], anyway=anyway)
    return rows, charts.ra_comparison(rows.data, subtitle=view.subtitle(rows, "lab", "doc", []))


def test_published_bars_stand_beside_the_measured_ones_with_their_values() -> None:
    rows, fig = ra_chart()
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    assert set(bars) == {"measured", "published"}
    assert bars["measured"].offsetgroup != bars["published"].offsetgroup
    assert bars["published"].marker.pattern.shape == "/"
    assert not bars["measured"].marker.pattern.shape
    # the plotted values are the rows' values, each bar one row
    measured = rows.data.filter(pl.col("origin") == "measured")
    assert list(bars["measured"].y) == measured["iops"].to_list()
    assert list(bars["measured"].customdata) == measured["result_id"].to_list()
    assert list(bars["published"].y) == [512_000.0, 512_050.0, 512_100.0]


def test_a_latency_line_breaks_where_its_series_has_no_point() -> None:
    _, fig = ra_chart()
    lines = {t.name: t for t in fig.data if t.type == "scatter"}
    # printed at 0, 50 and 100 % read only: markers, and no line through 30 % or 70 %
    assert list(lines["published"].x) == ["0% read", "30% read", "50% read", "70% read",
                                          "100% read"]  # fmt: skip
    assert list(lines["published"].y) == [1.0, None, 1.5, None, 2.0]
    assert lines["published"].connectgaps is False
    assert None not in list(lines["measured"].y)


def test_one_legend_entry_per_series_and_latency_marks_visible_on_any_bar() -> None:
    _, fig = ra_chart()
    shown = [t.name for t in fig.data if t.showlegend is not False]
    assert shown == ["measured", "published"]
    assert {t.legendgroup for t in fig.data} == {"measured", "published"}
    lines = [t for t in fig.data if t.type == "scatter"]
    # black line and black marker outline: visible over a bar of the series' own colour
    assert all(t.line.color == "#000000" and t.marker.line.color == "#000000" for t in lines)
    assert len({t.marker.symbol for t in lines}) == 2  # a shape per series
    assert all(t.marker.color in PALETTE for t in lines)
    subtitle = fig.layout.title.subtitle.text
    assert "1 VM " in subtitle + " " and "1 VMs" not in subtitle


def test_repeated_figures_of_one_source_get_slots_only_where_they_meet() -> None:
    # Figure 4 (0 and 100 % read) and Figure 10 (100 % read) of one profile: one legend entry,
    # two slots at 100 % read (side by side), one at 0 %
    measured = points("measured", 16, 1, (0, 100))
    fig4 = points("published", 16, 1, (0, 100), source="Figure 4")
    fig10 = points("published", 16, 1, (100,), source="Figure 10")
    fig = charts.ra_comparison(pl.concat([measured, fig4, fig10], how="diagonal_relaxed"))
    bars = [t for t in fig.data if t.type == "bar"]
    assert [t.name for t in fig.data if t.showlegend is not False] == ["measured", "published"]
    assert [(t.offsetgroup, list(t.x)) for t in bars] == [
        ("measured#0", ["0% read", "100% read"]),
        ("published#0", ["0% read", "100% read"]),
        ("published#1", ["100% read"]),
    ]


# --- the page on the reference warehouse --------------------------------------------------------


def open_page(params: dict[str, str | list[str]] | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def legend(fig: dict) -> list[str]:
    """The legend's entries in the order it shows them (legendrank)."""
    shown = [t for t in fig["data"] if t.get("showlegend", True)]
    return [t["name"] for t in sorted(shown, key=lambda t: t.get("legendrank", 1000))]


def selectbox(at: AppTest, label: str):
    return next(s for s in at.selectbox if s.label == label)


@pytest.mark.slow
def test_reference_testbed_against_its_own_document(warehouse_env: Path) -> None:
    at = open_page()
    (fig,) = figures(at).values()
    assert legend(fig) == [
        f"{p} · {o}"
        for p in ("baseline", "performance", "balanced", "density")
        for o in ("measured", "published")
    ]  # 28 entries before issue 28
    assert fig["layout"]["title"]["subtitle"]["text"].split("<br>") == [
        f"testbed {MICRON} · 4K · random · OIO 512 · 16 VMs · 4 nodes · vSAN 6.7 · "
        "reconstructed from published figures",
        "varies: profile",  # (the layout rules wrap a line at 120 characters)
        f"hatched: published figures of {MICRON} (Figure 4, Figure 8, Figure 10, "
        "Figure 10 (text), Figure 14)",
    ]
    # every measured bar is its mart row's IOPS
    rows = query(
        warehouse_env,
        "select result_id, iops from marts.ra_comparison_points"
        " where origin = 'measured' and testbed = ?",
        [MICRON],
    )
    expected = dict(rows)
    plotted = {
        rid: y
        for t in fig["data"]
        if t["type"] == "bar" and t["name"].endswith("measured")
        for rid, y in zip(t["customdata"], t["y"], strict=True)
    }
    assert plotted == pytest.approx(expected) and len(plotted) == 40


@pytest.mark.slow
def test_the_url_restores_the_view(warehouse_env: Path) -> None:
    configs = ["vsan_version=6.2", "vsan_version=6.5"]
    at = open_page({"testbed": "micron-vsan62-vs-65", "ref": "(none)", "config": configs})
    assert selectbox(at, "Testbed").value == "micron-vsan62-vs-65"
    assert selectbox(at, "Published figures of").value == "(none)"
    chosen = next(m for m in at.multiselect if m.label.startswith("Configuration"))
    assert chosen.value == configs
    (fig,) = figures(at).values()
    assert legend(fig) == configs
    # another document's figures, drawn anyway: the toggle is on and says what differs
    at = open_page({"testbed": "lenovo-sr650-vsan65", "ref": MICRON, "anyway": "1"})
    assert next(t for t in at.toggle if t.label == "Draw them anyway").value is True
    (fig,) = figures(at).values()
    printed = [t for t in fig["data"] if t["type"] == "bar" and "published" in t["name"]]
    (expected,) = query(
        warehouse_env,
        "select count(*) from marts.ra_comparison_points"
        " where origin = 'published' and testbed = ? and iops is not null",
        [MICRON],
    )[0]
    assert sum(len(t["y"]) for t in printed) == expected == 7  # Figures 4 and 10, the text
    assert (
        "drawn although workloads differ: published: profile "
        in (fig["layout"]["title"]["subtitle"]["text"])
    )
    assert at.query_params["anyway"] == "1"


# --- the page on a warehouse of only a user's own fio runs -------------------------------------

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="Debian's fio is not installed")


def _run(cmd: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, (cmd[:4], done.stdout[-2000:], done.stderr[-2000:])


@pytest.fixture(scope="module")
def fio_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three short fio runs (4K random, iodepth 16, one job: 1 VM) at 0, 70 and 100 % read,
    labelled testbed my-lab, loaded, built and published as a new user does."""
    work = tmp_path_factory.mktemp("ra_fio")
    for mix in (0, 70, 100):
        out = work / "runs" / f"r{mix}"
        out.mkdir(parents=True)
        report = subprocess.run(
            ["fio", f"--name=r{mix}", f"--filename={work / 'data'}", "--size=8M",
             "--runtime=1", "--time_based", "--ioengine=psync", "--rw=randrw",
             f"--rwmixread={mix}", "--bs=4k", "--iodepth=16", "--output-format=json"],
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        (out / "fio.json").write_bytes(report)
    path = work / "warehouse.duckdb"
    env = {**os.environ, "PERF_DUCKDB_PATH": str(path), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    py = sys.executable
    labels = ["--label", "testbed=my-lab", "--label", "profile=baseline"]
    _run([py, "-m", "ingest", "load", str(work / "runs"), *labels, "--quiet"], env)
    target = ["--target-path", str(work / "target"), "--log-path", str(work / "logs")]
    _run([py, "-m", "ingest", "build", *target], env)
    _run([py, "-m", "ingest", "publish"], env)
    return path


@pytest.mark.slow
@needs_fio
def test_own_fio_runs_against_the_micron_ra(
    fio_warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(fio_warehouse))
    at = open_page()
    assert selectbox(at, "Testbed").value == "my-lab"
    assert selectbox(at, "Published figures of").value == "(none)"
    (fig,) = figures(at).values()
    assert fig["layout"]["title"]["subtitle"]["text"] == (
        "testbed my-lab · 4K · random · OIO 16 · 1 VM · baseline profile"
    )
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    expected = dict(
        query(fio_warehouse, "select read_pct, iops from marts.ra_comparison_points"
              " where origin = 'measured'")
    )  # fmt: skip
    assert [t["name"] for t in bars] == ["measured"]
    assert dict(zip(bars[0]["x"], bars[0]["y"], strict=True)) == pytest.approx(
        {f"{k}% read": v for k, v in expected.items()}
    )
    # Micron's figures (OIO 512, 16 VMs) beside 16-OIO, 1-VM runs: refused, and said why
    selectbox(at, "Published figures of").select(MICRON).run()
    (fig,) = figures(at).values()
    assert [t["name"] for t in fig["data"] if t["type"] == "bar"] == ["measured"]
    refused = (
        f"15 published figures of {MICRON} are not drawn: no measured point ran their workload "
        "(published: profile balanced or baseline or density or performance, OIO 512, 16 VMs · "
        "measured: baseline profile, OIO 16, 1 VM)"
    )
    # a line of the subtitle, broken where it is too long for the figure's width
    assert "<br>".join(_subtitle_lines(refused)) in fig["layout"]["title"]["subtitle"]["text"]
    assert any("OIO 512, 16 VMs" in w.value for w in at.warning)
    assert at.query_params["ref"] == MICRON
    # drawn anyway: hatched bars beside the measured ones, the differences on the chart
    next(t for t in at.toggle if t.label == "Draw them anyway").set_value(True).run()
    (fig,) = figures(at).values()
    assert "drawn although workloads differ" in fig["layout"]["title"]["subtitle"]["text"]
    assert legend(fig) == [
        "baseline · measured", "baseline · published", "performance · published",
        "balanced · published", "density · published",
    ]  # fmt: skip
    assert at.query_params["anyway"] == "1"


# --- the Report button (app/lib/report_button.py) ---------------------------------------------


def test_report_documents_are_those_printed_for_the_chosen_testbed() -> None:
    from app.lib import report_button

    published = pl.DataFrame(
        {
            "testbed": ["a", "a", "b", "a"],
            "source_document": ["doc_a2", "doc_a1", "doc_b", "doc_a1"],
        }
    )
    assert report_button.documents_of(published, "a") == ["doc_a1", "doc_a2"]
    assert report_button.documents_of(published, None) == []
    assert report_button.documents_of(published.clear(), "a") == []


@pytest.mark.slow
def test_the_report_button_writes_the_testbeds_report(warehouse_env: Path) -> None:
    from app.lib import report_button

    # GIVEN the RA page on the reference testbed with its own document's figures
    at = open_page({"testbed": MICRON, "ref": MICRON})
    (document,) = at.selectbox(key="ra_report_document").options
    # WHEN the reader asks for the report
    at.button(key="ra_report_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    # THEN the session holds the HTML and PDF of that testbed and document, as the CLI makes
    request, files = at.session_state[report_button.STATE_KEY]
    assert (request.testbed, request.document) == (MICRON, document)
    assert files.pdf.startswith(b"%PDF-") and files.html.startswith(b"<!DOCTYPE html>")
    assert MICRON.encode() in files.html and document.encode() in files.html
    assert files.stem == f"{MICRON}-report"
