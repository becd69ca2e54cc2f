"""Profile and configuration deltas: what each data service costs, and one-label comparisons."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, selection, ui
from app.lib.charts.common import has_values
from app.lib.charts.deltas import CONFIG_DELTA_METRICS
from app.lib.views import profile_deltas as view

where, filters = ui.context()

st.subheader("Cost of each data service per read mix")
st.caption(
    "Profiles add data services step by step (checksum, RAID-5, dedupe and compression); "
    "deltas are 100 × (profile − reference) / reference. Red is worse."
)
deltas = queries.profile_latency_deltas(where, filters)
if ui.has_data(deltas, "profile deltas", "They need results of several profiles on one testbed."):
    left, mid, right = st.columns(3)
    testbed = left.selectbox("Testbed", sorted(deltas["testbed"].unique()))
    metric = mid.selectbox("Delta", list(view.METRICS), format_func=view.METRICS.get)
    part = deltas.filter(pl.col("testbed") == testbed)
    sizes = view.block_sizes(part)
    if len(sizes) > 1:
        size = right.selectbox("Block size", sizes, format_func=charts.bytes_label)
        part = part.filter(pl.col("block_size_bytes") == size)
    if view.shares_cells(part):
        st.warning(
            "Several results share a profile and read mix here (another label varies): "
            "the heatmap would have to average them, so the rows are listed instead."
        )
    else:
        ui.plot(
            charts.profile_delta_heatmap(part, metric=metric, title=view.METRICS[metric]),
            "profile_deltas",
        )
    with ui.expander("Data", name="profile_deltas") as box:
        if box.open:
            ui.table(part)
            ui.download_csv(part, "profile_deltas")

st.subheader("One-label comparisons")
st.caption(
    "Pairs of results on one testbed and workload that differ in exactly one comparison "
    "dimension (config_deltas). One bar per pair, coloured by its context; error bars are the "
    "95 % interval of the difference where the runs give spread information."
)
configs = queries.config_deltas(where, filters)
if configs.is_empty():
    ui.no_data("one-label comparisons")
else:
    left, mid, right = st.columns(3)
    dimension = left.selectbox("Dimension that differs", sorted(configs["dimension"].unique()))
    part = configs.filter(pl.col("dimension") == dimension)
    metrics = [m for m in CONFIG_DELTA_METRICS if has_values(part, m)]
    metric = mid.selectbox(
        "Delta", metrics or ["iops_delta_pct"], format_func=CONFIG_DELTA_METRICS.get
    )
    contexts, first = view.colour_choices(part)
    color_by = right.selectbox("Colour by", contexts, index=first)
    part = view.named_pairs(part)
    ui.plot(
        charts.config_delta_bars(
            part, metric=metric, color_by=color_by, title=f"Changing {dimension}"
        ),
        "config_deltas",
    )
    with ui.expander("Data (one row per bar)", name="config_deltas") as box:
        if box.open:
            table = selection.flat(part)
            ui.table(table)
            ui.download_csv(table, "config_deltas")
