"""What the pages show, worked out from literal mart rows (app/lib/views): the pure half of
each page, without Streamlit or a warehouse."""

from __future__ import annotations

import datetime as dt

import polars as pl

from app.lib import provenance
from app.lib.views import (
    capacity,
    compare,
    data_quality,
    profile_deltas,
    published,
    run_explorer,
    scaling,
    studies,
    transport,
)
from app.lib.views import ra_comparison as ra


def test_data_quality_counts_constraints_alerts_and_skipped_suites() -> None:
    # GIVEN a run: one constraint and one alert failed (severity in either spelling, or none),
    # one passed, one suite skipped (its table does not exist yet: success NULL)
    run_at = dt.datetime(2026, 11, 23, 21, 5, tzinfo=dt.UTC)
    latest = pl.DataFrame(
        {
            "suite": ["a.constraints", "a.alerts", "b.constraints", "c.constraints", "d"],
            "severity": ["Constraints", "alert", "constraint", "constraint", None],
            "success": [False, False, True, None, False],
            "run_at": [run_at] * 5,
        }
    )
    run = data_quality.summary(latest)
    # THEN a failure without a severity counts as a constraint
    assert (run.constraints, run.alerts, run.checked, run.skipped) == (2, 1, 4, 1)
    assert run.failed["suite"].to_list() == ["a.constraints", "a.alerts", "d"]
    assert run.run_at == run_at


# --- Run explorer ----------------------------------------------------------------------------


def test_run_explorer_says_why_a_section_is_empty_by_the_results_tool() -> None:
    fio = run_explorer.section_texts({"source_tool": "fio", "cpu_util_source": "capture"})
    assert fio == run_explorer.SECTIONS
    vdbench = run_explorer.section_texts(
        {"source_tool": "vdbench", "cpu_util_source": "hcibench_resource_usage"}
    )
    assert vdbench["histogram"] == (
        "Latency histogram (fio json+)",
        "Vdbench reports no latency histogram (only fio's json+ output does).",
    )
    assert "HCIBench's resource-usage figure" in vdbench["host_cpu"][1]
    assert vdbench["percentiles"] == run_explorer.SECTIONS["percentiles"]
    # the module's own texts are never changed by a page run
    assert run_explorer.SECTIONS["histogram"][1].startswith("No json+ latency buckets")


def test_run_explorer_steady_state_texts() -> None:
    state = {
        "is_steady_state": True, "steady_state_start_s": 20.0, "steady_state_end_s": 300.0,
        "ci_window_start_s": 20.0, "ci_window_end_s": 1300.0, "ci_window_interval_count": 28,
        "ci_method": "batch_means", "iops_ci95_low": 1234.5, "iops_ci95_high": 1300.25,
        "avg_latency_ms_ci95_low": None, "avg_latency_ms_ci95_high": None,
    }  # fmt: skip
    assert run_explorer.steady_window(state) == (20.0, 300.0)
    assert run_explorer.steady_window({**state, "is_steady_state": False}) is None
    assert run_explorer.steady_window_text(state) == "20 to 1,300 s"
    assert run_explorer.steady_window_text({**state, "ci_window_end_s": None}) == "20 to — s"
    assert run_explorer.steady_window_help(state) == "28 intervals; method: batch_means"
    assert run_explorer.ci_text(state, "iops", ",.0f") == "95 % CI 1,234 to 1,300"
    assert run_explorer.ci_text(state, "avg_latency_ms", ".3f") == "no spread information"


def test_run_explorer_headline_help_and_spread_source() -> None:
    assert run_explorer.cpu_source_help({"cpu_util_source": "capture"}).startswith(
        "Source: esxtop / vSAN host samples"
    )
    assert run_explorer.cpu_source_help({"cpu_util_source": None}) == (
        "Source: none (no host CPU figure)"
    )
    assert run_explorer.spread_help({"host_iops_source": None}).endswith("source: —")


