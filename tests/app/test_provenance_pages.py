"""Filters that hold on every page, provenance from a number to its run, the published-vs-
measured page and the compare page, on the real warehouse (tests/app/conftest.py).

Expected values come from the marts through the tests' own SQL, or are the studies' published
figures worked out by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib import queries
from app.lib.filters import Filters
from tests.app import figures
from tests.app.conftest import query
from tests.app.test_pages import APP, PAGES, metrics

pytestmark = pytest.mark.slow

MICRON = "micron-sata-vsan67"
SAMSUNG = "samsung-pm1743-vsan8-esa"
FILTERED_MARTS = (
    "fct_workload_results", "published_results", "ra_comparison_points",
    "profile_latency_deltas", "config_deltas", "dedupe_ratios", "scaling_points",
)  # fmt: skip
TESTBEDS_SQL = (
    "select distinct testbed from marts.fct_workload_results where testbed is not null"
    " union select distinct testbed from marts.published_results where testbed is not null"
)


def open_page(page: str, params: dict[str, str] | None = None, **chosen: list) -> AppTest:
    """A page after the sidebar filters `chosen` (filter name -> values) were picked."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page(page)
    at.query_params.update(params or {})
    at.run()
    for name, values in chosen.items():
        box = at.sidebar.multiselect(key=f"filter_{name}")
        for value in values:
            box.select(value)
        at.run()
    figures.open_expanders(at)  # the tables kept in collapsed expanders are checked too
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def chart_specs(at: AppTest) -> list[dict]:
    return figures.chart_specs(at)


def shown_frames(at: AppTest) -> list:
    return [frame.value for frame in at.dataframe]


def notices(at: AppTest) -> list[str]:
    return [i.value for i in at.info if i.value.startswith(("Hidden by", "Kept, although"))]


# --- Filters hold on every page -----------------------------------------------------------


@pytest.mark.parametrize("page", [pytest.param(p, id=Path(p).stem) for p in PAGES])
def test_testbed_filter_holds_on_every_chart_and_table(warehouse_env: Path, page: str) -> None:
    # GIVEN every testbed of the warehouse; WHEN the sidebar says Micron vSAN 6.7 only
    others = {t for (t,) in query(warehouse_env, TESTBEDS_SQL)} - {MICRON}
    assert len(others) >= 5
    at = open_page(page, testbed=[MICRON])
    # THEN no chart's data and no table names another testbed (published figures included)
    for spec in chart_specs(at):
        text = json.dumps(spec["data"])
        assert not [t for t in others if t in text], page
    for frame in shown_frames(at):
        if "testbed" in frame.columns:
            assert set(frame["testbed"].dropna()) <= {MICRON}, page


def test_published_figures_follow_the_profile_filter(warehouse_env: Path) -> None:
    # GIVEN the Micron RA's published figures of four profiles; WHEN Profile = density
    rows = queries.published_results(str(warehouse_env), Filters(profile=("density",)))
    expected = query(
        warehouse_env, "select count(*) from marts.published_results where profile = 'density'"
    )[0][0]
    # THEN only density figures remain (the issue: all profiles' published bars stayed)
    assert rows.height == expected > 0
    assert set(rows["profile"].to_list()) == {"density"}


def test_profile_filter_holds_on_the_ra_pages_published_bars(warehouse_env: Path) -> None:
    # GIVEN Micron's measured and published figures of four profiles; WHEN Profile = density
    at = open_page("app_pages/ra_comparison.py", profile=["density"])
    specs = chart_specs(at)
    assert specs
    # THEN no trace of any chart (measured or published) belongs to another profile
    for spec in specs:
        # one profile: named once, in the subtitle (the legend names what varies)
        text = json.dumps(spec)
        assert "density" in text
        assert not [p for p in ("baseline", "performance", "balanced") if p in text]
    for frame in shown_frames(at):
        if "profile" in frame.columns:
            assert set(frame["profile"].dropna()) <= {"density"}


def test_testbed_and_version_filters_hide_other_versions_everywhere(warehouse_env: Path) -> None:
    # GIVEN Micron vSAN 6.7 data; WHEN Testbed = micron + vSAN 8.0u2 (a version it never ran)
    chosen = Filters(testbed=(MICRON,), vsan_version=("8.0u2",))
    db = str(warehouse_env)
    for table in FILTERED_MARTS:
        frame, counts = queries._filtered.__wrapped__(db, table, chosen)
        # THEN no row of any mart is shown; rows that cannot say their testbed or version
        # are counted (the page notice), never shown
        assert frame.is_empty(), table
        assert set(counts) <= {"testbed", "vsan_version"}, table
    kept, _ = queries._filtered.__wrapped__(
        db, "fct_workload_results", Filters(testbed=(MICRON,), vsan_version=("6.7",))
    )
    assert kept.height > 0
    assert set(kept["vsan_version"].to_list()) == {"6.7"}


