"""Chart builders are pure: axis titles carry units, trace counts follow the data."""

from __future__ import annotations

from datetime import UTC, datetime

import plotly.graph_objects as go
import polars as pl
import pytest

from app.lib import charts


def ra_frame(origins=("measured",), working_sets=("cache", "capacity")) -> pl.DataFrame:
    rows = [
        {
            "working_set": ws,
            "profile": profile,
            "origin": origin,
            "read_pct": mix,
            "iops": 100_000 + mix,
            "avg_latency_ms": 1.5,
        }
        for ws in working_sets
        for profile in ("baseline", "density")
        for origin in origins
        for mix in (0, 30, 50, 70, 100)
    ]
    return pl.DataFrame(rows)


def axis_titles(fig: go.Figure) -> set[str]:
    layout = fig.to_dict()["layout"]
    return {
        value["title"]["text"]
        for key, value in layout.items()
        if key.startswith(("xaxis", "yaxis")) and value.get("title", {}).get("text")
    }


@pytest.mark.parametrize(
    ("origins", "working_sets", "traces"),
    [
        # bar + latency line per profile (2) x origin x working set
        pytest.param(("measured",), ("cache", "capacity"), 8, id="cache-and-capacity"),
        pytest.param(("measured", "published"), ("cache",), 8, id="with-published"),
        pytest.param(("measured",), ("cache",), 4, id="cache-only"),
    ],
)
def test_ra_comparison_traces(origins, working_sets, traces) -> None:
    fig = charts.ra_comparison(ra_frame(origins, working_sets))
    assert len(fig.data) == traces
    bars = [t for t in fig.data if t.type == "bar"]
    lines = [t for t in fig.data if t.type == "scatter"]
    assert len(bars) == len(lines) == traces // 2
    assert all(t.yaxis in {"y2", "y4"} for t in lines)  # latency on the secondary axis
    assert list(bars[0].x) == ["0% read", "30% read", "50% read", "70% read", "100% read"]


def test_ra_comparison_axis_titles_have_units() -> None:
    titles = axis_titles(charts.ra_comparison(ra_frame()))
    # the axis titles tell the bars (IOPS) from the points (latency): no legend entry does
    assert titles == {"Read mix (% reads)", "IOPS (IO/s): bars", "Average latency (ms): points"}


def test_ra_comparison_marks_published_bars() -> None:
    fig = charts.ra_comparison(ra_frame(("measured", "published"), ("cache",)))
    published = [t for t in fig.data if t.type == "bar" and "published" in t.name]
    assert published and all(t.marker.pattern.shape == "/" for t in published)
    # outlined in black: told from the measured bars in greyscale too
    assert all(t.marker.line.color == "#000000" and t.marker.line.width > 0 for t in published)
    # beside the measured bars, never in their slot
    measured = [t for t in fig.data if t.type == "bar" and "measured" in t.name]
    assert not {t.offsetgroup for t in published} & {t.offsetgroup for t in measured}


def test_profile_delta_heatmap_one_heatmap_per_working_set() -> None:
    df = ra_frame().with_columns(latency_vs_baseline_pct=pl.lit(12.5))
    fig = charts.profile_delta_heatmap(df, metric="latency_vs_baseline_pct")
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert list(fig.data[0].y) == ["baseline", "density"]
    assert fig.data[0].text[0][0] == "+12.5%"
    assert "Read mix (% reads)" in axis_titles(fig)


def test_transport_side_by_side_has_four_panels_with_units() -> None:
    df = pl.DataFrame(
        {
            "workload": ["70% read"] * 2,
            "transport": ["tcp", "rdma"],
            "iops": [400_000, 460_000],
            "throughput_mb_s": [1638.4, 1884.2],
            "avg_latency_ms": [1.28, 1.11],
            "cpu_util_pct": [80.0, 70.0],
        }
    )
    fig = charts.transport_side_by_side(df)
    assert len(fig.data) == 8  # 4 metrics x 2 transports
    assert {
        "IOPS (IO/s)",
        "Throughput (MB/s, 10^6 bytes)",
        "Average latency (ms)",
        "Host CPU (% of capacity)",
    } <= axis_titles(fig)


def test_iops_per_cpu_annotates_gain() -> None:
    df = pl.DataFrame(
        {
            "workload": ["70% read"],
            "tcp_iops_per_cpu_pct": [5000.0],
            "rdma_iops_per_cpu_pct": [6571.4],
            "rdma_efficiency_gain_pct": [31.4],
        }
    )
    fig = charts.iops_per_cpu(df)
    assert [t.name for t in fig.data] == ["TCP", "RDMA"]
    assert fig.layout.annotations[0].text == "RDMA +31%"
    assert fig.layout.yaxis.title.text == "IOPS per CPU percent (IO/s per %)"


