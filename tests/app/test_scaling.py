"""The Scaling page (and the Studies page's robustness) on the warehouse the product builds.

Every sidebar filter value, alone, must leave both pages without an exception (issue 28: Read %
= 70 or Profile = baseline raised "two rows of trace 'sweep' share axis_value"); the sweep
legend names what differs between the sweeps once; the per-node bars are single results'
IOPS / nodes; a URL restores the page's selectors. Expected values are read from the marts
with the test's own SQL.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib.views import scaling, studies
from tests.app import figures
from tests.app.conftest import query
from tests.app.test_pages import APP, open_page

SCALING, STUDIES = "app_pages/scaling.py", "app_pages/studies.py"


def chart(at: AppTest, title_start: str) -> dict:
    found = [
        f for f in figures.chart_specs(at) if f["layout"]["title"]["text"].startswith(title_start)
    ]
    assert len(found) == 1, [f["layout"]["title"]["text"] for f in figures.chart_specs(at)]
    return found[0]


def legend(fig: dict) -> list[str]:
    return [t["name"] for t in fig["data"] if t.get("showlegend", True) is not False]


def no_exception(at: AppTest, what: str) -> None:
    assert not at.exception, (what, [e.value for e in at.exception])


def views_of(at: AppTest, page: str) -> list[str]:
    """Run every view of the page that the filters can break: each study of Studies."""
    if page == SCALING:
        at.run()
        return ["scaling"]
    for study in studies.STUDY_NAMES:
        at.selectbox(key="studies_study").select(study).run()
        no_exception(at, study)
    return list(studies.STUDY_NAMES)


# --- never crash ---------------------------------------------------------------------------


def filter_values(at: AppTest) -> dict[str, list]:
    """Every sidebar filter's raw values, as the sidebar offers them (it shows them formatted)."""
    from app.lib import queries

    return queries.filter_options(str(at.session_state["where"]))


def open_views(at: AppTest, page: str, what: str) -> None:
    """Run the page; on Studies every study (each draws other charts)."""
    at.run()
    no_exception(at, what)
    if page == STUDIES:
        for study in studies.STUDY_NAMES:
            at.selectbox(key="studies_study").select(study).run()
            no_exception(at, (what, study))


@pytest.mark.slow
@pytest.mark.parametrize("page", [SCALING, STUDIES])
def test_every_single_filter_value_leaves_the_page_without_an_exception(
    warehouse_env: Path, page: str
) -> None:
    at = open_page(page, timeout=60)
    tried = 0
    for name, values in filter_values(at).items():
        for value in values:
            at.multiselect(key=f"filter_{name}").set_value([value])
            open_views(at, page, (name, value))
            tried += 1
        at.multiselect(key=f"filter_{name}").set_value([])
    assert tried >= 30  # the reference dataset offers dozens of values


@pytest.mark.slow
@pytest.mark.parametrize("page", [SCALING, STUDIES])
@pytest.mark.parametrize(
    "chosen",
    [
        {"read_pct": [70.0]},
        {"profile": ["baseline"]},
        {"read_pct": [70.0], "profile": ["baseline"]},
        {"read_pct": [100.0], "working_set": ["cache"]},
        {"block_size_bytes": [4096], "access": ["random"]},
        {"testbed": ["sfd7-vsan60-hybrid"], "read_pct": [70.0]},
    ],
    ids=lambda c: "+".join(c),
)
def test_pairs_of_filters_leave_the_page_without_an_exception(
    warehouse_env: Path, page: str, chosen: dict
) -> None:
    at = open_page(page, timeout=60)
    for name, values in chosen.items():
        at.multiselect(key=f"filter_{name}").set_value(values)
    open_views(at, page, chosen)


@pytest.mark.slow
def test_read_70_and_baseline_draw_the_sweeps_and_the_per_node_bars(warehouse_env: Path) -> None:
    # issue 28: this view raised and left Per-node IOPS undrawn
    at = open_page(SCALING, timeout=60)
    at.multiselect(key="filter_read_pct").set_value([70.0])
    at.multiselect(key="filter_profile").set_value(["baseline"])
    at.run()
    no_exception(at, "read 70 + baseline")
    sweeps = chart(at, "micron-sata-vsan67: IOPS by")
    # one line per sweep, each named once: no two traces of one axis share a name
    names = [(t["name"], t.get("yaxis", "y")) for t in sweeps["data"]]
    assert len(names) == len(set(names)) and names
    # the two baseline sweeps, told apart by their working set; the rest in the subtitle
    assert legend(sweeps) == ["cache", "capacity"]
    assert all(t["x"] == [70] for t in sweeps["data"])
    assert "baseline profile" in sweeps["layout"]["title"]["subtitle"]["text"]
    bars = chart(at, at.session_state["scaling_nodes_testbed"] + ": IOPS per node")
    assert all(t["type"] == "bar" for t in bars["data"])


