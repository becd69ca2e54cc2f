"""Pure chart builders: a DataFrame in, a `go.Figure` out; no Streamlit, no caching.

Every axis title names its unit (`axis_title`), every figure uses the one `TEMPLATE`, and
pages pass `png_config(name)` to `st.plotly_chart` so the modebar's camera button saves a PNG.
Builders accept frames with missing optional columns and draw what is there.
"""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

TEMPLATE = go.layout.Template(pio.templates["plotly_white"])
TEMPLATE.layout.font = {"family": "Inter, Arial, sans-serif", "size": 13}
# Legend under the plot: above it, it collides with the title and the subplot titles.
TEMPLATE.layout.legend = {"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0}
TEMPLATE.layout.margin = {"l": 60, "r": 60, "t": 80, "b": 40}
TEMPLATE.layout.hovermode = "x unified"

# One colour per profile and per transport, the same on every page.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
PROFILE_ORDER = ["baseline", "performance", "balanced", "density"]
TRANSPORT_COLORS = {"tcp": "#1f77b4", "rdma": "#ff7f0e"}
WORKING_SET_ORDER = ["cache", "capacity"]

# Column -> (label, unit). The unit lands in every axis title.
COLUMNS: dict[str, tuple[str, str]] = {
    "iops": ("IOPS", "IO/s"),
    "read_iops": ("Read IOPS", "IO/s"),
    "write_iops": ("Write IOPS", "IO/s"),
    "iops_per_node": ("IOPS per node", "IO/s"),
    "throughput_mb_s": ("Throughput", "MB/s, 10^6 bytes"),
    "avg_latency_ms": ("Average latency", "ms"),
    "read_latency_ms": ("Read latency", "ms"),
    "write_latency_ms": ("Write latency", "ms"),
    "p95_latency_ms": ("95th percentile latency", "ms"),
    "p99_latency_ms": ("99th percentile latency", "ms"),
    "cpu_util_pct": ("Host CPU", "% of capacity"),
    "nodes": ("Nodes", "hosts"),
    "vm_count": ("Worker VMs", "VMs"),
    "block_size_bytes": ("Block size", "bytes"),
    "outstanding_io": ("Outstanding I/O", "I/Os"),
    "read_pct": ("Read mix", "% reads"),
    "working_set": ("Working set", "cache / capacity"),
    "iops_per_cpu_pct": ("IOPS per CPU percent", "IO/s per %"),
    "delta_pct": ("Change", "%"),
    "used_tb": ("Capacity used", "TB, 10^12 bytes"),
    "ratio": ("Ratio", "x"),
    "sampled_at": ("Time", "UTC"),
    "elapsed_s": ("Time since the run started", "s"),
    "interval_start_at": ("Interval start", "UTC"),
    "interval_end_at": ("Interval end", "UTC"),
}


def axis_title(column: str) -> str:
    label, unit = COLUMNS.get(column, (column.replace("_", " ").capitalize(), ""))
    return f"{label} ({unit})" if unit else label


def png_config(filename: str) -> dict:
    """Plotly `config` for st.plotly_chart: the modebar camera downloads a PNG."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {
            "format": "png",
            "filename": filename,
            "height": 600,
            "width": 1200,
            "scale": 2,
        },
    }


def read_mix_label(read_pct: float) -> str:
    # A result whose read mix nobody recorded (NULL) still needs a category name.
    return "read mix n/a" if pd.isna(read_pct) else f"{read_pct:g}% read"


def _ordered(values, preferred: list[str]) -> list:
    present = [v for v in pd.unique(pd.Series(values).dropna())]
    head = [v for v in preferred if v in present]
    return head + sorted(v for v in present if v not in head)


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _empty(title: str) -> go.Figure:
    fig = go.Figure(layout={"template": TEMPLATE, "title": title})
    fig.add_annotation(text="No data", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def ra_comparison(df: pd.DataFrame, *, title: str = "IOPS and latency by read mix") -> go.Figure:
    """The Micron RA chart: IOPS bars and latency lines (second axis) per read mix.

    `df` has `working_set`, `profile`, `origin` (measured/published), `read_pct`, `iops`,
    `avg_latency_ms`, one row per point. One subplot per working set (cache and capacity side
    by side), one bar group per profile and origin; published figures are hatched bars and
    dashed lines.
    """
    if df.empty:
        return _empty(title)
    df = df.copy()
    df["working_set"] = df["working_set"].fillna("unspecified")
    df["profile"] = df["profile"].fillna("unspecified")
    working_sets = _ordered(df["working_set"], WORKING_SET_ORDER)
    profiles = _ordered(df["profile"], PROFILE_ORDER)
    origins = _ordered(df["origin"], ["measured", "published"])
    mixes = sorted(df["read_pct"].dropna().unique())
    categories = [read_mix_label(m) for m in mixes]
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        specs=[[{"secondary_y": True}] * len(working_sets)],
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        # room for the left panel's latency axis title between the panels
        horizontal_spacing=0.16,
    )
    for col, ws in enumerate(working_sets, start=1):
        for p_idx, profile in enumerate(profiles):
            for origin in origins:
                part = df[(df["working_set"] == ws) & (df["profile"] == profile)]
                part = part[part["origin"] == origin].sort_values("read_pct")
                if part.empty:
                    continue
                name = profile if len(origins) == 1 else f"{profile} ({origin})"
                published = origin == "published"
                x = [read_mix_label(v) for v in part["read_pct"]]
                fig.add_trace(
                    go.Bar(
                        x=x,
                        y=part["iops"],
                        name=f"{name} IOPS",
                        legendgroup=name,
                        showlegend=col == 1,
                        offsetgroup=name,
                        marker={
                            "color": _color(p_idx),
                            "pattern": {"shape": "/" if published else ""},
                            "opacity": 0.75 if published else 1.0,
                        },
                        hovertemplate="%{y:,.0f} IO/s",
                    ),
                    row=1,
                    col=col,
                    secondary_y=False,
                )
                if "avg_latency_ms" in part and part["avg_latency_ms"].notna().any():
                    fig.add_trace(
                        go.Scatter(
                            x=x,
                            y=part["avg_latency_ms"],
                            name=f"{name} latency",
                            legendgroup=name,
                            showlegend=col == 1,
                            mode="lines+markers",
                            line={"color": _color(p_idx), "dash": "dash" if published else "solid"},
                            hovertemplate="%{y:.2f} ms",
                        ),
                        row=1,
                        col=col,
                        secondary_y=True,
                    )
        fig.update_xaxes(
            title_text=axis_title("read_pct"),
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
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=600)
    return fig


def profile_delta_heatmap(
    df: pd.DataFrame, *, metric: str = "latency_vs_baseline_pct", title: str | None = None
) -> go.Figure:
    """Cost of each data service: `metric` (a percent delta) by profile and read mix.

    One heatmap per working set; red means worse (more latency, fewer IOPS).
    """
    title = title or f"{metric.replace('_', ' ')} by profile and read mix"
    if df.empty or metric not in df or df[metric].isna().all():
        return _empty(title)
    df = df.copy()
    df["working_set"] = df.get("working_set", pd.Series(index=df.index)).fillna("unspecified")
    working_sets = _ordered(df["working_set"], WORKING_SET_ORDER)
    profiles = _ordered(df["profile"], PROFILE_ORDER)
    mixes = sorted(df["read_pct"].dropna().unique())
    latency_like = "latency" in metric
    # Latency up is bad and IOPS down is bad: keep "red = worse" for both.
    colorscale = "RdBu_r" if latency_like else "RdBu"
    fig = make_subplots(
        rows=1,
        cols=len(working_sets),
        subplot_titles=[f"{ws} working set" for ws in working_sets],
        shared_yaxes=True,
    )
    for col, ws in enumerate(working_sets, start=1):
        part = df[df["working_set"] == ws]
        grid = part.pivot_table(
            index="profile", columns="read_pct", values=metric, aggfunc="mean"
        ).reindex(index=profiles, columns=mixes)
        text = [[("" if pd.isna(v) else f"{v:+.1f}%") for v in row] for row in grid.to_numpy()]
        fig.add_trace(
            go.Heatmap(
                x=[read_mix_label(m) for m in mixes],
                y=profiles,
                z=grid.to_numpy(),
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


CONFIG_DELTA_METRICS = {
    "iops_delta_pct": "IOPS",
    "avg_latency_delta_pct": "Average latency",
    "p95_latency_delta_pct": "p95 latency",
    "cpu_delta_pct": "Host CPU",
}


def config_delta_bars(df: pd.DataFrame, *, title: str = "One-label comparison") -> go.Figure:
    """Percent change of each metric from `from_value` to `to_value`, one bar group per pair.

    `df` holds `config_deltas` rows of one dimension; `pair` (x label) is built from the from/to
    values and the workload columns when the caller has not set it.
    """
    metrics = [m for m in CONFIG_DELTA_METRICS if m in df and df[m].notna().any()]
    if df.empty or not metrics:
        return _empty(title)
    df = df.copy()
    if "pair" not in df:
        df["pair"] = df["from_value"].astype(str) + " → " + df["to_value"].astype(str)
    fig = go.Figure()
    for i, metric in enumerate(metrics):
        fig.add_trace(
            go.Bar(
                x=df["pair"],
                y=df[metric],
                name=CONFIG_DELTA_METRICS[metric],
                marker_color=_color(i),
                hovertemplate="%{y:+.1f}%",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title="Comparison (from → to, workload)",
        yaxis_title="Change from the first value (%)",
        height=460,
    )
    return fig


TRANSPORT_METRICS = ["iops", "throughput_mb_s", "avg_latency_ms", "cpu_util_pct"]


def transport_side_by_side(df: pd.DataFrame, *, title: str = "TCP vs RDMA") -> go.Figure:
    """IOPS, MB/s, latency and CPU per workload, one bar per transport, in a 2x2 grid.

    `df` has `workload` (x label), `transport` and the TRANSPORT_METRICS columns.
    """
    if df.empty:
        return _empty(title)
    fig = make_subplots(
        rows=2,
        cols=2,
        subplot_titles=[axis_title(m) for m in TRANSPORT_METRICS],
        vertical_spacing=0.22,
    )
    transports = _ordered(df["transport"], ["tcp", "rdma"])
    for i, metric in enumerate(TRANSPORT_METRICS):
        row, col = divmod(i, 2)
        for t_idx, transport in enumerate(transports):
            part = df[df["transport"] == transport]
            fig.add_trace(
                go.Bar(
                    x=part["workload"],
                    y=part.get(metric),
                    name=transport.upper(),
                    legendgroup=transport,
                    showlegend=i == 0,
                    marker_color=TRANSPORT_COLORS.get(transport, _color(t_idx + 2)),
                ),
                row=row + 1,
                col=col + 1,
            )
        fig.update_yaxes(title_text=axis_title(metric), row=row + 1, col=col + 1)
        fig.update_xaxes(title_text="Workload", row=row + 1, col=col + 1)
    fig.update_layout(template=TEMPLATE, title=title, barmode="group", height=720)
    return fig


def iops_per_cpu(df: pd.DataFrame, *, title: str = "IOPS per CPU percent") -> go.Figure:
    """`transport_cpu_efficiency`: IOPS per host-CPU percent for TCP and RDMA per workload."""
    if df.empty:
        return _empty(title)
    fig = go.Figure()
    for transport in ("tcp", "rdma"):
        column = f"{transport}_iops_per_cpu_pct"
        if column in df:
            fig.add_trace(
                go.Bar(
                    x=df["workload"],
                    y=df[column],
                    name=transport.upper(),
                    marker_color=TRANSPORT_COLORS[transport],
                    hovertemplate="%{y:,.0f} IO/s per %",
                )
            )
    if "rdma_efficiency_gain_pct" in df:
        for workload, gain, top in zip(
            df["workload"],
            df["rdma_efficiency_gain_pct"],
            df.get("rdma_iops_per_cpu_pct", df["rdma_efficiency_gain_pct"]),
            strict=True,
        ):
            if pd.notna(gain):
                fig.add_annotation(
                    x=workload, y=top, text=f"RDMA {gain:+.0f}%", yshift=14, showarrow=False
                )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title="Workload",
        yaxis_title=axis_title("iops_per_cpu_pct"),
        height=440,
    )
    return fig


def capacity_bars(df: pd.DataFrame, *, title: str = "Capacity before and after") -> go.Figure:
    """Logical (before dedupe/compression) and physical used capacity per observation, in TB."""
    if df.empty:
        return _empty(title)
    df = df.copy()
    df["observation"] = df["testbed"].astype(str) + " · " + df["captured_at"].astype(str).str[:16]
    fig = go.Figure()
    for i, (column, name) in enumerate(
        [("logical_used_bytes", "Logical (before)"), ("physical_used_bytes", "Physical (after)")]
    ):
        fig.add_trace(
            go.Bar(
                x=df["observation"],
                y=df[column] / 1e12,
                name=name,
                marker_color=_color(i),
                hovertemplate="%{y:.2f} TB",
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title="Observation (testbed · captured at, UTC)",
        yaxis_title=axis_title("used_tb"),
        height=420,
    )
    return fig


def scaling_scatter(
    df: pd.DataFrame,
    *,
    x: str,
    y: str = "iops_per_node",
    color: str = "testbed",
    title: str | None = None,
) -> go.Figure:
    """`y` against `x`, one line per `color` group, points sorted by `x`."""
    title = title or f"{axis_title(y)} vs {axis_title(x)}"
    if df.empty or x not in df or y not in df or df[[x, y]].dropna().empty:
        return _empty(title)
    df = df.dropna(subset=[x, y]).copy()
    df[color] = df[color].fillna("unspecified") if color in df else "all"
    fig = go.Figure()
    for i, group in enumerate(_ordered(df[color], [])):
        part = df[df[color] == group].sort_values(x)
        # A line through several workloads at one x would draw a meaningless vertical
        # stroke: join points only when each x has one point.
        joined = not part[x].duplicated().any()
        fig.add_trace(
            go.Scatter(
                x=part[x],
                y=part[y],
                name=str(group),
                mode="lines+markers" if joined else "markers",
                marker={"color": _color(i), "size": 9},
            )
        )
    xaxis: dict = {"title": {"text": axis_title(x)}}
    if x == "block_size_bytes":
        xaxis["type"] = "log"
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis=xaxis,
        yaxis_title=axis_title(y),
        height=420,
        hovermode="closest",
    )
    return fig


LATENCY_FIGURES = [
    "avg_latency_ms",
    "read_latency_ms",
    "write_latency_ms",
    "p95_latency_ms",
    "p99_latency_ms",
]


def latency_figures(row: pd.Series, *, title: str = "Latency") -> go.Figure:
    """Bars of one result's latency figures (average, read, write, p95, p99) in ms."""
    present = [c for c in LATENCY_FIGURES if c in row and pd.notna(row[c])]
    if not present:
        return _empty(title)
    fig = go.Figure(
        go.Bar(
            x=[COLUMNS[c][0] for c in present],
            y=[float(row[c]) for c in present],
            marker_color=[_color(i) for i in range(len(present))],
            text=[f"{float(row[c]):.2f}" for c in present],
            textposition="outside",
        )
    )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title="Latency figure",
        yaxis_title=axis_title("avg_latency_ms"),
        height=380,
        hovermode="closest",
    )
    return fig


