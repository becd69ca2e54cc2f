"""The run explorer's rows and texts: one workload result's provenance, steady state and
detail sections (queries.result_in_depth), in reading order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib import queries
from app.lib.charts.common import COLUMNS, MISSING, chart_context, display, is_missing
from app.lib.charts.run_detail import LATENCY_FIGURES

# Marts with a `result_id` that are not details of one result, or have their own section;
# every other marts table with a `result_id` column (added later) gets a plain section.
SUMMARY_MARTS = frozenset(
    {
        "fct_workload_results",
        "per_node_iops",
        "scaling_points",
        "fct_result_labels",
        "fct_result_source_files",
        "fct_result_label_origins",
        "fct_result_steady_state",
        *queries.RESULT_ROWS.values(),
        *queries.RESULT_SERIES.values(),
    }
)
# The sections drawn from the result's own detail marts (the "appear once their marts exist"
# caption when none of them exists).
DETAIL_SECTIONS = ("outputs", "percentiles", "intervals", "host_cpu")
# The series sections: (section, measures drawn, chart title); the intervals chart shades the
# steady-state window.
SERIES = (
    (
        "intervals",
        ["iops", "throughput_mb_s", "avg_latency_ms"],
        "IOPS, throughput and latency per interval",
    ),
    ("host_cpu", ["cpu_util_pct"], "Host CPU"),
)
TOOL_NAMES = {"vdbench": "Vdbench", "hcibench_summary": "An HCIBench summary"}
# Where fct_workload_results.cpu_util_pct comes from (cpu_util_source), as the page says it.
CPU_SOURCES = {
    "capture": "esxtop / vSAN host samples in the run window, hosts' mean",
    "hcibench_resource_usage": "HCIBench resource usage, one figure per run",
}
# Section -> (heading, caption when the result has no rows in its mart).
SECTIONS = {
    "percentiles": (
        "Latency percentiles",
        "The tool reported no completion-latency percentiles for this result.",
    ),
    "histogram": (
        "Latency histogram (fio json+)",
        "No json+ latency buckets: the run used `--output-format=json`, not `json+`.",
    ),
    "intervals": (
        "Over the run: intervals",
        "No interval samples (fio log / Vdbench interval lines) for this result.",
    ),
    "host_cpu": (
        "Over the run: host CPU",
        "No esxtop or vSAN host samples in this result's run window.",
    ),
}
# The headline metrics: (label, column, format spec[, suffix]) as ui.metric_row takes them.
HEADLINE = [
    ("IOPS", "iops", ",.0f"),
    ("Throughput (MB/s)", "throughput_mb_s", ",.1f"),
    ("Average latency (ms)", "avg_latency_ms", ".3f"),
    ("Host CPU (%)", "cpu_util_pct", ".1f"),
]
SPREAD = [
    ("IOPS per node", "iops_per_node", ",.0f"),
    ("Busiest host IOPS", "host_iops_max", ",.0f"),
    ("Quietest host IOPS", "host_iops_min", ",.0f"),
    ("Host imbalance", "host_imbalance_pct", ".1f", "%"),
]
STEADY_MEANS = [("Mean IOPS", "iops", ",.0f"), ("Mean latency (ms)", "avg_latency_ms", ".3f")]


def result_subtitle(selected: pl.DataFrame) -> str:
    """Every chart's subtitle: the result's workload and configuration, and its tool
    (`testbed x · 4K · 70% read · random · OIO 4 · 8 VMs · 4 nodes · ... · fio`)."""
    tool = selected["source_tool"][0] if "source_tool" in selected.columns else None
    return chart_context(selected).subtitle(extra=[] if is_missing(tool) else [str(tool)])


def latency_points(row: Mapping[str, Any]) -> pl.DataFrame:
    """The latency figures chart's bars: one row per figure the result has (figure, ms)."""
    present = [c for c in LATENCY_FIGURES if not is_missing(row.get(c))]
    return pl.DataFrame(
        {"figure": [COLUMNS[c][0] for c in present], "latency_ms": [row[c] for c in present]},
        schema={"figure": pl.String, "latency_ms": pl.Float64},
    )


def cpu_source_help(row: Mapping[str, Any]) -> str:
    return "Source: " + CPU_SOURCES.get(row["cpu_util_source"], "none (no host CPU figure)")


def every_column(results: pl.DataFrame, row: Mapping[str, Any]) -> pl.DataFrame:
    """Every column of the result as field/value rows (not its raw labels JSON)."""
    fields = [c for c in results.columns if c != "labels_json"]
    return pl.DataFrame({"field": fields, "value": [display(row[c]) for c in fields]})


