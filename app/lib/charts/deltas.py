"""Profile and configuration deltas: what each data service costs, one-label comparisons."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts import common

CONFIG_DELTA_METRICS = {
    "iops_delta_pct": "IOPS",
    "throughput_delta_pct": "Throughput (MB/s)",
    "avg_latency_delta_pct": "Average latency",
    "p95_latency_delta_pct": "p95 latency",
    "p99_latency_delta_pct": "p99 latency",
    "cpu_delta_pct": "Host CPU",
    "cpu_load_delta_pct": "Host CPU load average",
}
# Delta column -> (interval columns of the absolute difference, the from-side value): the
# interval is drawn as an error bar in percent of the from value.
CONFIG_DELTA_INTERVALS = {
    "iops_delta_pct": ("iops_delta_ci95_low", "iops_delta_ci95_high", "from_iops"),
    "avg_latency_delta_pct": (
        "avg_latency_delta_ms_ci95_low",
        "avg_latency_delta_ms_ci95_high",
        "from_avg_latency_ms",
    ),
}
NO_SPREAD = "no spread information"
# A tick label this many pixels wide per character (13 px Inter): the x labels stay horizontal
# when the widest line of each fits its bar's share of a 1,000-pixel plot.
CHAR_PX = 7.5
PLOT_PX = 1000
# What the heatmap's axes and facets already say: left out of its subtitle.
HEATMAP_AXES = ("profile", "read_pct", "working_set")


def profile_delta_heatmap(
    df: pl.DataFrame, *, metric: str = "latency_vs_baseline_pct", title: str | None = None
) -> go.Figure:
    """Cost of each data service: `metric` (a percent delta) by profile and read mix.

    `df` holds `profile_latency_deltas` rows. One heatmap per working set; red means worse
    (more latency, fewer IOPS). The subtitle names what every cell shares (testbed, block
    size, outstanding I/O, VMs, nodes...).
    """
    title = title or f"{metric.replace('_', ' ')} by profile and read mix"
    if df.is_empty() or not common.has_values(df, metric):
        return common.empty_figure(title)
    if "working_set" not in df.columns:
        df = df.with_columns(working_set=pl.lit(None, pl.String))
    df = df.with_columns(pl.col("working_set").fill_null("unspecified"))
    working_sets = common.ordered(df["working_set"], common.WORKING_SET_ORDER)
    profiles = common.ordered(df["profile"], common.PROFILE_ORDER)
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
        text = [["" if common.is_missing(v) else f"{v:+.1f}%" for v in row] for row in grid]
        fig.add_trace(
            go.Heatmap(
                x=[common.read_mix_label(m) for m in mixes],
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
        fig.update_xaxes(title_text=common.axis_title("read_pct"), row=1, col=col)
    # baseline on top, then the profiles in the order they add data services
    fig.update_yaxes(autorange="reversed")
    fig.update_yaxes(title_text="Profile (storage policy)", row=1, col=1)
    fig.update_layout(template=common.TEMPLATE, title=title, height=420, hovermode="closest")
    return common.with_subtitle(fig, common.chart_context(df).subtitle(skip=HEATMAP_AXES))


def _grid(
    df: pl.DataFrame, metric: str, profiles: list[str], mixes: list[object]
) -> list[list[float | None]]:
    """`metric` per profile (rows) and read mix (columns); None where the mart has no row.

    One mart row per cell: two rows in one cell would need a mean, which a chart never takes,
    so the page must split them (selector or facet) first.
    """
    if df.select("profile", "read_pct").is_duplicated().any():
        raise ValueError("two profile_latency_deltas rows share a cell: select their context")
    lookup = {(p, m): v for p, m, v in df.select("profile", "read_pct", metric).iter_rows()}
    return [[lookup.get((p, m)) for m in mixes] for p in profiles]


def _interval_pct(df: pl.DataFrame, metric: str) -> tuple[list, list] | None:
    """Error bars (plus, minus) in percent of the from value, from the mart's interval of the
    absolute difference; None when the mart has no interval for `metric`."""
    spec = CONFIG_DELTA_INTERVALS.get(metric)
    if spec is None or not all(c in df.columns for c in spec):
        return None
    low, high, base = spec
    plus, minus = [], []
    for row in df.iter_rows(named=True):
        lo, hi, b, mid = row[low], row[high], row[base], row[metric]
        if any(common.is_missing(v) for v in (lo, hi, b, mid)) or b == 0:
            plus.append(None)
            minus.append(None)
        else:
            plus.append(100 * hi / b - mid)
            minus.append(mid - 100 * lo / b)
    return plus, minus


def _notes(df: pl.DataFrame) -> list[str]:
    """The significance note of every row ("no spread information" when the mart has none)."""
    if "significance_note" not in df.columns:
        return [NO_SPREAD] * df.height
    return [NO_SPREAD if common.is_missing(n) else str(n) for n in df["significance_note"]]


def fits_horizontally(labels: list[str]) -> bool:
    """Each label's widest line fits its bar's share of the plot's width."""
    if not labels:
        return True
    widest = max(len(line) for label in labels for line in label.split("<br>"))
    return widest * CHAR_PX * len(labels) <= PLOT_PX


