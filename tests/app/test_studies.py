"""The seed studies' figures on the Studies page, asserted from the charts' own data (the
Plotly traces), on the warehouse the product builds from the reference dataset.

Expected values are the documents' numbers (docs/reference_studies.md) and, for "no plotted
value is a sum or mean", the warehouse's own rows read with the test's SQL: every bar or point
that names its result (customdata) must equal a value of exactly that one result.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app.lib.views.studies import STUDY_NAMES
from tests.app.conftest import query
from tests.app.figures import chart_specs
from tests.app.test_pages import open_page

pytestmark = pytest.mark.slow

STUDIES = "app_pages/studies.py"
RESULT_MEASURES = ("iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms", "cpu_util_pct")


def figures(at: AppTest) -> dict[str, dict]:
    """Every Plotly chart of the page: title -> figure dict (data and layout)."""
    out = {}
    for fig in chart_specs(at):
        out[fig["layout"]["title"]["text"]] = fig
    return out


def open_study(name: str) -> AppTest:
    at = open_page(STUDIES, timeout=60)
    choice = next(k for k, label in STUDY_NAMES.items() if label.startswith(name))
    at.selectbox(key="studies_study").select(choice).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def trace(fig: dict, name: str, *, latency: bool = False) -> dict:
    """The trace named `name` on the left axis (the measure), or on the right (`latency`):
    a sweep's two lines share its one legend entry and name."""
    matches = [
        t for t in fig["data"] if t.get("name") == name and (t.get("yaxis") == "y2") == latency
    ]
    assert len(matches) == 1, [t.get("name") for t in fig["data"]]
    return matches[0]


def legend(fig: dict) -> list[str]:
    return [t["name"] for t in fig["data"] if t.get("showlegend", True) is not False]


def subtitle(fig: dict) -> str:
    return fig["layout"]["title"]["subtitle"]["text"]


def rounded(values: list, digits: int = 0) -> list:
    return [round(v, digits) for v in values]


def assert_each_value_is_one_result(warehouse: Path, figs: dict[str, dict]) -> int:
    """Every plotted y that carries a result_id equals one of that result's own measures: a
    sum or mean of several results would match none of them. Returns the values checked."""
    checked = 0
    for fig in figs.values():
        for t in fig["data"]:
            for result_id, y in zip(t.get("customdata") or [], t.get("y") or [], strict=False):
                if not isinstance(result_id, str) or y is None:
                    continue  # a published figure, or customdata that is not a result id
                row = query(
                    warehouse,
                    "select " + ", ".join(RESULT_MEASURES) + ", iops / nullif(cpu_util_pct, 0)"
                    " from marts.fct_workload_results where result_id = ?",
                    [result_id],
                )
                assert len(row) == 1, result_id
                assert any(v is not None and v == pytest.approx(y, rel=1e-9) for v in row[0]), (
                    t["name"],
                    result_id,
                    y,
                    row[0],
                )
                checked += 1
    return checked


def test_lenovo_four_runs_in_one_figure(warehouse_env: Path) -> None:
    # Lenovo blog: run 4 (dedupe + compression) vs run 3: IOPS and MB/s about -20 %, average
    # latency up "by a quarter", p95 up "by more than half"; run 1 clearly lowest.
    figs = figures(open_study("Lenovo"))
    fig = figs["Lenovo SR650: the four HCIBench runs"]
    assert len(figs) == 1
    runs = ["run1-default", "run2-dedicated-nic-jumbo", "run3-stripe2", "run4-dedupe-compression"]
    panels = {t["name"]: t for t in fig["data"]}
    assert set(panels) == {"IOPS", "Throughput", "Average latency", "95th percentile latency"}
    assert all(t["x"] == runs for t in panels.values())
    iops, p95 = panels["IOPS"]["y"], panels["95th percentile latency"]["y"]
    lat, mbs = panels["Average latency"]["y"], panels["Throughput"]["y"]
    assert iops[0] == min(iops)
    assert 100 * (iops[3] - iops[2]) / iops[2] == pytest.approx(-20, abs=1)
    assert 100 * (mbs[3] - mbs[2]) / mbs[2] == pytest.approx(-20, abs=1)
    assert 100 * (lat[3] - lat[2]) / lat[2] == pytest.approx(25, abs=1)
    assert 100 * (p95[3] - p95[2]) / p95[2] > 50
    assert assert_each_value_is_one_result(warehouse_env, figs) == 16


def test_samsung_sweeps_are_connected_lines_with_latency_on_a_second_axis(
    warehouse_env: Path,
) -> None:
    figs = figures(open_study("Samsung"))
    # Figure 7: 100 % read sequential, 3 VMs: MB/s rises to 18,400 at 64K, 18,200 at 128K,
    # then falls to 15,800 at 1M; x in block-size order, labelled 4K ... 1M.
    sizes = figs["Samsung: throughput and latency by block size"]
    # one sweep: its workload and configuration are the subtitle, the legend has one entry
    assert legend(sizes) == ["sweep"]
    for said in ("100% read", "sequential", "3 nodes", "1 VM per host", "OIO 64 per VM"):
        assert said in subtitle(sizes)
    mbs = trace(sizes, "sweep")
    assert mbs["x"] == [4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576]
    assert rounded(mbs["y"]) == [2150, 4200, 8100, 13900, 18400, 18200, 17100, 16300, 15800]
    assert mbs["mode"] == "lines+markers"
    latency = trace(sizes, "sweep", latency=True)
    assert latency["yaxis"] == "y2" and latency["line"]["dash"] == "dash"
    assert sizes["layout"]["xaxis"]["ticktext"][0] == "4K"
    assert sizes["layout"]["xaxis"]["ticktext"][-1] == "1M"
    # Figure 5: 4K random read by VM count (3 hosts): 1.49 M IOPS at 30 VMs, the peak
    vms = figs["Samsung: IOPS and latency by VM count"]
    # the three sweeps differ in block size, read mix and access: the legend names those
    assert legend(vms) == ["4K · 0% read · random", "4K · 100% read · random",
                           "128K · 70% read · sequential"]  # fmt: skip
    read = trace(vms, "4K · 100% read · random")
    assert read["x"] == [3, 15, 30, 45] and read["mode"] == "lines+markers"
    assert rounded(read["y"], -3) == [520_000, 1_402_000, 1_490_000, 1_470_000]
    assert all(t["name"] for t in vms["data"]) and len(vms["data"]) == 6
    assert "1 VMs" not in str(figs)


