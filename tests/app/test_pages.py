"""Every page of the dashboard opens against the real warehouse (and an empty one).

Expected values are the reference studies' published figures, or counts the test derives
from the marts with its own SQL.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib.charts.common import MISSING
from app.lib.navigation import PAGE_FILES
from tests.app import figures
from tests.app.conftest import query
from tests.reliability._gate import failed_gate_warehouse
from warehouse.file import read_validation_report

APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
# Pages whose content needs data the reference dataset does not have, with the words their
# notice must hold: History draws a configuration run again over time, and no study repeats one.
NOT_ON_REFERENCE = {"app_pages/history.py": "python -m synth history"}
PAGES = list(PAGE_FILES)


def open_page(page: str, timeout: float = 30, *, expand: bool = True) -> AppTest:
    """The page after a first run; `expand`: its collapsed data expanders opened too."""
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    at.run()
    at.switch_page(page)
    at.run()
    if expand:
        figures.open_expanders(at)
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plotly_charts(at: AppTest) -> list:
    return figures.charts(at)


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_page_opens_without_error(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    assert not at.error, [e.value for e in at.error]


SINGULAR_WITH_PLURAL = re.compile(r"\b1 (VMs|nodes|hosts|outputs|files|rows|disk groups)\b")


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_every_chart_is_a_figure_a_paper_can_use(warehouse_env: Path, page: str) -> None:
    """Issue 28, on every page of the reference warehouse: each chart names its workload and
    configuration in a subtitle (kept in an export), its legend names each series once, its
    toolbar offers nothing that sends data to another host, and no count reads "1 VMs"."""
    at = open_page(page)
    for chart in plotly_charts(at):
        fig = figures.spec(chart)
        title = fig["layout"].get("title", {})
        name = title.get("text", "?")
        if fig["layout"].get("annotations") and not fig["data"]:
            continue  # the "No data" figure
        assert title.get("subtitle", {}).get("text"), f"{page}: {name!r} has no subtitle"
        shown = [
            (t.get("legendgroup"), t.get("name"))
            for t in fig["data"]
            if t.get("showlegend", True) and t.get("name")
        ]
        names = [n for _, n in shown]
        assert len(names) == len(set(names)), f"{page}: {name!r} legend repeats: {names}"
        assert not SINGULAR_WITH_PLURAL.search(json.dumps(fig)), f"{page}: {name!r}"
        if hasattr(chart.proto, "component_name"):
            config = figures.component_data(chart)["config"]
            assert config.get("showSendToCloud") is False, page
            assert config.get("showEditInChartStudio") is False, page
            assert not config.get("plotlyServerURL"), page


def headline_metrics(at: AppTest) -> dict[str, dict[str, str]]:
    """The capacity page's four headline metrics per headline ("testbed · profile · working
    set"), in the page's order: one headline per testbed x profile x working set."""
    headings = [
        m.value.split(" · captured ")[0].replace("**", "")
        for m in at.markdown
        if " · captured " in m.value
    ]
    shown = [(m.label, m.value) for m in at.metric]
    return {h: dict(shown[4 * i : 4 * i + 4]) for i, h in enumerate(headings)}


def test_capacity_page_shows_dedupe_ratio(warehouse_env: Path) -> None:
    # GIVEN the Micron vSAN 6.7 RA's latest observation: 28.58 TiB logical on 3.48 TiB
    # physical = 8.21x, 25.10 TiB = 27.60 TB saved, density RAID-5 3+1: 1.33x, usable-to-raw
    # 8.21 / 1.33 = 6.17 (the RA's own figures)
    at = open_page("app_pages/capacity.py")
    shown = headline_metrics(at)
    micron = shown["micron-sata-vsan67 · density · capacity"]
    samsung = shown["samsung-pm1743-vsan8-esa · raid5"]
    # the hand-entered capacity.yaml fixture (no policy labels) is a headline of its own, never
    # mixed into the RA's: its multiplier is unknown
    assert shown["micron-sata-vsan67"]["Capacity multiplier"] == MISSING
    assert micron["Dedupe & compression"] == "8.21x"
    assert micron["Saved, TB / TiB"] == "27.60 / 25.10"
    assert micron["Capacity multiplier"] == "1.33x"
    assert micron["Usable to raw"] == "6.17x"
    # Samsung's RAID-5 capture (ESA 2+1 on 3 hosts: 1.5x); its VsanSpaceUsage
    # capture has no before/after-dedupe bytes, so no ratio (not a made-up 1.00x)
    assert samsung["Capacity multiplier"] == "1.50x"
    assert samsung["Dedupe & compression"] == MISSING
    assert samsung["Usable to raw"] == MISSING