def _groups(df: pl.DataFrame, color_by: str) -> list[tuple[object, str]]:
    """(value, legend name) per colour: numbers in numeric order (0, 70, 100, never the text
    order 0, 100, 70), the rest in the working-set order then alphabetically; each named as a
    subtitle prints it (`70% read`, `cache working set`)."""
    if color_by not in df.columns:
        return [(None, "")]
    values = df[color_by].unique().to_list()
    if df[color_by].dtype.is_numeric():
        known = sorted(v for v in values if not common.is_missing(v))
    else:
        known = common.ordered(values, common.WORKING_SET_ORDER)
    if any(common.is_missing(v) for v in values):
        known.append(None)
    return [(v, common.context_value(color_by, v)) for v in known]


def config_delta_bars(
    df: pl.DataFrame,
    *,
    metric: str = "iops_delta_pct",
    color_by: str = "working_set",
    title: str = "One-label comparison",
    subtitle: str = "",
) -> go.Figure:
    """One bar per `config_deltas` row: the percent change of `metric` from `from_value` to
    `to_value`, coloured by a context column (`color_by`, e.g. working set), never added up:
    the bars of one x label differ in colour and stand side by side.

    `pair` (x label) is built from the from/to values when the caller has not set it; its
    parts (` · `) go on lines of their own, horizontal when they fit (`fits_horizontally`).
    A legend is drawn only when the colour varies (otherwise `subtitle` says its one value).
    Where the mart gives a 95 % interval of the difference it is an error bar (in % of the
    from value); the hover says "no spread information" where there is none.
    """
    if df.is_empty() or not common.has_values(df, metric):
        return common.empty_figure(title)
    if "pair" not in df.columns:
        df = df.with_columns(pair=pl.format("{} → {}", pl.col("from_value"), pl.col("to_value")))
    same = ["pair", color_by] if color_by in df.columns else ["pair"]
    if df.select(same).is_duplicated().any():
        raise ValueError(
            "two config_deltas rows share an x label and colour: nothing may be added up"
        )
    df = df.with_columns(
        _note=pl.Series(_notes(df), dtype=pl.String),
        _tick=pl.col("pair").str.replace_all(" · ", "<br>", literal=True),
    )
    groups = _groups(df, color_by)
    fig = go.Figure()
    ticks: list[str] = []  # x labels in the legend's order, each once
    for i, (value, name) in enumerate(groups):
        if color_by not in df.columns:
            part = df
        elif value is None:
            part = df.filter(pl.col(color_by).is_null())
        else:
            part = df.filter(pl.col(color_by) == value)
        ticks += [t for t in part["_tick"].unique(maintain_order=True) if t not in ticks]
        bars = _interval_pct(part, metric)
        error_y = (
            {"type": "data", "array": bars[0], "arrayminus": bars[1], "visible": True,
             "color": common.MARK_COLOR}
            if bars and any(v is not None for v in bars[0])
            else None
        )  # fmt: skip
        fig.add_trace(
            go.Bar(
                x=part["_tick"].to_list(),
                y=part[metric].to_list(),
                name=name or "comparison",
                marker_color=common.color(i),
                error_y=error_y,
                customdata=part["_note"].to_list(),
                showlegend=len(groups) > 1,
                hovertemplate="%{x}<br>%{y:+.1f}%<br>%{customdata}<extra></extra>",
            )
        )
    horizontal = fits_horizontally(ticks)
    fig.update_layout(
        template=common.TEMPLATE,
        title=title,
        barmode="group",  # the colours of one x label side by side
        xaxis_title="Comparison (from → to, and what differs between the bars)",
        yaxis_title=f"Change in {CONFIG_DELTA_METRICS.get(metric, metric)} (%)",
        height=480,
        hovermode="closest",
    )
    fig.update_xaxes(tickangle=0 if horizontal else -45, categoryorder="array",
                     categoryarray=ticks)  # fmt: skip
    return common.with_subtitle(fig, subtitle)