# --- the sweep legend ------------------------------------------------------------------------


@pytest.mark.slow
def test_sweep_legend_names_what_differs_between_the_sweeps_once(warehouse_env: Path) -> None:
    at = open_page(SCALING, timeout=60)
    fig = chart(at, "micron-sata-vsan67: IOPS by read mix")
    # 8 sweeps (4 profiles x 2 working sets): 8 entries, not 16 full label sets; latency lines
    # join their sweep's entry
    sweeps = query(
        warehouse_env,
        "select count(*) from marts.sweeps where testbed = 'micron-sata-vsan67'"
        " and axis = 'read_pct'",
    )[0][0]
    assert sweeps == 8
    assert legend(fig) == [
        f"{p} · {w}"
        for p in ("balanced", "baseline", "density", "performance")
        for w in ("cache", "capacity")
    ]
    assert fig["layout"]["legend"]["title"]["text"] == "profile · working set"
    latency = [t for t in fig["data"] if t.get("yaxis") == "y2"]
    assert len(latency) == 8 and all(t["legendgroup"] == t["name"] for t in latency)
    # what every sweep shares is said once, in the subtitle
    subtitle = fig["layout"]["title"]["subtitle"]["text"]
    for shared in ("testbed micron-sata-vsan67", "4K", "4 nodes", "random", "vSAN 6.7"):
        assert shared in subtitle
    # the points are the mart's: baseline, cache at 70 % read
    line = next(
        t for t in fig["data"] if t["name"] == "baseline · cache" and t.get("yaxis") != "y2"
    )
    assert line["x"] == [0, 30, 50, 70, 100]
    measured = query(
        warehouse_env,
        "select iops from marts.sweep_points where result_id = ?",
        [line["customdata"][3]],
    )
    assert line["y"][3] == pytest.approx(measured[0][0])


# --- per-node IOPS -------------------------------------------------------------------------


@pytest.mark.slow
def test_per_node_iops_are_bars_of_single_results_grouped_by_node_count(
    warehouse_env: Path,
) -> None:
    at = open_page(SCALING, timeout=60)
    # the testbed with the most node counts opens: SFD7 hybrid, 4 to 64 hosts
    assert at.session_state["scaling_nodes_testbed"] == "sfd7-vsan60-hybrid"
    fig = chart(at, "sfd7-vsan60-hybrid: IOPS per node by nodes")
    assert fig["layout"]["xaxis"]["categoryarray"] == [
        "4 nodes", "8 nodes", "16 nodes", "32 nodes", "64 nodes",
    ]  # fmt: skip
    # at 8 hosts the blog also ran two disk groups: the legend names read mix and disk groups
    assert fig["layout"]["legend"]["title"]["text"] == "read mix · disk groups"
    assert legend(fig) == [
        "70% read · 1 disk group", "70% read · 2 disk groups",
        "100% read · 1 disk group", "100% read · 2 disk groups",
    ]  # fmt: skip
    assert "outstanding I/O, VMs change with nodes" in fig["layout"]["title"]["subtitle"]["text"]
    checked = 0
    for trace in fig["data"]:
        assert trace["type"] == "bar"
        for x, y, result_id in zip(trace["x"], trace["y"], trace["customdata"], strict=True):
            iops, nodes = query(
                warehouse_env,
                "select iops, nodes from marts.fct_workload_results where result_id = ?",
                [result_id],
            )[0]
            assert x == f"{nodes} nodes" and y == pytest.approx(iops / nodes)
            checked += 1
    assert checked == 12
    # "~15.5K IOPS per host" at 70 % read on 64 hosts
    mixed = next(t for t in fig["data"] if t["name"] == "70% read · 1 disk group")
    assert round(dict(zip(mixed["x"], mixed["y"], strict=True))["64 nodes"], -2) == 15_500


# --- the URL -------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_url_restores_the_scaling_view(warehouse_env: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    params = {
        "testbed": "sfd7-vsan60-hybrid",
        "axis": "nodes",
        "measure": "throughput_mb_s",
        "nodes_testbed": "samsung-pm1743-vsan8-esa",
    }
    for key, value in params.items():
        at.query_params[key] = value
    at.query_params["sweeps"] = ["100% read"]
    at.run()
    at.switch_page(SCALING).run()
    no_exception(at, params)
    for key, value in params.items():
        assert at.session_state[scaling.PARAMS[key]] == value
    assert at.session_state["scaling_sweeps"] == ["100% read"]
    fig = chart(at, "sfd7-vsan60-hybrid: Throughput by hosts")
    assert legend(fig) == ["100% read"]
    chart(at, "samsung-pm1743-vsan8-esa: IOPS per node")