def test_samsung_tcp_rdma_raid_and_jbof_bars_are_single_results(warehouse_env: Path) -> None:
    figs = figures(open_study("Samsung"))
    # Table 3, 128K sequential 70/30 at 15 VMs: 1,800 (TCP) and 2,994 (RDMA) IOPS per CPU %
    transport = figs["Samsung: TCP vs RDMA, IOPS per host-CPU percent"]
    per_cpu = {
        t["name"]: dict(zip(t["x"], t["y"], strict=True))
        for t in transport["data"]
        if t["yaxis"] == "y4"
    }
    assert round(per_cpu["tcp"]["70% read, 128K, seq"]) == 1800
    assert round(per_cpu["rdma"]["70% read, 128K, seq"]) == 2994
    raid = figs["Samsung: RAID-1 vs RAID-5"]
    assert raid["data"][0]["x"] == ["raid1", "raid5"]
    jbof = figs["Samsung: JBOF vs local"]
    assert {t["name"] for t in jbof["data"]} == {"jbof", "local-nvme"}
    # every bar of the Samsung page is one result: 9 (RAID) + 24 (TCP/RDMA) + 24 (JBOF)
    assert assert_each_value_is_one_result(warehouse_env, figs) >= 8 + 24 + 24


def test_sfd7_hosts_disk_groups_and_working_sets(warehouse_env: Path) -> None:
    figs = figures(open_study("SFD7"))
    # "992K IOPS at 70 % read" on 64 hybrid hosts, linear from 4 hosts
    hosts = figs["SFD7 hybrid: IOPS and latency by hosts"]
    assert legend(hosts) == ["70% read", "100% read"]
    assert "4K" in subtitle(hosts) and "1 VM per host" in subtitle(hosts)
    mixed = trace(hosts, "70% read")
    assert mixed["x"] == [4, 8, 16, 32, 64]
    assert round(mixed["y"][-1], -3) == 992_000
    # "~15.5K IOPS per host" at 70 % read on 64 hosts, "over 60K" at 100 % read
    per_node = figs["SFD7 hybrid: IOPS per host by hosts (flat = linear scaling)"]
    assert round(trace(per_node, "70% read")["y"][-1], -2) == 15_500
    assert trace(per_node, "100% read")["y"][-1] > 60_000
    # all-flash: 2 disk groups 700K at 100 GB down to 450K at 1,200 GB; 1 group 350K -> 280K
    ws = figs["SFD7 all-flash: IOPS and latency by working set (GB)"]
    two, one = trace(ws, "2 disk groups"), trace(ws, "1 disk group")
    assert two["x"] == [100, 200, 400, 800, 1200]
    assert rounded(two["y"], -3) == [700_000, 630_000, 550_000, 500_000, 450_000]
    assert one["x"] == [100, 200, 400, 600]
    assert rounded(one["y"], -3) == [350_000, 325_000, 300_000, 280_000]
    groups = figs["SFD7: one vs two disk groups per host"]
    assert {t["name"] for t in groups["data"]} == {"1 disk group", "2 disk groups"}
    # every chart says its workload and configuration
    assert all(subtitle(f) for f in figs.values())


def test_micron_one_chart_per_read_mix_bars_are_the_results(warehouse_env: Path) -> None:
    figs = figures(open_study("Micron"))
    titles = [f"Micron vSAN 6.7: {m}% read" for m in (0, 30, 50, 70, 100)]
    assert all(t in figs for t in titles)
    # Figure 10 (100 % read, cache): 486,099 / 475,960 / 412,792 / 410,082 IOPS, measured
    # bars beside the printed ones, x = the four profiles in the RA's order
    full = figs["Micron vSAN 6.7: 100% read"]
    cache = [t for t in full["data"] if t["type"] == "bar" and t["xaxis"] == "x"]
    measured = next(t for t in cache if t["name"] == "measured")
    printed = next(t for t in cache if t["hovertemplate"].startswith("published · Figure 10:"))
    assert measured["x"] == ["baseline", "performance", "balanced", "density"]
    assert rounded(measured["y"]) == [486_099, 475_960, 412_792, 410_082]
    assert printed["y"] == [486_099, 475_960, 412_792, 410_082]
    assert assert_each_value_is_one_result(warehouse_env, figs) == 4 * 5 * 2 * 2
    # Figure 18: virtual disks are 75 % of the capacity test's used storage
    objects = figs["Micron: used capacity by object type"]
    capacity = next(t for t in objects["data"] if t["name"].startswith("capacity test"))
    shares = dict(zip(capacity["x"], capacity["customdata"], strict=True))
    assert round(shares["vdisk"]) == 75