def test_unlabelled_rows_are_hidden_counted_and_kept_on_request(warehouse_env: Path) -> None:
    # GIVEN results without a transport label; WHEN Transport = rdma
    (unlabelled,) = query(
        warehouse_env, "select count(*) from marts.fct_workload_results where transport is null"
    )[0]
    (rdma,) = query(
        warehouse_env, "select count(*) from marts.fct_workload_results where transport = 'rdma'"
    )[0]
    at = open_page("app_pages/run_explorer.py", transport=["rdma"])
    # THEN only the RDMA results are offered and the page says how many were hidden
    assert len(at.selectbox[0].options) == rdma == 3
    assert any(f"{unlabelled:,} results without Transport" in n for n in notices(at))
    # WHEN the toggle keeps them THEN they are offered too, and the page says they are kept
    at.sidebar.toggle(key="filter_keep_unlabelled").set_value(True).run()
    assert len(at.selectbox[0].options) == rdma + unlabelled
    assert any(n.startswith("Kept") and "without Transport" in n for n in notices(at))


def test_workload_filters_narrow_to_one_workload(warehouse_env: Path) -> None:
    # GIVEN every result; WHEN read 70 %, 4K blocks, random, are chosen
    at = open_page(
        "app_pages/run_explorer.py", read_pct=[70.0], block_size_bytes=[4096], access=["random"]
    )
    (expected,) = query(
        warehouse_env,
        "select count(*) from marts.fct_workload_results where read_pct = 70"
        " and block_size_bytes = 4096 and random_pct >= 100",
    )[0]
    assert len(at.selectbox[0].options) == expected > 0
    # the sidebar shows block sizes the way storage people write them
    box = at.sidebar.multiselect(key="filter_block_size_bytes")
    assert "4K" in box.format_func(4096) and "1M" in box.format_func(1048576)


# --- Provenance: from a number to its run -------------------------------------------------


def samsung_tcp_128k(warehouse: Path) -> str:
    return query(
        warehouse,
        "select result_id from marts.fct_workload_results where testbed = ?"
        " and transport = 'tcp' and read_pct = 70 and block_size_bytes = 131072",
        [SAMSUNG],
    )[0][0]


def test_run_explorer_opens_the_result_named_in_the_url(warehouse_env: Path) -> None:
    # GIVEN the Samsung TCP 128K result (134,984 IOPS, 15 per-VM fio JSON files)
    result_id = samsung_tcp_128k(warehouse_env)
    paths = {
        p
        for (p,) in query(
            warehouse_env,
            "select distinct f.path from marts.fct_result_outputs as o join raw.source_files as f"
            " on f.source_file_id = o.source_file_id where o.result_id = ?",
            [result_id],
        )
    }
    # WHEN a link (?result_id=...) is followed in a session whose filters hide that result
    at = open_page("app_pages/run_explorer.py", transport=["rdma"])
    at.query_params["result_id"] = result_id
    at.run()
    # THEN that result is shown, with every source path in full, the tool and its version
    assert at.selectbox[0].value == result_id
    assert metrics(at)["IOPS"] == "134,984"
    assert any("does not pass the sidebar filters" in i.value for i in at.info)
    printed = "\n".join(t.value for t in at.text).splitlines()
    assert len(paths) == 15 and paths <= set(printed)
    assert any("fio fio-3.33, parser version" in m.value for m in at.markdown)
    # and each label with where it came from
    origins = next(f for f in shown_frames(at) if "origin" in f.columns)
    by_key = {r.label_key: r for r in origins.itertuples()}
    assert by_key["testbed"].label_value == SAMSUNG
    assert by_key["testbed"].origin == "run.yaml or --label"
    assert by_key["read_pct"].origin in ("tool output", "run.yaml workload override")


@pytest.mark.parametrize("tool", ["vdbench", "hcibench"])
def test_run_explorer_names_each_tools_version(warehouse_env: Path, tool: str) -> None:
    # GIVEN a Vdbench result (its build, e.g. vdbench50407) and one known only from an HCIBench
    # summary (the release its case layout tells, e.g. "HCIBench 2.8+")
    result_id, version, parser, path = query(
        warehouse_env,
        "select s.result_id, s.tool_version, s.parser_version, s.source_path"
        " from marts.fct_result_source_files as s where s.source_format = ?"
        " and s.tool_version is not null and s.file_role in ('output', 'labels')"
        " order by s.result_id, s.source_path limit 1",
        [tool],
    )[0]
    at = open_page("app_pages/run_explorer.py", {"result_id": result_id})
    tools = [m.value for m in at.markdown if m.value.startswith("**Tool**")]
    assert any(f"{tool} {version}, parser version {parser}" in t for t in tools), tools
    assert any(path in t.value.splitlines() for t in at.text)


