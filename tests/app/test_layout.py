"""The shared display rules every page gets: `charts.finish` (ui.plot applies it to every
figure), the one block-size formatter, the one missing-value mark, CSV rounding and tables.

Figures are built the way the chart modules build them (make_subplots grids, secondary y
axes, per-panel traces), so each rule is checked on the shape that showed the defect.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go
import polars as pl
import pytest
from plotly.subplots import make_subplots

from app.lib import charts, ui
from app.lib.charts.common import TEMPLATE, empty_figure, workload_label

WORKLOADS = ["0% read, 4K, random, OIO 960", "100% read, 4K, random, OIO 960"]


@pytest.mark.parametrize(
    ("size", "label"),
    [(512, "512B"), (4096, "4K"), (65536, "64K"), (131072, "128K"), (1536, "1.5K"),
     (1048576, "1M"), (4194304, "4M")],
)  # fmt: skip
def test_block_sizes_read_as_storage_tools_print_them(size: int, label: str) -> None:
    assert charts.bytes_label(size) == label


def test_workload_label_uses_the_block_size_formatter() -> None:
    row = {"read_pct": 70, "block_size_bytes": 131072, "random_pct": 0, "outstanding_io": 960}
    assert workload_label(row) == "70% read, 128K, seq, OIO 960"


@pytest.mark.parametrize("value", [None, float("nan")])
def test_a_missing_value_is_shown_one_way(value: object) -> None:
    assert charts.display(value) == charts.MISSING == "—"
    assert ui.fmt(value, ",.0f") == "—"
    assert charts.display(3.25, ".1f") == "3.2"


def _grid() -> go.Figure:
    """The TCP/RDMA shape: 2x2 panels over the same workloads, long category labels."""
    fig = make_subplots(rows=2, cols=2, subplot_titles=["IOPS", "MB/s", "Latency", "CPU"])
    for i, values in enumerate(([3e5, 1.4e6], [1e3, 5e3], [3.0, 0.7], [65.0, 99.0])):
        row, col = divmod(i, 2)
        fig.add_trace(
            go.Bar(x=WORKLOADS, y=values, name="TCP", showlegend=i == 0), row + 1, col + 1
        )
        fig.update_xaxes(title_text="Workload", row=row + 1, col=col + 1)
    return fig


def test_grid_rows_over_the_same_workloads_keep_only_the_bottom_labels() -> None:
    fig = charts.finish(_grid())
    # Bottom row (xaxis3, xaxis4) keeps labels and titles; the row above shares them.
    for upper, lower in (("xaxis", "x3"), ("xaxis2", "x4")):
        assert fig.layout[upper].showticklabels is False
        assert fig.layout[upper].title.text is None
        assert fig.layout[upper].matches == lower
    for lower in ("xaxis3", "xaxis4"):
        assert fig.layout[lower].showticklabels is not False
        assert fig.layout[lower].title.text == "Workload"


def test_grid_rows_over_different_categories_keep_their_labels() -> None:
    fig = _grid()
    fig.data[0].x = ["other A", "other B"]
    charts.finish(fig)
    assert fig.layout.xaxis.showticklabels is not False
    assert fig.layout.xaxis.title.text == "Workload"


def _dual_axis(with_iops: bool) -> go.Figure:
    """The RA shape: IOPS bars and a latency line on a second y axis, per panel."""
    fig = make_subplots(rows=1, cols=2, specs=[[{"secondary_y": True}] * 2])
    fig.add_trace(go.Bar(x=["70% read"], y=[480_000], name="IOPS"), 1, 1, secondary_y=False)
    fig.add_trace(go.Scatter(x=["70% read"], y=[4.397], name="lat"), 1, 1, secondary_y=True)
    iops = [150_000] if with_iops else [None]
    fig.add_trace(go.Bar(x=["70% read"], y=iops, name="IOPS b"), 1, 2, secondary_y=False)
    fig.add_trace(go.Scatter(x=["70% read"], y=[5.2], name="lat b"), 1, 2, secondary_y=True)
    return fig


def test_second_axes_get_their_own_round_ticks() -> None:
    fig = charts.finish(_dual_axis(with_iops=True))
    seconds = [fig.layout[k] for k in ("yaxis2", "yaxis4")]
    # Plotly.js 3 syncs an overlaying axis to the first one's grid (4.397-style ticks)
    # unless its tickmode is set.
    assert [a.overlaying for a in seconds] == ["y", "y3"]
    assert [a.tickmode for a in seconds] == ["auto", "auto"]
    assert fig.layout.yaxis.tickmode is None  # first axes untouched


def test_an_axis_without_data_is_hidden_not_drawn_minus_one_to_four() -> None:
    fig = charts.finish(_dual_axis(with_iops=False))
    # The right panel's IOPS axis has no value: hidden; its latency axis stays.
    assert fig.layout.yaxis3.visible is False
    assert fig.layout.yaxis4.visible is not False
    assert fig.layout.yaxis.visible is not False
    # The panel still has data (latency), so no "No data" note.
    assert not [a for a in fig.layout.annotations if a.text == "No data"]


def test_a_panel_without_any_data_says_so_in_its_middle() -> None:
    fig = make_subplots(rows=1, cols=2)
    fig.add_trace(go.Bar(x=["a"], y=[1.0], name="one"), 1, 1)
    fig.add_trace(go.Bar(x=["a"], y=[None], name="two"), 1, 2)
    charts.finish(fig)
    notes = [a for a in fig.layout.annotations if a.text == "No data"]
    assert len(notes) == 1
    assert math.isclose(notes[0].x, sum(fig.layout.xaxis2.domain) / 2)
    assert fig.layout.xaxis2.visible is False and fig.layout.yaxis2.visible is False


def test_an_empty_figure_has_no_axes() -> None:
    fig = charts.finish(empty_figure("Nothing"))
    assert fig.layout.xaxis.visible is False and fig.layout.yaxis.visible is False
    assert [a.text for a in fig.layout.annotations] == ["No data"]
    bare = charts.finish(go.Figure(go.Scatter(x=[], y=[])))
    assert bare.layout.xaxis.visible is False
    assert [a.text for a in bare.layout.annotations] == ["No data"]


def test_every_trace_gets_a_legend_entry() -> None:
    fig = make_subplots(rows=1, cols=2)
    # A group shown in the first panel only, and one whose traces all hide their entry
    # (the Lenovo traces drawn only in a second panel had none).
    fig.add_trace(go.Bar(x=["a"], y=[1], name="micron", legendgroup="m"), 1, 1)
    fig.add_trace(go.Bar(x=["a"], y=[2], name="micron", legendgroup="m", showlegend=False), 1, 2)
    fig.add_trace(go.Bar(x=["a"], y=[3], name="lenovo", legendgroup="l", showlegend=False), 1, 2)
    fig.add_trace(go.Scatter(x=["a"], y=[4], name="lenovo", legendgroup="l", showlegend=False))
    charts.finish(fig)
    assert [t.showlegend for t in fig.data] == [None, False, True, False]


def test_a_block_size_axis_is_labelled_at_the_sizes_present() -> None:
    fig = go.Figure(go.Scatter(x=[4096, 65536, 1048576], y=[3.0, 2.0, 1.0]))
    fig.update_layout(xaxis_title=charts.axis_title("block_size_bytes"), xaxis_type="log")
    charts.finish(fig)
    assert list(fig.layout.xaxis.tickvals) == [4096, 65536, 1048576]
    assert list(fig.layout.xaxis.ticktext) == ["4K", "64K", "1M"]
    assert fig.layout.xaxis.title.text == "Block size"


def test_the_legend_sits_at_the_foot_of_the_figure() -> None:
    # Container coordinates: Plotly grows the bottom margin for it, below the tick labels.
    assert TEMPLATE.layout.legend.yref == "container"
    assert (TEMPLATE.layout.legend.y, TEMPLATE.layout.legend.yanchor) == (0, "bottom")


def test_csv_export_has_no_float_noise() -> None:
    df = pl.DataFrame(
        {
            "iops": [3844999.999998, 1234.5678, None],
            "read_share": [0.1 + 0.2, 0.123456, 1 / 3],
            "block_size_bytes": [4096, 65536, None],
        }
    )
    text = ui.csv_bytes(df).decode()
    assert text.splitlines() == [
        "iops,read_share,block_size_bytes",
        "3845000.0,0.3,4096",
        "1234.5678,0.123456,65536",
        ",0.3333333333,",
    ]


def test_tables_show_missing_values_and_block_sizes_one_way() -> None:
    df = pl.DataFrame(
        {"block_size_bytes": [4096, 1048576, None], "iops": [1.0, float("nan"), None]}
    )
    shown = ui.table_frame(df)
    assert shown["block_size_bytes"].to_list() == ["4K", "1M", None]
    # NaN becomes NULL, which st.dataframe draws with the MISSING placeholder.
    assert shown["iops"].to_list() == [1.0, None, None]


def test_small_webgl_traces_are_drawn_as_svg() -> None:
    hours = list(range(2000))
    fig = make_subplots(rows=2, cols=1)
    fig.add_trace(go.Scattergl(x=hours, y=hours, name="esx-01", line={"shape": "hv"}), 1, 1)
    fig.add_trace(go.Bar(x=["a"], y=[1.0], name="bars"), 2, 1)
    drawn = charts.finish(fig)
    assert [t.type for t in drawn.data] == ["scatter", "bar"]
    assert drawn.data[0].line.shape == "hv" and list(drawn.data[0].y) == hours
    assert drawn.data[0].yaxis == "y" and drawn.data[1].yaxis == "y2"
    many = list(range(charts.layout.SVG_MAX_POINTS + 1))
    big = charts.finish(go.Figure(go.Scattergl(x=many, y=many)))
    assert [t.type for t in big.data] == ["scattergl"]


def test_a_long_legend_makes_the_figure_taller_not_the_plot_smaller() -> None:
    # The RA shape: per profile and figure an IOPS bar and a latency line in one group.
    fig = go.Figure(layout={"template": TEMPLATE, "height": 600})
    for i in range(12):
        name = f"profile {i} · published · figure: Figure {i}"
        fig.add_trace(go.Bar(x=["70% read"], y=[1e5], name=f"{name} IOPS", legendgroup=name))
        fig.add_trace(go.Scatter(x=["70% read"], y=[1.0], name=f"{name} lat", legendgroup=name))
    charts.finish(fig)
    # 12 groups of 2 entries (50 px tall), 45 + 7 x 45 = 360 px wide ("profile 0 · ...
    # IOPS" has 45 characters): two per 1,000 px line, six lines.
    assert fig.layout.height == 600 + 6 * 50
    one = charts.finish(go.Figure(go.Bar(x=["a"], y=[1.0], name="only")))
    assert one.layout.height is None  # a single trace shows no legend
