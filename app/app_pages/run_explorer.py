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
row = queries.workload_result(db_path, result_id).iloc[0]
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
    st.markdown("**Labels and workload**")
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

tables = queries.marts_columns(db_path)
details = sorted(t for t, c in tables.items() if "result_id" in c and t not in SUMMARY_MARTS)
if not details:
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
    st.dataframe(detail, hide_index=True)