def test_run_explorer_cpu_caption_only_for_averaged_points() -> None:
    averaged = pl.DataFrame({"samples_in_point": [3, 4]})
    assert run_explorer.cpu_caption(averaged) == (
        "Averaged to at most 2,000 points per host (7 samples in the window)."
    )
    assert run_explorer.cpu_caption(pl.DataFrame({"samples_in_point": [1, 1]})) is None


def test_run_explorer_lists_every_column_and_the_marts_without_a_section() -> None:
    results = pl.DataFrame({"result_id": ["r1"], "iops": [None], "labels_json": ["{}"]})
    table = run_explorer.every_column(results, results.row(0, named=True))
    assert table.to_dicts() == [
        {"field": "result_id", "value": "r1"},
        {"field": "iops", "value": "—"},
    ]
    tables = {
        "fct_workload_results": ["result_id"],
        "fct_result_outputs": ["result_id", "iops"],
        "fct_new_detail": ["result_id", "x"],
        "dim_hosts": ["host_id"],
        "a_detail": ["result_id"],
    }
    assert run_explorer.other_marts(tables) == ("a_detail", "fct_new_detail")


def test_run_explorer_orders_source_files_outputs_first() -> None:
    files = pl.DataFrame(
        {
            "file_role": ["test case", "labels", "output", "output", "other"],
            "source_path": ["c/x", "b/run.yaml", "z/vm2.json", "a/vm1.json", "d"],
            "source_format": ["hcibench", "run_yaml", "fio", "fio", "x"],
            "tool_version": [None, None, "fio-3.33", "fio-3.33", None],
            "parser_version": ["1", "1", "4", "4", "1"],
        }
    )
    ordered = provenance.files_in_order(files)
    assert ordered is not None
    assert ordered["source_path"].to_list() == [
        "a/vm1.json",
        "z/vm2.json",
        "b/run.yaml",
        "c/x",
        "d",
    ]
    assert provenance.tools_line(ordered) == (
        "**Tool** fio fio-3.33, parser version 4; run_yaml (version not printed), parser "
        "version 1; x (version not printed), parser version 1 · 5 files"
    )
    assert provenance.files_in_order(None) is None


# --- Compare -----------------------------------------------------------------------------------


def two_results() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "result_id": ["r1", "r2", "r3"],
            "testbed": ["micron", "samsung", "micron"],
            "transport": ["tcp", "tcp", "rdma"],
            "block_size_bytes": [4096, 4096, 131072],
            "source_tool": ["fio", "vdbench", "fio"],
            "iops": [100.0, 250.5, 7.0],
        }
    )


def test_compare_puts_two_results_side_by_side_with_their_intervals() -> None:
    states = pl.DataFrame(
        {
            "result_id": ["r2", "r1"],
            "iops_mean": [250.0, 99.0],
            "iops_ci95_low": [240.0, None],
            "iops_ci95_high": [260.5, None],
            "interval_count": [30, 20],  # not an interval column: not joined
        }
    )
    pair = compare.pair(two_results(), "r2", "r1", states)
    assert pair["result_id"].to_list() == ["r2", "r1"]
    assert "interval_count" not in pair.columns
    table = compare.side_by_side(pair, ["A", "B"])
    assert table.to_dicts() == [
        {"field": "testbed", "A": "samsung", "B": "micron", "differs": "yes"},
        {"field": "transport", "A": "tcp", "B": "tcp", "differs": ""},
        {"field": "block_size_bytes", "A": "4K", "B": "4K", "differs": ""},
        {"field": "source_tool", "A": "vdbench", "B": "fio", "differs": "yes"},
        {"field": "IOPS (IO/s)", "A": "250.5", "B": "100.0", "differs": "yes"},
        {"field": "IOPS (IO/s), 95 % CI", "A": "240.000 to 260.500", "B": "no spread information",
         "differs": ""},
    ]  # fmt: skip
    # without steady-state rows the pair is the results' own rows
    assert compare.pair(two_results(), "r1", "r3", pl.DataFrame()).width == 6


