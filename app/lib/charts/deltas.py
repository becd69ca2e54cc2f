"""Profile and configuration deltas: what each data service costs, one-label comparisons."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    PROFILE_ORDER,
    TEMPLATE,
    WORKING_SET_ORDER,
    BarSeries,
    axis_title,
    color,
    empty_figure,
    grouped_bars,
    has_values,
    is_missing,
    ordered,
    read_mix_label,
)

CONFIG_DELTA_METRICS = {
    "iops_delta_pct": "IOPS",
    "avg_latency_delta_pct": "Average latency",
    "p95_latency_delta_pct": "p95 latency",
    "cpu_delta_pct": "Host CPU",
}


def profile_delta_heatmap(
    df: pl.DataFrame, *, metric: str = "latency_vs_baseline_pct", title: str | None = None
) -> go.Figure:
    """Cost of each data service: `metric` (a percent delta) by profile and read mix.

    `df` holds `profile_latency_deltas` rows. One heatmap per working set; red means worse
    (more latency, fewer IOPS).
    """
    title = title or f"{metric.replace('_', ' ')} by profile and read mix"
    if df.is_empty() or not has_values(df, metric):
        return empty_figure(title)
    if "working_set" not in df.columns:
        df = df.with_columns(working_set=pl.lit(None, pl.String))
    df = df.with_columns(pl.col("working_set").fill_null("unspecified"))
    working_sets = ordered(df["working_set"], WORKING_SET_ORDER)
    profiles = ordered(df["profile"], PROFILE_ORDER)
    mixes = df["read_pct"].drop_nulls().unique().sort().to_list()
    # Latency up is bad and IOPS down is bad: keep "red = worse" for both.
    colorscale = "RdBu_r" if "latency" in metric else "RdBu"
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        shared_yaxes=True,
    )
    for col, ws in enumerate(working_sets, start=1):
        grid = _grid(df.filter(pl.col("working_set") == ws), metric, profiles, mixes)
        text = [["" if is_missing(v) else f"{v:+.1f}%" for v in row] for row in grid]
        fig.add_trace(
            go.Heatmap(
                x=[read_mix_label(m) for m in mixes],
                y=profiles,
                z=grid,
                text=text,
                texttemplate="%{text}",
                colorscale=colorscale,
                zmid=0,
                colorbar={"title": {"text": "%"}},
                showscale=col == 1,
                hovertemplate="%{y}, %{x}: %{z:+.1f}%<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text=axis_title("read_pct"), row=1, col=col)
    # baseline on top, then the profiles in the order they add data services
    fig.update_yaxes(autorange="reversed")
    fig.update_yaxes(title_text="Profile (storage policy)", row=1, col=1)
    fig.update_layout(template=TEMPLATE, title=title, height=420, hovermode="closest")
    return fig


def _grid(
    df: pl.DataFrame, metric: str, profiles: list[str], mixes: list[object]
) -> list[list[float | None]]:
    """`metric` per profile (rows) and read mix (columns); None where the mart has no row.

    The mart has one row per profile and read mix of a testbed, working set and block size;
    should a page pass several, the cell shows their mean.
    """
    cells = df.group_by("profile", "read_pct").agg(pl.col(metric).mean())
    lookup = {(p, m): v for p, m, v in cells.iter_rows()}
    return [[lookup.get((p, m)) for m in mixes] for p in profiles]


def config_delta_bars(df: pl.DataFrame, *, title: str = "One-label comparison") -> go.Figure:
    """Percent change of each metric from `from_value` to `to_value`, one bar group per pair.

    `df` holds `config_deltas` rows of one dimension; `pair` (x label) is built from the from/to
    values when the caller has not set it.
    """
    metrics = [m for m in CONFIG_DELTA_METRICS if has_values(df, m)]
    if df.is_empty() or not metrics:
        return empty_figure(title)
    if "pair" not in df.columns:
        df = df.with_columns(pair=pl.format("{} → {}", pl.col("from_value"), pl.col("to_value")))
    return grouped_bars(
        df["pair"].to_list(),
        [
            BarSeries(CONFIG_DELTA_METRICS[m], df[m].to_list(), color(i), "%{y:+.1f}%")
            for i, m in enumerate(metrics)
        ],
        title=title,
        xaxis_title="Comparison (from → to, workload)",
        yaxis_title="Change from the first value (%)",
        height=460,
    )
