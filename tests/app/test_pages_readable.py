"""Profiles & configs, TCP vs RDMA, Compare and the run explorer read as figures (issue 28):
x labels and legends name only what differs between the marks, the rest is the chart's
subtitle; numbers sort as numbers; no "1 VMs"; config differences as text; paths relative to
the result's folder; every selector in the URL.

The pure helpers are tested on literal rows shaped as their marts'; the pages on the reference
warehouse (tests/app/conftest.py) and on a warehouse of a user's own fio runs, made with
Debian's fio.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib import provenance
from app.lib.charts import deltas as delta_charts
from app.lib.views import compare as compare_view
from app.lib.views import profile_deltas as deltas_view
from app.lib.views import transport as transport_view
from tests.app import figures
from tests.app.conftest import REPO, query
from tests.app.test_pages import APP, metrics

# --- literal rows ----------------------------------------------------------------------------

LAB = "my-lab-4node"


def lab_pairs(**overrides: list) -> pl.DataFrame:
    """config_deltas rows of the issue's example: raid1 → raid5 on one lab, 4K random, OIO
    16, cache, 1 VM, 4 nodes, at three read mixes (in the text order 0, 100, 70)."""
    rows = {
        "testbed": [LAB] * 3,
        "dimension": ["profile"] * 3,
        "from_value": ["raid1"] * 3,
        "to_value": ["raid5"] * 3,
        "read_pct": [0, 100, 70],
        "random_pct": [100] * 3,
        "block_size_bytes": [4096] * 3,
        "outstanding_io": [16] * 3,
        "from_vm_count": [1] * 3,
        "to_vm_count": [1] * 3,
        "from_nodes": [4] * 3,
        "to_nodes": [4] * 3,
        "working_set": ["cache"] * 3,
        "held_equal_labels": [json.dumps({"testbed": LAB, "vsan_version": "8.0"})] * 3,
        "iops_delta_pct": [-12.5, -3.0, -8.0],
    }
    return pl.DataFrame(rows | overrides)


def test_a_pairs_label_names_the_change_and_only_what_differs_between_the_bars() -> None:
    # GIVEN the example, once coloured by read mix and once by working set
    pairs = lab_pairs()
    by_mix = deltas_view.named_pairs(pairs, color_by="read_pct")
    by_set = deltas_view.named_pairs(pairs, color_by="working_set")
    # THEN the label is the change (the read mix is the colour), or the change and the mix;
    # the bars follow the read mix as a number
    assert by_mix["pair"].to_list() == ["raid1 → raid5"] * 3
    assert by_set["pair"].to_list() == ["raid1 → raid5 · 0% read", "raid1 → raid5 · 70% read",
                                        "raid1 → raid5 · 100% read"]  # fmt: skip
    # and what every bar shares is the subtitle, with "1 VM", never "1 VMs"
    assert deltas_view.pair_subtitle(pairs, color_by="read_pct") == (
        f"testbed {LAB} · 4K · random · OIO 16 · 1 VM · 4 nodes · cache working set · vSAN 8.0"
    )


def test_a_count_the_pair_changes_is_printed_from_to() -> None:
    pairs = lab_pairs(
        dimension=["profile"] * 3, from_vm_count=[1, 1, 4], to_vm_count=[1, 1, 8],
    )  # fmt: skip
    names = deltas_view.named_pairs(pairs, color_by="read_pct")["pair"].to_list()
    assert names == ["raid1 → raid5 · 1 VM", "raid1 → raid5 · 4 → 8 VMs", "raid1 → raid5 · 1 VM"]


def test_the_legend_sorts_read_mixes_as_numbers_and_labels_stay_horizontal() -> None:
    pairs = deltas_view.named_pairs(lab_pairs(), color_by="read_pct")
    fig = delta_charts.config_delta_bars(
        pairs, color_by="read_pct", subtitle=deltas_view.pair_subtitle(pairs, color_by="read_pct")
    )
    assert [t.name for t in fig.data] == ["0% read", "70% read", "100% read"]
    assert [t.y[0] for t in fig.data] == [-12.5, -8.0, -3.0]
    assert fig.layout.xaxis.tickangle == 0
    assert fig.layout.title.subtitle.text.startswith(f"testbed {LAB} · 4K · random · OIO 16")


def test_one_colour_draws_no_legend_and_long_labels_turn() -> None:
    # GIVEN 12 bars whose labels differ in testbed, one working set
    many = lab_pairs(
        testbed=["a-very-long-testbed-name-1", "a-very-long-testbed-name-2", "x"],
        read_pct=[70] * 3,
    )
    many = pl.concat([many.with_columns(from_value=pl.lit(f"p{i}")) for i in range(4)])
    pairs = deltas_view.named_pairs(many, color_by="working_set")
    fig = delta_charts.config_delta_bars(pairs, color_by="working_set")
    assert [t.showlegend for t in fig.data] == [False]
    assert fig.layout.xaxis.tickangle == -45
    assert "p0 → raid5<br>testbed x" in fig.data[0].x


def test_the_page_opens_on_the_testbed_with_the_most_read_mixes() -> None:
    deltas = pl.DataFrame(
        {"testbed": ["a", "a", "b", "b", "b"], "read_pct": [70, 70, 0, 70, 100],
         "profile": ["x", "y", "x", "x", "x"]}
    )  # fmt: skip
    assert deltas_view.opening_testbed(deltas, ["a", "b"]) == 1
    assert deltas_view.opening_testbed(deltas, ["a"]) == 0
    assert deltas_view.opening_testbed(deltas.clear(), ["a", "b"]) == 0


def test_config_differences_read_as_text() -> None:
    differences = [
        {"label": "profile", "dimension": "profile", "is_counted": True,
         "from_value": "raid1", "to_value": "raid5"},
        {"label": "outstanding_io", "dimension": "outstanding_io", "is_counted": True,
         "from_value": "16", "to_value": "32"},
        {"label": "block_size_bytes", "dimension": "block_size", "is_counted": True,
         "from_value": "4096", "to_value": None},
    ]  # fmt: skip
    assert compare_view.differences_text(differences) == (
        "profile: raid1 → raid5; OIO: 16 → 32; block size: 4K → —"
    )
    frame = pl.DataFrame({"differences": [differences, []]})
    assert compare_view.readable_differences(frame)["differences"].to_list() == [
        "profile: raid1 → raid5; OIO: 16 → 32; block size: 4K → —",
        "",
    ]


def test_paths_are_shown_relative_to_the_results_folder() -> None:
    folder, shown = provenance.relative_paths(
        ["/home/ann/runs/raid1/fio-0.json", "/home/ann/runs/raid1/vm2/fio-1.json"]
    )
    assert folder == "/home/ann/runs/raid1"
    assert shown == ["raid1/fio-0.json", "raid1/vm2/fio-1.json"]
    assert provenance.relative_paths(["/a/b/x.tgz!/case/out.json"]) == (
        "/a/b/x.tgz!/case",
        ["case/out.json"],
    )


def test_transport_bars_name_what_differs_and_the_tiles_their_workload() -> None:
    rows = pl.DataFrame(
        {"testbed": ["t"] * 4, "transport": ["tcp", "rdma", "tcp", "rdma"],
         "read_pct": [0, 0, 70, 70], "block_size_bytes": [4096, 4096, 131072, 131072],
         "random_pct": [100, 100, 0, 0], "outstanding_io": [960] * 4, "vm_count": [15] * 4,
         "run_ordinal": [1, 1, 1, 2]}
    )  # fmt: skip
    named = transport_view.with_workload(rows)
    assert named["workload"].to_list() == [
        "4K · 0% read · random", "4K · 0% read · random",
        "128K · 70% read · sequential", "128K · 70% read · sequential · run 2",
    ]  # fmt: skip
    assert transport_view.subtitle(rows) == (
        "testbed t · OIO 960 · 15 VMs · varies: block size, read mix, random / sequential"
    )
    best = {**rows.row(2, named=True), "nodes": 3, "storage": "local-nvme"}
    assert transport_view.configuration_text(best) == (
        "testbed t · 128K · 70% read · sequential · OIO 960 · 15 VMs · 3 nodes · local-nvme storage"
    )


def test_compare_names_runs_by_what_differs() -> None:
    pair = pl.DataFrame(
        {"testbed": ["t", "t"], "profile": ["raid1", "raid5"], "outstanding_io": [16, 16],
         "started_at": ["2026-01-01 10:00:00", "2026-01-01 11:00:00"]}
    )  # fmt: skip
    assert compare_view.pair_names(pair) == ["A: raid1 profile", "B: raid5 profile"]
    same = pair.with_columns(profile=pl.lit("raid1"))
    assert compare_view.pair_names(same) == [
        "A: started 2026-01-01 10:00",
        "B: started 2026-01-01 11:00",
    ]


# --- the pages --------------------------------------------------------------------------------

MICRON = "micron-sata-vsan67"
SAMSUNG = "samsung-pm1743-vsan8-esa"


def open_at(page: str, params: dict[str, str] | None = None) -> AppTest:
    """A page opened from a URL with `params` (a followed link, a shared URL)."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    at.switch_page(page)
    # a link opens on its own URL: nothing of the first page's parameters (AppTest keeps
    # them across switch_page, a browser's navigation does not)
    at.query_params.clear()
    at.query_params.update(params or {})
    at.run()
    figures.open_expanders(at)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def layouts(at: AppTest) -> dict[str, dict]:
    """Each chart's layout by its title."""
    return {s["layout"]["title"]["text"]: s for s in figures.chart_specs(at)}


