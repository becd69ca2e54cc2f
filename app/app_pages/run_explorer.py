"""Run explorer: one workload result in depth, with sections for the detail marts that exist."""

import json

import pandas as pd
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

# Marts whose rows are not details of one result; every other marts table with a `result_id`
# column (per-VM spread, percentiles, histograms, time series, added later) gets a section.
SUMMARY_MARTS = {
    "fct_workload_results",
    "per_node_iops",
    "config_deltas",
    "profile_latency_deltas",
    "transport_cpu_efficiency",
}
TIME_COLUMNS = ("sampled_at", "interval_start_at", "started_at", "captured_at")
ORDER_COLUMNS = ("percentile", "bucket_upper_ms", "latency_ms", "bin_upper_ms")

results = queries.workload_results(db_path, filters)
if results.empty:
    ui.no_data("workload results")
    st.stop()


def describe(row: pd.Series) -> str:
    started = str(row["started_at"])[:16] if pd.notna(row["started_at"]) else "?"
    return f"{row['testbed']} · {row['profile']} · {charts.workload_label(row)} · {started}"


labels = {row["result_id"]: describe(row) for _, row in results.iterrows()}
result_id = st.selectbox("Workload result", list(labels), format_func=labels.get)
# The selected row is already in `results`: no second query (a connection costs ~40 ms).
row = results.loc[results["result_id"] == result_id].iloc[0]
ui.reconstructed_note(row.to_frame().T)

cols = st.columns(4)
cols[0].metric("IOPS", f"{row['iops']:,.0f}" if pd.notna(row["iops"]) else "n/a")
cols[1].metric(
    "Throughput (MB/s)",
    f"{row['throughput_mb_s']:,.1f}" if pd.notna(row["throughput_mb_s"]) else "n/a",
)
cols[2].metric(
    "Average latency (ms)",
    f"{row['avg_latency_ms']:.3f}" if pd.notna(row["avg_latency_ms"]) else "n/a",
)
cols[3].metric(
    "Host CPU (%)", f"{row['cpu_util_pct']:.1f}" if pd.notna(row["cpu_util_pct"]) else "n/a"
)
ui.plot(charts.latency_figures(row, title="Latency figures"), "run_latency")

left, right = st.columns(2)
with left:
    st.markdown("**Labels, workload and provenance** (source tool, file count, `*_source`)")
    label_cols = [
        c
        for c in row.index
        if c not in charts.COLUMNS
        or c in ("nodes", "vm_count", "read_pct", "block_size_bytes", "outstanding_io")
    ]
    table = pd.DataFrame({"field": label_cols, "value": [str(row[c]) for c in label_cols]})
    st.dataframe(table.loc[table["field"] != "labels_json"], hide_index=True)
with right:
    st.markdown("**Run labels (`run.yaml` and `--label`)**")
    raw = row.get("labels_json")
    try:
        st.json(json.loads(raw) if isinstance(raw, str) else {})
    except json.JSONDecodeError:
        st.code(str(raw))

# --- Detail marts: each section appears once its table exists (added by dbt over time) ------
tables = queries.marts_columns(db_path)
# One query call (one connection) for every section of this result.
depth = queries.result_in_depth(db_path, result_id)


def section(name: str, title: str) -> pd.DataFrame | None:
    """The heading and this result's rows; None when the section's mart does not exist yet."""
    if depth.get(name) is None:
        return None
    st.subheader(title)
    return depth[name]


spread = queries.per_node_iops(db_path, ())
spread = spread[spread["result_id"] == result_id] if not spread.empty else spread
outputs = section("outputs", "Per-VM and per-host spread")
if not spread.empty:
    if outputs is None:
        st.subheader("Per-host spread")
    s = spread.iloc[0]
    cols = st.columns(4)
    cols[0].metric("IOPS per node", ui.fmt(s.get("iops_per_node"), ",.0f"))
    cols[1].metric("Busiest host IOPS", ui.fmt(s.get("host_iops_max"), ",.0f"))
    cols[2].metric("Quietest host IOPS", ui.fmt(s.get("host_iops_min"), ",.0f"))
    cols[3].metric(
        "Host imbalance",
        ui.fmt(s.get("host_imbalance_pct"), ".1f", "%"),
        help="100 × (busiest host − mean host) / mean host; "
        + f"source: {s.get('host_iops_source', 'n/a')}",
    )
