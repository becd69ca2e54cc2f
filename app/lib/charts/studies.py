"""The seed studies' figures, rebuilt: metric panels, sweeps with latency on a second axis,
object-type capacity. Every bar or point is one mart row (a result, a sweep point, a
capacity row); a builder refuses a frame where two rows of one trace share an x."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
import polars as pl
from plotly.subplots import make_subplots

from app.lib.charts.common import (
    MARK_COLOR,
    MISSING,
    PALETTE,
    TEMPLATE,
    axis_title,
    bytes_label,
    color,
    context_value,
    empty_figure,
    has_values,
    is_missing,
    ordered,
    plural,
)

LENOVO_METRICS = ("iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms")
# Past the palette's seven colours a series keeps its colour's neighbours apart by its marker
# (lines) or a hatch (bars): the eighth sweep is never a twin of the first.
SYMBOLS = ("circle", "square", "triangle-up", "cross", "star")
PATTERNS = ("", "/", ".", "x", "-")
TB = 1e12  # the capacity charts' one unit: TB = 10^12 bytes (decimal, as the RAs print)


def _check_unique(part: pl.DataFrame, x: str, trace: str) -> None:
    if part[x].is_duplicated().any():
        raise ValueError(f"two rows of trace {trace!r} share {x}: a chart never merges rows")


def _ids(part: pl.DataFrame) -> list | None:
    return part["result_id"].to_list() if "result_id" in part.columns else None


def metric_panels(
    df: pl.DataFrame,
    *,
    x: str,
    metrics: Sequence[str] = LENOVO_METRICS,
    color_by: str | None = None,
    title: str,
    x_order: Sequence[str] = (),
) -> go.Figure:
    """One panel per metric (2 columns), a bar per row at `x`, one colour per `color_by`
    value (a legend entry each; the panels share it)."""
    metrics = [m for m in metrics if has_values(df, m)]
    if df.is_empty() or not metrics:
        return empty_figure(title)
    cols = 2 if len(metrics) > 1 else 1
    rows = -(-len(metrics) // cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[axis_title(m) for m in metrics],
        vertical_spacing=0.3 if rows > 1 else 0.1,
        horizontal_spacing=0.14,
    )
    df = df.with_columns(pl.col(x).cast(pl.String).fill_null(MISSING).alias("_x"))
    # colours in the rows' order: the marts order them (tcp before rdma when the page says so)
    if color_by:  # a row without the colour label is its own "—" colour, never dropped
        df = df.with_columns(pl.col(color_by).cast(pl.String).fill_null(MISSING).alias("_color"))
    groups = df["_color"].unique(maintain_order=True).to_list() if color_by else [None]
    categories = ordered(df["_x"], list(x_order))
    for i, metric in enumerate(metrics):
        row, col = divmod(i, cols)
        for g_idx, group in enumerate(groups):
            part = df if group is None else df.filter(pl.col("_color") == group)
            _check_unique(part, "_x", str(group))
            name = axis_title(metric).split(" (")[0] if group is None else str(group)
            fig.add_trace(
                go.Bar(
                    x=part["_x"].to_list(),
                    y=part[metric].to_list(),
                    name=name,
                    legendgroup=name,
                    showlegend=(group is not None and i == 0) or group is None,
                    marker_color=color(i if group is None else g_idx),
                    customdata=_ids(part),
                ),
                row=row + 1,
                col=col + 1,
            )
        fig.update_xaxes(categoryorder="array", categoryarray=categories, row=row + 1, col=col + 1)
        fig.update_yaxes(title_text=axis_title(metric), row=row + 1, col=col + 1)
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        height=330 * rows + 120,
        hovermode="closest",
    )
    return fig


def _x_axis(x: str, values: list) -> dict:
    """Block sizes on a log axis labelled 4K ... 1M; other axes as they are."""
    axis: dict = {"title": {"text": axis_title(x)}}
    if x == "block_size_bytes":
        axis.update(
            type="log",
            tickvals=values,
            ticktext=[bytes_label(int(v)) for v in values],
            title={"text": "Block size"},
        )
    return axis


def sweep_lines(
    points: pl.DataFrame,
    *,
    x: str,
    y: str = "iops",
    y2: str | None = "avg_latency_ms",
    series: str = "series",
    title: str,
    x_title: str | None = None,
    legend_title: str = "",
) -> go.Figure:
    """Connected lines of sweep points in axis order, one per `series` value in the rows'
    order (the view sorts them, numbers as numbers), `y` on the left axis and `y2` (latency,
    dashed) on the right. One legend entry per series: its `y2` line shares the entry
    (legendgroup); the axis titles tell the measures apart."""
    if points.is_empty() or not has_values(points, y):
        return empty_figure(title)
    fig = make_subplots(specs=[[{"secondary_y": y2 is not None}]])
    # a point without a series label is its own "—" line, never dropped
    points = points.with_columns(pl.col(series).cast(pl.String).fill_null(MISSING))
    names = points[series].unique(maintain_order=True).to_list()
    for i, name in enumerate(names):
        part = points.filter(pl.col(series) == name).sort(x)
        _check_unique(part, x, name)
        # y solid on the left axis; y2 (where the series has it) dashed on the right
        for column, right in ((y, False), (y2, True)):
            if right and (y2 is None or not has_values(part, y2)):
                continue
            measure = axis_title(column)  # type: ignore[arg-type]
            fig.add_trace(
                go.Scatter(
                    x=part[x].to_list(),
                    y=part[column].to_list(),
                    name=name,
                    legendgroup=name,
                    showlegend=not right,
                    mode="lines+markers",
                    line={"color": color(i), **({"dash": "dash"} if right else {})},
                    marker={"symbol": _symbol(i) + ("-open" if right else "")},
                    customdata=_ids(part),
                    hovertemplate=f"{name}<br>%{{x}}: %{{y:,.4g}} {measure}<extra></extra>",
                ),
                secondary_y=right,
            )
    xs = sorted(points[x].drop_nulls().unique().to_list())
    xaxis = _x_axis(x, xs)
    if x_title:
        xaxis["title"] = {"text": x_title}
    fig.update_layout(template=TEMPLATE, title=title, height=460, hovermode="closest", xaxis=xaxis)
    if legend_title:
        fig.update_layout(legend_title_text=legend_title)
    fig.update_yaxes(title_text=axis_title(y), secondary_y=False, rangemode="tozero")
    if y2 is not None:
        fig.update_yaxes(
            title_text=axis_title(y2) + ", dashed",
            secondary_y=True,
            showgrid=False,
            rangemode="tozero",
        )
    return fig


def per_node_bars(rows: pl.DataFrame, *, title: str, legend_title: str = "") -> go.Figure:
    """IOPS per node grouped by node count: x = nodes, one bar per row (a result) in its
    `series` colour (what varies among the rows), in the rows' order. Where per-host data
    exists, a black whisker spans the least to the busiest host's IOPS and the hover gives
    the host imbalance."""
    if rows.is_empty() or not has_values(rows, "iops_per_node"):
        return empty_figure(title)
    rows = rows.filter(pl.col("iops_per_node").is_not_null()).with_columns(
        pl.col("series").cast(pl.String).fill_null(MISSING),
        _x=pl.col("nodes").map_elements(_nodes_label, return_dtype=pl.String),
    )
    categories = [
        _nodes_label(n) for n in sorted(rows["nodes"].unique().to_list(), key=_nulls_last)
    ]
    fig = go.Figure()
    for i, name in enumerate(rows["series"].unique(maintain_order=True).to_list()):
        part = rows.filter(pl.col("series") == name)
        _check_unique(part, "_x", name)
        fig.add_trace(
            go.Bar(
                x=part["_x"].to_list(),
                y=part["iops_per_node"].to_list(),
                name=name,
                marker={"color": color(i), "pattern": {"shape": _pattern(i)}},
                error_y=_host_spread(part),
                customdata=_ids(part),
                hovertext=[_host_text(r) for r in part.iter_rows(named=True)],
                hovertemplate=f"{name}<br>%{{x}}: %{{y:,.0f}} IO/s per node"
                "<br>%{hovertext}<extra></extra>",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        height=460,
        hovermode="closest",
        xaxis={"title": {"text": "Nodes in the cluster"}, "categoryorder": "array",
               "categoryarray": categories},
        yaxis={"title": {"text": axis_title("iops_per_node")}, "rangemode": "tozero"},
    )  # fmt: skip
    if legend_title:
        fig.update_layout(legend_title_text=legend_title)
    return fig


def _symbol(i: int) -> str:
    return SYMBOLS[i // len(PALETTE) % len(SYMBOLS)]


def _pattern(i: int) -> str:
    return PATTERNS[i // len(PALETTE) % len(PATTERNS)]


def _nulls_last(value: object) -> tuple[bool, float]:
    return (is_missing(value), 0.0 if is_missing(value) else float(value))  # type: ignore[arg-type]


def _nodes_label(nodes: object) -> str:
    return context_value("nodes", nodes) if not is_missing(nodes) else f"nodes {MISSING}"


def _host_spread(part: pl.DataFrame) -> dict | None:
    """Whiskers from the least to the busiest host's IOPS around the per-node bar (none for
    a bar without per-host data)."""
    if not has_values(part, "host_iops_max"):
        return None
    up = (part["host_iops_max"] - part["iops_per_node"]).clip(lower_bound=0).to_list()
    down = (part["iops_per_node"] - part["host_iops_min"]).clip(lower_bound=0).to_list()
    return {"type": "data", "array": up, "arrayminus": down, "color": MARK_COLOR}


def _host_text(row: dict) -> str:
    if is_missing(row.get("host_imbalance_pct")):
        return "no per-host data"
    hosts = plural(row["host_count"], "host") if not is_missing(row.get("host_count")) else ""
    return (
        f"{hosts}: {row['host_iops_min']:,.0f} to {row['host_iops_max']:,.0f} IO/s, "
        f"busiest {row['host_imbalance_pct']:.1f} % above the mean"
    )


def capacity_by_object_type(df: pl.DataFrame, *, title: str) -> go.Figure:
    """Used capacity per object type (TB = 10^12 bytes), one bar series per observation."""
    if df.is_empty() or not has_values(df, "used_bytes"):
        return empty_figure(title)
    fig = go.Figure()
    for i, name in enumerate(ordered(df["observation"], [])):
        part = df.filter(pl.col("observation") == name)
        _check_unique(part, "object_type", name)
        fig.add_trace(
            go.Bar(
                x=part["object_type"].to_list(),
                y=(part["used_bytes"] / TB).to_list(),
                name=name,
                marker_color=color(i),
                customdata=part["share_of_used_pct"].to_list()
                if "share_of_used_pct" in part.columns
                else None,
                hovertemplate="%{x}: %{y:.2f} TB (%{customdata:.1f} % of used)<extra></extra>",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title="Object type",
        yaxis_title="Used capacity (TB, 10^12 bytes)",
        height=440,
        hovermode="closest",
    )
    return fig
