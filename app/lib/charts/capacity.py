"""Capacity: logical against physical used capacity per observation."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from app.lib.charts.common import BarSeries, axis_title, color, empty_figure, grouped_bars

# Column of dedupe_ratios -> bar name; bytes shown in TB (10^12 bytes).
USED_BYTES = {"logical_used_bytes": "Logical (before)", "physical_used_bytes": "Physical (after)"}


def capacity_bars(df: pl.DataFrame, *, title: str = "Capacity before and after") -> go.Figure:
    """Logical (before dedupe/compression) and physical used capacity per observation, in TB."""
    if df.is_empty():
        return empty_figure(title)
    observation = pl.format(
        "{} · {}",
        pl.col("testbed").cast(pl.String).fill_null("None"),
        pl.col("captured_at").cast(pl.String).str.slice(0, 16).fill_null("time unknown"),
    ).alias("observation")
    return grouped_bars(
        df.select(observation)["observation"].to_list(),
        [
            BarSeries(name, (df[column] / 1e12).to_list(), color(i), "%{y:.2f} TB")
            for i, (column, name) in enumerate(USED_BYTES.items())
        ],
        title=title,
        xaxis_title="Observation (testbed · captured at, UTC)",
        yaxis_title=axis_title("used_tb"),
        height=420,
    )
