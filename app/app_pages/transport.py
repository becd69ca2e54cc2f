"""TCP vs RDMA: IOPS, MB/s, latency and CPU side by side, and IOPS per CPU percent."""

import polars as pl
import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

st.subheader("Side by side")
side = queries.transport_comparison(db_path, filters)
# A chosen transport filter can leave a testbed with one transport: nothing to compare.
paired = side.filter(pl.col("transport").n_unique().over("testbed") > 1) if len(side) else side
testbeds = sorted(paired["testbed"].unique()) if len(paired) else []
if not testbeds:
    ui.no_data("testbed with both TCP and RDMA results")
else:
    testbed = st.selectbox("Testbed", testbeds)
    part = paired.filter(pl.col("testbed") == testbed)
    ui.reconstructed_note(part)
    labelled = part.with_columns(workload=pl.Series(charts.workload_labels(part), dtype=pl.String))
    part = labelled.sort("workload", "transport")
    ui.plot(charts.transport_side_by_side(part, title=f"TCP vs RDMA on {testbed}"), "transport")

st.subheader("CPU efficiency")
eff = queries.transport_cpu_efficiency(db_path, filters)
if eff.is_empty():
    ui.no_data("TCP/RDMA efficiency pairs")
else:
    # The side-by-side section already named its testbed's origin.
    ui.reconstructed_note(eff.filter(pl.col("testbed") != testbed) if testbeds else eff)
    eff = eff.with_columns(
        workload=pl.Series(
            [f"{r['testbed']} · {charts.workload_label(r)}" for r in eff.iter_rows(named=True)],
            dtype=pl.String,
        )
    )
    # Without CPU figures the gain is NULL everywhere: show the first pair's n/a.
    gains = eff["rdma_efficiency_gain_pct"]
    best = eff.row(gains.arg_max() if gains.null_count() < eff.height else 0, named=True)
    cols = st.columns(3)
    cols[0].metric(
        "Best RDMA efficiency gain", ui.fmt(best["rdma_efficiency_gain_pct"], "+.1f", "%")
    )
    cols[1].metric("TCP IOPS per CPU %", ui.fmt(best["tcp_iops_per_cpu_pct"], ",.0f"))
    cols[2].metric("RDMA IOPS per CPU %", ui.fmt(best["rdma_iops_per_cpu_pct"], ",.0f"))
    ui.plot(charts.iops_per_cpu(eff), "transport_cpu_efficiency")
    with st.expander("Data"):
        st.dataframe(eff, hide_index=True)
        ui.download_csv(eff, "transport_cpu_efficiency")