def test_capacity_bars_in_terabytes() -> None:
    df = pl.DataFrame(
        {
            "capacity_observation_id": [1],
            "testbed": ["lab"],
            "captured_at": [datetime(2026, 3, 2, 10, 0, tzinfo=UTC)],
            "logical_used_tb": [28.58],
            "logical_used_tib": [28.58e12 / 2**40],
            "physical_used_tb": [3.48],
            "physical_used_tib": [3.48e12 / 2**40],
        }
    )
    fig = charts.capacity_bars(df)
    assert [round(t.y[0], 2) for t in fig.data] == [28.58, 3.48]
    assert [round(t.customdata[0], 2) for t in fig.data] == [25.99, 3.17]
    assert fig.layout.yaxis.title.text == "Capacity used (TB, 10^12 bytes)"


def config_rows() -> pl.DataFrame:
    # Two rows of one dimension in two working sets: vsan_version 6.2 -> 6.5 at 70 % read
    # (Micron brief: cache +71 %, capacity +55 %); the cache row has an IOPS interval.
    return pl.DataFrame(
        {
            "from_value": ["6.2", "6.2"],
            "to_value": ["6.5", "6.5"],
            "working_set": ["cache", "capacity"],
            "pair": ["6.2 → 6.5 · 70% read, cache", "6.2 → 6.5 · 70% read, capacity"],
            "from_iops": [120_000.0, 90_000.0],
            "iops_delta_pct": [71.0, 55.0],
            "iops_delta_ci95_low": [80_000.0, None],
            "iops_delta_ci95_high": [90_400.0, None],
            "significance_note": ["the 95 % interval of the IOPS difference excludes 0", None],
        }
    )


def test_config_delta_bars_one_bar_per_row_never_summed() -> None:
    fig = charts.config_delta_bars(config_rows(), color_by="working_set")
    bars = [(t.name, list(t.x), list(t.y)) for t in fig.data]
    # +71 and +55 stay two bars (never one +126 % bar), one colour per working set
    assert bars == [
        ("cache working set", ["6.2 → 6.5<br>70% read, cache"], [71.0]),
        ("capacity working set", ["6.2 → 6.5<br>70% read, capacity"], [55.0]),
    ]
    cache, capacity = fig.data
    # the IOPS interval [80,000, 90,400] of 120,000 = [66.7 %, 75.3 %] around +71 %
    assert cache.error_y.array[0] == pytest.approx(100 * 90_400 / 120_000 - 71.0)
    assert cache.error_y.arrayminus[0] == pytest.approx(71.0 - 100 * 80_000 / 120_000)
    assert capacity.error_y.array is None
    assert list(capacity.customdata) == ["no spread information"]
    assert fig.layout.yaxis.title.text == "Change in IOPS (%)"


def test_config_delta_bars_refuse_rows_that_would_stack() -> None:
    # one x label and one colour for two rows: a bar would hold both
    rows = config_rows().with_columns(pair=pl.lit("6.2 → 6.5"), working_set=pl.lit("cache"))
    with pytest.raises(ValueError, match="added up"):
        charts.config_delta_bars(rows)


@pytest.mark.parametrize(
    "builder",
    [
        pytest.param(charts.ra_comparison, id="ra"),
        pytest.param(charts.transport_side_by_side, id="transport"),
        pytest.param(charts.iops_per_cpu, id="iops-per-cpu"),
        pytest.param(charts.capacity_bars, id="capacity"),
        pytest.param(charts.config_delta_bars, id="config"),
    ],
)
def test_empty_frame_gives_a_no_data_figure(builder) -> None:
    fig = builder(pl.DataFrame())
    assert len(fig.data) == 0
    assert fig.layout.annotations[0].text == "No data"


@pytest.mark.parametrize(
    ("row", "label"),
    [
        pytest.param(
            {"read_pct": 70, "block_size_bytes": 4096, "random_pct": 100, "outstanding_io": 512},
            "70% read, 4K, random, OIO 512",
            id="full",
        ),
        pytest.param(
            {"read_pct": 0, "block_size_bytes": 1048576, "random_pct": 0},
            "0% read, 1M, seq",
            id="sequential",
        ),
        pytest.param({}, "workload", id="nothing-known"),
    ],
)
def test_workload_label(row, label) -> None:
    assert charts.workload_label(row) == label


def test_png_download_config() -> None:
    config = charts.png_config("ra")
    assert config["toImageButtonOptions"]["format"] == "png"
    assert config["toImageButtonOptions"]["filename"] == "ra"
    assert config["showSendToCloud"] is False and config["showEditInChartStudio"] is False


