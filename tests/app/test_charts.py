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
    assert titles == {"Read mix (% reads)", "IOPS (IO/s)", "Average latency (ms)"}


def test_ra_comparison_marks_published_bars() -> None:
    fig = charts.ra_comparison(ra_frame(("measured", "published"), ("cache",)))
    published = [t for t in fig.data if t.type == "bar" and "published" in t.name]
    assert published and all(t.marker.pattern.shape == "/" for t in published)


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
            "testbed": ["lab"],
            "captured_at": [datetime(2026, 3, 2, 10, 0, tzinfo=UTC)],
            "logical_used_bytes": [28_580_000_000_000],
            "physical_used_bytes": [3_480_000_000_000],
        }
    )
    fig = charts.capacity_bars(df)
    assert [round(t.y[0], 2) for t in fig.data] == [28.58, 3.48]
    assert fig.layout.yaxis.title.text == "Capacity used (TB, 10^12 bytes)"


def test_scaling_scatter_one_line_per_group_and_log_block_size() -> None:
    df = pl.DataFrame(
        {
            "testbed": ["a", "a", "b"],
            "block_size_bytes": [4096, 65536, 4096],
            "iops_per_node": [30_000.0, 8_000.0, 25_000.0],
        }
    )
    fig = charts.scaling_scatter(df, x="block_size_bytes")
    assert len(fig.data) == 2
    assert fig.layout.xaxis.type == "log"
    assert axis_titles(fig) == {"Block size (bytes)", "IOPS per node (IO/s)"}


def test_config_delta_bars_skip_missing_metrics() -> None:
    df = pl.DataFrame(
        {
            "from_value": ["tcp"],
            "to_value": ["rdma"],
            "iops_delta_pct": [15.0],
            "avg_latency_delta_pct": [-13.3],
            "p95_latency_delta_pct": [None],
        }
    )
    fig = charts.config_delta_bars(df)
    assert [t.name for t in fig.data] == ["IOPS", "Average latency"]
    assert fig.layout.yaxis.title.text == "Change from the first value (%)"


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
            "70% read, 4 KiB, random, OIO 512",
            id="full",
        ),
        pytest.param(
            {"read_pct": 0, "block_size_bytes": 1048576, "random_pct": 0},
            "0% read, 1 MiB, seq",
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
