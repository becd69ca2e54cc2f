"""A report's tables and every chart's points as data: real tables with units in the headers,
values formatted once (no float noise), and the same rows as CSV.

A column's header is its dashboard axis title (`charts.axis_title`: label and unit) or, for the
columns the charts do not name, an entry of `HEADERS`; a unitless column keeps its plain name.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from dataclasses import dataclass

import polars as pl

from app.lib import charts

# Headers of columns the charts' COLUMNS do not name (label and unit).
HEADERS: dict[str, str] = {
    "result_id": "Result",
    "testbed": "Testbed",
    "profile": "Profile",
    "transport": "Transport",
    "vsan_version": "vSAN version",
    "random_pct": "Random (% of I/Os)",
    "started_at": "Started (UTC)",
    "ended_at": "Ended (UTC)",
    "captured_at": "Captured (UTC)",
    "run_at": "Validated (UTC)",
    "loaded_at": "Loaded (UTC)",
    "ftm": "Failure tolerance method",
    "ftt": "Failures to tolerate",
    "capacity_multiplier": "Capacity multiplier (x raw per usable)",
    "is_used_by_results": "Used by the results",
    "is_valid_on_cluster": "Valid on the cluster",
    "label_key": "Label",
    "label_value": "Value",
    "origin": "Origin",
    "origin_detail": "Where it was read",
    "iops_vs_baseline_pct": "IOPS vs baseline (%)",
    "latency_vs_baseline_pct": "Latency vs baseline (%)",
    "iops_vs_previous_pct": "IOPS vs previous profile (%)",
    "latency_vs_previous_pct": "Latency vs previous profile (%)",
    "baseline_profile": "Baseline profile",
    "previous_profile": "Previous profile",
    "dimension": "Label compared",
    "from_value": "From",
    "to_value": "To",
    "iops_delta_pct": "IOPS change (%)",
    "avg_latency_delta_pct": "Latency change (%)",
    "iops_delta": "IOPS change (IO/s)",
    "iops_delta_ci95_low": "IOPS change, 95 % interval low (IO/s)",
    "iops_delta_ci95_high": "IOPS change, 95 % interval high (IO/s)",
    "is_significant": "q below 0.05",
    "verdict": "Verdict",
    "iops_delta_p_value": "p-value",
    "iops_delta_q_value": "q-value (Benjamini-Hochberg)",
    "family_size": "Deltas in the family",
    "significance_basis": "Spread the verdict rests on",
    "significance_note": "Note",
    "tcp_iops": "TCP IOPS (IO/s)",
    "rdma_iops": "RDMA IOPS (IO/s)",
    "tcp_cpu_util_pct": "TCP host CPU (% of capacity)",
    "rdma_cpu_util_pct": "RDMA host CPU (% of capacity)",
    "tcp_iops_per_cpu_pct": "TCP IOPS per CPU % (IO/s per %)",
    "rdma_iops_per_cpu_pct": "RDMA IOPS per CPU % (IO/s per %)",
    "rdma_efficiency_gain_pct": "RDMA efficiency gain (%)",
    "logical_used_bytes": "Logical used (bytes)",
    "physical_used_bytes": "Physical used (bytes)",
    "dedupe_compression_ratio": "Dedupe and compression ratio (x)",
    "usable_to_raw_ratio": "Usable to raw (x)",
    "axis": "Sweep axis",
    "axis_unit": "Axis unit",
    "point_count": "Points",
    "best_iops_axis_value": "Best IOPS at (axis unit)",
    "knee_status": "Knee",
    "knee_axis_value": "Knee at (axis unit)",
    "axis_value": "Axis value (axis unit)",
    "scaling_efficiency_pct": "Scaling efficiency (%)",
    "interval_count": "Intervals",
    "is_steady_state": "Steady state",
    "steady_state_start_s": "Steady from (s)",
    "steady_state_end_s": "Steady to (s)",
    "iops_mean": "Mean IOPS (IO/s)",
    "iops_ci95_low": "IOPS 95 % low (IO/s)",
    "iops_ci95_high": "IOPS 95 % high (IO/s)",
    "ci_method": "Interval method",
    "figure_id": "Figure id",
    "table_or_figure": "In the document",
    "metric": "Metric",
    "published_value": "Published",
    "measured_value": "Measured",
    "unit": "Unit",
    "status": "Status",
    "reason": "Reason",
    "tolerance": "Tolerance",
    "difference": "Difference",
    "source_path": "Source file (relative to the root)",
    "sha256": "sha256",
    "file_role": "Role",
    "source_format": "Format",
    "parser_version": "Parser version",
    "tool_version": "Tool version",
    "suite": "Suite",
    "expectation": "Expectation",
    "severity": "Severity",
    "success": "Passed",
    "unexpected_count": "Unexpected rows",
    "table_name": "Table",
    "data_origin": "Data origin",
    "nodes_count": "Nodes",
    "value": "Value",
    "count": "Count",
}


def header(column: str) -> str:
    if column in HEADERS:
        return HEADERS[column]
    if column in charts.COLUMNS:
        return charts.axis_title(column)
    return column.replace("_", " ").capitalize()


def cell(value: object) -> str:
    """One value as the report prints it: no float noise, times in UTC, `—` for nothing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return charts.MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isinf(value):
            return str(value)
        if abs(value) < 1e-9:
            return "0"  # float noise of a difference (8.9e-16), never a measured value
        if value == int(value) and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ", timespec="seconds")
    if isinstance(value, list | tuple):
        return ", ".join(cell(v) for v in value)
    return str(value)