def test_ra_page_overlays_published_figures(warehouse_env: Path) -> None:
    at = open_page("app_pages/ra_comparison.py")
    # The first testbed with results and published figures of its own (the Micron vSAN 6.7
    # RA), against those figures.
    assert at.selectbox[0].value == "micron-sata-vsan67"
    assert at.selectbox[1].value == "micron-sata-vsan67"
    assert len(plotly_charts(at)) == 1
    # Figure 10: baseline, 100 % read, cache test: 486,099 IOPS
    assert metrics(at)["Peak IOPS (your testbed)"] == "486,099"


def test_transport_page_shows_rdma_gain(warehouse_env: Path) -> None:
    # Samsung PM1743 Table 3, 128K sequential 70/30: 1,800 -> 2,994 IOPS per CPU % = +66.4 %
    at = open_page("app_pages/transport.py")
    assert metrics(at)["Best RDMA efficiency gain"] == "+66.4%"
    assert len(plotly_charts(at)) == 2  # side by side + IOPS per CPU percent


def test_reconstructed_note_appears_for_reference_testbeds(warehouse_env: Path) -> None:
    at = open_page("app_pages/scaling.py")
    assert any("micron-sata-vsan67" in i.value for i in at.info if "Reconstructed" in i.value)


def test_run_explorer_shows_latency_of_selected_result(warehouse_env: Path) -> None:
    at = open_page("app_pages/run_explorer.py")
    row_count = len(at.selectbox[0].options)
    assert (
        row_count == query(warehouse_env, "select count(*) from marts.fct_workload_results")[0][0]
    )
    assert metrics(at)["IOPS"] != MISSING


def test_sidebar_filter_narrows_results(warehouse_env: Path) -> None:
    at = open_page("app_pages/run_explorer.py")
    at.sidebar.multiselect(key="filter_transport").select("rdma").run()
    assert not at.exception
    # the Samsung study's 3 RDMA results; results whose transport is not labelled are hidden
    # (and counted in the page notice: tests/app/test_provenance_pages.py)
    assert len(at.selectbox[0].options) == 3


def test_data_expanders_build_their_tables_only_when_opened(warehouse_env: Path) -> None:
    # GIVEN the TCP/RDMA page as a browser first gets it: its two data tables collapsed
    at = open_page("app_pages/transport.py", expand=False)
    labels = [e.label for e in at.expander]
    assert labels == ["Results (one row per bar)", "Data"]
    # THEN the collapsed expanders hold no table (nothing for the browser to decode)
    assert not at.dataframe
    assert all(not e.children for e in at.expander)
    # WHEN the reader opens them, THEN each holds its table, one row per bar or pair
    figures.open_expanders(at)
    assert not at.exception
    results, efficiency = (e.dataframe[0].value for e in at.expander)
    assert len(results) > 0 and len(efficiency) > 0
    assert {"result_id", "iops"} <= set(results.columns)
    assert "rdma_efficiency_gain_pct" in efficiency.columns


def test_sql_console_page_runs_and_refuses(warehouse_env: Path) -> None:
    at = open_page("app_pages/sql_console.py")
    at.text_area(key="sql_text").input("select count(*) as n from marts.fct_workload_results")
    at.button(key="sql_run").click().run()
    assert not at.exception
    expected = query(warehouse_env, "select count(*) from marts.fct_workload_results")[0][0]
    assert at.dataframe[-1].value["n"].tolist() == [expected]
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


def samsung_tcp_128k(warehouse: Path) -> str:
    """The Samsung PM1743 study's TCP 128K sequential 70/30 result (Table 3): 134,984 IOPS
    on 3 nodes, with per-VM outputs, percentiles, intervals and esxtop host CPU samples."""
    return query(
        warehouse,
        "select result_id from marts.fct_workload_results where testbed = ?"
        " and transport = 'tcp' and read_pct = 70 and block_size_bytes = 131072",
        ["samsung-pm1743-vsan8-esa"],
    )[0][0]


def result_of_sample(warehouse: Path, name: str, with_rows_in: str = "fct_result_outputs") -> str:
    """A workload result built from one real sample file (by its file name) that has rows in
    the mart `with_rows_in`."""
    return query(
        warehouse,
        "select o.result_id from marts.fct_result_outputs as o join raw.source_files as f"
        " on f.source_file_id = o.source_file_id where f.path like ?"
        f" and o.result_id in (select result_id from marts.{with_rows_in})"
        " order by o.result_id limit 1",
        ["%/" + name],
    )[0][0]


