"""Scaling: sweeps (results that differ only in one ordered axis) as connected lines, and
per-node IOPS per result. Every point is one sweep point (sweep_points) or one result."""

import json

import polars as pl
import streamlit as st

from app.lib import queries, queries_studies, selection, ui
from app.lib.charts import studies as study_charts

where, filters = ui.context()

AXES = {
    "nodes": "Hosts in the cluster",
    "vms_per_host": "Worker VMs per host",
    "outstanding_io_per_vm": "Outstanding I/O per VM",
    "block_size_bytes": "Block size",
    "read_pct": "Read mix (% reads)",
    "working_set": "Working set (sort value: GB or %)",
    "disk_groups": "Disk groups per host",
}
Y_CHOICES = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms"]
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


def sweep_names(points: pl.DataFrame) -> pl.DataFrame:
    """`series`: what tells the sweeps apart (the held-equal labels that differ among them)."""
    held = {
        sweep: json.loads(text or "{}")
        for sweep, text in points.select("sweep_id", "held_equal_json").unique().iter_rows()
    }
    keys = sorted({k for labels in held.values() for k in labels})
    differ = [k for k in keys if len({labels.get(k) for labels in held.values()}) > 1]
    names = {
        s: ", ".join(f"{k}={labels.get(k, '(none)')}" for k in differ) or "sweep"
        for s, labels in held.items()
    }
    return points.with_columns(series=pl.col("sweep_id").replace_strict(names))


st.subheader("Sweeps")
st.caption(
    "A sweep is a series of results of one testbed that differ only in one ordered axis "
    "(sweeps mart); its points are joined in axis order, latency dashed on the right axis."
)
points = queries_studies.sweep_points(where, filters)
if ui.has_data(points, "sweeps", "They need results that differ in one ordered axis only."):
    left, mid, right = st.columns(3)
    testbed = left.selectbox("Testbed", sorted(points["testbed"].drop_nulls().unique()))
    part = points.filter(pl.col("testbed") == testbed)
    axes = [a for a in AXES if a in selection.options(part, "axis")]
    axis = mid.selectbox("Axis", axes, format_func=AXES.get)
    y = right.selectbox("Measure", Y_CHOICES, format_func=study_charts.axis_title)
    part = sweep_names(part.filter(pl.col("axis") == axis))
    chosen = st.multiselect("Sweeps", selection.options(part, "series"), default=None)
    if chosen:
        part = part.filter(pl.col("series").is_in(chosen))
    fig = study_charts.sweep_lines(
        part,
        x="axis_value",
        y=y,
        y2="avg_latency_ms" if y != "avg_latency_ms" else None,
        title=f"{testbed}: {study_charts.axis_title(y)} by {AXES[axis].lower()}",
        x_title=AXES[axis],
    )
    ui.plot(fig, "sweeps")
    with ui.expander("Sweep points", name="sweep_points") as box:
        if box.open:
            ui.table(part.drop("held_equal_json", strict=False))
            ui.download_csv(part.drop("held_equal_json", strict=False), "sweep_points")

st.subheader("Per-node IOPS")
st.caption(
    "One row per result. Perfectly linear scaling keeps IOPS per node flat as nodes are "
    "added. Host imbalance = 100 × (busiest host − mean host) / mean host, where per-host "
    "data exists."
)
per_node = queries.scaling_points(where, filters)
if ui.has_data(per_node, "per-node IOPS"):
    ui.table(per_node.select(TABLE_COLUMNS))
    ui.download_csv(per_node.select(TABLE_COLUMNS), "per_node_iops")