def csv_value(value: object) -> str:
    """A value in a CSV: like `cell` without thousands separators (machine-readable)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(float(f"{value:.10g}"))
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        return value.isoformat(timespec="seconds") + "Z"
    if isinstance(value, list | tuple):
        return ";".join(csv_value(v) for v in value)
    return str(value)


def csv_text(frame: pl.DataFrame) -> str:
    """`frame` as CSV (header line, LF endings, values as `csv_value` writes them)."""
    import csv

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(frame.columns)
    for row in frame.iter_rows():
        writer.writerow([csv_value(v) for v in row])
    return out.getvalue()


@dataclass(frozen=True)
class Table:
    """One numbered table: headers with units, printed cells, and its rows as CSV."""

    key: str  # file stem of its CSV
    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    csv: str
    number: int = 0
    wide: bool = False


ID_CHARS = 12  # a result id (a 32-character hash) as tables print it; the CSV has it whole
ID_COLUMNS = ("result_id", "first_result_id", "tcp_result_id", "rdma_result_id")


def table(
    key: str,
    caption: str,
    frame: pl.DataFrame,
    columns: list[str] | None = None,
    *,
    csv_frame: pl.DataFrame | None = None,
) -> Table:
    """The `columns` of `frame` it has (all when None) as a Table; its CSV holds the same
    rows, or `csv_frame` (the rows a printed summary was made of)."""
    chosen = [c for c in (columns or frame.columns) if c in frame.columns]
    part = frame.select(chosen)
    shown = part.with_columns(
        pl.col(c).cast(pl.String).str.slice(0, ID_CHARS) for c in chosen if c in ID_COLUMNS
    )
    rows = tuple(tuple(cell(v) for v in row) for row in shown.iter_rows())
    return Table(
        key=key,
        caption=caption,
        headers=tuple(header(c) for c in chosen),
        rows=rows,
        csv=csv_text(part if csv_frame is None else csv_frame),
        wide=len(chosen) > 8,
    )


@dataclass(frozen=True)
class Listing:
    """Long provenance lists (hundreds of files) as one preformatted block per group: cheap to
    lay out on many pages, where a table of a thousand rows costs the PDF a minute. The CSV
    holds the same rows as a table."""

    key: str
    caption: str
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    csv: str
    number: int = 0