def detail_lines(df: pd.DataFrame, *, x: str, title: str) -> go.Figure:
    """A per-result detail mart (time series, percentiles): one line per numeric column.

    Units are read from the column names' suffixes (`_ms`, `_pct`, `_mb_s`...).
    """
    numeric = [
        c
        for c in df.select_dtypes("number").columns
        if c != x and not c.endswith("_id") and df[c].notna().any()
    ]
    if df.empty or not numeric:
        return _empty(title)
    df = thin(df.sort_values(x))
    fig = go.Figure()
    for i, column in enumerate(numeric):
        fig.add_trace(
            go.Scattergl(
                x=df[x],
                y=df[column],
                name=axis_title(column),
                mode="lines",
                line={"color": _color(i)},
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title=axis_title(x),
        yaxis_title="Value (unit in the series name)",
        height=400,
    )
    return fig


def workload_label(row: pd.Series) -> str:
    """A short workload name like `70% read, 4 KiB random, OIO 512` from whichever columns exist."""
    parts = []
    if pd.notna(row.get("read_pct")):
        parts.append(f"{row['read_pct']:g}% read")
    size = row.get("block_size_bytes")
    if size is not None and pd.notna(size):
        parts.append(_bytes_label(int(size)))
    rnd = row.get("random_pct")
    if rnd is not None and pd.notna(rnd):
        parts.append("random" if rnd >= 100 else "seq" if rnd <= 0 else f"{rnd:g}% random")
    oio = row.get("outstanding_io")
    if oio is not None and pd.notna(oio):
        parts.append(f"OIO {int(oio)}")
    ws = row.get("working_set")
    if ws is not None and pd.notna(ws):
        parts.append(str(ws))
    return ", ".join(parts) or "workload"


def _bytes_label(size: int) -> str:
    if size <= 0:
        return f"{size} B"
    exp = min(int(math.log(size, 1024)), 3)
    value = size / 1024**exp
    return f"{value:g} {['B', 'KiB', 'MiB', 'GiB'][exp]}"


# --- Run explorer ---------------------------------------------------------------------------

# Browsers stay responsive up to a few thousand SVG points per trace; queries.py already
# buckets time series to 2,000 points, and WebGL (Scattergl) draws the rest cheaply.
MAX_POINTS_PER_TRACE = 2000
SPREAD_METRICS = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms", "p99_latency_ms"]
PERCENTILE_X = ("percentile", "percentile_pct", "quantile_pct")
LATENCY_Y = ("latency_ms", "latency_us", "value_ms")
HISTOGRAM_X = (
    "bin_ms",
    "bucket_upper_ms",
    "bin_upper_ms",
    "upper_ms",
    "latency_ms",
    "bucket_upper_us",
)
HISTOGRAM_Y = ("io_count", "count", "samples", "share_pct", "pct_of_ios")


def _first(df: pd.DataFrame, names: tuple[str, ...]) -> str | None:
    return next((c for c in names if c in df.columns), None)


def _traces(df: pd.DataFrame, by: list[str]):
    """(name, rows) per trace: one per combination of the `by` columns, or one for all."""
    by = [c for c in by if c in df.columns and df[c].notna().any()]
    if not by:
        yield "", df
        return
    for key, part in df.groupby(by, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        yield " · ".join("n/a" if pd.isna(k) else str(k) for k in key), part


def thin(df: pd.DataFrame, max_points: int = MAX_POINTS_PER_TRACE) -> pd.DataFrame:
    """Every n-th row so a trace keeps at most `max_points` (the last row is always kept)."""
    if len(df) <= max_points:
        return df
    step = math.ceil(len(df) / max_points)
    return pd.concat([df.iloc[::step], df.iloc[[-1]]]).drop_duplicates()


def spread_strip(df: pd.DataFrame, *, label: str, title: str = "Spread") -> go.Figure:
    """One box (with every point) per metric: how far the VMs / hosts / jobs of a result differ.

    `label` names the column shown on hover (VM, host, job).
    """
    metrics = [c for c in SPREAD_METRICS if c in df.columns and df[c].notna().any()]
    if df.empty or not metrics:
        return _empty(title)
    fig = make_subplots(rows=1, cols=len(metrics), subplot_titles=[axis_title(m) for m in metrics])
    names = df[label].astype("string").fillna("n/a") if label in df else None
    for i, metric in enumerate(metrics, start=1):
        fig.add_trace(
            go.Box(
                y=df[metric],
                text=names,
                name=COLUMNS.get(metric, (metric,))[0],
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker={"color": _color(i - 1), "size": 6},
                hovertemplate="%{text}: %{y:,.3f}<extra></extra>",
                showlegend=False,
            ),
            row=1,
            col=i,
        )
    fig.update_layout(template=TEMPLATE, title=title, height=380, hovermode="closest")
    return fig


def percentile_curve(df: pd.DataFrame, *, title: str = "Latency percentiles") -> go.Figure:
    """Completion latency against percentile, one line per direction; log latency axis."""
    x, y = _first(df, PERCENTILE_X), _first(df, LATENCY_Y)
    if df.empty or x is None or y is None:
        return _empty(title)
    fig = go.Figure()
    for i, (name, part) in enumerate(_traces(df, ["direction", "io_direction"])):
        part = part.sort_values(x)
        fig.add_trace(
            go.Scatter(
                x=part[x],
                y=part[y],
                name=name or "all I/O",
                mode="lines+markers",
                line={"color": _color(i)},
            )
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title="Percentile (% of I/Os completed within)",
        yaxis_title=axis_title(y) if y in COLUMNS else f"Latency ({y.rsplit('_', 1)[-1]})",
        yaxis_type="log",
        height=400,
    )
    return fig


def latency_histogram(df: pd.DataFrame, *, title: str = "Latency histogram") -> go.Figure:
    """fio json+ completion-latency buckets: I/Os per bucket upper bound, log latency axis."""
    x, y = _first(df, HISTOGRAM_X), _first(df, HISTOGRAM_Y)
    if df.empty or x is None or y is None:
        return _empty(title)
    fig = go.Figure()
    for i, (name, part) in enumerate(_traces(df, ["direction", "io_direction", "latency_kind"])):
        part = thin(part.sort_values(x))
        fig.add_trace(
            go.Scattergl(
                x=part[x],
                y=part[y],
                name=name or "all I/O",
                mode="lines",
                line={"color": _color(i), "shape": "hv"},
            )
        )
    unit = x.rsplit("_", 1)[-1]
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        xaxis_title=f"Completion latency, bucket upper bound ({unit})",
        xaxis_type="log",
        yaxis_title=y.replace("_", " ").capitalize(),
        height=400,
    )
    return fig


def time_lines(
    df: pd.DataFrame, *, x: str, metrics: list[str], by: list[str], title: str
) -> go.Figure:
    """Time series, one subplot per metric and one WebGL line per `by` group (host, VM...)."""
    metrics = [m for m in metrics if m in df.columns and df[m].notna().any()]
    if df.empty or x not in df.columns or not metrics:
        return _empty(title)
    fig = make_subplots(
        rows=len(metrics),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        subplot_titles=[axis_title(m) for m in metrics],
    )
    groups = list(_traces(df.sort_values(x), by))
    for row, metric in enumerate(metrics, start=1):
        for i, (name, part) in enumerate(groups):
            part = thin(part)
            fig.add_trace(
                go.Scattergl(
                    x=part[x],
                    y=part[metric],
                    name=name or axis_title(metric),
                    legendgroup=name,
                    showlegend=row == 1,
                    mode="lines",
                    line={"color": _color(i)},
                ),
                row=row,
                col=1,
            )
    fig.update_layout(
        template=TEMPLATE, title=title, height=220 + 180 * len(metrics), hovermode="closest"
    )
    fig.update_xaxes(title_text=axis_title(x), row=len(metrics), col=1)
    return fig
