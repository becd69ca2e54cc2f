"""What every chart shares: the template, colours, axis titles with units, labels, thinning.

Builders take polars frames (the marts' rows as the query layer returns them) and read the
named columns of their mart; a frame without rows gives a "No data" figure.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio
import polars as pl

from app.lib.charts.export import PUBLICATION

TEMPLATE = go.layout.Template(pio.templates["plotly_white"])
TEMPLATE.layout.font = {"family": "Inter, Arial, sans-serif", "size": 13}
# Legend at the foot of the figure (container coordinates): above the plot it collides with
# the title and the subplot titles, and at a fixed paper offset under the plot it lands on
# long or rotated tick labels; at the foot Plotly grows the bottom margin to fit it.
TEMPLATE.layout.legend = {
    "orientation": "h",
    "yref": "container",
    "yanchor": "bottom",
    "y": 0,
    "x": 0,
}
TEMPLATE.layout.margin = {"l": 60, "r": 60, "t": 80, "b": 40}
TEMPLATE.layout.hovermode = "x unified"

# One colour per profile and per transport, the same on every page. Okabe & Ito's palette
# (Color Universal Design): told apart with deuteranopia and protanopia, where plotly's
# default puts red (density) next to green (balanced). Black is left for marks drawn over
# the bars (latency markers), so they stay visible on a bar of any colour.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442"]
MARK_COLOR = "#000000"
PROFILE_ORDER = ["baseline", "performance", "balanced", "density"]
TRANSPORT_COLORS = {"tcp": PALETTE[0], "rdma": PALETTE[1]}
WORKING_SET_ORDER = ["cache", "capacity"]
# Browsers stay responsive up to a few thousand SVG points per trace; queries.py already
# buckets time series to 2,000 points, and WebGL (Scattergl) draws the rest cheaply.
MAX_POINTS_PER_TRACE = 2000

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


# plotly.js modebar buttons that would send a chart to another host (Chart Studio's "Edit in
# Chart Studio" / "Share chart..."): the dashboard's data never leaves the machine.
SEND_TO_CLOUD_BUTTONS = ("sendDataToCloud", "editInChartStudio")


def png_config(filename: str) -> dict:
    """Plotly.js `config` for a chart (ui.plot): the modebar camera downloads a PNG at the
    publication size (export.PUBLICATION: 1200 x 600 px at scale 3), and nothing offers to
    send the chart anywhere (no Chart Studio buttons, no `plotlyServerURL`)."""
    return {
        "displaylogo": False,
        "showSendToCloud": False,
        "showEditInChartStudio": False,
        "modeBarButtonsToRemove": list(SEND_TO_CLOUD_BUTTONS),
        "toImageButtonOptions": {
            "format": "png",
            "filename": filename,
            "height": PUBLICATION.height,
            "width": PUBLICATION.width,
            "scale": PUBLICATION.scale,
        },
    }


# How every page shows a value the warehouse does not have (never nan, <NA>, None or n/a).
MISSING = "—"


def is_missing(value: object) -> bool:
    """NULL in a polars row (None), a float NaN, or pandas' NA/NaT."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return True
    return type(value).__name__ in ("NAType", "NaTType")


def read_mix_label(read_pct: float | None) -> str:
    # A result whose read mix nobody recorded (NULL) still needs a category name.
    return f"read mix {MISSING}" if is_missing(read_pct) else f"{read_pct:g}% read"


def ordered(values: Iterable[object], preferred: Sequence[str]) -> list:
    """The distinct non-null values: the preferred ones first in their order, then sorted."""
    present = list(dict.fromkeys(v for v in values if not is_missing(v)))
    head = [v for v in preferred if v in present]
    return head + sorted(v for v in present if v not in head)


