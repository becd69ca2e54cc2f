"""Profile and configuration deltas: what each data service costs, and one-label comparisons."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, selection, ui
from app.lib.charts.common import has_values
from app.lib.charts.deltas import CONFIG_DELTA_METRICS

where, filters = ui.context()

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
deltas = queries.profile_latency_deltas(where, filters)
if ui.has_data(deltas, "profile deltas", "They need results of several profiles on one testbed."):
    left, mid, right = st.columns(3)
    testbed = left.selectbox("Testbed", sorted(deltas["testbed"].unique()))
    metric = mid.selectbox("Delta", list(METRICS), format_func=METRICS.get)
    part = deltas.filter(pl.col("testbed") == testbed)
    sizes = sorted(part["block_size_bytes"].drop_nulls().unique())
    if len(sizes) > 1:
        size = right.selectbox("Block size", sizes, format_func=charts.bytes_label)
        part = part.filter(pl.col("block_size_bytes") == size)
    cell = ["working_set", "profile", "read_pct"]
    if part.select([c for c in cell if c in part.columns]).is_duplicated().any():
        st.warning(
            "Several results share a profile and read mix here (another label varies): "
            "the heatmap would have to average them, so the rows are listed instead."
        )
    else:
        ui.plot(
            charts.profile_delta_heatmap(part, metric=metric, title=METRICS[metric]),
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
    contexts = [c for c in ("working_set", "testbed", "read_pct") if c in part.columns]
    varying = [c for c in contexts if part[c].n_unique() > 1]
    color_by = right.selectbox(
        "Colour by", contexts, index=contexts.index(varying[0]) if varying else 0
    )
    part = part.with_columns(
        pair=pl.Series(
            [
                f"{r['from_value']} → {r['to_value']} · {r['testbed']} · "
                + charts.workload_label(r)
                + ("" if r.get("from_vm_count") is None else f", {r['from_vm_count']} VMs")
                for r in part.iter_rows(named=True)
            ],
            dtype=pl.String,
        )
    )
    # Two rows with the same label would stack into one bar: number them (never add them).
    n = pl.int_range(pl.len()).over("pair") + 1
    part = part.with_columns(
        pair=pl.when(pl.len().over("pair") > 1)
        .then(pl.format("{} #{}", pl.col("pair"), n))
        .otherwise(pl.col("pair"))
    )
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
