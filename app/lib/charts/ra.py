"""The Micron RA chart: IOPS bars and latency lines, measured against published figures.

Every bar and every point is one row of `ra_comparison_points`: one workload result or one
printed figure. Nothing merges and nothing hides another mark:
- a *series* (one legend entry: its bars and its latency line share it) is what varies among
  the rows besides the axes: profile, configuration, origin (measured / published), run;
- a series' printed figures (Figure 4, Figure 10, a restatement in the text) are traces of
  their own within it, each in a bar slot of its own beside the measured bars, so the
  reader sees both (never one bar hatched over the other);
- a latency line joins only points at adjacent categories: a series without a point at a
  category between two it has breaks there (a printed 0 % and 100 % read are two markers, not
  a line suggesting the mixes in between);
- latency markers are filled with their series' colour, outlined in black and shaped per
  series, on a black line: visible on a bar of any colour, in greyscale too.
Two rows of one measured series at one x are refused (raised): one would hide the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    MARK_COLOR,
    MISSING,
    PROFILE_ORDER,
    TEMPLATE,
    WORKING_SET_ORDER,
    axis_title,
    chart_context,
    color,
    empty_figure,
    has_values,
    is_missing,
    ordered,
    read_mix_label,
    with_subtitle,
)

# What tells two series apart, in the order a legend names them (`configuration`: the page's
# short label of what else varies; `run_configuration` when the frame has no such label).
SERIES_PARTS = ("profile", "configuration", "origin", "run")
# One marker shape per series (greyscale readers tell latency points apart by shape).
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "triangle-down", "pentagon", "star",
           "hexagon", "cross", "x", "star-square", "hourglass")  # fmt: skip
PUBLISHED_PATTERN = "/"
BARS_TITLE = f"{axis_title('iops')}: bars"
LATENCY_TITLE = f"{axis_title('avg_latency_ms')}: points"


def natural_key(text: object) -> tuple:
    """Sort text with its numbers as numbers: `OIO 16` before `OIO 512`, `0% read` before
    `70% read` before `100% read` (never 0, 100, 70)."""
    return tuple(
        (0, float(part), "") if re.fullmatch(r"\d+(?:\.\d+)?", part) else (1, 0.0, part)
        for part in re.split(r"(\d+(?:\.\d+)?)", str(text))
        if part
    )


def _run_part(row: Mapping[str, object]) -> str:
    runs = row.get("runs_at_point")
    if row.get("origin") == "measured" and not is_missing(runs) and runs > 1:  # type: ignore[operator]
        return f"run {row.get('run_ordinal')}"
    return ""


def _parts(row: Mapping[str, object]) -> dict[str, str]:
    """A row's series parts as text ('' when it has none)."""
    parts = {c: "" if is_missing(row.get(c)) else str(row.get(c)) for c in SERIES_PARTS}
    parts["run"] = _run_part(row)
    return parts


def series_names(df: pl.DataFrame, x: str) -> list[str]:
    """Each row's legend entry: the series parts that vary in the frame (never the x axis),
    `baseline · published`; the origin alone when nothing else varies."""
    rows = [_parts(r) for r in df.iter_rows(named=True)]
    # `run` is only ever set where a series has repeated runs at a point
    shown = [
        part
        for part in SERIES_PARTS
        if part != x and (part == "run" or len({r[part] for r in rows}) > 1)
    ]
    names = []
    for r in rows:
        name = " · ".join(r[p] for p in shown if r[p])
        names.append(name or r["origin"] or "results")
    return names


def _x_labels(df: pl.DataFrame, x: str) -> tuple[pl.DataFrame, list[str]]:
    """The x category of every row and the category order."""
    if x == "read_pct":
        cats = [read_mix_label(m) for m in df["read_pct"].drop_nulls().unique().sort()]
        labels = [read_mix_label(v) for v in df["read_pct"]]
    else:
        cats = [str(v) for v in ordered(df[x].cast(pl.String), PROFILE_ORDER)]
        labels = [str(v) for v in df[x].cast(pl.String).fill_null(MISSING)]
    return df.with_columns(_x=pl.Series(labels, dtype=pl.String)), cats


