"""Profile and configuration deltas: what each data service costs, and one-label comparisons."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

METRICS = {
    "latency_vs_baseline_pct": "Latency vs baseline",
    "iops_vs_baseline_pct": "IOPS vs baseline",
    "latency_vs_previous_pct": "Latency vs previous profile (step)",
    "iops_vs_previous_pct": "IOPS vs previous profile (step)",
}

st.subheader("Cost of each data service per read mix")
st.caption(
    "Profiles add data services step by step (checksum, RAID-5, dedupe and compression); "
    "deltas are 100 × (profile − reference) / reference. Red is worse."
)
deltas = queries.profile_latency_deltas(db_path, filters)
if ui.has_data(deltas, "profile deltas", "They need results of several profiles on one testbed."):
    left, mid, right = st.columns(3)
    testbed = left.selectbox("Testbed", sorted(deltas["testbed"].unique()))
    metric = mid.selectbox("Delta", list(METRICS), format_func=METRICS.get)
    part = deltas.filter(pl.col("testbed") == testbed)
    sizes = sorted(part["block_size_bytes"].drop_nulls().unique())
    if len(sizes) > 1:
        size = right.selectbox("Block size", sizes, format_func=lambda b: f"{int(b):,} bytes")
        part = part.filter(pl.col("block_size_bytes") == size)
    ui.plot(
        charts.profile_delta_heatmap(part, metric=metric, title=METRICS[metric]), "profile_deltas"
    )
    with st.expander("Data"):
        st.dataframe(part, hide_index=True)
        ui.download_csv(part, "profile_deltas")

st.subheader("One-label comparisons")
st.caption("Pairs of results on one testbed and workload that differ in exactly one label.")
configs = queries.config_deltas(db_path, filters)
if configs.is_empty():
    ui.no_data("one-label comparisons")
else:
    dimension = st.selectbox("Label that differs", sorted(configs["dimension"].unique()))
    part = configs.filter(pl.col("dimension") == dimension)
    part = part.with_columns(
        pair=pl.Series(
            [
                f"{r['from_value']} → {r['to_value']} · {r['testbed']} · "
                + charts.workload_label(r)
                for r in part.iter_rows(named=True)
            ],
            dtype=pl.String,
        )
    )
    ui.plot(charts.config_delta_bars(part, title=f"Changing {dimension}"), "config_deltas")
    with st.expander("Data"):
        st.dataframe(part, hide_index=True)
        ui.download_csv(part, "config_deltas")
