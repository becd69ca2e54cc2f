"""Scaling: per-node IOPS against node count, VM count, block size and working set."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

X_CHOICES = ["nodes", "vm_count", "block_size_bytes", "outstanding_io", "working_set"]
Y_CHOICES = ["iops_per_node", "iops", "throughput_mb_s", "avg_latency_ms"]
TABLE_COLUMNS = [
    "result_id",
    "testbed",
    "nodes",
    "iops",
    "iops_per_node",
    "host_iops_min",
    "host_iops_max",
    "host_imbalance_pct",
]
ALL_WORKLOADS = "(all workloads)"

data = queries.scaling_points(db_path, filters)
if ui.has_data(data, "per-node IOPS"):
    # Scaling compares one workload across clusters (any working set: it is an axis);
    # mixing workloads hides the trend. The most widely run workloads come first.
    data = data.with_columns(
        workload=pl.Series(charts.workload_labels(data, without=("working_set",)), dtype=pl.String)
    )
    spread = data.group_by("workload").agg(pl.col("testbed").n_unique().alias("testbeds"))
    ranked = spread.sort(["testbeds", "workload"], descending=[True, False])["workload"]
    workload = st.selectbox("Workload", [ALL_WORKLOADS, *ranked], index=min(1, ranked.len()))
    if workload != ALL_WORKLOADS:
        data = data.filter(pl.col("workload") == workload)
    left, mid, right = st.columns(3)
    x = left.selectbox("X axis", X_CHOICES, format_func=charts.axis_title)
    y = mid.selectbox("Y axis", Y_CHOICES, format_func=charts.axis_title)
    color_by = right.selectbox("One line per", ["testbed", "profile", "working_set", "read_pct"])
    ui.plot(charts.scaling_scatter(data, x=x, y=y, color_by=color_by), "scaling")
    st.caption(
        "Perfectly linear scaling keeps IOPS per node flat as nodes are added. "
        "Host imbalance = 100 × (busiest host − mean host) / mean host, where per-host data exists."
    )
    with st.expander("Per-node data"):
        st.dataframe(data.select(TABLE_COLUMNS), hide_index=True)
        ui.download_csv(data.select(TABLE_COLUMNS), "per_node_iops")