def color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def empty_figure(title: str) -> go.Figure:
    """The title and "No data", without Plotly's empty -1..4 axes."""
    fig = go.Figure(layout={"template": TEMPLATE, "title": title, "height": 200})
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.add_annotation(text="No data", showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    return fig


def has_values(df: pl.DataFrame, column: str) -> bool:
    """The frame has the column and at least one non-null value in it."""
    return column in df.columns and df[column].null_count() < df.height


@dataclass(frozen=True, slots=True)
class BarSeries:
    """One bar series of a grouped bar chart."""

    name: str
    y: Sequence[object]
    color: str
    hovertemplate: str | None = None


def grouped_bars(
    x: Sequence[object],
    series: Sequence[BarSeries],
    *,
    title: str,
    xaxis_title: str,
    yaxis_title: str,
    height: int,
) -> go.Figure:
    """One bar per series at each x, side by side, in the shared template."""
    fig = go.Figure()
    for s in series:
        fig.add_trace(
            go.Bar(x=x, y=s.y, name=s.name, marker_color=s.color, hovertemplate=s.hovertemplate)
        )
    fig.update_layout(
        template=TEMPLATE,
        title=title,
        barmode="group",
        xaxis_title=xaxis_title,
        yaxis_title=yaxis_title,
        height=height,
    )
    return fig


def workload_label(row: Mapping[str, object]) -> str:
    """A short workload name like `70% read, 4K, random, OIO 512` from the columns present."""
    parts = []
    if not is_missing(row.get("read_pct")):
        parts.append(f"{row['read_pct']:g}% read")
    size = row.get("block_size_bytes")
    if not is_missing(size):
        parts.append(bytes_label(int(size)))  # type: ignore[arg-type]
    rnd = row.get("random_pct")
    if not is_missing(rnd):
        parts.append("random" if rnd >= 100 else "seq" if rnd <= 0 else f"{rnd:g}% random")  # type: ignore[operator]
    oio = row.get("outstanding_io")
    if not is_missing(oio):
        parts.append(f"OIO {int(oio)}")  # type: ignore[arg-type]
    ws = row.get("working_set")
    if not is_missing(ws):
        parts.append(str(ws))
    return ", ".join(parts) or "workload"


def workload_labels(df: pl.DataFrame, *, without: tuple[str, ...] = ()) -> list[str]:
    """`workload_label` of every row, leaving out the `without` columns."""
    return [
        workload_label({k: v for k, v in row.items() if k not in without})
        for row in df.iter_rows(named=True)
    ]


def plural(count: object, noun: str) -> str:
    """`1 VM`, `16 VMs`, `4 nodes`: a count with its noun (never "1 VMs")."""
    n = int(count)  # type: ignore[call-overload]
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


# What a chart's subtitle says about its workload and configuration, in this order: a key
# whose value is the same on every row is printed once in the subtitle (and the legend need
# not repeat it); a key whose values differ is what the legend or the axis must name.
CONTEXT_KEYS = (
    "testbed",
    "block_size_bytes",
    "read_pct",
    "random_pct",
    "outstanding_io",
    "vm_count",
    "nodes",
    "profile",
    "working_set",
    "transport",
    "vsan_version",
    "origin",
)
CONTEXT_NAMES = {
    "testbed": "testbed",
    "block_size_bytes": "block size",
    "read_pct": "read mix",
    "random_pct": "random / sequential",
    "outstanding_io": "outstanding I/O",
    "vm_count": "VMs",
    "nodes": "nodes",
    "profile": "profile",
    "working_set": "working set",
    "transport": "transport",
    "vsan_version": "vSAN version",
    "origin": "origin",
}


def context_value(key: str, value: object) -> str:
    """One context key's value as a subtitle prints it: `4K`, `70% read`, `random`,
    `OIO 16`, `1 VM`, `4 nodes`, `testbed micron-sata`, `vSAN 6.7`."""
    if is_missing(value):
        return f"{CONTEXT_NAMES.get(key, key)} {MISSING}"
    if key == "block_size_bytes":
        return bytes_label(int(value))  # type: ignore[call-overload]
    if key == "read_pct":
        return f"{value:g}% read"
    if key == "random_pct":
        return "random" if value >= 100 else "sequential" if value <= 0 else f"{value:g}% random"  # type: ignore[operator]
    if key == "outstanding_io":
        return f"OIO {int(value)}"  # type: ignore[call-overload]
    if key == "vm_count":
        return plural(value, "VM")
    if key == "nodes":
        return plural(value, "node")
    if key == "testbed":
        return f"testbed {value}"
    if key == "vsan_version":
        return f"vSAN {value}"
    if key in ("working_set",):
        return f"{value} working set"
    if key in ("profile",):
        return f"{value} profile"
    return str(value)


@dataclass(frozen=True, slots=True)
class ChartContext:
    """What a frame's rows share and what differs among them (CONTEXT_KEYS it has)."""

    fixed: dict[str, object]  # key -> the one value every row has (NULL counts as a value)
    varying: tuple[str, ...]  # keys with two or more values, in CONTEXT_KEYS order

    def subtitle(self, *, skip: Iterable[str] = (), extra: Iterable[str] = ()) -> str:
        """`testbed x · 4K · random · OIO 16 · 1 VM · 4 nodes · measured`, then what varies
        (`varies: read mix, profile`) and `extra` notes; `skip`: keys the axes already say."""
        skipped = set(skip)
        parts = [
            context_value(k, v)
            for k, v in self.fixed.items()
            if k not in skipped and not is_missing(v)
        ]
        parts += list(extra)
        varying = [CONTEXT_NAMES[k] for k in self.varying if k not in skipped]
        if varying:
            parts.append("varies: " + ", ".join(varying))
        return " · ".join(parts)


def chart_context(df: pl.DataFrame, keys: Sequence[str] = CONTEXT_KEYS) -> ChartContext:
    """The context of `df`'s rows over the `keys` columns it has."""
    fixed: dict[str, object] = {}
    varying = []
    for key in keys:
        if key not in df.columns or df.is_empty():
            continue
        values = df[key].unique()
        if values.len() == 1:
            fixed[key] = values[0]
        else:
            varying.append(key)
    return ChartContext(fixed, tuple(varying))


def with_subtitle(fig: go.Figure, text: str) -> go.Figure:
    """Put `text` under the figure's title (layout.title.subtitle): it is part of the figure,
    so it stays in every export (SVG, PNG, the report's PDF)."""
    if text:
        fig.update_layout(title={"subtitle": {"text": text}})
    return fig


def bytes_label(size: int) -> str:
    """A block size as storage tools print it: 512B, 4K, 64K, 1M (binary units, 1K = 1024
    bytes); the one formatter for axes, selectors, labels and tables."""
    if size < 1024:
        return f"{size}B"
    exp = min(int(math.log(size, 1024)), 3)
    value = size / 1024**exp
    return f"{value:.4g}{'BKMG'[exp]}"


def display(value: object, spec: str = "") -> str:
    """A value as text, with MISSING for NULL/NaN: the one way a missing value is shown."""
    if is_missing(value):
        return MISSING
    return format(value, spec) if spec else str(value)


def fmt(value: object, spec: str = ",.2f", suffix: str = "") -> str:
    """A metric value with its unit suffix, or MISSING when the warehouse does not know it
    (NULL/NaN)."""
    if is_missing(value):
        return MISSING
    return f"{value:{spec}}{suffix}"


def plot_values(values: pl.Series) -> list:
    """The values as Plotly takes them; timestamps as naive UTC, because Plotly.js drops a
    timezone suffix it cannot show and the axis titles say UTC."""
    if isinstance(values.dtype, pl.Datetime) and values.dtype.time_zone is not None:
        values = values.dt.convert_time_zone("UTC").dt.replace_time_zone(None)
    return values.to_list()


def thin(df: pl.DataFrame, max_points: int = MAX_POINTS_PER_TRACE) -> pl.DataFrame:
    """Every n-th row so a trace keeps at most `max_points` (the last row is always kept)."""
    if df.height <= max_points:
        return df
    step = math.ceil(df.height / max_points)
    keep = df.with_row_index("_row").filter(
        (pl.col("_row") % step == 0) | (pl.col("_row") == df.height - 1)
    )
    return keep.drop("_row")


def traces(df: pl.DataFrame, by: Sequence[str]) -> Iterator[tuple[str, pl.DataFrame]]:
    """(name, rows) per trace: one per combination of the `by` columns, or one for all."""
    keys = [c for c in by if has_values(df, c)]
    if not keys:
        yield "", df
        return
    for key, part in sorted(
        df.group_by(keys, maintain_order=True),
        key=lambda kv: [(is_missing(k), str(k)) for k in kv[0]],
    ):
        yield " · ".join(display(k) for k in key), part