def sweep_frame() -> tuple[pl.DataFrame, list[int]]:
    # Samsung Figure 7 (100 % read, 3 VMs): MB/s 2,150 at 4K ... 18,400 at 64K ... 15,800 at 1M
    sizes = [4096, 65536, 1048576]
    return pl.DataFrame(
        {
            "series": ["100% read, seq"] * 3,
            "block_size_bytes": [1048576, 4096, 65536],  # out of order: the chart sorts
            "throughput_mb_s": [15800.0, 2150.0, 18400.0],
            "avg_latency_ms": [12.7, 0.37, 0.68],
            "result_id": ["r1m", "r4k", "r64k"],
        }
    ).with_columns(pl.col("block_size_bytes").cast(pl.Int64)), sizes


def test_sweep_lines_connect_points_in_axis_order_with_latency_on_the_right() -> None:
    from app.lib.charts import studies

    df, sizes = sweep_frame()
    fig = studies.sweep_lines(df, x="block_size_bytes", y="throughput_mb_s", title="sizes")
    mbs, latency = fig.data
    assert list(mbs.x) == sizes and list(mbs.y) == [2150.0, 18400.0, 15800.0]
    assert mbs.mode == "lines+markers" and list(mbs.customdata) == ["r4k", "r64k", "r1m"]
    assert latency.yaxis == "y2" and latency.line.dash == "dash"
    # one legend entry per sweep: its latency line shares it (the axis titles say which)
    assert [(t.name, t.showlegend) for t in fig.data] == [
        ("100% read, seq", True),
        ("100% read, seq", False),
    ]
    assert latency.legendgroup == mbs.legendgroup
    assert fig.layout.xaxis.type == "log"
    assert list(fig.layout.xaxis.ticktext) == ["4K", "64K", "1M"]


def test_study_charts_refuse_two_rows_at_one_x() -> None:
    from app.lib.charts import studies

    df, _ = sweep_frame()
    twice = pl.concat([df, df.head(1)])
    with pytest.raises(ValueError, match="never merges"):
        studies.sweep_lines(twice, x="block_size_bytes", y="throughput_mb_s", title="t")
    runs = pl.DataFrame({"profile": ["run1", "run1"], "iops": [1.0, 2.0]})
    with pytest.raises(ValueError, match="never merges"):
        studies.metric_panels(runs, x="profile", metrics=("iops",), title="t")


def test_metric_panels_one_bar_per_row_and_a_legend_entry_per_colour() -> None:
    from app.lib.charts import studies

    df = pl.DataFrame(
        {
            "workload": ["70% read", "70% read", "100% read", "100% read"],
            "transport": ["tcp", "rdma", "tcp", "rdma"],
            "iops": [134_984.0, 170_668.0, 1_414_282.0, 1_441_071.0],
            "iops_per_cpu_pct": [1_799.8, 2_994.2, 14_285.7, 14_556.3],
        }
    )
    fig = studies.metric_panels(
        df, x="workload", color_by="transport", metrics=("iops", "iops_per_cpu_pct"), title="t"
    )
    assert [(t.name, t.showlegend) for t in fig.data] == [
        ("tcp", True),
        ("rdma", True),
        ("tcp", False),
        ("rdma", False),
    ]
    assert list(fig.data[3].y) == [2_994.2, 14_556.3]
    assert axis_titles(fig) >= {"IOPS (IO/s)", "IOPS per CPU percent (IO/s per %)"}


def test_ra_comparison_refuses_two_results_in_one_series_at_one_read_mix() -> None:
    df = ra_frame(working_sets=("cache",))
    with pytest.raises(ValueError, match="nothing may merge"):
        charts.ra_comparison(pl.concat([df, df.head(1)]))
    # numbered repeats are two series, never one bar
    repeats = pl.concat([df.head(1), df.head(1)]).with_columns(
        run_ordinal=pl.Series([1, 2]), runs_at_point=pl.lit(2)
    )
    fig = charts.ra_comparison(repeats)
    assert [t.name for t in fig.data if t.type == "bar"] == ["run 1", "run 2"]


# --- Layout rules every chart gets (charts.finish) -----------------------------------------

LONG_SUBTITLE = (
    "testbed micron-sata-vsan67 · 4K · random · OIO 16 · 16 VMs · 4 nodes · profile density"
    " · working set capacity · transport tcp · vSAN 6.7 · origin reconstructed"
)