def test_compare_names_the_labels_two_unpaired_runs_differ_in() -> None:
    pair = compare.pair(two_results(), "r1", "r2", pl.DataFrame())
    text = compare.unpaired_text(pair)
    assert "(they differ in: testbed)" in text  # the tool is a fact of the run, not a label
    same = compare.pair(two_results(), "r1", "r1", pl.DataFrame())
    assert "(they differ in: free-form labels only)" in compare.unpaired_text(same)


def test_compare_groups_keep_only_the_workloads_both_ran() -> None:
    rows = pl.DataFrame(
        {
            "result_id": ["m1", "m2", "s1", "s2", "x1"],
            "testbed": ["micron", "micron", "samsung", "samsung", "lenovo"],
            "read_pct": [70, 100, 70, 0, 70],
            "block_size_bytes": [4096] * 5,
            "random_pct": [100] * 5,
            "outstanding_io": [8, 8, 64, 8, 8],  # differs between sides: not in the workload
        }
    )
    shared = compare.on_shared_workloads(rows, "testbed", "micron", "samsung")
    assert shared["result_id"].to_list() == ["m1", "s1"]
    assert shared["workload"].n_unique() == 1
    assert compare.group_values(rows, "testbed") == ["lenovo", "micron", "samsung"]


def test_compare_shows_the_profile_pairs_and_their_delta_columns() -> None:
    deltas = pl.DataFrame(
        {
            "dimension": ["profile", "profile", "transport"],
            "testbed": ["micron", "micron", "micron"],
            "from_value": ["raid1", "raid1", "tcp"],
            "to_value": ["raid5", "dedupe", "rdma"],
            "from_result_id": ["r1", "r1", "r1"],
            "iops_delta_pct": [-10.0, -30.0, 20.0],
            "iops_delta_ci95_low": [-12.0, None, None],
            "is_significant": [True, None, None],
            "note": ["x", "y", "z"],
        }
    )
    pairs = compare.profile_pairs(deltas, "micron", "raid5", "raid1")
    assert pairs["to_value"].to_list() == ["raid5"]
    assert compare.delta_columns(pairs) == [
        "dimension", "from_value", "to_value", "iops_delta_pct", "iops_delta_ci95_low",
        "is_significant",
    ]  # fmt: skip


# --- Studies -----------------------------------------------------------------------------------


def test_studies_name_each_series_by_its_workload_not_the_swept_axis() -> None:
    points = pl.DataFrame(
        {
            "read_pct": [100, 70],
            "block_size_bytes": [4096, 131072],
            "random_pct": [100, 0],
            "vm_count": [3, None],
        }
    )
    named = studies.with_workload(points, "vm_count", axis="block_size_bytes")
    assert named["series"].to_list() == ["100% read, random · 3 VMs", "70% read, seq"]


def test_studies_pick_a_sweep_and_the_pairs_of_one_dimension() -> None:
    points = pl.DataFrame(
        {"testbed": ["s", "s", "h", "a"], "axis": ["nodes", "disk_groups", "disk_groups", "x"]}
    )
    assert studies.sweep(points, ("s", "h"), "disk_groups")["testbed"].to_list() == ["s", "h"]
    assert studies.sweep(points.clear(), "s", "nodes").is_empty()
    deltas = pl.DataFrame(
        {
            "testbed": ["s", "s", "other"],
            "dimension": ["profile", "storage", "profile"],
            "from_result_id": ["r1", "r3", "r5"],
            "to_result_id": ["r2", "r4", "r6"],
        }
    )
    results = pl.DataFrame({"result_id": ["r1", "r2", "r3", "r4", "r6"]})
    pairs = studies.pair_results(deltas, results, "s", "profile")
    assert sorted(pairs["result_id"].to_list()) == ["r1", "r2"]
    assert studies.pair_results(deltas.clear(), results, "s", "profile").is_empty()


