"""A result series over time: its runs, the runs left out of detection, its events (an event
label such as vsan_version changed: `old -> new`), its change points and the before/after means
with their 95 % intervals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import polars as pl

from app.lib.charts.common import (
    MARK_COLOR,
    PALETTE,
    TEMPLATE,
    axis_title,
    empty_figure,
    with_subtitle,
)

# A point detection ran on (history_points.exclusion is NULL); others carry their exclusion.
DETECTED = "detected on"
EXCLUDED_COLOR = "#888888"
BAND_COLOR = "rgba(0, 114, 178, 0.15)"
CHANGES = "change points"
EVENTS = "events"
EVENT_COLOR = "#555555"


@dataclass(frozen=True, slots=True)
class Segment:
    """The runs between two change points (or a series end), with their mean and its 95 %
    interval as marts.change_points gives them."""

    first_at: object
    last_at: object
    mean: float
    ci95_low: float | None
    ci95_high: float | None


def _hover(measure: str) -> str:
    return "%{x|%Y-%m-%d %H:%M} UTC<br>" + axis_title(measure) + ": %{y:,.4g}<br>%{text}"


def _points(part: pl.DataFrame, measure: str, *, name: str, excluded: bool) -> go.Scatter:
    """One trace of runs; each point carries its result id (customdata) for the run explorer."""
    reason = [f"left out: {k}" if excluded else "detection ran on it" for k in part["point_kind"]]
    return go.Scatter(
        x=part["started_at"].to_list(),
        y=part["value"].to_list(),
        mode="markers" if excluded else "lines+markers",
        name=name,
        marker={
            "color": EXCLUDED_COLOR if excluded else PALETTE[0],
            "symbol": "x" if excluded else "circle",
            "size": 10 if excluded else 7,
        },
        line={"color": PALETTE[0], "width": 1},
        text=reason,
        customdata=part["result_id"].to_list(),
        hovertemplate=_hover(measure) + "<extra></extra>",
    )


def _band(fig: go.Figure, segment: Segment, show_legend: bool) -> None:
    """The segment's mean as a line, its 95 % interval as a shaded band."""
    xs = [segment.first_at, segment.last_at]
    if segment.ci95_low is not None and segment.ci95_high is not None:
        fig.add_trace(
            go.Scatter(
                x=[*xs, *reversed(xs)],
                y=[segment.ci95_low, segment.ci95_low, segment.ci95_high, segment.ci95_high],
                mode="lines",
                fill="toself",
                fillcolor=BAND_COLOR,
                line={"width": 0},
                name="95 % interval of the mean",
                legendgroup="interval",
                showlegend=show_legend,
                hoverinfo="skip",
            )
        )
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[segment.mean, segment.mean],
            mode="lines",
            line={"color": PALETTE[2], "width": 2, "dash": "dash"},
            name="mean between change points",
            legendgroup="mean",
            showlegend=show_legend,
            hovertemplate=f"mean {segment.mean:,.4g}<extra></extra>",
        )
    )


@dataclass(frozen=True, slots=True)
class Marks:
    """How one kind of marked run is drawn: a change point or an event."""

    name: str
    color: str
    symbol: str
    size: int
    text_position: str
    line_dash: str
    hover: str


_WHEN = "%{x|%Y-%m-%d %H:%M} UTC"
CHANGE_MARKS = Marks(CHANGES, MARK_COLOR, "diamond-open", 16, "top center", "dot",
                     f"first run after the change<br>{_WHEN}<br>%{{text}}")  # fmt: skip
EVENT_MARKS = Marks(EVENTS, EVENT_COLOR, "triangle-up-open", 14, "bottom center", "dash",
                    f"first run after<br>%{{text}}<br>{_WHEN}")  # fmt: skip


def _marked(fig: go.Figure, at: pl.DataFrame, texts: list[str], marks: Marks) -> None:
    """A marker with its text at each run of `at` (started_at, value, result_id), and a line
    across the plot's height there."""
    fig.add_trace(
        go.Scatter(
            x=at["started_at"].to_list(),
            y=at["value"].to_list(),
            mode="markers+text",
            name=marks.name,
            marker={"color": marks.color, "symbol": marks.symbol, "size": marks.size},
            text=texts,
            textposition=marks.text_position,
            customdata=at["result_id"].to_list(),
            hovertemplate=marks.hover + "<extra></extra>",
        )
    )
    for when in at["started_at"].to_list():
        fig.add_shape(
            type="line", x0=when, x1=when, y0=0, y1=1, yref="paper",
            line={"color": marks.color, "dash": marks.line_dash, "width": 1},
        )  # fmt: skip


def _events(fig: go.Figure, series: pl.DataFrame) -> None:
    """A marker and a vertical line at each run whose event labels changed, `old -> new` under
    it (history_points.event_change)."""
    if "event_change" not in series.columns:  # a mart built before events existed
        return
    at = series.filter(pl.col("event_change").is_not_null())
    if not at.is_empty():
        _marked(fig, at, at["event_change"].to_list(), EVENT_MARKS)


def history_chart(
    series: pl.DataFrame,
    changes: pl.DataFrame,
    bands: Sequence[Segment],
    *,
    measure: str,
    title: str,
    subtitle: str = "",
) -> go.Figure:
    """`series`: views.history.one_series rows; `changes`: its change points (with their
    review state); `bands`: views.history.segments; `subtitle`: the detector and its
    parameters."""
    if series.is_empty():
        return empty_figure(title)
    fig = go.Figure()
    for i, segment in enumerate(bands):
        _band(fig, segment, show_legend=i == 0)
    kept = series.filter(pl.col("point_kind") == DETECTED)
    fig.add_trace(_points(kept, measure, name="runs", excluded=False))
    for kind in sorted(set(series["point_kind"].to_list()) - {DETECTED}):
        part = series.filter(pl.col("point_kind") == kind)
        fig.add_trace(_points(part, measure, name=f"left out: {kind}", excluded=True))
    _events(fig, series)
    if not changes.is_empty():
        at = changes.join(series.select("result_id", "value"), on="result_id", how="left")
        labels = [
            f"{pct:+.1f} % ({state})"
            for pct, state in at.select("change_pct", "review_state").iter_rows()
        ]
        _marked(fig, at, labels, CHANGE_MARKS)
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title="Run start (UTC)",
        yaxis_title=axis_title(measure),
    )
    return with_subtitle(fig, subtitle)
