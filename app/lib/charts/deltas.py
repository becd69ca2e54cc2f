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


def profile_delta_heatmap(
    df: pl.DataFrame, *, metric: str = "latency_vs_baseline_pct", title: str | None = None
) -> go.Figure:
    """Cost of each data service: `metric` (a percent delta) by profile and read mix.

    `df` holds `profile_latency_deltas` rows. One heatmap per working set; red means worse
    (more latency, fewer IOPS).
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
    return fig


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


def config_delta_bars(
    df: pl.DataFrame,
    *,
    metric: str = "iops_delta_pct",
    color_by: str = "working_set",
    title: str = "One-label comparison",
) -> go.Figure:
    """One bar per `config_deltas` row: the percent change of `metric` from `from_value` to
    `to_value`, coloured by a context column (`color_by`, e.g. working set), never added up.

    `pair` (x label) is built from the from/to values when the caller has not set it. Where
    the mart gives a 95 % interval of the difference it is an error bar (in % of the from
    value); the hover says "no spread information" where there is none.
    """
    if df.is_empty() or not common.has_values(df, metric):
        return common.empty_figure(title)
    if "pair" not in df.columns:
        df = df.with_columns(pair=pl.format("{} → {}", pl.col("from_value"), pl.col("to_value")))
    if df["pair"].is_duplicated().any():
        raise ValueError("two config_deltas rows share an x label: nothing may be added up")
    context = (
        df[color_by].cast(pl.String).fill_null(common.MISSING)
        if color_by in df.columns
        else pl.Series([""] * df.height, dtype=pl.String)
    )
    df = df.with_columns(_context=context, _note=pl.Series(_notes(df), dtype=pl.String))
    fig = go.Figure()
    for i, group in enumerate(common.ordered(df["_context"], common.WORKING_SET_ORDER)):
        part = df.filter(pl.col("_context") == group)
        bars = _interval_pct(part, metric)
        error_y = (
            {"type": "data", "array": bars[0], "arrayminus": bars[1], "visible": True}
            if bars and any(v is not None for v in bars[0])
            else None
        )
        fig.add_trace(
            go.Bar(
                x=part["pair"].to_list(),
                y=part[metric].to_list(),
                name=f"{color_by.replace('_', ' ')}: {group}" if group else "comparison",
                marker_color=common.color(i),
                error_y=error_y,
                customdata=part["_note"].to_list(),
                showlegend=True,  # even a single colour says what it stands for
                hovertemplate="%{x}<br>%{y:+.1f}%<br>%{customdata}<extra></extra>",
            )
        )
    fig.update_layout(
        template=common.TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title="Comparison (from → to, context)",
        yaxis_title=f"Change in {CONFIG_DELTA_METRICS.get(metric, metric)} (%)",
        height=480,
        hovermode="closest",
    )
    return fig