def test_studies_per_node_iops_only_for_single_runs() -> None:
    hosts = pl.DataFrame(
        {"result_id": ["a", "b", None], "nodes": [4, 8, 16], "run_count": [1, 1, 3]}
    )
    scaling = pl.DataFrame({"result_id": ["a", "b"], "iops_per_node": [10.0, 9.5]})
    # a point that is the mean of three runs has no one result's per-node value
    assert studies.per_node(hosts, scaling)["iops_per_node"].to_list() == [10.0, 9.5, None]


def test_studies_disk_group_and_working_set_series() -> None:
    groups = pl.DataFrame(
        {
            "testbed": ["sfd7-vsan60-hybrid", "sfd7-vsan60-allflash"],
            "read_pct": [70, 100],
            "held_equal_json": ['{"working_set": "cache"}', "{}"],
            "disk_groups": [1, 2],
        }
    )
    named = studies.disk_group_pairs(groups)
    assert named["series"].to_list() == ["hybrid · 70% read · cache", "allflash · 100% read"]
    assert named["disk_groups_label"].to_list() == ["1 disk group", "2 disk groups"]
    ws = studies.working_set_points(pl.DataFrame({"axis_value": [100.0], "disk_groups": [2]}))
    assert ws.select("working_set_gb", "series").row(0) == (100.0, "2 disk groups")


def test_studies_knees_and_profile_order() -> None:
    points = pl.DataFrame(
        {"is_knee": [None, True], "series": ["4K read", "4K read"], "vm_count": [15, 30]}
    )
    assert studies.knee_notes(points) == ["Latency knee (4K read): 30 VMs (sweeps mart)."]
    assert studies.knee_notes(pl.DataFrame({"x": [1]})) == []
    runs = pl.DataFrame({"profile_order": [None, ["run1", "run2"]]})
    assert studies.profile_order(runs) == ["run1", "run2"]
    assert studies.profile_order(runs.clear()) == []


def test_capacity_observations_are_told_apart() -> None:
    objects = pl.DataFrame(
        {
            "testbed": ["micron", None],
            "working_set": ["capacity", None],
            "captured_at": [dt.datetime(2019, 5, 1, 12, 30, 45), None],
            "capacity_observation_id": ["abcdef123", "0123456789"],
        }
    )
    assert studies.observations(objects)["observation"].to_list() == [
        "micron · capacity · 2019-05-01 12:30 · #abcdef",
        "(no testbed label) · — · undated · #012345",
    ]
    one = studies.observations(objects, testbed=False)
    assert one["observation"].to_list()[0] == "capacity test · 2019-05-01 12:30 · #abcdef"


# --- RA comparison ------------------------------------------------------------------------------


def ra_points() -> pl.DataFrame:
    """Micron measured in two configurations with its own printed figures (one contradicting
    every run), and Samsung's Table 3: two figures at one read mix, one repeated row."""
    return pl.DataFrame(
        {
            "origin": ["measured", "measured", "measured", "published", "published",
                       "published", "published", "published"],
            "testbed": ["micron", "micron", "lab", "micron", "micron", "samsung", "samsung",
                        "samsung"],
            "result_id": ["r1", "r2", "r3", None, None, None, None, None],
            "iops_figure_id": [None, None, None, "f10", "f11", "t3-tcp", "t3-rdma", "t3-rdma"],
            "latency_figure_id": [None, None, None, "l10", "l11", None, None, None],
            "run_configuration": ["vsan_version=6.5", "vsan_version=6.7", "", "vsan_version=6.7",
                                  None, "transport=tcp", "transport=rdma", "transport=rdma"],
            "read_pct": [70, 70, 70, 70, 70, 70, 70, 70],
            "iops": [1.0, 2.0, 3.0, 2.5, 9.0, 4.0, 5.0, 5.0],
        }
    )  # fmt: skip