def test_the_title_block_has_room_for_a_wrapped_subtitle() -> None:
    # GIVEN a chart whose subtitle is longer than one line holds
    fig = go.Figure(go.Bar(x=["a"], y=[1]), layout={"template": charts.common.TEMPLATE})
    fig.update_layout(title="IOPS by profile", height=450)
    charts.finish(charts.with_subtitle(fig, LONG_SUBTITLE))
    # THEN it is cut at " · " into lines that each fit, with every part kept in order
    lines = fig.layout.title.subtitle.text.split("<br>")
    assert len(lines) == 2
    assert all(len(line) <= charts.layout.SUBTITLE_LINE_CHARS for line in lines)
    assert " · ".join(lines) == LONG_SUBTITLE
    # and the title block is pinned to the top with a margin as tall as its lines, the figure
    # taller by what the margin gained (the plot keeps its height)
    assert (fig.layout.title.yref, fig.layout.title.y, fig.layout.title.yanchor) == (
        "container",
        1,
        "top",
    )
    assert fig.layout.margin.t == 14 + 26 + 2 * 17 + 16
    assert fig.layout.height == 450 + fig.layout.margin.t - 80


def test_a_chart_without_subtitle_keeps_its_top_margin() -> None:
    fig = charts.finish(go.Figure(go.Bar(x=["a"], y=[1]), layout={"title": "IOPS"}))
    assert fig.layout.margin.t is None and fig.layout.height is None


@pytest.mark.parametrize(
    ("names", "order"),
    [
        pytest.param(["100% read", "0% read", "70% read"], ["0% read", "70% read", "100% read"]),
        pytest.param(["1M", "4K", "64K"], ["4K", "64K", "1M"], id="block-sizes"),
        pytest.param(["16 VMs", "1 VM", "4 VMs"], ["1 VM", "4 VMs", "16 VMs"], id="vms"),
    ],
)
def test_legend_entries_named_by_numbers_are_in_numeric_order(names, order) -> None:
    fig = go.Figure([go.Bar(x=["a"], y=[i + 1], name=n) for i, n in enumerate(names)])
    charts.finish(fig)
    ranked = sorted(fig.data, key=lambda t: t.legendrank)
    assert [t.name for t in ranked] == order


def test_a_legend_of_words_or_with_its_own_ranks_is_left_alone() -> None:
    words = go.Figure([go.Bar(x=["a"], y=[1], name=n) for n in ("density", "baseline")])
    assert [t.legendrank for t in charts.finish(words).data] == [None, None]
    mixed = go.Figure([go.Bar(x=["a"], y=[1], name=n) for n in ("70% read", "published")])
    assert [t.legendrank for t in charts.finish(mixed).data] == [None, None]
    own = go.Figure(
        [go.Bar(x=["a"], y=[1], name="100", legendrank=1), go.Bar(x=["a"], y=[1], name="0")]
    )
    assert [t.legendrank for t in charts.finish(own).data] == [1, None]


def test_long_category_labels_are_wrapped_not_rotated() -> None:
    # GIVEN three bars whose workload labels are longer than their slot
    labels = [
        "raid1 → raid5 · my-lab-4node · 0% read, 4K, random, OIO 16, cache, 1 VM",
        "raid1 → raid6 · my-lab-4node · 70% read, 4K, random, OIO 16, cache",
        "baseline",
    ]
    fig = charts.finish(go.Figure(go.Bar(x=labels, y=[3, 2, 1])))
    axis = fig.layout.xaxis
    # THEN each label is a few horizontal lines, word for word, at its own category
    assert axis.tickangle == 0 and list(axis.tickvals) == labels
    assert [t.replace("<br>", " ") for t in axis.ticktext] == labels
    assert all(1 < t.count("<br>") + 1 <= 4 for t in axis.ticktext[:2])
    assert axis.ticktext[2] == "baseline"


def test_short_or_too_many_category_labels_are_left_to_plotly() -> None:
    short = charts.finish(go.Figure(go.Bar(x=["4K", "64K"], y=[1, 2])))
    assert short.layout.xaxis.tickmode is None
    many = [f"result {i:03d} of a long sweep of workloads" for i in range(60)]
    crowded = charts.finish(go.Figure(go.Bar(x=many, y=list(range(60)))))
    assert crowded.layout.xaxis.tickmode is None


def test_a_long_subtitle_part_is_broken_after_a_comma_never_inside_a_side() -> None:
    from app.lib.charts.layout import _subtitle_lines

    line = "configuration " + ", ".join(f"key{i}=value{i}" for i in range(12))
    assert _subtitle_lines(line, 60) == [
        "configuration key0=value0, key1=value1, key2=value2",
        "key3=value3, key4=value4, key5=value5, key6=value6",
        "key7=value7, key8=value8, key9=value9, key10=value10",
        "key11=value11",
    ]
    assert _subtitle_lines("short · line") == ["short · line"]
    # a statement breaks between its sides, never inside one; given breaks are kept
    said = "published: OIO 512, 16 VMs · measured: baseline profile, OIO 16, 1 VM"
    assert _subtitle_lines(said + "<br>hatched: x", 50) == [
        "published: OIO 512, 16 VMs",
        "measured: baseline profile, OIO 16, 1 VM",
        "hatched: x",
    ]
