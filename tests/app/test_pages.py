"""Every page of the dashboard opens against the synthetic warehouse (and an empty one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
PAGES = [
    "app_pages/ra_comparison.py",
    "app_pages/profile_deltas.py",
    "app_pages/transport.py",
    "app_pages/capacity.py",
    "app_pages/scaling.py",
    "app_pages/run_explorer.py",
    "app_pages/sql_console.py",
    "app_pages/data_quality.py",
]


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=30)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plotly_charts(at: AppTest) -> list:
    return at.get("plotly_chart")


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_page_opens_without_error(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    assert not at.error, [e.value for e in at.error]


def test_capacity_page_shows_dedupe_ratio(warehouse_env: Path) -> None:
    # GIVEN 28.58 TB logical on 3.48 TB physical under RAID-1 FTT=1
    at = open_page("app_pages/capacity.py")
    shown = metrics(at)
    assert shown["Dedupe & compression"] == "8.21x"
    assert shown["Capacity multiplier"] == "2.00x"
    assert shown["Usable to raw"] == "4.11x"  # 8.21 / 2 = 4.105, shown rounded
    assert shown["Saved"] == "25.10 TB"


def test_ra_page_overlays_published_figures(warehouse_env: Path) -> None:
    at = open_page("app_pages/ra_comparison.py")
    assert at.selectbox[1].value == "micron-sata-vsan67"  # the published reference
    assert len(plotly_charts(at)) == 1
    # The synthetic testbed peaks at 100 % read, baseline, cache: 120000 + 3600 * 100
    assert metrics(at)["Peak IOPS (your testbed)"] == "480,000"


def test_transport_page_shows_rdma_gain(warehouse_env: Path) -> None:
    at = open_page("app_pages/transport.py")
    assert metrics(at)["Best RDMA efficiency gain"] == "+31.4%"
    assert len(plotly_charts(at)) == 2  # side by side + IOPS per CPU percent


def test_reconstructed_note_appears_for_reference_testbeds(warehouse_env: Path) -> None:
    at = open_page("app_pages/scaling.py")
    assert any("micron-sata-vsan67-reconstructed" in i.value for i in at.info)


def test_run_explorer_shows_latency_of_selected_result(warehouse_env: Path) -> None:
    at = open_page("app_pages/run_explorer.py")
    row_count = len(at.selectbox[0].options)
    assert row_count == 43
    assert metrics(at)["IOPS"] != "n/a"


def test_sidebar_filter_narrows_results(warehouse_env: Path) -> None:
    at = open_page("app_pages/run_explorer.py")
    at.sidebar.multiselect(key="filter_transport").select("rdma").run()
    assert not at.exception
    # rdma result + the reconstructed one, whose transport is not labelled (kept)
    assert len(at.selectbox[0].options) == 2


def test_sql_console_page_runs_and_refuses(warehouse_env: Path) -> None:
    at = open_page("app_pages/sql_console.py")
    at.text_area(key="sql_text").input("select count(*) as n from marts.fct_workload_results")
    at.button(key="sql_run").click().run()
    assert not at.exception
    assert at.dataframe[-1].value["n"].tolist() == [43]
    at.text_area(key="sql_text").input("attach '/tmp/x.duckdb' as x")
    at.button(key="sql_run").click().run()
    assert any("Only a single SELECT" in e.value for e in at.error)


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_page_on_empty_warehouse_says_no_data(
    empty_warehouse: Path, monkeypatch: pytest.MonkeyPatch, page: str
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(empty_warehouse))
    at = open_page(page)
    assert any("no `marts` tables" in w.value for w in at.warning)


def test_missing_warehouse_shows_a_clear_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(tmp_path / "nowhere.duckdb"))
    at = AppTest.from_file(str(APP), default_timeout=30)
    at.run()
    assert not at.exception
    assert any("No warehouse at" in e.value for e in at.error)


def test_run_explorer_shows_every_detail_section(warehouse_env: Path) -> None:
    # GIVEN r001 with per-VM outputs, percentiles, json+ buckets, intervals and host CPU
    # samples in the detail marts
    at = open_page("app_pages/run_explorer.py")
    at.selectbox[0].select("r001").run()
    assert not at.exception, [e.value for e in at.exception]
    headings = [h.value for h in at.subheader]
    for heading in (
        "Per-VM and per-host spread",
        "Latency percentiles",
        "Latency histogram (fio json+)",
        "Over the run: intervals",
        "Over the run: host CPU",
    ):
        assert heading in headings
    shown = metrics(at)
    assert shown["IOPS per node"] == "30,000"  # 120,000 + 3,600 x 0 % read IOPS / 4 nodes
    assert shown["Host imbalance"] == "6.0%"
    # latency bars + spread + percentiles + histogram + intervals + host CPU
    assert len(plotly_charts(at)) == 6


def test_run_explorer_caps_host_cpu_points(warehouse_env: Path) -> None:
    # GIVEN 5,000 samples per host every 0.48 s from 08:50:00 to 09:29:59.52: samples 1,250
    # (09:00:00) to 4,999 fall in r001's 09:00-09:30 window, 3,750 per host
    from app.lib import queries

    cpu = queries.host_cpu_series.__wrapped__(str(warehouse_env), "r001")
    per_host = cpu.groupby("host_name")["samples_in_point"]
    assert per_host.size().max() <= queries.MAX_POINTS + 1
    assert per_host.sum().to_dict() == {"esx01": 3750, "esx02": 3750}
    assert cpu["sampled_at"].min().isoformat() == "2026-03-01T09:00:00+00:00"


def test_interval_series_on_elapsed_seconds_is_capped(warehouse_env: Path) -> None:
    # GIVEN 30 one-minute intervals of r001 (elapsed 60 s .. 1,800 s), at most 10 points
    from app.lib import queries

    series = queries.result_time_series.__wrapped__(
        str(warehouse_env), "fct_result_intervals", "r001", max_points=10
    )
    assert len(series) == 10
    assert series["samples_in_point"].sum() == 30
    assert series["elapsed_s"].iloc[0] == 60.0  # a point sits at its first interval
    assert "interval_index" not in series  # an index is no value to average