def test_ra_opens_on_a_testbed_against_its_own_printed_configuration_first() -> None:
    points = ra_points()
    measured, published = ra.by_origin(points, "measured"), ra.by_origin(points, "published")
    assert ra.testbeds(measured) == ["lab", "micron"]
    assert ra.testbeds(published) == ["micron", "samsung"]
    own = ra.of_testbed(measured, "micron")
    assert own["result_id"].to_list() == ["r1", "r2"]
    assert ra.of_testbed(measured, None).is_empty()
    # against its own document the printed configuration comes first; else in order
    assert ra.configurations(own, published, "micron", "micron") == [
        "vsan_version=6.7", "vsan_version=6.5",
    ]  # fmt: skip
    assert ra.configurations(own, published, "micron", "samsung") == [
        "vsan_version=6.5", "vsan_version=6.7",
    ]  # fmt: skip


def test_ra_draws_its_own_figures_under_the_chosen_configuration() -> None:
    points = ra_points()
    measured, published = ra.by_origin(points, "measured"), ra.by_origin(points, "published")
    own = ra.of_testbed(measured, "micron")
    rows = ra.chart_rows(own, published, "micron", "micron", ["vsan_version=6.7"])
    assert rows.data["result_id"].to_list() == ["r2", None]
    assert rows.data["iops_figure_id"].to_list() == [None, "f10"]
    assert rows.unmatched == 1  # f11 contradicts every run's configuration: counted, not drawn
    assert ra.title("micron", "micron") == (
        "IOPS and latency by read mix: micron (with its published figures)"
    )


def test_ra_draws_another_documents_figures_once_each_as_printed() -> None:
    points = ra_points()
    measured, published = ra.by_origin(points, "measured"), ra.by_origin(points, "published")
    own = ra.of_testbed(measured, "micron")
    rows = ra.chart_rows(own, published, "micron", "samsung", ["vsan_version=6.5"])
    assert rows.unmatched == 0
    # as printed: the document's own configuration, never renamed "(published)" (the legend
    # says published once, the subtitle whose document)
    assert rows.data["run_configuration"].to_list() == [
        "vsan_version=6.5",
        "transport=tcp",
        "transport=rdma",
    ]
    assert rows.data["origin"].to_list() == ["measured", "published", "published"]
    assert ra.title("micron", "samsung") == "IOPS and latency by read mix: micron vs samsung"
    # no reference: the measured points only; nothing at all: an empty frame
    alone = ra.chart_rows(own, published, "micron", ra.NO_REFERENCE, ["vsan_version=6.5"])
    assert alone.data["result_id"].to_list() == ["r1"]
    assert ra.chart_rows(own.clear(), published, None, ra.NO_REFERENCE, []).data.is_empty()
    assert ra.table(rows.data).columns == [
        "origin", "result_id", "iops_figure_id", "latency_figure_id", "testbed",
        "run_configuration", "read_pct", "iops",
    ]  # fmt: skip


# --- Published vs measured ----------------------------------------------------------------------


def published_rows() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "figure_id": ["f1", "f2", "f3", "f4"],
            "source_document": ["samsung", "micron", "micron", "micron"],
            "status": ["match", "mismatch", "match", "not_expressible"],
            "testbed": ["samsung", "micron", "lab", "micron"],
            "measured_value": [1.0, 2.0, 3.0, None],
            "target_mart": ["fct_workload_results", "per_node_iops", "dedupe_ratios", None],
            "matched_result_id": ["r1", "r2", "c3", None],
        }
    )


