"""Pure chart builders: a polars frame of one mart in, a `go.Figure` out; no Streamlit.

One module per chart family; every axis title names its unit (`axis_title`), every figure uses
the one `TEMPLATE`, and pages draw through `ui.plot`, which applies the shared layout rules
(`finish`, charts/layout.py) and passes `png_config(name)` so the modebar's camera button saves
a PNG.
"""

from app.lib.charts.capacity import capacity_bars
from app.lib.charts.common import (
    COLUMNS,
    MISSING,
    ChartContext,
    axis_title,
    bytes_label,
    chart_context,
    display,
    is_missing,
    plural,
    png_config,
    with_subtitle,
    workload_label,
    workload_labels,
)
from app.lib.charts.deltas import config_delta_bars, profile_delta_heatmap
from app.lib.charts.layout import finish
from app.lib.charts.published import published_ratio_chart
from app.lib.charts.ra import ra_comparison
from app.lib.charts.run_detail import (
    latency_figures,
    latency_histogram,
    percentile_curve,
    spread_strip,
    time_lines,
)
from app.lib.charts.transport import TRANSPORT_METRICS, iops_per_cpu, transport_side_by_side

__all__ = [
    "COLUMNS",
    "MISSING",
    "TRANSPORT_METRICS",
    "ChartContext",
    "axis_title",
    "bytes_label",
    "capacity_bars",
    "chart_context",
    "config_delta_bars",
    "display",
    "finish",
    "iops_per_cpu",
    "is_missing",
    "latency_figures",
    "latency_histogram",
    "percentile_curve",
    "plural",
    "png_config",
    "profile_delta_heatmap",
    "published_ratio_chart",
    "ra_comparison",
    "spread_strip",
    "time_lines",
    "transport_side_by_side",
    "with_subtitle",
    "workload_label",
    "workload_labels",
]
