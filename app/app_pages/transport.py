"""TCP vs RDMA: IOPS, MB/s, latency and CPU side by side, and IOPS per CPU percent."""

import streamlit as st

from app.lib import charts, queries, ui

db_path, filters = ui.context()

results = queries.workload_results(db_path, filters)
paired = (
    results.dropna(subset=["transport"]).groupby("testbed")["transport"].nunique()
    if not results.empty
    else None
)
testbeds = sorted(paired[paired > 1].index) if paired is not None else []

st.subheader("Side by side")
if not testbeds:
    ui.no_data("testbed with both TCP and RDMA results")
else:
    testbed = st.selectbox("Testbed", testbeds)
    part = results[results["testbed"] == testbed].copy()
    ui.reconstructed_note(part)
    part["workload"] = [charts.workload_label(row) for _, row in part.iterrows()]
    agg = part.groupby(["workload", "transport"])[charts.TRANSPORT_METRICS].mean().reset_index()
    ui.plot(charts.transport_side_by_side(agg, title=f"TCP vs RDMA on {testbed}"), "transport")

st.subheader("CPU efficiency")
eff = queries.transport_cpu_efficiency(db_path, filters.testbed)
if eff.empty:
    ui.no_data("TCP/RDMA efficiency pairs")
else:
    eff = eff.copy()
    # The side-by-side section already named its testbed's origin.
    ui.reconstructed_note(eff[eff["testbed"] != testbed] if testbeds else eff)
    eff["workload"] = [
        f"{row['testbed']} · {charts.workload_label(row)}" for _, row in eff.iterrows()
    ]
    gains = eff["rdma_efficiency_gain_pct"]
    # without CPU figures the gain is NULL everywhere: show the first pair's n/a
    best = eff.loc[gains.idxmax()] if gains.notna().any() else eff.iloc[0]
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