def test_published_rows_say_how_each_value_was_given_and_measured() -> None:
    figures = pl.DataFrame(
        {
            "figure_id": ["f1", "f2", "f3"],
            "derivation": ["derived", "published", "published"],
            "chart_read": [False, True, False],
            "note": ["sum of Table 2", None, None],
        }
    )
    rows = published.figures_table(published_rows(), figures, reconstructed=["samsung"])
    assert rows["published_as"].to_list() == [
        "derived here, never printed", "read off a chart", "printed", "unknown",
    ]  # fmt: skip
    assert rows["measured_on"].to_list() == [
        "reconstructed from the documents", "measured", "measured", None,
    ]  # fmt: skip
    # only a matched workload result links to the run explorer
    assert rows["result_id"].to_list() == ["r1", "r2", None, None]
    assert published.caption(rows).startswith("4 figures. Each row says how")
    assert "(`published_as`: 1 shown here were derived" in published.caption(rows)
    # without published_results rows every figure's derivation is unknown, never a guess
    bare = published.figures_table(published_rows(), pl.DataFrame(), reconstructed=[])
    assert set(bare["published_as"]) == {"unknown"}


def test_published_filters_by_study_and_status_and_counts_every_status() -> None:
    rows = published_rows()
    assert published.studies(rows) == ["micron", "samsung"]
    assert published.statuses(rows) == ["match", "mismatch", "not_expressible"]
    assert published.status_label("match").startswith("match (within the tolerance")
    micron = published.chosen(rows, ["micron"], ["match", "mismatch"])
    assert micron["figure_id"].to_list() == ["f2", "f3"]
    assert published.chosen(rows, [], []).height == 4
    assert published.status_counts(micron) == {
        "match": 1, "mismatch": 1, "ambiguous": 0, "unmatched": 0, "not_expressible": 0,
    }  # fmt: skip


# --- Profiles & configs, scaling, TCP vs RDMA, capacity ----------------------------------------


def test_config_delta_pairs_are_named_and_numbered_never_stacked() -> None:
    part = pl.DataFrame(
        {
            "from_value": ["6.2", "6.2", "6.2"],
            "to_value": ["6.5", "6.5", "6.5"],
            "testbed": ["micron", "micron", "micron"],
            "read_pct": [70, 70, 100],
            "working_set": ["cache", "cache", "cache"],
            "from_vm_count": [None, None, 8],
            "from_result_id": ["r1", "r3", "r5"],  # two pairs alike but for their results
        }
    )
    named = profile_deltas.named_pairs(part)
    # only what differs between the bars (read mix, VMs) is named; the testbed and working
    # set every bar shares are the subtitle's
    assert named["pair"].to_list() == [
        "6.2 → 6.5 · 70% read · VMs — #1",
        "6.2 → 6.5 · 70% read · VMs — #2",
        "6.2 → 6.5 · 100% read · 8 VMs",
    ]
    assert profile_deltas.pair_subtitle(part) == (
        "testbed micron · cache working set · varies: read mix, VMs"
    )
    # the first context that varies colours the bars
    assert profile_deltas.colour_choices(part) == (["working_set", "read_pct", "testbed"], 1)
    same = part.head(2).drop("read_pct")
    assert profile_deltas.colour_choices(same) == (["working_set", "testbed"], 0)


def test_a_profile_heatmap_never_averages_a_shared_cell() -> None:
    cells = pl.DataFrame(
        {"working_set": ["cache", "cache"], "profile": ["raid5", "raid5"], "read_pct": [70, 100]}
    )
    assert not profile_deltas.shares_cells(cells)
    assert profile_deltas.shares_cells(cells.with_columns(read_pct=pl.lit(70)))
    sizes = pl.DataFrame({"block_size_bytes": [65536, None, 4096, 4096]})
    assert profile_deltas.block_sizes(sizes) == [4096, 65536]


def test_sweeps_are_named_by_the_held_labels_that_differ() -> None:
    points = pl.DataFrame(
        {
            "sweep_id": ["s1", "s1", "s2", "s3"],
            "testbed": ["t", "t", "t", "t"],
            "axis_value": [1.0, 2.0, 1.0, 1.0],
            "held_equal_json": [
                '{"read_pct": 70, "testbed": "t"}', '{"read_pct": 70, "testbed": "t"}',
                '{"read_pct": 100, "testbed": "t"}', None,
            ],
        }
    )  # fmt: skip
    named = scaling.sweep_legend(points).points
    assert named["series"].to_list() == ["70% read", "70% read", "100% read", "read mix —"]
    one = scaling.sweep_legend(points.filter(pl.col("sweep_id") == "s1")).points
    assert one["series"].to_list() == ["sweep", "sweep"]
    assert scaling.axes(["working_set", "nodes", "unknown_axis"]) == ["nodes", "working_set"]
    assert "held_equal_json" not in scaling.table(points).columns


