"""Scaling: a measure against a scaling axis (nodes, VMs, block size...), one line per group."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from app.lib.charts.common import TEMPLATE, axis_title, color, empty_figure, ordered


def scaling_scatter(
    df: pl.DataFrame,
    *,
    x: str,
    y: str = "iops_per_node",
    color_by: str = "testbed",
    title: str | None = None,
) -> go.Figure:
    """`y` against `x` of `scaling_points` rows, one line per `color_by` group, sorted by `x`."""
    title = title or f"{axis_title(y)} vs {axis_title(x)}"
    if x not in df.columns or y not in df.columns:
        return empty_figure(title)
    df = df.drop_nulls([x, y])
    if df.is_empty():
        return empty_figure(title)
    if color_by not in df.columns:
        group = pl.lit("all")
    elif df.schema[color_by] == pl.String or df[color_by].null_count():
        group = pl.col(color_by).cast(pl.String).fill_null("unspecified")
    else:  # numbers keep their order (read mix 30 before 100)
        group = pl.col(color_by)
    df = df.with_columns(group.alias("_group"))
    fig = go.Figure()
    for i, name in enumerate(ordered(df["_group"], [])):
        part = df.filter(pl.col("_group") == name).sort(x)
        # A line through several workloads at one x would draw a meaningless vertical
        # stroke: join points only when each x has one point.
        joined = not part[x].is_duplicated().any()
        fig.add_trace(
            go.Scatter(
                x=part[x].to_list(),
                y=part[y].to_list(),
                name=str(name),
                mode="lines+markers" if joined else "markers",
                marker={"color": color(i), "size": 9},
            )
        )
    xaxis: dict = {"title": {"text": axis_title(x)}}
    if x == "block_size_bytes":
        xaxis["type"] = "log"
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis=xaxis,
        yaxis_title=axis_title(y),
        height=420,
        hovermode="closest",
    )
    return fig