@pytest.mark.slow
def test_a_url_opens_a_study(warehouse_env: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["study"] = "sfd7"
    at.run()
    at.switch_page(STUDIES).run()
    no_exception(at, "study=sfd7")
    assert at.session_state["studies_study"] == "sfd7"
    chart(at, "SFD7 hybrid: IOPS and latency by hosts")


# --- the views, on literal rows ------------------------------------------------------------


def sweep_rows(held: dict[str, str], values: list[float]) -> pl.DataFrame:
    import json

    return pl.DataFrame(
        {
            "sweep_id": [json.dumps(held, sort_keys=True)] * len(values),
            "testbed": ["lab"] * len(values),
            "axis_value": values,
            "held_equal_json": [json.dumps(held)] * len(values),
        }
    )


def test_sweep_legend_sorts_numbers_as_numbers_and_says_the_rest_once() -> None:
    points = pl.concat(
        [
            sweep_rows({"read_pct": "100", "nodes": "4", "profile": "a; x=1"}, [1, 2]),
            sweep_rows({"read_pct": "0", "nodes": "4", "profile": "a; x=1"}, [1, 2]),
            sweep_rows({"read_pct": "70", "nodes": "4", "profile": "a; x=1"}, [1, 2]),
        ]
    )
    named = scaling.sweep_legend(points, "vms_per_host")
    assert named.points["series"].unique(maintain_order=True).to_list() == [
        "0% read", "70% read", "100% read",
    ]  # fmt: skip
    assert named.title == "read mix"
    assert named.subtitle == "testbed lab · 4 nodes · a profile"
    one = scaling.sweep_legend(points.head(2), "vms_per_host")
    assert one.points["series"].unique().to_list() == ["sweep"] and one.title == ""
    assert scaling.sweep_legend(points.clear()).points.is_empty()


def test_sweeps_without_their_labels_stay_apart_by_sweep_id() -> None:
    # what the page drew under Read % = 70 before: every point without its sweep's labels
    points = pl.DataFrame(
        {
            "sweep_id": ["aaaaaa1", "bbbbbb2"],
            "testbed": ["lab", "lab"],
            "axis_value": [1.0, 1.0],
            "held_equal_json": [None, None],
        }
    )
    names = scaling.sweep_legend(points).points["series"].to_list()
    assert names == ["sweep #aaaaaa", "sweep #bbbbbb"]


def test_label_values_read_as_a_person_writes_them() -> None:
    assert scaling.label_value("profile", "density; dedupe=true") == "density profile"
    assert scaling.label_value("profile", "density; dedupe=true", short=True) == "density"
    assert scaling.label_value("vms_per_host", "1") == "1 VM per host"
    assert scaling.label_value("vms_per_host", "15") == "15 VMs per host"
    assert scaling.label_value("disk_groups", "2") == "2 disk groups"
    assert scaling.label_value("block_size_bytes", "131072") == "128K"
    assert scaling.label_value("outstanding_io_per_vm", "32") == "OIO 32 per VM"
    assert scaling.label_value("transport", None) == "transport —"


def test_colliding_bars_split_by_what_differs_then_by_result() -> None:
    rows = pl.DataFrame(
        {
            "series": ["70% read", "70% read", "70% read"],
            "transport": ["tcp", "tcp", "rdma"],
            "vm_count": [15, 30, 15],
            "result_id": ["r1aaaaaa", "r2bbbbbb", "r3cccccc"],
        }
    )
    split = studies.split_colliding(rows, "series", "transport")
    assert split["transport"].to_list() == ["tcp · 15 VMs", "tcp · 30 VMs", "rdma · 15 VMs"]
    same = rows.with_columns(vm_count=pl.lit(15))
    assert studies.split_colliding(same, "series", "transport")["transport"].to_list() == [
        "tcp #r1aaaa", "tcp #r2bbbb", "rdma",
    ]  # fmt: skip


def test_per_node_rows_name_what_differs_at_one_node_count() -> None:
    results = pl.DataFrame(
        {
            "result_id": ["a", "b", "c", "d"],
            "testbed": ["lab"] * 4,
            "nodes": [4, 4, 8, 8],
            "read_pct": [100.0, 70.0, 100.0, 70.0],
            "vm_count": [4, 4, 8, 8],
            "iops_per_node": [10.0, 8.0, 9.0, 7.0],
        }
    )
    bars = scaling.per_node(results, "lab")
    assert bars.rows["series"].to_list() == ["70% read", "70% read", "100% read", "100% read"]
    assert bars.title == "read mix"
    assert bars.subtitle == "testbed lab · VMs change with nodes · varies: read mix"
    assert scaling.per_node(results, None).rows.is_empty()
    table = scaling.per_node_table(results.with_columns(iops_per_node=pl.lit(1234.5678)))
    assert table["iops_per_node"].to_list() == [1235.0] * 4
