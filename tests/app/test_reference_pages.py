"""Every page on the real warehouse: real samples, valid fixtures and the reference dataset.

The reference dataset rebuilds the studies' published figures (synth/studies), so
the pages must show those figures. Expected values are the papers' numbers, worked out by
hand below, not read back from the app.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import test_pages
from tests.app.conftest import query
from tests.app.test_pages import PAGES, metrics
from tests.app.test_studies import assert_each_value_is_one_result, figures

pytestmark = pytest.mark.slow

SAMSUNG = "samsung-pm1743-vsan8-esa"


def open_page(page: str) -> AppTest:
    at = test_pages.open_page(page, timeout=60)
    assert not at.error, [e.value for e in at.error]
    return at


def reconstructed_notes(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value.startswith("Reconstructed data")]


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_page_shows_real_data(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    notices = [i.value for i in at.info]
    if page in test_pages.NOT_ON_REFERENCE:  # says why, with the way to data that has it
        assert any(test_pages.NOT_ON_REFERENCE[page] in n for n in notices), notices
        return
    assert not any(n.startswith("No ") for n in notices), notices


def test_ra_page_peak_iops_is_the_papers(warehouse_env: Path) -> None:
    # GIVEN the Samsung PM1743 study: 1,490,000 4K random-read IOPS at 30 VMs, its highest
    at = open_page("app_pages/ra_comparison.py")
    selectbox(at, "Testbed").select(SAMSUNG).run()
    assert metrics(at)["Peak IOPS (your testbed)"] == "1,490,000"
    assert len(test_pages.plotly_charts(at)) == 1
    assert any(SAMSUNG in note for note in reconstructed_notes(at))
    # TCP, RDMA, JBOF and the 3-45 VM runs are configurations, never one "measured" bar
    # (their mean, 1,167,724, was shown before): one configuration at a time, each bar a result
    configurations = next(m for m in at.multiselect if m.label.startswith("Configuration"))
    assert len(configurations.options) > 10 and len(configurations.value) == 1
    assert assert_each_value_is_one_result(warehouse_env, figures(at)) > 0


def selectbox(at: AppTest, label: str):
    return next(s for s in at.selectbox if s.label == label)


def legend_names(fig: dict) -> set[str]:
    return {t["legendgroup"] for t in fig["data"] if t.get("showlegend", True)}


def test_ra_page_opens_on_a_testbed_against_its_own_figures(warehouse_env: Path) -> None:
    # The first testbed with both results and published figures: the Micron vSAN 6.7 RA,
    # against its own Figure 4 / 8 / 10 / 14 figures (not the Lenovo runs against Micron's).
    at = open_page("app_pages/ra_comparison.py")
    assert selectbox(at, "Testbed").value == "micron-sata-vsan67"
    assert selectbox(at, "Published figures of").value == "micron-sata-vsan67"
    (fig,) = figures(at).values()
    # every trace has a legend entry: its own, or its series' entry in the other panel
    assert {t["legendgroup"] for t in fig["data"]} == legend_names(fig)
    baseline = next(
        t for t in fig["data"] if t["name"] == "baseline · measured" and t["type"] == "bar"
    )
    assert round(baseline["y"][-1]) == 486_099  # Figure 10, 100 % read, cache
    printed = next(
        t
        for t in fig["data"]
        if t["type"] == "bar" and t["hovertemplate"].startswith("baseline · published · Figure 10:")
    )
    assert printed["y"] == [486_099]
    # one legend entry per series: 4 profiles x measured / published (28 before)
    assert len([t for t in fig["data"] if t.get("showlegend", True)]) == 8


def test_ra_page_never_averages_two_vsan_versions(warehouse_env: Path) -> None:
    # Micron brief, 0 % read cache test: vSAN 6.2 50,000 IOPS and 6.5 90,000 (+80 %): two
    # bars of their own, never one 70,000 bar; the Lenovo traces have legend entries too.
    at = open_page("app_pages/ra_comparison.py")
    selectbox(at, "Testbed").select("micron-vsan62-vs-65").run()
    configurations = next(m for m in at.multiselect if m.label.startswith("Configuration"))
    assert configurations.options == ["vsan_version=6.2", "vsan_version=6.5"]
    configurations.set_value(configurations.options).run()
    (fig,) = figures(at).values()
    cache = {t["name"]: t["y"][0] for t in fig["data"] if t["type"] == "bar" and t["xaxis"] == "x"}
    assert {k: round(v) for k, v in cache.items()} == {
        "vsan_version=6.2": 50_000,
        "vsan_version=6.5": 90_000,
    }
    assert assert_each_value_is_one_result(warehouse_env, figures(at)) == 40
    selectbox(at, "Testbed").select("lenovo-sr650-vsan65").run()
    (fig,) = figures(at).values()
    assert len(fig["data"]) == 8 and legend_names(fig) == {t["legendgroup"] for t in fig["data"]}


def test_one_label_comparisons_draw_one_bar_per_pair(warehouse_env: Path) -> None:
    # Micron brief at 70 % read: vSAN 6.2 -> 6.5 is +71 % (cache) and +55 % (capacity): two
    # bars coloured by working set, never one +126 % bar; one bar per config_deltas row.
    at = open_page("app_pages/profile_deltas.py")
    selectbox(at, "Testbed").select("micron-vsan62-vs-65").run()
    selectbox(at, "Dimension that differs").select("vsan_version").run()
    fig = figures(at)["Changing vsan_version"]
    bars = {(t["name"], x): y for t in fig["data"] for x, y in zip(t["x"], t["y"], strict=True)}
    rows = query(
        warehouse_env,
        "select working_set, read_pct, iops_delta_pct from marts.config_deltas"
        " where dimension = 'vsan_version'",
    )
    assert len(bars) == len(rows) == 10
    at_70 = {name: y for (name, x), y in bars.items() if "70% read" in x}
    assert {k: round(v) for k, v in at_70.items()} == {
        "cache working set": 71,
        "capacity working set": 55,
    }
    assert sorted(round(y, 6) for y in bars.values()) == sorted(round(r[2], 6) for r in rows)


def test_transport_page_rdma_gain_is_table_3s(warehouse_env: Path) -> None:
    # Table 3, 128K sequential 70/30 at 15 VMs: TCP 134,984 IOPS at 75 % CPU = 1,800 IOPS/%,
    # RDMA 170,668 at 57 % = 2,994 IOPS/%: 2,994.2 / 1,799.8 = +66.4 %, the best of the three.
    at = open_page("app_pages/transport.py")
    shown = metrics(at)
    assert shown["Best RDMA efficiency gain"] == "+66.4%"
    assert shown["TCP IOPS per CPU %"] == "1,800"
    assert shown["RDMA IOPS per CPU %"] == "2,994"
    assert reconstructed_notes(at)
    # side by side: 3 workloads x 2 transports x 4 measures, each bar one result
    side = figures(at)["TCP vs RDMA on " + SAMSUNG]
    assert assert_each_value_is_one_result(warehouse_env, {"side": side}) == 24


def test_capacity_page_shows_micron_dedupe_ratio(warehouse_env: Path) -> None:
    # Micron vSAN 6.7 RA: 28.58 TB before, 3.48 TB after dedupe and compression = 8.21x
    at = open_page("app_pages/capacity.py")
    assert "8.21x" in [m.value for m in at.metric if m.label == "Dedupe & compression"]


@pytest.mark.parametrize(
    "page",
    ["app_pages/profile_deltas.py", "app_pages/scaling.py", "app_pages/run_explorer.py"],
)
def test_reconstructed_note_on_pages_with_reference_rows(warehouse_env: Path, page: str) -> None:
    at = open_page(page)
    assert reconstructed_notes(at)


def test_data_quality_page_has_a_run(warehouse_env: Path) -> None:
    at = open_page("app_pages/data_quality.py")
    assert int(metrics(at)["Expectations checked"].replace(",", "")) > 0


def test_ra_page_draws_every_published_reference_beside_any_testbed(warehouse_env: Path) -> None:
    # Another document's figures are drawn as printed, each figure once: two of its figures
    # at one read mix (Samsung Table 3's TCP and RDMA reads) stay two bars, never one.
    at = open_page("app_pages/ra_comparison.py")
    selectbox(at, "Testbed").select("lenovo-sr650-vsan65").run()
    for ref in selectbox(at, "Published figures of").options[1:]:
        selectbox(at, "Published figures of").select(ref).run()
        assert not at.exception, (ref, [e.value for e in at.exception])
        # a printed point no Lenovo run's workload matches is left out, and the chart says so
        (fig,) = figures(at).values()
        subtitle = fig["layout"]["title"]["subtitle"]["text"]
        drawn = [t for t in fig["data"] if "published" in t["name"] and t["type"] == "bar"]
        toggles = [t for t in at.toggle if t.label == "Draw them anyway"]
        if toggles:
            assert "not drawn: no measured point ran their workload" in subtitle, ref
            assert any("not drawn" in w.value for w in at.warning), ref
            # drawn anyway on request: every printed point once
            toggles[0].set_value(True).run()
            (fig,) = figures(at).values()
            subtitle = fig["layout"]["title"]["subtitle"]["text"]
            assert "drawn although workloads differ" in subtitle, ref
            drawn = [t for t in fig["data"] if "published" in t["name"] and t["type"] == "bar"]
            next(t for t in at.toggle if t.label == "Draw them anyway").set_value(False).run()
        printed = [v for t in drawn for v in t["y"]]
        ids = query(
            warehouse_env,
            "select count(distinct figure_id) from marts.published_results"
            " where testbed = ? and metric = 'iops' and read_pct is not null",
            [ref],
        )[0][0]
        assert len(printed) == ids, ref


def test_config_deltas_name_their_held_context_labels_as_columns(warehouse_env: Path) -> None:
    # the labels the compare charts name their context by: columns, equal to the JSON object
    rows = query(
        warehouse_env,
        "select dimension, held_equal_labels, held_profile, held_transport, held_vsan_version"
        " from marts.config_deltas",
    )
    seen: set[str] = set()
    for dimension, held_json, *columns in rows:
        held = json.loads(held_json)
        for label, value in zip(("profile", "transport", "vsan_version"), columns, strict=True):
            assert value == held.get(label), (dimension, label)
            seen |= {label} if value is not None else set()
        assert dimension != "profile" or columns[0] is None  # what differs is never held
    # the reference holds profile and vSAN version equal in many pairs (transport only varies)
    assert seen == {"profile", "vsan_version"}
