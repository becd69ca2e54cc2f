"""The run explorer's charts: one result's latency figures, spread, percentiles, histogram and
series over the run. Each reads the named columns of its mart; `subtitle` names the result's
workload and configuration (views.run_explorer.result_subtitle), so an export says which run
it is."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    COLUMNS,
    MISSING,
    PALETTE,
    TEMPLATE,
    axis_title,
    color,
    empty_figure,
    has_values,
    is_missing,
    plot_values,
    thin,
    traces,
    with_subtitle,
)

# The steady-state window's shading: the palette's bluish green, light.
WINDOW_COLOR = PALETTE[2]

LATENCY_FIGURES = [
    "avg_latency_ms",
    "read_latency_ms",
    "write_latency_ms",
    "p95_latency_ms",
    "p99_latency_ms",
]
SPREAD_METRICS = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms", "p99_latency_ms"]


def latency_figures(
    row: Mapping[str, object], *, title: str = "Latency", subtitle: str = ""
) -> go.Figure:
    """Bars of one result's latency figures (average, read, write, p95, p99) in ms."""
    present = [c for c in LATENCY_FIGURES if not is_missing(row.get(c))]
    if not present:
        return empty_figure(title)
    values = [float(row[c]) for c in present]  # type: ignore[arg-type]
    fig = go.Figure(
        go.Bar(
            x=[COLUMNS[c][0] for c in present],
            y=values,
            marker_color=[color(i) for i in range(len(present))],
            text=[f"{v:.2f}" for v in values],
            textposition="outside",
        )
    )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title="Latency figure",
        yaxis_title="Latency (ms)",  # average, read, write and percentiles alike
        height=380,
        hovermode="closest",
    )
    return with_subtitle(fig, subtitle)


def spread_strip(df: pl.DataFrame, *, title: str = "Spread", subtitle: str = "") -> go.Figure:
    """`fct_result_outputs`: one box (with every point) per metric, how far the VMs, hosts or
    jobs of a result differ; hover names the output (`output_label`)."""
    metrics = [c for c in SPREAD_METRICS if has_values(df, c)]
    if df.is_empty() or not metrics:
        return empty_figure(title)
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[axis_title(m) for m in metrics])
    names = df["output_label"].cast(pl.String).fill_null(MISSING).to_list()
    for i, metric in enumerate(metrics, start=1):
        fig.add_trace(
            go.Box(
                y=df[metric].to_list(),
                text=names,
                name=COLUMNS[metric][0],
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker={"color": color(i - 1), "size": 6},
                hovertemplate="%{text}: %{y:,.3f}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=i,
        )
    fig.update_layout(template=TEMPLATE, title=title, height=380, hovermode="closest")
    return with_subtitle(fig, subtitle)


def _lines(
    df: pl.DataFrame,
    title: str,
    axes: dict[str, str],
    *,
    x: str,
    y: str,
    by: list[str],
    trace: type,
    subtitle: str = "",
    **style: object,
) -> go.Figure:
    """One line of `y` against `x` per `by` group (named "all I/O" when there is one), in a
    400-pixel figure with `title` and `axes` (axis titles and types); the empty figure when
    there is no row."""
    if df.is_empty():
        return empty_figure(title)
    line_style = dict(style.pop("line", {}))  # type: ignore[call-overload]
    fig = go.Figure()
    for i, (name, part) in enumerate(traces(df, by)):
        part = thin(part.sort(x))
        fig.add_trace(
            trace(
                x=part[x].to_list(),
                y=part[y].to_list(),
                name=name or "all I/O",
                line={"color": color(i), **line_style},
                **style,
            )
        )
    fig.update_layout(template=TEMPLATE, height=400, title=title, **axes)
    return with_subtitle(fig, subtitle)


def percentile_curve(
    df: pl.DataFrame, *, title: str = "Latency percentiles", subtitle: str = ""
) -> go.Figure:
    """`fct_result_latency_percentiles`: completion latency against percentile, one line per
    direction; log latency axis."""
    axes = {
        "xaxis_title": "Percentile (% of I/Os completed within)",
        "yaxis_title": "Latency (ms)",
        "yaxis_type": "log",
    }
    return _lines(
        df, title, axes, x="percentile", y="latency_ms", by=["direction"], trace=go.Scatter,
        subtitle=subtitle, mode="lines+markers",
    )  # fmt: skip


def latency_histogram(
    df: pl.DataFrame, *, title: str = "Latency histogram", subtitle: str = ""
) -> go.Figure:
    """`fct_result_latency_histogram`: fio json+ completion-latency bins, I/Os per bin, one
    line per direction and latency kind; log latency axis."""
    axes = {
        "xaxis_title": "Completion latency, bucket upper bound (ms)",
        "xaxis_type": "log",
        "yaxis_title": "Io count",
    }
    return _lines(
        df, title, axes, x="bin_ms", y="io_count", by=["direction", "latency_kind"],
        trace=go.Scattergl, subtitle=subtitle, mode="lines", line={"shape": "hv"},
    )  # fmt: skip


def time_lines(
    df: pl.DataFrame,
    *,
    x: str,
    metrics: list[str],
    by: list[str],
    title: str,
    window: tuple[float, float] | None = None,
    subtitle: str = "",
) -> go.Figure:
    """Time series, one subplot per metric and one WebGL line per `by` group (host, VM...);
    `window` (x from, to) is shaded on every subplot: the steady-state window."""
    metrics = [m for m in metrics if has_values(df, m)]
    if df.is_empty() or x not in df.columns or not metrics:
        return empty_figure(title)
    fig = make_subplots(
        rows=len(metrics),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=[axis_title(m) for m in metrics],
    )
    groups = list(traces(df.sort(x), by))
    for row, metric in enumerate(metrics, start=1):
        for i, (name, part) in enumerate(groups):
            part = thin(part)
            fig.add_trace(
                go.Scattergl(
                    x=plot_values(part[x]),
                    y=part[metric].to_list(),
                    name=name or axis_title(metric),
                    legendgroup=name,
                    showlegend=row == 1,
                    mode="lines",
                    line={"color": color(i)},
                ),
                row=row,
                col=1,
            )
    if window is not None:
        _shade_window(fig, window, rows=len(metrics))
    fig.update_layout(
        template=TEMPLATE, title=title, height=220 + 180 * len(metrics), hovermode="closest"
    )
    fig.update_xaxes(title_text=axis_title(x), row=len(metrics), col=1)
    return with_subtitle(fig, subtitle)


def _shade_window(fig: go.Figure, window: tuple[float, float], *, rows: int) -> None:
    """Shade the steady-state window on every subplot, with a legend entry that names it."""
    for row in range(1, rows + 1):
        fig.add_vrect(
            x0=window[0], x1=window[1], fillcolor=WINDOW_COLOR, opacity=0.12, line_width=0,
            row=row, col=1,
        )  # fmt: skip
    # A shape has no legend entry: an invisible trace gives the shading its name.
    fig.add_trace(
        go.Scatter(
            x=[None], y=[None], mode="markers", name="steady-state window",
            marker={"color": WINDOW_COLOR, "symbol": "square", "size": 12, "opacity": 0.4},
        ),
        row=1, col=1,
    )  # fmt: skip