def _prepared(df: pl.DataFrame, x: str) -> tuple[pl.DataFrame, list[str]]:
    """The frame with its series (`_series`), colour key (`_hue`), trace (`_trace`: a series'
    printed figure, numbered when one figure prints two points at one x) and x category."""
    if "origin" not in df.columns:
        df = df.with_columns(origin=pl.lit("measured"))
    df = df.with_columns(pl.col("working_set", "profile").fill_null("unspecified"))
    if "configuration" not in df.columns:
        config = pl.col("run_configuration") if "run_configuration" in df.columns else None
        df = df.with_columns(configuration=pl.lit("") if config is None else config)
    df = df.with_columns(pl.col("configuration").cast(pl.String).fill_null(""))
    df, categories = _x_labels(df, x)
    names = df["series"].to_list() if "series" in df.columns else series_names(df, x)
    # A measured series and the published one it is compared with share a colour.
    hue = [
        " · ".join(v for k, v in _parts(r).items() if k not in ("origin", x) and v)
        for r in df.iter_rows(named=True)
    ]
    source = (
        df["published_source"].cast(pl.String).fill_null("")
        if "published_source" in df.columns
        else pl.Series([""] * df.height)
    )
    df = df.with_columns(
        _series=pl.Series(names, dtype=pl.String),
        _hue=pl.Series(hue, dtype=pl.String),
        _source=pl.Series(source, dtype=pl.String),
    )
    # Two printed points of one figure at one x (a table's TCP and RDMA rows) are two traces.
    nth = pl.int_range(pl.len()).over("_series", "_source", "working_set", "_x")
    df = df.with_columns(
        _trace=pl.when(pl.col("origin") == "published")
        .then(pl.format("{}#{}", pl.col("_source"), nth))
        .otherwise(pl.lit(""))
    )
    duplicated = df.select("_series", "_trace", "working_set", "_x").is_duplicated()
    if duplicated.any():
        name = df.filter(duplicated)["_series"][0]
        raise ValueError(f"two rows of series {name!r} at one {x}: nothing may merge")
    return df, categories


def _slots(df: pl.DataFrame) -> dict[tuple[str, str], str]:
    """(series, trace) -> bar slot (offsetgroup): a series' traces share a slot where they
    never meet at one x, so a slot is only as wide as the bars it must hold side by side."""
    slots: dict[tuple[str, str], str] = {}
    bars = df.filter(pl.col("iops").is_not_null()) if "iops" in df.columns else df.clear()
    for (series,), part in bars.group_by("_series", maintain_order=True):
        taken: list[set[tuple[str, str]]] = []
        for (trace,), rows in part.group_by("_trace", maintain_order=True):
            at = set(zip(rows["working_set"].to_list(), rows["_x"].to_list(), strict=True))
            free = next((i for i, used in enumerate(taken) if not used & at), len(taken))
            if free == len(taken):
                taken.append(set())
            taken[free] |= at
            slots[(str(series), str(trace))] = f"{series}#{free}"
    return slots


def _series_order(df: pl.DataFrame) -> list[str]:
    """Series in legend order: by colour key (profile in the RA's order, numbers as numbers),
    measured before published."""
    first = df.unique("_series", keep="first", maintain_order=True)
    profiles = ordered(df["profile"], PROFILE_ORDER)

    def key(row: dict) -> tuple:
        rank = profiles.index(row["profile"]) if row["profile"] in profiles else len(profiles)
        return (rank, natural_key(row["_hue"]), row["origin"] != "measured",
                natural_key(row["_series"]))  # fmt: skip

    return [r["_series"] for r in sorted(first.iter_rows(named=True), key=key)]


def ra_comparison(
    df: pl.DataFrame,
    *,
    title: str = "IOPS and latency by read mix",
    x: str = "read_pct",
    subtitle: str | None = None,
) -> go.Figure:
    """IOPS bars and latency points (second axis) per `x` (read mix, or profile as the RA's
    per-read-mix figures), one panel per working set, from `ra_comparison_points` rows.

    Optional columns: `configuration` (a short label of what else varies), `series` (each
    row's legend entry, when the page names them itself). Published figures are hatched,
    black-outlined bars and dashed lines. `subtitle`: the workload and configuration the
    chart shows (default: what every row shares, `chart_context`).
    """
    if df.is_empty() or (not has_values(df, "iops") and not has_values(df, "avg_latency_ms")):
        return empty_figure(title)
    if subtitle is None:
        subtitle = chart_context(df).subtitle(skip=(x, "working_set", "origin"))
    df, categories = _prepared(df, x)
    slots = _slots(df)
    working_sets = ordered(df["working_set"], WORKING_SET_ORDER)
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        specs=[[{"secondary_y": True}] * len(working_sets)],
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        # room for the left panel's latency axis title between the panels
        horizontal_spacing=0.16,
    )
    series = _series_order(df)
    hue_keys = df.unique("_series", keep="first").select("_series", "_hue").rows()
    by_series = dict(hue_keys)
    hues = {h: color(i) for i, h in enumerate(dict.fromkeys(by_series[s] for s in series))}
    # A series' legend entry is one of its bars (its swatch shows the fill and the hatching);
    # one of its latency points only when it has no bar.
    with_bars = (
        set(df.filter(pl.col("iops").is_not_null())["_series"]) if has_values(df, "iops") else set()
    )
    legend_done: set[str] = set()
    for col, ws in enumerate(working_sets, start=1):
        for number, name in enumerate(series):
            of_series = df.filter((pl.col("working_set") == ws) & (pl.col("_series") == name))
            for (trace,), part in of_series.group_by("_trace", maintain_order=True):
                style = _Style(
                    name=name,
                    hue=hues[part["_hue"][0]],
                    symbol=SYMBOLS[number % len(SYMBOLS)],
                    published=part["origin"][0] == "published",
                    slot=slots.get((name, str(trace)), name),
                    rank=number,
                )
                takes_legend = name not in legend_done and (
                    has_values(part, "iops") or name not in with_bars
                )
                _add_point_traces(fig, part, style, categories, col, takes_legend)
                if takes_legend:
                    legend_done.add(name)
        _label_axes(fig, col, categories, x)
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        height=620,
        legend={"traceorder": "normal"},
    )
    # the title block's room above the panels' titles is the layout rules' (charts.finish)
    return with_subtitle(fig, subtitle)


