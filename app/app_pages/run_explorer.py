"""Run explorer: one workload result in depth, with sections for the detail marts that exist."""

from collections import Counter

import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

# Marts with a `result_id` that are not details of one result, or have their own section;
# every other marts table with a `result_id` column (added later) gets a plain section.
SUMMARY_MARTS = {
    "fct_workload_results",
    "per_node_iops",
    "scaling_points",
    "fct_result_labels",
    *queries.RESULT_ROWS.values(),
    *queries.RESULT_SERIES.values(),
}
# Workload columns shown beside the labels and provenance (charts.COLUMNS are measures).
WORKLOAD_COLUMNS = ("nodes", "vm_count", "read_pct", "block_size_bytes", "outstanding_io")
HOST_CPU_METRICS = ["cpu_util_pct"]
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

results = queries.workload_results(db_path, filters)
if results.is_empty():
    ui.no_data("workload results")
    st.stop()


def describe(row: dict) -> str:
    started = str(row["started_at"])[:16] if row["started_at"] is not None else "?"
    return f"{row['testbed']} · {row['profile']} · {charts.workload_label(row)} · {started}"


labels = {row["result_id"]: describe(row) for row in results.iter_rows(named=True)}
# Streamlit tells options apart by their label: a repeated one gets the result's short id.
repeated = {label for label, n in Counter(labels.values()).items() if n > 1}
labels = {rid: f"{lb} · {rid[:8]}" if lb in repeated else lb for rid, lb in labels.items()}
result_id = st.selectbox("Workload result", list(labels), format_func=labels.get)
# The selected row is already in `results`: no second query (a connection costs ~40 ms).
selected = results.filter(pl.col("result_id") == result_id)
row = selected.row(0, named=True)
ui.reconstructed_note(selected)

cols = st.columns(4)
cols[0].metric("IOPS", ui.fmt(row["iops"], ",.0f"))
cols[1].metric("Throughput (MB/s)", ui.fmt(row["throughput_mb_s"], ",.1f"))
cols[2].metric("Average latency (ms)", ui.fmt(row["avg_latency_ms"], ".3f"))
cols[3].metric("Host CPU (%)", ui.fmt(row["cpu_util_pct"], ".1f"))
ui.plot(charts.latency_figures(row, title="Latency figures"), "run_latency")

left, right = st.columns(2)
with left:
    st.markdown("**Labels, workload and provenance** (source tool, file count, `*_source`)")
    fields = [
        c
        for c in results.columns
        if (c not in charts.COLUMNS or c in WORKLOAD_COLUMNS) and c != "labels_json"
    ]
    st.dataframe(
        pl.DataFrame({"field": fields, "value": [str(row[c]) for c in fields]}), hide_index=True
    )
with right:
    st.markdown("**Run labels (`run.yaml` and `--label`)**")
    st.json(queries.result_labels(db_path, result_id))

# --- Detail marts: each section appears once its table exists (added by dbt over time) ------
tables = queries.marts_columns(db_path)
# One query call (one connection) for every section of this result.
depth = queries.result_in_depth(db_path, result_id)


def section(name: str, title: str) -> pl.DataFrame | None:
    """The heading and this result's rows; None when the section's mart does not exist yet."""
    if depth.get(name) is None:
        return None
    st.subheader(title)
    return depth[name]


def rows_of(name: str) -> pl.DataFrame | None:
    """A section's heading and rows; a caption instead when the result has none."""
    title, when_empty = SECTIONS[name]
    rows = section(name, title)
    if rows is not None and rows.is_empty():
        st.caption(when_empty)
        return None
    return rows


spread = depth.get("per_node")
outputs = section("outputs", "Per-VM and per-host spread")
if spread is not None and not spread.is_empty():
    if outputs is None:
        st.subheader("Per-host spread")
    s = spread.row(0, named=True)
    cols = st.columns(4)
    cols[0].metric("IOPS per node", ui.fmt(s["iops_per_node"], ",.0f"))
    cols[1].metric("Busiest host IOPS", ui.fmt(s["host_iops_max"], ",.0f"))
    cols[2].metric("Quietest host IOPS", ui.fmt(s["host_iops_min"], ",.0f"))
    cols[3].metric(
        "Host imbalance",
        ui.fmt(s["host_imbalance_pct"], ".1f", "%"),
        help="100 × (busiest host − mean host) / mean host; "
        + f"source: {s['host_iops_source'] or 'n/a'}",
    )
if outputs is not None:
    if outputs.is_empty():
        st.caption("No per-VM or per-job outputs for this result.")
    else:
        ui.plot(
            charts.spread_strip(outputs, title=f"Spread across {outputs.height} outputs"),
            "run_spread",
            key="run_spread",
        )
        with st.expander(f"{outputs.height} outputs"):
            st.dataframe(outputs, hide_index=True)

percentiles = rows_of("percentiles")
if percentiles is not None:
    ui.plot(charts.percentile_curve(percentiles), "run_percentiles", key="run_percentiles")
    with st.expander("Percentiles"):
        st.dataframe(percentiles, hide_index=True)

histogram = rows_of("histogram")
if histogram is not None:
    ui.plot(charts.latency_histogram(histogram), "run_histogram", key="run_histogram")

intervals = rows_of("intervals")
if intervals is not None:
    mart = queries.SERIES_MARTS[queries.RESULT_SERIES["intervals"]]
    ui.plot(
        charts.time_lines(
            intervals,
            x=mart.x,
            metrics=["iops", "throughput_mb_s", "avg_latency_ms"],
            by=list(mart.by),
            title="IOPS, throughput and latency per interval",
        ),
        "run_intervals",
        key="run_intervals",
    )

cpu = rows_of("host_cpu")
if cpu is not None:
    mart = queries.SERIES_MARTS[queries.RESULT_SERIES["host_cpu"]]
    ui.plot(
        charts.time_lines(
            cpu, x=mart.x, metrics=HOST_CPU_METRICS, by=list(mart.by), title="Host CPU"
        ),
        "run_host_cpu",
        key="run_host_cpu",
    )
    if cpu["samples_in_point"].max() > 1:
        st.caption(
            f"Averaged to at most {queries.MAX_POINTS:,} points per host "
            f"({cpu['samples_in_point'].sum():,} samples in the window)."
        )

# Any other per-result mart added later still gets a plain section with its rows.
details = sorted(t for t, c in tables.items() if "result_id" in c and t not in SUMMARY_MARTS)
if all(part is None for part in depth.values()):
    st.caption(
        "Per-VM spread, latency percentiles, histograms and time series appear here once "
        "their marts exist."
    )
for table in details:
    st.subheader(table.replace("_", " ").capitalize())
    detail = queries.result_detail(db_path, table, result_id)
    if detail.is_empty():
        st.caption("No rows for this result.")
    else:
        st.dataframe(detail.head(5000), hide_index=True)
