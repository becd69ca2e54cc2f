"""Scaling: sweeps (results that differ only in one ordered axis) as connected lines, and
IOPS per node grouped by node count. Every point is one sweep point (sweep_points), every bar
one result (scaling_points). The selectors live in the URL (`?testbed=...&axis=...&measure=
...&sweeps=...&nodes_testbed=...`), so a view can be shared."""

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_studies, selection, ui
from app.lib.charts import studies as study_charts
from app.lib.url_state import UrlState
from app.lib.views import scaling as view
from app.lib.views.scaling import AXES

where, filters = ui.context()
url = UrlState(view.PARAMS, many=("sweeps",))
chosen: dict = {}

st.subheader("Sweeps")
st.caption(
    "A sweep is a series of results of one testbed that differ only in one ordered axis "
    "(sweeps mart); its points are joined in axis order, latency dashed on the right axis. "
    "The legend names what differs between the sweeps; the subtitle what they share."
)
points = queries_studies.sweep_points(where, filters)
if ui.has_data(points, "sweeps", "They need results that differ in one ordered axis only."):
    left, mid, right = st.columns(3)
    testbeds = sorted(points["testbed"].drop_nulls().unique())
    testbed = chosen["testbed"] = url.select("testbed", "Testbed", testbeds, widget=left.selectbox)
    part = points.filter(pl.col("testbed") == testbed)
    axes = view.axes(selection.options(part, "axis"))
    axis = chosen["axis"] = url.select(
        "axis", "Axis", axes, widget=mid.selectbox, format_func=AXES.get
    )
    y = chosen["measure"] = url.select(
        "measure", "Measure", view.Y_CHOICES, widget=right.selectbox, format_func=charts.axis_title
    )
    if axis is None:
        ui.no_data(f"sweep of {testbed} along an axis this page names")
    else:
        legend = view.sweep_legend(part.filter(pl.col("axis") == axis), axis)
        picked = chosen["sweeps"] = url.select(
            "sweeps", "Sweeps", view.sweep_options(legend.points), placeholder="All"
        )
        shown = legend.points.filter(pl.col("series").is_in(picked)) if picked else legend.points
        fig = study_charts.sweep_lines(
            shown,
            x="axis_value",
            y=y,
            y2="avg_latency_ms" if y != "avg_latency_ms" else None,
            title=view.sweep_title(testbed, y, axis),
            x_title=AXES[axis],
            legend_title=legend.title,
        )
        charts.with_subtitle(fig, legend.subtitle)
        provenance.plot(fig, "sweeps", key="sweeps_chart", points=view.table(shown))
        with ui.expander("Sweep points", name="sweep_points") as box:
            if box.open:
                provenance.table(view.table(shown))
                ui.download_csv(view.table(shown), "sweep_points")

st.subheader("Per-node IOPS")
st.caption(
    "IOPS per node of each result, grouped by the nodes in the cluster: perfectly linear "
    "scaling keeps the bars level as nodes are added. Whiskers span the least to the busiest "
    "host where per-host data exists; host imbalance = 100 × (busiest host − mean host) / mean "
    "host."
)
per_node = queries.scaling_points(where, filters)
if ui.has_data(per_node, "per-node IOPS"):
    testbed = chosen["nodes_testbed"] = url.select(
        "nodes_testbed", "Testbed", view.per_node_testbeds(per_node)
    )
    bars = view.per_node(per_node, testbed)
    if bars.rows.is_empty():
        ui.no_data("IOPS per node", "Results need a `nodes` label.")
    else:
        fig = study_charts.per_node_bars(
            bars.rows, title=f"{testbed}: IOPS per node by nodes", legend_title=bars.title
        )
        charts.with_subtitle(fig, bars.subtitle)
        provenance.plot(fig, "per_node_iops", key="per_node_chart", points=bars.rows)
        with ui.expander(f"{bars.rows.height} results", name="per_node_iops") as box:
            if box.open:
                provenance.table(view.per_node_table(bars.rows))
                ui.download_csv(bars.rows.select(view.TABLE_COLUMNS), "per_node_iops")
url.publish(chosen)