@dataclass(frozen=True, slots=True)
class _Style:
    """How one trace of a series is drawn."""

    name: str  # the series' legend entry
    hue: str
    symbol: str  # its latency markers' shape
    published: bool
    slot: str  # its bars' offsetgroup
    rank: int  # the series' place in the legend, whichever panel draws it first


def _add_point_traces(
    fig: go.Figure,
    part: pl.DataFrame,
    style: _Style,
    categories: list[str],
    col: int,
    show_legend: bool,
) -> None:
    """One trace of a series in one working-set panel: its IOPS bars and latency points."""
    order = {c: i for i, c in enumerate(categories)}
    part = part.with_columns(
        _order=pl.Series([order.get(v, -1) for v in part["_x"]], dtype=pl.Int64)
    ).sort("_order")
    source = part["_source"][0]
    label = f"{style.name} · {source}" if source else style.name
    ids = (
        part["result_id"].to_list()
        if "result_id" in part.columns and not style.published
        else [None] * part.height
    )
    # Bars and points of a series share its one legend entry (clicking it hides both).
    shared = {"legendgroup": style.name, "name": style.name, "legendrank": style.rank + 1}
    dash = "dash" if style.published else "solid"
    if has_values(part, "iops"):
        bars = go.Bar(
            x=part["_x"].to_list(),
            y=part["iops"].to_list(),
            customdata=ids,
            offsetgroup=style.slot,
            marker={
                "color": style.hue,
                "pattern": {
                    "shape": PUBLISHED_PATTERN if style.published else "",
                    "fgcolor": MARK_COLOR,
                    "solidity": 0.3,
                },
                "line": {"color": MARK_COLOR, "width": 1.5 if style.published else 0},
            },
            hovertemplate=f"{label}: %{{y:,.0f}} IO/s<extra></extra>",
            showlegend=show_legend,
            **shared,
        )
        fig.add_trace(bars, row=1, col=col, secondary_y=False)
        show_legend = False
    if has_values(part, "avg_latency_ms"):
        x, y, line_ids = _with_gaps(part, categories, ids)
        line = go.Scatter(
            x=x,
            y=y,
            customdata=line_ids,
            mode="lines+markers",
            connectgaps=False,
            line={"color": MARK_COLOR, "width": 1.5, "dash": dash},
            marker={
                "color": style.hue,
                "symbol": style.symbol,
                "size": 10,
                "line": {"color": MARK_COLOR, "width": 1.5},
            },
            hovertemplate=f"{label}: %{{y:.2f}} ms<extra></extra>",
            showlegend=show_legend,
            **shared,
        )
        fig.add_trace(line, row=1, col=col, secondary_y=True)


def _with_gaps(part: pl.DataFrame, categories: list[str], ids: list) -> tuple[list, list, list]:
    """A line's x, y and ids with a gap (None) at every category between its first and last
    point where it has no latency: a line joins only points at adjacent categories."""
    have = {
        xv: (yv, rid)
        for xv, yv, rid in zip(part["_x"], part["avg_latency_ms"], ids, strict=True)
        if yv is not None
    }
    placed = [c for c in categories if c in have]
    extra = [v for v in have if v not in categories]  # a category the axis does not order
    if not placed:
        return extra, [have[v][0] for v in extra], [have[v][1] for v in extra]
    span = categories[categories.index(placed[0]) : categories.index(placed[-1]) + 1]
    xs = span + extra
    return (
        xs,
        [have[c][0] if c in have else None for c in xs],
        [have[c][1] if c in have else None for c in xs],
    )


def _label_axes(fig: go.Figure, col: int, categories: list[str], x: str) -> None:
    fig.update_xaxes(
        title_text=axis_title(x) if x != "profile" else "Profile (storage policy)",
        categoryorder="array",
        categoryarray=categories,
        row=1,
        col=col,
    )
    fig.update_yaxes(title_text=BARS_TITLE, row=1, col=col, secondary_y=False)
    fig.update_yaxes(
        title_text=LATENCY_TITLE,
        row=1,
        col=col,
        secondary_y=True,
        showgrid=False,
        rangemode="tozero",
    )