def subtitle(spec: dict) -> str:
    return spec["layout"]["title"]["subtitle"]["text"]


def selected(at: AppTest) -> dict[str, object]:
    return {s.label: s.value for s in at.selectbox}


def url(at: AppTest) -> dict[str, str]:
    """The URL's query parameters (AppTest keeps a value as text or as a list of texts)."""
    return {k: v[-1] if isinstance(v, list) else v for k, v in at.query_params.items()}


@pytest.mark.slow
def test_profiles_opens_on_the_testbed_with_several_read_mixes(warehouse_env: Path) -> None:
    # GIVEN the reference warehouse, whose first testbed (lenovo) has one read mix
    mixes = dict(query(warehouse_env, "select testbed, count(distinct read_pct) from "
                       "marts.profile_latency_deltas group by 1"))  # fmt: skip
    assert mixes["lenovo-sr650-vsan65"] == 1 and mixes[MICRON] == 5
    at = open_at("app_pages/profile_deltas.py")
    # THEN it opens on Micron: a heatmap of five read mixes, its context in the subtitle
    assert selected(at)["Testbed"] == MICRON
    heatmap = layouts(at)["Latency vs baseline"]
    assert heatmap["data"][0]["x"] == ["0% read", "30% read", "50% read", "70% read", "100% read"]
    assert subtitle(heatmap) == f"testbed {MICRON} · 4K · random · OIO 512 · 16 VMs · 4 nodes"
    # and the one-label bars name the change and the read mix only, one colour per working set
    bars = layouts(at)["Changing profile"]
    assert [t["name"] for t in bars["data"]] == ["cache working set", "capacity working set"]
    ticks = {x for t in bars["data"] for x in t["x"]}
    assert "baseline → balanced<br>0% read" in ticks
    assert not [x for x in ticks if MICRON in x or "VMs" in x or "OIO" in x]
    assert subtitle(bars).endswith("4 nodes · vSAN 6.7 · varies: read mix")
    # and the URL holds the view
    assert url(at)["testbed"] == MICRON and url(at)["dim"] == "profile"


