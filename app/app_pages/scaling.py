"""Scaling: per-node IOPS against node count, VM count, block size and working set."""

import streamlit as st

from app.lib import charts, queries, ui
from app.lib import filters as flt

db_path, filters = ui.context()

X_CHOICES = ["nodes", "vm_count", "block_size_bytes", "outstanding_io", "working_set"]
Y_CHOICES = ["iops_per_node", "iops", "throughput_mb_s", "avg_latency_ms"]

results = queries.workload_results(db_path, filters)
per_node = flt.apply(queries.per_node_iops(db_path, filters.testbed), filters)
if results.empty or per_node.empty:
    ui.no_data("per-node IOPS")
else:
    extra = [c for c in results.columns if c not in per_node.columns or c == "result_id"]
    data = per_node.merge(results[extra], on="result_id", how="inner")
    ui.reconstructed_note(data)
    # Scaling compares one workload across clusters; mixing workloads hides the trend.
    data["workload"] = [
        charts.workload_label(row.drop(labels="working_set")) for _, row in data.iterrows()
    ]
    counts = data.groupby("workload")["testbed"].nunique().sort_values(ascending=False)
    workload = st.selectbox(
        "Workload", ["(all workloads)", *counts.index], index=min(1, len(counts))
    )
    if workload != "(all workloads)":
        data = data[data["workload"] == workload]
    left, mid, right = st.columns(3)
    x = left.selectbox("X axis", X_CHOICES, format_func=charts.axis_title)
    y = mid.selectbox("Y axis", Y_CHOICES, format_func=charts.axis_title)
    color = right.selectbox("One line per", ["testbed", "profile", "working_set", "read_pct"])
    ui.plot(charts.scaling_scatter(data, x=x, y=y, color=color), "scaling")
    st.caption(
        "Perfectly linear scaling keeps IOPS per node flat as nodes are added. "
        "Host imbalance = 100 × (busiest host − mean host) / mean host, where per-host data exists."
    )
    cols = [
        c
        for c in (
            "result_id",
            "testbed",
            "nodes",
            "iops",
            "iops_per_node",
            "host_iops_min",
            "host_iops_max",
            "host_imbalance_pct",
        )
        if c in data
    ]
    with st.expander("Per-node data"):
        st.dataframe(data[cols], hide_index=True)
        ui.download_csv(data[cols], "per_node_iops")