def test_tcp_rdma_pairs_testbeds_with_both_transports() -> None:
    side = pl.DataFrame(
        {
            "testbed": ["s", "s", "m", "m"],
            "transport": ["tcp", "rdma", "tcp", "tcp"],
            "read_pct": [70, 70, 100, 100],
            "run_ordinal": [1, 2, 1, 1],
        }
    )
    paired = transport.paired(side)
    assert transport.testbeds(paired) == ["s"]
    assert transport.with_workload(paired)["workload"].to_list() == [
        "70% read", "70% read · run 2",
    ]  # fmt: skip
    assert transport.testbeds(transport.paired(side.clear())) == []


def test_tcp_rdma_best_gain_or_the_first_pair_without_cpu_figures() -> None:
    eff = pl.DataFrame(
        {"testbed": ["s", "s"], "read_pct": [70, 100], "rdma_efficiency_gain_pct": [10.0, 66.4]}
    )
    assert transport.best_gain(eff)["read_pct"] == 100
    unknown = eff.with_columns(rdma_efficiency_gain_pct=pl.lit(None, pl.Float64))
    assert transport.best_gain(unknown)["read_pct"] == 70
    named = transport.with_testbed_workload(eff)
    # one testbed: the label names the read mix only (the testbed is the subtitle's)
    assert named["workload"].to_list() == ["70% read", "100% read"]
    assert transport.subtitle(named) == "testbed s · varies: read mix"


def test_capacity_headline_of_an_observation() -> None:
    # GIVEN the Micron RA's capacity test: 28.58 TiB logical on 3.48 TiB physical, RAID-5 3+1
    row = {
        "testbed": "micron", "profile": "density", "working_set": None,
        "captured_at": dt.datetime(2019, 5, 1, 12, 30, 45), "ftm": "RAID-5", "ftt": 1,
        "dedupe_compression_ratio": 8.2126, "capacity_multiplier": 1.3333,
        "usable_to_raw_ratio": 6.1594, "logical_used_tb": 31.424, "logical_used_tib": 28.58,
        "physical_used_tb": 3.826, "physical_used_tib": 3.48, "saved_tb": 27.598,
        "saved_tib": 25.10,
    }  # fmt: skip
    assert capacity.heading(row) == "**micron** · density · captured 2019-05-01 12:30 UTC"
    assert capacity.headline(row) == [
        ("Dedupe & compression", "8.21x", None),
        ("Capacity multiplier", "1.33x", "RAID-5 FTT=1"),
        ("Usable to raw", "6.16x", None),
        (
            "Saved, TB / TiB",
            "27.60 / 25.10",
            "logical 31.42 TB = 28.58 TiB, physical 3.83 TB = 3.48 TiB "
            "(TB = 10^12 bytes, TiB = 2^40 bytes)",
        ),
    ]
    unknown = {
        **row, "ftm": None, "physical_used_tb": None, "physical_used_tib": None,
        "saved_tb": None, "saved_tib": None, "capacity_multiplier": None,
    }  # fmt: skip
    assert capacity.headline(unknown)[1] == ("Capacity multiplier", "—", "no policy label")
    assert capacity.headline(unknown)[3][1:] == (
        "—", "logical 31.42 TB = 28.58 TiB, physical — (TB = 10^12 bytes, TiB = 2^40 bytes)",
    )  # fmt: skip
    ratios = pl.DataFrame({"captured_at": [None, dt.datetime(2019, 5, 1)]})
    assert capacity.undated(ratios) == 1