@pytest.mark.slow
def test_profiles_url_restores_every_selector(warehouse_env: Path) -> None:
    # GIVEN a shared URL of Micron's profile study: a read-mix heatmap of IOPS, and the
    # working-set comparisons' latency coloured by read mix
    params = {"testbed": MICRON, "delta": "iops_vs_baseline_pct", "dim": "working_set",
              "metric": "avg_latency_delta_pct", "color": "read_pct"}  # fmt: skip
    at = open_at("app_pages/profile_deltas.py", params)
    # THEN every selector holds the URL's value, and the URL still says it
    shown = [s.value for s in at.selectbox]
    assert shown == [MICRON, "iops_vs_baseline_pct", "working_set", "avg_latency_delta_pct",
                     "read_pct"]  # fmt: skip
    assert url(at) == params
    assert "IOPS vs baseline" in layouts(at)
    bars = layouts(at)["Changing working_set"]
    # the colours are read mixes in numeric order, never the text order 0, 100, 30 ...
    assert [t["name"] for t in bars["data"]] == [
        "0% read", "30% read", "50% read", "70% read", "100% read"
    ]  # fmt: skip


@pytest.mark.slow
def test_transport_tiles_and_charts_name_their_workload(warehouse_env: Path) -> None:
    at = open_at("app_pages/transport.py", {"testbed": SAMSUNG})
    assert selected(at)["Testbed"] == SAMSUNG
    workload = (f"testbed {SAMSUNG} · 128K · 70% read · sequential · OIO 960 · 15 VMs · 3 nodes"
                " · local-nvme storage")  # fmt: skip
    assert metrics(at)["Best RDMA efficiency gain"] == "+66.4%"
    assert f"All three on one workload: {workload}" in [c.value for c in at.caption]
    charts = layouts(at)
    side = charts[f"TCP vs RDMA on {SAMSUNG}"]
    assert subtitle(side) == (
        f"testbed {SAMSUNG} · OIO 960 · 15 VMs · varies: block size, read mix, random / sequential"
    )
    assert side["data"][0]["x"] == ["4K · 0% read · random", "128K · 70% read · sequential",
                                    "4K · 100% read · random"]  # fmt: skip
    assert subtitle(charts["IOPS per CPU percent"]).startswith(f"testbed {SAMSUNG} · OIO 960")


