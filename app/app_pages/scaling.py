"""Scaling: sweeps (results that differ only in one ordered axis) as connected lines, and
per-node IOPS per result. Every point is one sweep point (sweep_points) or one result."""

import polars as pl
import streamlit as st

from app.lib import queries, queries_studies, selection, ui
from app.lib.charts import studies as study_charts
from app.lib.views import scaling as view
from app.lib.views.scaling import AXES

where, filters = ui.context()

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
    axis = mid.selectbox("Axis", view.axes(selection.options(part, "axis")), format_func=AXES.get)
    y = right.selectbox("Measure", view.Y_CHOICES, format_func=study_charts.axis_title)
    part = view.sweep_names(part.filter(pl.col("axis") == axis))
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
            ui.table(view.table(part))
            ui.download_csv(view.table(part), "sweep_points")

st.subheader("Per-node IOPS")
st.caption(
    "One row per result. Perfectly linear scaling keeps IOPS per node flat as nodes are "
    "added. Host imbalance = 100 × (busiest host − mean host) / mean host, where per-host "
    "data exists."
)
per_node = queries.scaling_points(where, filters)
if ui.has_data(per_node, "per-node IOPS"):
    ui.table(per_node.select(view.TABLE_COLUMNS))
    ui.download_csv(per_node.select(view.TABLE_COLUMNS), "per_node_iops")
