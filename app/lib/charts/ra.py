"""The Micron RA chart: IOPS bars and latency lines, measured against published figures.

Every bar and every point is one row of `ra_comparison_points`: one workload result or one
printed figure. A trace is one series (profile, origin, configuration, published source, run);
the chart never merges rows, and it refuses (raises) a frame where one trace would hold two
rows at one x, since the bars would hide each other.
"""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    MISSING,
    PROFILE_ORDER,
    TEMPLATE,
    WORKING_SET_ORDER,
    axis_title,
    color,
    empty_figure,
    has_values,
    is_missing,
    ordered,
    read_mix_label,
)

# What tells two rows of one x apart, in the order a legend names them.
SERIES_COLUMNS = ("profile", "origin", "run_configuration", "published_source", "run_ordinal")


def series_name(row: Mapping[str, object], x: str, shown: set[str]) -> str:
    """`baseline · published Figure 10 · run 2`: the series columns that vary in the frame."""
    parts = []
    for column in SERIES_COLUMNS:
        value = row.get(column)
        if column == x or column not in shown or is_missing(value) or value == "":
            continue
        if column == "run_ordinal":
            if (row.get("runs_at_point") or 1) > 1:  # type: ignore[operator]
                parts.append(f"run {value}")
        elif column == "published_source":
            parts.append(f"figure: {value}")
        else:
            parts.append(str(value))
    return " · ".join(parts) or "results"


def _x_labels(df: pl.DataFrame, x: str) -> tuple[pl.DataFrame, list[str]]:
    """The x category of every row and the category order."""
    if x == "read_pct":
        cats = [read_mix_label(m) for m in df["read_pct"].drop_nulls().unique().sort()]
        labels = [read_mix_label(v) for v in df["read_pct"]]
    else:
        cats = [str(v) for v in ordered(df[x].cast(pl.String), PROFILE_ORDER)]
        labels = [str(v) for v in df[x].cast(pl.String).fill_null(MISSING)]
    return df.with_columns(_x=pl.Series(labels, dtype=pl.String)), cats


def ra_comparison(
    df: pl.DataFrame, *, title: str = "IOPS and latency by read mix", x: str = "read_pct"
) -> go.Figure:
    """IOPS bars and latency lines (second axis) per `x` (read mix, or profile as the RA's
    per-read-mix figures), one panel per working set, from `ra_comparison_points` rows.

    Published figures are hatched bars and dashed lines. Each trace has a legend entry (the
    bars and the line of one series share it: clicking hides both).
    """
    if df.is_empty() or (not has_values(df, "iops") and not has_values(df, "avg_latency_ms")):
        return empty_figure(title)
    if "origin" not in df.columns:
        df = df.with_columns(origin=pl.lit("measured"))
    df = df.with_columns(pl.col("working_set", "profile").fill_null("unspecified"))
    shown = {c for c in SERIES_COLUMNS if c in df.columns and df[c].n_unique() > 1}
    shown |= {"profile"} if x != "profile" else {"origin"}
    shown |= {"published_source"} & set(df.columns)
    df, categories = _x_labels(df, x)
    names = [series_name(r, x, shown) for r in df.iter_rows(named=True)]
    # A printed figure's bar sits in the slot of the measured bar it is compared with (same
    # profile and configuration), hatched over it: side by side without a slot per source.
    slot_columns = shown - {"origin", "published_source"}
    slots = [
        series_name(r, x, slot_columns - ({"run_ordinal"} if r["origin"] == "published" else set()))
        for r in df.iter_rows(named=True)
    ]
    df = df.with_columns(
        _series=pl.Series(names, dtype=pl.String), _slot=pl.Series(slots, dtype=pl.String)
    )
    working_sets = ordered(df["working_set"], WORKING_SET_ORDER)
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        specs=[[{"secondary_y": True}] * len(working_sets)],
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        # room for the left panel's latency axis title between the panels
        horizontal_spacing=0.16,
    )
    hues = {p: color(i) for i, p in enumerate(ordered(df["profile"], PROFILE_ORDER))}
    series = ordered(df["_series"], [])
    if x == "profile":  # one colour per series when profiles are the x axis
        hues = {s: color(i) for i, s in enumerate(series)}
    legend_done: set[str] = set()
    for col, ws in enumerate(working_sets, start=1):
        for name in series:
            part = df.filter((pl.col("working_set") == ws) & (pl.col("_series") == name))
            if part.is_empty():
                continue
            if part["_x"].is_duplicated().any():
                raise ValueError(f"two rows of series {name!r} at one {x}: nothing may merge")
            first = part.row(0, named=True)
            hue = hues.get(name if x == "profile" else first["profile"], color(0))
            published = first["origin"] == "published"
            order = pl.Series([categories.index(v) if v in categories else -1 for v in part["_x"]])
            part = part.with_columns(_order=order).sort("_order")
            _add_point_traces(fig, part, name, hue, published, col, name not in legend_done)
            legend_done.add(name)
        _label_axes(fig, col, categories, x)
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=600)
    return fig


def _add_point_traces(
    fig: go.Figure,
    part: pl.DataFrame,
    name: str,
    hue: str,
    published: bool,
    col: int,
    show_legend: bool,
) -> None:
    """One series in one working-set panel: its IOPS bars and latency line."""
    ids = (
        part["result_id"].to_list()
        if "result_id" in part.columns and not published
        else [None] * part.height
    )
    # Both traces share the legend entry (clicking it hides both) and the panel.
    shared = {"x": part["_x"].to_list(), "legendgroup": name, "customdata": ids}
    if has_values(part, "iops"):
        bars = go.Bar(
            y=part["iops"].to_list(),
            name=f"{name} IOPS",
            offsetgroup=part["_slot"][0],
            marker={
                "color": hue,
                "pattern": {"shape": "/" if published else ""},
                "opacity": 0.5 if published else 1.0,
                "line": {"color": hue, "width": 2 if published else 0},
            },
            hovertemplate="%{y:,.0f} IO/s",
            showlegend=show_legend,
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
            showlegend=show_legend,
            **shared,
        )
        fig.add_trace(line, row=1, col=col, secondary_y=True)


def _label_axes(fig: go.Figure, col: int, categories: list[str], x: str) -> None:
    fig.update_xaxes(
        title_text=axis_title(x) if x != "profile" else "Profile (storage policy)",
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
