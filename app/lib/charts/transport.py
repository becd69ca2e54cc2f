"""TCP vs RDMA: the four measures side by side, and IOPS per host-CPU percent."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    TEMPLATE,
    TRANSPORT_COLORS,
    BarSeries,
    axis_title,
    color,
    empty_figure,
    grouped_bars,
    is_missing,
    ordered,
    with_subtitle,
)

TRANSPORT_METRICS = ["iops", "throughput_mb_s", "avg_latency_ms", "cpu_util_pct"]


def transport_side_by_side(
    df: pl.DataFrame, *, title: str = "TCP vs RDMA", subtitle: str = ""
) -> go.Figure:
    """IOPS, MB/s, latency and CPU per workload, one bar per transport, in a 2x2 grid.

    `df` holds `transport_comparison` rows of one testbed with a `workload` (x label) column;
    `subtitle`: what every bar shares (workload and configuration).
    """
    if df.is_empty():
        return empty_figure(title)
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=[axis_title(m) for m in TRANSPORT_METRICS],
        vertical_spacing=0.22,
    )
    transports = ordered(df["transport"], ["tcp", "rdma"])
    for i, metric in enumerate(TRANSPORT_METRICS):
        row, col = divmod(i, 2)
        for t_idx, transport in enumerate(transports):
            part = df.filter(pl.col("transport") == transport)
            fig.add_trace(
                go.Bar(
                    x=part["workload"].to_list(),
                    y=part[metric].to_list() if metric in part.columns else None,
                    name=transport.upper(),
                    legendgroup=transport,
                    showlegend=i == 0,
                    marker_color=TRANSPORT_COLORS.get(transport, color(t_idx + 2)),
                    # each bar is one result: its id leads to the run explorer
                    customdata=part["result_id"].to_list() if "result_id" in part.columns else None,
                ),
                row=row + 1,
                col=col + 1,
            )
        fig.update_yaxes(title_text=axis_title(metric), row=row + 1, col=col + 1)
        fig.update_xaxes(title_text="Workload", row=row + 1, col=col + 1)
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=720)
    return with_subtitle(fig, subtitle)


def iops_per_cpu(
    df: pl.DataFrame, *, title: str = "IOPS per CPU percent", subtitle: str = ""
) -> go.Figure:
    """`transport_cpu_efficiency`: IOPS per host-CPU percent for TCP and RDMA per workload
    (`workload`: the x label); `subtitle`: what every pair shares."""
    if df.is_empty():
        return empty_figure(title)
    series = [
        BarSeries(
            t.upper(),
            df[f"{t}_iops_per_cpu_pct"].to_list(),
            TRANSPORT_COLORS[t],
            "%{y:,.0f} IO/s per %",
        )
        for t in ("tcp", "rdma")
        if f"{t}_iops_per_cpu_pct" in df.columns
    ]
    fig = grouped_bars(
        df["workload"].to_list(),
        series,
        title=title,
        xaxis_title="Workload",
        yaxis_title=axis_title("iops_per_cpu_pct"),
        height=440,
    )
    if "rdma_efficiency_gain_pct" in df.columns:
        tops = df["rdma_iops_per_cpu_pct" if "rdma_iops_per_cpu_pct" in df.columns else
                  "rdma_efficiency_gain_pct"]  # fmt: skip
        for workload, gain, top in zip(
            df["workload"], df["rdma_efficiency_gain_pct"], tops, strict=True
        ):
            if not is_missing(gain):
                fig.add_annotation(
                    x=workload, y=top, text=f"RDMA {gain:+.0f}%", yshift=14, showarrow=False
                )
    return with_subtitle(fig, subtitle)