def test_run_explorer_names_an_unknown_result(warehouse_env: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    at.switch_page("app_pages/run_explorer.py")
    at.query_params["result_id"] = "no-such-result"
    at.run()
    assert not at.exception
    assert any("No workload result `no-such-result`" in e.value for e in at.error)


def test_run_explorer_shows_steady_state_and_interval(warehouse_env: Path) -> None:
    # GIVEN the result with batch-means intervals and the most intervals
    row = query(
        warehouse_env,
        "select result_id, iops_mean, iops_ci95_low, iops_ci95_high"
        " from marts.fct_result_steady_state where ci_method = 'batch_means'"
        " order by interval_count desc, result_id limit 1",
    )[0]
    at = open_page("app_pages/run_explorer.py", {"result_id": row[0]})
    assert metrics(at)["Mean IOPS"] == f"{row[1]:,.0f}"
    assert any(c.value == f"95 % CI {row[2]:,.0f} to {row[3]:,.0f}" for c in at.caption)


def test_result_tables_link_to_the_run_explorer(warehouse_env: Path) -> None:
    from app.lib import provenance

    frame = pl.DataFrame({"result_id": ["abc/1", None], "iops": [1.0, 2.0]})
    linked = provenance.with_run_links(frame)
    assert linked["run"].to_list() == ["run_explorer?result_id=abc%2F1", None]


# --- Published vs measured ----------------------------------------------------------------


def test_published_page_lists_every_figure_with_per_value_origin(warehouse_env: Path) -> None:
    at = open_page("app_pages/published.py")
    (total,) = query(warehouse_env, "select count(*) from marts.published_vs_measured")[0]
    table = shown_frames(at)[-1]
    assert len(table) == total
    derived = {
        f for (f,) in query(
            warehouse_env,
            "select figure_id from marts.published_results where derivation = 'derived'",
        )
    }  # fmt: skip
    marked = set(table.loc[table["published_as"] == "derived here, never printed", "figure_id"])
    assert marked == derived and derived
    charted = set(table.loc[table["published_as"] == "read off a chart", "figure_id"])
    (chart_read,) = query(
        warehouse_env,
        "select count(*) from marts.published_results where chart_read and derivation <> 'derived'",
    )[0]
    assert len(charted) == chart_read
    # the reference dataset's testbeds are marked on each measured value
    samsung = table[(table["testbed"] == SAMSUNG) & table["measured_value"].notna()]
    assert set(samsung["measured_on"]) == {"reconstructed from the documents"}


def test_published_page_filters_by_study_and_status(warehouse_env: Path) -> None:
    at = open_page("app_pages/published.py")
    at.multiselect(key="published_study").select("samsung_pm1743_vsan8_esa").run()
    at.multiselect(key="published_status").select("mismatch").run()
    (expected,) = query(
        warehouse_env,
        "select count(*) from marts.published_vs_measured"
        " where source_document = 'samsung_pm1743_vsan8_esa' and status = 'mismatch'",
    )[0]
    table = shown_frames(at)[-1]
    assert len(table) == expected > 0
    assert set(table["status"]) == {"mismatch"}
    assert metrics(at)["Mismatch"] == str(expected)
    # the view is in the URL: opening it elsewhere restores it
    assert at.query_params["study"] in ("samsung_pm1743_vsan8_esa", ["samsung_pm1743_vsan8_esa"])
    shared = open_page(
        "app_pages/published.py", {"study": "samsung_pm1743_vsan8_esa", "status": "mismatch"}
    )
    assert len(shown_frames(shared)[-1]) == expected


# --- Compare, with the selection in the URL -----------------------------------------------


def test_compare_runs_restores_the_url_and_draws_both_results(warehouse_env: Path) -> None:
    # GIVEN Samsung's TCP and RDMA 128K 70/30 results (Table 3: 134,984 and 170,668 IOPS), a
    # one-label pair of config_deltas whose IOPS interval excludes 0
    (a, a_iops), (b, b_iops) = query(
        warehouse_env,
        "select result_id, iops from marts.fct_workload_results where testbed = ?"
        " and read_pct = 70 and block_size_bytes = 131072 and transport is not null"
        " order by transport desc",
        [SAMSUNG],
    )
    assert round(a_iops) == 134984 and round(b_iops) == 170668
    ((delta, significant, note),) = query(
        warehouse_env,
        "select iops_delta_pct, is_significant, significance_note from marts.config_deltas"
        " where from_result_id = ? and to_result_id = ?",
        [a, b],
    )
    # WHEN the shared URL is opened
    at = open_page("app_pages/compare.py", {"compare": "runs", "a": a, "b": b})
    # THEN the selection is the URL's, and the chart's bars are exactly the two results
    assert [s.value for s in at.selectbox[:2]] == [a, b]
    spec = chart_specs(at)[0]
    iops_bars = [t for t in spec["data"] if t.get("xaxis", "x") == "x" and t["type"] == "bar"]
    assert [t["y"][0] for t in iops_bars] == pytest.approx([a_iops, b_iops])
    assert [t["customdata"][0] for t in iops_bars] == [a, b]
    # and the mart's delta with its significance, not one the page made up
    (deltas,) = [f for f in shown_frames(at) if "is_significant" in f.columns]
    assert list(deltas["iops_delta_pct"]) == pytest.approx([delta])
    assert list(deltas["is_significant"]) == [significant]
    assert list(deltas["significance_note"]) == [note]


def test_compare_testbeds_from_the_url(warehouse_env: Path) -> None:
    params = {"compare": "testbeds", "a": "sfd7-vsan60-allflash", "b": "sfd7-vsan60-hybrid"}
    at = open_page("app_pages/compare.py", params)
    assert at.radio[0].value == "testbeds"
    assert [s.value for s in at.selectbox[:2]] == ["sfd7-vsan60-allflash", "sfd7-vsan60-hybrid"]
    spec = chart_specs(at)[0]
    names = {t["name"] for t in spec["data"]}
    assert names == {"testbed: sfd7-vsan60-allflash", "testbed: sfd7-vsan60-hybrid"}
    # every point is one result of the warehouse (customdata = its result_id)
    # WHEN another testbed is picked THEN the URL follows, so the view can be shared
    at.selectbox(key="compare_b").set_value("micron-sata-vsan67").run()
    assert at.query_params["b"] in ("micron-sata-vsan67", ["micron-sata-vsan67"])
    assert at.query_params["compare"] in ("testbeds", ["testbeds"])
    ids = {rid for t in spec["data"] for rid in t["customdata"]}
    known = {
        r for (r,) in query(
            warehouse_env,
            "select result_id from marts.fct_workload_results where testbed like 'sfd7-%'",
        )
    }  # fmt: skip
    assert ids and ids <= known


def test_compare_runs_draws_each_mean_with_its_interval(warehouse_env: Path) -> None:
    # GIVEN two results with batch-means 95 % intervals of their mean IOPS, and one without
    (a, a_mean, a_low, a_high), (b, b_mean, b_low, b_high) = query(
        warehouse_env,
        "select result_id, iops_mean, iops_ci95_low, iops_ci95_high"
        " from marts.fct_result_steady_state where ci_method = 'batch_means'"
        " order by interval_count desc, result_id limit 2",
    )
    at = open_page("app_pages/compare.py", {"compare": "runs", "a": a, "b": b})
    data = [t for t in chart_specs(at)[0]["data"] if t.get("xaxis", "x") == "x"]
    # THEN beside each IOPS bar, the steady-state mean with exactly the mart's interval
    marks = [t for t in data if t["type"] == "scatter"]
    assert [t["customdata"][0] for t in marks] == [a, b]
    assert [t["y"][0] for t in marks] == pytest.approx([a_mean, b_mean])
    assert [t["y"][0] + t["error_y"]["array"][0] for t in marks] == pytest.approx([a_high, b_high])
    assert [t["y"][0] - t["error_y"]["arrayminus"][0] for t in marks] == pytest.approx(
        [a_low, b_low]
    )
    table = next(f for f in shown_frames(at) if "differs" in f.columns)
    ci = table[table["field"] == "IOPS (IO/s), 95 % CI"]
    assert list(ci["A"]) == [f"{a_low:,.3f} to {a_high:,.3f}"]


def test_compare_runs_of_two_testbeds_attributes_no_delta(warehouse_env: Path) -> None:
    # GIVEN a Micron and a Samsung result (many labels differ): no config_deltas row pairs them
    (a,), (b,) = query(
        warehouse_env,
        "select min(result_id) from marts.fct_workload_results where testbed in (?, ?)"
        " group by testbed order by testbed",
        [MICRON, SAMSUNG],
    )
    at = open_page("app_pages/compare.py", {"compare": "runs", "a": a, "b": b})
    # THEN the values stand side by side, with no delta or significance attributed
    assert not [f for f in shown_frames(at) if "is_significant" in f.columns]
    (said,) = [i.value for i in at.info if "not a one-label pair" in i.value]
    assert "testbed" in said and "no significance is computed" in said
