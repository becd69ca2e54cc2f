"""The compare page's charts: two results side by side, and the results of two groups (two
testbeds, two profiles) per workload. Every bar or point is one result and carries its
`result_id` in `customdata`, so a click leads to its run."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    MARK_COLOR,
    TEMPLATE,
    axis_title,
    chart_context,
    color,
    empty_figure,
    is_missing,
    with_subtitle,
)

PAIR_METRICS = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms"]


def _interval_marker(row: dict, metric: str, x: str, *, first: bool) -> go.Scatter | None:
    """The steady-state mean with its 95 % interval (fct_result_steady_state) beside a bar
    of the whole-run figure; None when the row has no interval for `metric`."""
    mean, low, high = (row.get(f"{metric}_{part}") for part in ("mean", "ci95_low", "ci95_high"))
    if is_missing(mean) or is_missing(low) or is_missing(high):
        return None
    return go.Scatter(
        x=[x],
        y=[mean],
        mode="markers",
        name="steady-state mean, 95 % CI",
        legendgroup="ci",
        showlegend=first,
        marker={"color": MARK_COLOR, "symbol": "diamond", "size": 9},
        error_y={"type": "data", "symmetric": False, "array": [high - mean],
                 "arrayminus": [mean - low], "color": MARK_COLOR},
        customdata=[row["result_id"]],
        hovertemplate=f"steady-state mean %{{y:,.3f}} (95 % CI {low:,.3f} to {high:,.3f})"
        "<extra></extra>",
    )  # fmt: skip


def pair_bars(pair: pl.DataFrame, *, names: list[str], title: str) -> go.Figure:
    """Two results (rows of `pair`, in order A, B) side by side: one subplot per metric, one
    bar per result (its whole-run figure), and beside it the steady-state mean with its 95 %
    interval where the row has `<metric>_mean` / `_ci95_low` / `_ci95_high`
    (fct_result_steady_state). `names`: legend name per row, `A: ...` and `B: ...` (what
    differs between them); the subtitle names what they share."""
    metrics = [m for m in PAIR_METRICS if m in pair.columns and pair[m].null_count() < pair.height]
    if pair.is_empty() or not metrics:
        return empty_figure(title)
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[axis_title(m) for m in metrics])
    shown_interval = False
    for i, (row, name) in enumerate(zip(pair.iter_rows(named=True), names, strict=True)):
        x = name.split(":")[0]
        for col, metric in enumerate(metrics, start=1):
            fig.add_trace(
                go.Bar(
                    x=[x],
                    y=[row[metric]],
                    name=name,
                    legendgroup=name,
                    showlegend=col == 1,
                    marker_color=color(i),
                    customdata=[row["result_id"]],
                    hovertemplate=f"{name}<br>%{{y:,.3f}}<extra></extra>",
                ),
                row=1,
                col=col,
            )
            marker = _interval_marker(row, metric, x, first=not shown_interval)
            if marker is not None:
                fig.add_trace(marker, row=1, col=col)
                shown_interval = True
    fig.update_layout(template=TEMPLATE, title=title, height=420, hovermode="closest")
    return with_subtitle(fig, chart_context(pair).subtitle())


def group_points(
    df: pl.DataFrame, *, x: str, y: str, group: str, title: str, hover: list[str]
) -> go.Figure:
    """One marker per result: `y` per workload (`x`), one colour and legend entry per value
    of `group` (the two testbeds or profiles compared); hover names the result's labels, the
    subtitle what every result shares (and which keys vary besides `group`)."""
    if df.is_empty() or y not in df.columns or df[y].null_count() == df.height:
        return empty_figure(title)
    fig = go.Figure()
    for i, value in enumerate(sorted(df[group].cast(pl.String).unique().to_list())):
        part = df.filter(pl.col(group).cast(pl.String) == value)
        text = [
            "<br>".join(f"{c}: {r[c]}" for c in hover if c in part.columns)
            for r in part.iter_rows(named=True)
        ]
        fig.add_trace(
            go.Scatter(
                x=part[x].to_list(),
                y=part[y].to_list(),
                mode="markers",
                name=f"{group}: {value}",
                marker={"color": color(i), "size": 11, "opacity": 0.85},
                customdata=part["result_id"].to_list(),
                text=text,
                hovertemplate="%{text}<br>" + axis_title(y) + ": %{y:,.3f}<extra></extra>",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        height=460,
        hovermode="closest",
        scattermode="group",
        xaxis_title="Workload",
        yaxis_title=axis_title(y),
    )
    return with_subtitle(fig, chart_context(df).subtitle(skip=[group]))