@pytest.mark.slow
def test_compare_shows_differences_as_text_and_restores_the_measure(warehouse_env: Path) -> None:
    testbed = "lenovo-sr650-vsan65"
    params = {"compare": "profiles", "testbed": testbed, "a": "run1-default",
              "b": "run3-stripe2", "measure": "avg_latency_ms"}  # fmt: skip
    at = open_at("app_pages/compare.py", params)
    assert selected(at)["Measure"] == "avg_latency_ms"
    (points,) = figures.chart_specs(at)
    assert points["layout"]["yaxis"]["title"]["text"] == "Average latency (ms)"
    assert subtitle(points) == f"testbed {testbed} · 4K · 70% read · random · OIO 640 · 20 VMs"
    table = next(f.value for f in at.dataframe if "differences" in f.value.columns)
    assert table["differences"].tolist() == [
        "profile: run1-default → run3-stripe2; stripe width: 1 → 2"
    ]


@pytest.mark.slow
def test_run_explorer_paths_are_relative_with_the_full_ones_on_demand(warehouse_env: Path) -> None:
    # GIVEN the labelled result with the fewest output files (its paths absolute in the mart)
    result_id, testbed = query(
        warehouse_env,
        "select f.result_id, r.testbed from marts.fct_result_source_files as f"
        " join marts.fct_workload_results as r using (result_id)"
        " where f.file_role = 'output' and r.testbed is not null"
        " group by all order by count(*), 1 limit 1",
    )[0]
    sql = "select source_path from marts.fct_result_source_files where result_id = ?"
    full = sorted(p for (p,) in query(warehouse_env, sql, [result_id]))
    assert all(p.startswith("/") for p in full)
    folder = os.path.commonpath([os.path.dirname(p) for p in full])
    at = open_at("app_pages/run_explorer.py", {"result_id": result_id})
    # THEN the files table and the path list show them relative to the parent of the folder
    # they share (its name kept), and the full paths are in their expander
    files = next(f.value for f in at.dataframe if "file_role" in f.value.columns)
    relative = sorted(os.path.relpath(p, os.path.dirname(folder)) for p in full)
    assert sorted(files["path"]) == relative
    assert relative[0] in at.text[0].value.splitlines()
    expander = next(e for e in at.expander if e.label == provenance.FULL_PATHS)
    assert expander.caption[0].value == f"Shown relative to `{folder}`."
    assert expander.text[0].value.splitlines() == full
    # and every chart names the result's workload in its subtitle
    for spec in figures.chart_specs(at):
        assert subtitle(spec).startswith(f"testbed {testbed} · "), spec["layout"]["title"]