if outputs is not None:
    if outputs.empty:
        st.caption("No per-VM or per-job outputs for this result.")
    else:
        who = next(
            (c for c in ("output_label", "vm_name", "vm", "host_name", "host") if c in outputs),
            "result_id",
        )
        ui.plot(
            charts.spread_strip(outputs, label=who, title=f"Spread across {len(outputs)} outputs"),
            "run_spread",
            key="run_spread",
        )
        with st.expander(f"{len(outputs)} outputs"):
            st.dataframe(outputs, hide_index=True)

percentiles = section("percentiles", "Latency percentiles")
if percentiles is not None:
    if percentiles.empty:
        st.caption("The tool reported no completion-latency percentiles for this result.")
    else:
        ui.plot(charts.percentile_curve(percentiles), "run_percentiles", key="run_percentiles")
        with st.expander("Percentiles"):
            st.dataframe(percentiles, hide_index=True)

histogram = section("histogram", "Latency histogram (fio json+)")
if histogram is not None:
    if histogram.empty:
        st.caption("No json+ latency buckets: the run used `--output-format=json`, not `json+`.")
    else:
        ui.plot(charts.latency_histogram(histogram), "run_histogram", key="run_histogram")

intervals = section("intervals", "Over the run: intervals")
if intervals is not None:
    if intervals.empty:
        st.caption("No interval samples (fio log / Vdbench interval lines) for this result.")
    else:
        time_col, by = queries.series_layout(list(intervals.columns))
        ui.plot(
            charts.time_lines(
                intervals,
                x=time_col,
                metrics=["iops", "throughput_mb_s", "avg_latency_ms"],
                by=by,
                title="IOPS, throughput and latency per interval",
            ),
            "run_intervals",
            key="run_intervals",
        )

cpu = section("host_cpu", "Over the run: host CPU")
if cpu is not None:
    if cpu.empty:
        st.caption("No esxtop or vSAN host samples in this result's run window.")
    else:
        time_col, by = queries.series_layout(list(cpu.columns))
        metrics = [c for c in cpu.columns if c.endswith("_pct")] or ["cpu_util_pct"]
        ui.plot(
            charts.time_lines(cpu, x=time_col, metrics=metrics[:3], by=by, title="Host CPU"),
            "run_host_cpu",
            key="run_host_cpu",
        )
        if "samples_in_point" in cpu and cpu["samples_in_point"].max() > 1:
            st.caption(
                f"Averaged to at most {queries.MAX_POINTS:,} points per host "
                f"({int(cpu['samples_in_point'].sum()):,} samples in the window)."
            )

# Any other per-result mart added later still gets a plain section.
KNOWN = {*queries.RESULT_ROWS.values(), *queries.RESULT_SERIES.values()}
details = sorted(
    t for t, c in tables.items() if "result_id" in c and t not in SUMMARY_MARTS | KNOWN
)
if not details and not KNOWN & set(tables):
    st.caption(
        "Per-VM spread, latency percentiles, histograms and time series appear here once "
        "their marts exist."
    )
for table in details:
    st.subheader(table.replace("_", " ").capitalize())
    detail = queries.result_detail(db_path, table, result_id)
    if detail.empty:
        st.caption("No rows for this result.")
        continue
    x = next((c for c in (*TIME_COLUMNS, *ORDER_COLUMNS) if c in detail), None)
    if x is not None:
        ui.plot(charts.detail_lines(detail, x=x, title=table), table, key=f"detail_{table}")
    st.dataframe(detail.head(5000), hide_index=True)
