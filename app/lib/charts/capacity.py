"""Capacity: logical against physical used capacity, one bar pair per capacity observation."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from app.lib.charts.common import (
    TEMPLATE,
    axis_title,
    chart_context,
    color,
    empty_figure,
    with_subtitle,
)

# Bar name -> the dedupe_ratios columns of one quantity in TB (10^12 bytes, the axis) and in
# TiB (2^40 bytes, vSphere's "TB", in the hover): the mart converts once, the chart reads both.
USED = {
    "Logical (before)": ("logical_used_tb", "logical_used_tib"),
    "Physical (after)": ("physical_used_tb", "physical_used_tib"),
}
UNITS_NOTE = "TB = 10^12 bytes, TiB = 2^40 bytes (in the hover)"
NOTES_MARGIN = 110  # px above the plot when the subtitle has a second line (the notes)


LABEL_KEYS = {"testbed": "testbed", "profile": "profile", "working_set": "working set"}


def label_keys(df: pl.DataFrame) -> list[str]:
    """The LABEL_KEYS whose value differs among the observations: the rest is in the
    subtitle, once."""
    return [k for k in LABEL_KEYS if k in df.columns and df[k].n_unique() > 1]


def observation_labels(df: pl.DataFrame) -> list[str]:
    """One distinct x label per observation: what differs among them (`testbed · profile ·
    working set`, label_keys) and `YYYY-MM-DD HH:MM` (`time unknown` without a capture time);
    two observations that would share a label also get their id, so two observations never
    share one bar."""
    keys = label_keys(df)
    labels = []
    for row in df.iter_rows(named=True):
        parts = [str(row[k]) for k in keys if row.get(k)]
        when = row.get("captured_at")
        parts.append(when.strftime("%Y-%m-%d %H:%M") if when is not None else "time unknown")
        labels.append(" · ".join(parts))
    ids = df["capacity_observation_id"].to_list()
    counts = {label: labels.count(label) for label in labels}
    return [
        f"{label} · #{ident}" if counts[label] > 1 else label
        for label, ident in zip(labels, ids, strict=True)
    ]


def capacity_bars(
    df: pl.DataFrame,
    *,
    title: str = "Capacity before and after",
    notes: tuple[str, ...] = (),
) -> go.Figure:
    """Logical (before dedupe/compression) and physical used capacity of each observation of
    `df` (dedupe_ratios rows, one bar pair each), in TB with TiB in the hover; `notes` go on
    a second line of the subtitle (e.g. the observations left out)."""
    if df.is_empty():
        return with_subtitle(empty_figure(title), " · ".join(notes))
    notes_line = " · ".join(notes)
    x = observation_labels(df)
    fig = go.Figure()
    for i, (name, (tb, tib)) in enumerate(USED.items()):
        fig.add_trace(
            go.Bar(
                x=x,
                y=df[tb].to_list(),
                customdata=df[tib].to_list(),
                name=name,
                marker_color=color(i),
                hovertemplate=f"{name}: %{{y:,.2f}} TB = %{{customdata:,.2f}} TiB<extra></extra>",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title=(
            "Observation ("
            + " · ".join([*(LABEL_KEYS[k] for k in label_keys(df)), "captured at, UTC"])
            + ")"
        ),
        yaxis_title=axis_title("used_tb"),
        height=420,
        # a label that is a capture time alone ("2019-05-01 00:00") would make Plotly guess a
        # date axis: one bar pair as wide as the axis, the others' labels gone
        xaxis_type="category",
    )
    if notes_line:
        fig.update_layout(margin_t=NOTES_MARGIN)
    context = chart_context(df, keys=("testbed", "nodes", "profile", "working_set"))
    subtitle = context.subtitle(extra=[UNITS_NOTE])
    return with_subtitle(fig, subtitle + (f"<br>{notes_line}" if notes_line else ""))