# --- a warehouse of a user's own fio runs (Debian's fio) --------------------------------------

needs_fio = pytest.mark.skipif(shutil.which("fio") is None, reason="Debian's fio is not installed")


def _run(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> None:
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in ok, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.fixture(scope="module")
def own_fio_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six fio runs of one lab (raid1 and raid5 at 0, 70 and 100 % read, 4K random, OIO 16,
    1 VM, 4 nodes) loaded, built, validated and published as a user would."""
    work = tmp_path_factory.mktemp("own_fio")
    runs = work / "runs"
    (runs / "raid1").mkdir(parents=True)
    (runs / "raid5").mkdir()
    (runs / "run.yaml").write_text(f"testbed: {LAB}\nnodes: 4\nprofile_order: [raid1, raid5]\n")
    for profile in ("raid1", "raid5"):
        (runs / profile / "run.yaml").write_text(f"profile: {profile}\n")
        for mix in (0, 70, 100):
            subprocess.run(
                ["fio", "--name=job1", f"--filename={work / 'data'}", "--size=4m",
                 "--runtime=1", "--ioengine=psync", "--rw=randrw", f"--rwmixread={mix}",
                 "--bs=4k", "--iodepth=16", "--output-format=json",
                 f"--output={runs / profile / f'fio-{mix}.json'}"],
                check=True, capture_output=True,
            )  # fmt: skip
    db = work / "warehouse.duckdb"
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    py = sys.executable
    _run([py, "-m", "ingest", "load", str(runs), "--quiet"], env)
    dbt = str(Path(py).with_name("dbt"))
    _run([dbt, "build", "--project-dir", "dbt_project", "--profiles-dir", "dbt_project",
          "--target-path", str(work / "target"), "--log-path", str(work / "logs"), "--quiet"],
         env)  # fmt: skip
    _run([py, "-m", "ingest", "publish", "--db", str(db)], env)
    return db


@pytest.fixture()
def own_env(own_fio_warehouse: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(own_fio_warehouse))
    return own_fio_warehouse


@pytest.mark.slow
@needs_fio
def test_own_fio_runs_read_as_a_figure(own_env: Path) -> None:
    at = open_at("app_pages/profile_deltas.py")
    assert selected(at)["Testbed"] == LAB
    charts = layouts(at)
    heatmap = charts["Latency vs baseline"]
    assert heatmap["data"][0]["x"] == ["0% read", "70% read", "100% read"]
    assert subtitle(heatmap) == f"testbed {LAB} · 4K · random · OIO 16 · 1 VM · 4 nodes"
    # The "raid1 → raid5 · my-lab-4node · 0% read, 4K, random, OIO 16, cache, 1 VMs":
    bars = charts["Changing profile"]
    assert [t["x"] for t in bars["data"]] == [["raid1 → raid5"]] * 3
    assert [t["name"] for t in bars["data"]] == ["0% read", "70% read", "100% read"]
    assert bars["layout"]["xaxis"]["tickangle"] == 0
    assert subtitle(bars) == f"testbed {LAB} · 4K · random · OIO 16 · 1 VM · 4 nodes"
    table = next(f.value for f in at.dataframe if "differences" in f.value.columns)
    assert set(table["differences"]) == {"profile: raid1 → raid5"}


@pytest.mark.slow
@needs_fio
def test_own_fio_run_paths_are_relative_to_its_folder(own_env: Path) -> None:
    (result_id, path), *_ = query(
        own_env, "select result_id, source_path from marts.fct_result_source_files order by 2"
    )
    at = open_at("app_pages/run_explorer.py", {"result_id": result_id})
    assert "raid1/fio-0.json" in [t.value for t in at.text]
    expander = next(e for e in at.expander if e.label == provenance.FULL_PATHS)
    assert expander.text[0].value == path
    assert any(m.value.endswith("· 1 file") for m in at.markdown)
    (latency, *_) = figures.chart_specs(at)
    assert subtitle(latency) == (
        f"testbed {LAB} · 4K · 0% read · random · OIO 16 · 1 VM · 4 nodes · raid1 profile · fio"
    )