def section_texts(
    row: Mapping[str, Any], captures: pl.DataFrame | None = None
) -> dict[str, tuple[str, str]]:
    """Each section's heading and empty caption for this result: a tool without latency
    buckets, a per-run CPU figure without samples, or captures in the window that were all
    left out (fct_result_captures) say so in their own words."""
    texts = dict(SECTIONS)
    if captures is not None and not captures.is_empty() and not captures["is_attached"].any():
        texts["host_cpu"] = (
            SECTIONS["host_cpu"][0],
            "Host captures recorded during this run, but every one was left out: its labels "
            "contradict this result's (Host captures, below).",
        )
    # Only fio's json+ output has latency buckets: say why a result has none by its tool.
    if row["source_tool"] != "fio":
        texts["histogram"] = (
            SECTIONS["histogram"][0],
            f"{TOOL_NAMES.get(row['source_tool'], row['source_tool'])} reports no latency "
            "histogram (only fio's json+ output does).",
        )
    # A per-run CPU figure (HCIBench) without samples: the empty series must not contradict it.
    if row["cpu_util_source"] == "hcibench_resource_usage":
        texts["host_cpu"] = (
            SECTIONS["host_cpu"][0],
            "No per-sample host CPU series in this result's run window; the Host CPU figure "
            "above is HCIBench's resource-usage figure for the whole run.",
        )
    return texts


# --- Steady state and 95 % confidence intervals (fct_result_steady_state) --------------------


def ci_text(state: Mapping[str, Any], measure: str, spec: str) -> str:
    low, high = state.get(f"{measure}_ci95_low"), state.get(f"{measure}_ci95_high")
    if low is None or high is None:
        return "no spread information"
    return f"95 % CI {low:{spec}} to {high:{spec}}"


def steady_window_text(state: Mapping[str, Any]) -> str:
    start = display(state["ci_window_start_s"], ",.0f")
    return f"{start} to {display(state['ci_window_end_s'], ',.0f')} s"


def steady_window_help(state: Mapping[str, Any]) -> str:
    return f"{state['ci_window_interval_count']} intervals; method: {state['ci_method']}"


def steady_window(state: Mapping[str, Any]) -> tuple[float, float] | None:
    """The steady window (elapsed s) to shade on the interval chart, if the series settled."""
    if state["is_steady_state"] and state["steady_state_start_s"] is not None:
        return state["steady_state_start_s"], state["steady_state_end_s"]
    return None


# --- Detail sections -----------------------------------------------------------------------


def spread_help(spread: Mapping[str, Any]) -> str:
    return "100 × (busiest host − mean host) / mean host; " + (
        f"source: {spread['host_iops_source'] or MISSING}"
    )


def cpu_caption(cpu: pl.DataFrame) -> str | None:
    """Said under the host CPU chart when its points are means of several samples."""
    if cpu["samples_in_point"].max() > 1:
        return (
            f"Averaged to at most {queries.MAX_POINTS:,} points per host "
            f"({cpu['samples_in_point'].sum():,} samples in the window)."
        )
    return None


def other_marts(tables: Mapping[str, list[str]]) -> tuple[str, ...]:
    """Marts with a `result_id` that have no section of their own (added later)."""
    return tuple(
        sorted(t for t, c in tables.items() if "result_id" in c and t not in SUMMARY_MARTS)
    )


# --- Host captures in the run window (fct_result_captures) ---------------------------------

# The columns of the captures table, in order: the status and its reason first, where a
# narrow window still shows them.
CAPTURE_COLUMNS = [
    "status", "left_out_reason", "host_names", "source_tool", "window_sample_count",
    "first_sampled_at", "last_sampled_at", "source_path",
]  # fmt: skip


def captures_section(captures: pl.DataFrame | None) -> tuple[pl.DataFrame, str] | None:
    """A result's host captures as the run explorer shows them: the table (attached first,
    then by path, with their status `attached` / `left out`) and one line saying how many
    count for the host CPU, how many were left out and why (each reason once). None when the
    mart does not exist yet or no capture has samples in the run window."""
    if captures is None or captures.is_empty():
        return None
    status = pl.when(pl.col("is_attached")).then(pl.lit("attached")).otherwise(pl.lit("left out"))
    ordered = captures.sort(["is_attached", "source_path"], descending=[True, False])
    shown = ordered.with_columns(status=status).select(CAPTURE_COLUMNS)
    left_out = shown.filter(pl.col("status") == "left out")
    attached = shown.height - left_out.height
    text = (
        f"{attached} of {shown.height} captures with samples in this run's window are attached:"
        " their samples count for this result's host CPU and per-host figures."
        if attached
        else f"None of the {shown.height} captures with samples in this run's window is attached."
    )
    if left_out.height:
        reasons = "; ".join(dict.fromkeys(left_out["left_out_reason"].to_list()))
        text += f" {left_out.height} left out: their labels contradict this result's ({reasons})."
    return shown, text