def open_result(result_id: str) -> AppTest:
    at = open_page("app_pages/run_explorer.py")
    at.selectbox[0].set_value(result_id).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_run_explorer_shows_every_detail_section(warehouse_env: Path) -> None:
    at = open_result(samsung_tcp_128k(warehouse_env))
    headings = [h.value for h in at.subheader]
    for heading in (
        "Per-VM and per-host spread",
        "Latency percentiles",
        "Latency histogram (fio json+)",
        "Over the run: intervals",
        "Over the run: host CPU",
    ):
        assert heading in headings
    assert metrics(at)["IOPS per node"] == "44,995"  # 134,984 IOPS / 3 nodes
    # latency bars + spread + percentiles + intervals + host CPU (the study kept no json+)
    assert len(plotly_charts(at)) == 5
    # A fio json+ sample: its latency histogram is drawn too.
    jsonplus = "fio-3.33__jsonplus-latpct-group.json"
    at = open_result(result_of_sample(warehouse_env, jsonplus, "fct_result_latency_histogram"))
    assert len(plotly_charts(at)) == 4  # latency bars + spread + percentiles + histogram
    # pbench's fio client/server run on 2 hosts: the clients' IOPS differ by 14.8 %
    pbench = "pbench__fio-3.7__client_server_2hosts__fio-result.txt"
    at = open_result(result_of_sample(warehouse_env, pbench, "per_node_iops"))
    assert metrics(at)["Host imbalance"] == "14.8%"


def host_cpu_in_window(warehouse: Path, result_id: str) -> dict[str, tuple[int, object]]:
    """Samples per host of the result's testbed in its run window, and the first sample time,
    straight from fct_host_cpu_samples (not the dashboard's mart)."""
    rows = query(
        warehouse,
        "select s.host_name, count(*), min(s.sampled_at) from marts.fct_host_cpu_samples as s"
        " join marts.fct_workload_results as r on r.result_id = ? and s.testbed_id = r.testbed_id"
        " and s.sampled_at between r.started_at and r.ended_at group by s.host_name",
        [result_id],
    )
    return {host: (count, first) for host, count, first in rows}


@pytest.mark.parametrize("max_points", [2000, 4])
def test_run_explorer_caps_host_cpu_points(warehouse_env: Path, max_points: int) -> None:
    # GIVEN the esxtop samples of 3 hosts over the Samsung result's one-minute run window
    from app.lib import queries

    result_id = samsung_tcp_128k(warehouse_env)
    expected = host_cpu_in_window(warehouse_env, result_id)
    cpu = queries.host_cpu_series.__wrapped__(str(warehouse_env), result_id, max_points)
    per_host = cpu.group_by("host_name").agg(
        pl.len().alias("points"), pl.col("samples_in_point").sum().alias("samples")
    )
    assert per_host["points"].max() <= max_points + 1
    assert dict(per_host.select("host_name", "samples").iter_rows()) == {
        host: count for host, (count, _) in expected.items()
    }
    assert cpu["sampled_at"].min() == min(first for _, first in expected.values())


def test_interval_series_on_elapsed_seconds_is_capped(warehouse_env: Path) -> None:
    # GIVEN the result with the most interval samples (fio log / Vdbench), at most 10 points
    from app.lib import queries

    result_id, count, first = query(
        warehouse_env,
        "select result_id, count(*), min(elapsed_s) from marts.fct_result_intervals"
        " group by result_id order by count(*) desc, result_id limit 1",
    )[0]
    series = queries.result_time_series.__wrapped__(
        str(warehouse_env), "fct_result_intervals", result_id, max_points=10
    )
    assert count > 10
    assert len(series) == 10
    assert series["samples_in_point"].sum() == count
    assert series["elapsed_s"][0] == first  # a point sits at its first interval
    assert "interval_index" not in series.columns  # an index is no value to average


def test_data_quality_page_shows_the_failing_run_not_the_served_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a published version and a newer one that `ingest publish` refused (negative IOPS)
    gate = failed_gate_warehouse(tmp_path)
    assert gate.publish.returncode == 1
    report = read_validation_report(gate.db)
    assert report is not None
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(gate.db))
    # WHEN the data-quality page opens THEN it shows that failing run, which the served
    # snapshot does not contain, and says the dashboard shows the last version that passed
    at = open_page("app_pages/data_quality.py")
    shown = metrics(at)
    assert shown["Constraint failures"] == str(report.constraint_failures)
    assert int(shown["Constraint failures"]) >= 1
    texts = [e.value for e in at.error]
    assert any("FAILED" in t and "not published" in t for t in texts), texts
    assert any("failed validation" in t and "python -m expectations" in t for t in texts), texts
    failed = at.dataframe[0].value
    rows = failed[failed["table_name"] == "raw.fio_job_directions"]
    assert (rows["expectation"].str.contains("iops") & (rows["unexpected_count"] == 1)).any()
