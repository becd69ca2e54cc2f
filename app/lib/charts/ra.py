"""The Micron RA chart: IOPS bars and latency lines per read mix, measured against published."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    PROFILE_ORDER,
    TEMPLATE,
    WORKING_SET_ORDER,
    axis_title,
    color,
    empty_figure,
    has_values,
    ordered,
    read_mix_label,
)

ORIGIN_ORDER = ["measured", "published"]


def ra_comparison(df: pl.DataFrame, *, title: str = "IOPS and latency by read mix") -> go.Figure:
    """IOPS bars and latency lines (second axis) per read mix, from `ra_comparison_points`.

    `df` has `working_set`, `profile`, `origin` (measured/published), `read_pct`, `iops`,
    `avg_latency_ms`, one row per point. One subplot per working set (cache and capacity side
    by side), one bar group per profile and origin; published figures are hatched bars and
    dashed lines.
    """
    if df.is_empty():
        return empty_figure(title)
    df = df.with_columns(pl.col("working_set", "profile").fill_null("unspecified"))
    working_sets = ordered(df["working_set"], WORKING_SET_ORDER)
    profiles = ordered(df["profile"], PROFILE_ORDER)
    origins = ordered(df["origin"], ORIGIN_ORDER)
    categories = [read_mix_label(m) for m in df["read_pct"].drop_nulls().unique().sort()]
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        specs=[[{"secondary_y": True}] * len(working_sets)],
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        # room for the left panel's latency axis title between the panels
        horizontal_spacing=0.16,
    )
    for col, ws in enumerate(working_sets, start=1):
        for p_idx, profile in enumerate(profiles):
            for origin in origins:
                part = df.filter(
                    (pl.col("working_set") == ws)
                    & (pl.col("profile") == profile)
                    & (pl.col("origin") == origin)
                ).sort("read_pct")
                name = profile if len(origins) == 1 else f"{profile} ({origin})"
                _add_point_traces(fig, part, name, color(p_idx), origin == "published", col)
        _label_axes(fig, col, categories)
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=600)
    return fig


def _add_point_traces(
    fig: go.Figure, part: pl.DataFrame, name: str, hue: str, published: bool, col: int
) -> None:
    """One profile and origin in one working-set panel: its IOPS bars and latency line."""
    if part.is_empty():
        return
    # Both traces share the legend entry (clicking it hides both) and the panel.
    shared = {
        "x": [read_mix_label(v) for v in part["read_pct"]],
        "legendgroup": name,
        "showlegend": col == 1,
    }
    bars = go.Bar(
        y=part["iops"].to_list(),
        name=f"{name} IOPS",
        offsetgroup=name,
        marker={
            "color": hue,
            "pattern": {"shape": "/" if published else ""},
            "opacity": 0.75 if published else 1.0,
        },
        hovertemplate="%{y:,.0f} IO/s",
        **shared,
    )
    fig.add_trace(bars, row=1, col=col, secondary_y=False)
    if has_values(part, "avg_latency_ms"):
        line = go.Scatter(
            y=part["avg_latency_ms"].to_list(),
            name=f"{name} latency",
            mode="lines+markers",
            line={"color": hue, "dash": "dash" if published else "solid"},
            hovertemplate="%{y:.2f} ms",
            **shared,
        )
        fig.add_trace(line, row=1, col=col, secondary_y=True)


def _label_axes(fig: go.Figure, col: int, categories: list[str]) -> None:
    fig.update_xaxes(
        title_text=axis_title("read_pct"),
        categoryorder="array",
        categoryarray=categories,
        row=1,
        col=col,
    )
    fig.update_yaxes(title_text=axis_title("iops"), row=1, col=col, secondary_y=False)
    fig.update_yaxes(
        title_text=axis_title("avg_latency_ms"),
        row=1,
        col=col,
        secondary_y=True,
        showgrid=False,
        rangemode="tozero",
    )
