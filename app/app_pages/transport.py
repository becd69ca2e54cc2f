"""TCP vs RDMA: IOPS, MB/s, latency and CPU side by side, and IOPS per CPU percent.

The testbed and configuration are in the URL (`?testbed=...&config=...`).
"""

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, selection, ui
from app.lib.url_state import UrlState
from app.lib.views import transport as view

where, filters = ui.context()
url = UrlState(view.PARAMS)
chosen: dict[str, str | None] = {}

st.subheader("Side by side")
st.caption(
    "Every bar is one result; its label names what differs between the bars, the subtitle "
    "the workload and configuration they share."
)
side = queries.transport_comparison(where, filters)
paired = view.paired(side)
testbeds = view.testbeds(paired)
if not testbeds:
    ui.no_data("testbed with both TCP and RDMA results")
else:
    left, right = st.columns(2)
    testbed = url.select("testbed", "Testbed", testbeds, widget=left.selectbox)
    chosen["testbed"] = testbed
    part = paired.filter(pl.col("testbed") == testbed)
    configurations = sorted(selection.options(part, "run_configuration"))
    if len(configurations) > 1:
        chosen["config"] = url.select(
            "config", "Configuration", configurations, widget=right.selectbox
        )
        part = part.filter(pl.col("run_configuration") == chosen["config"])
    ui.reconstructed_note(part)
    part = view.with_workload(part)
    fig = charts.transport_side_by_side(
        part, title=f"TCP vs RDMA on {testbed}", subtitle=view.subtitle(part)
    )
    provenance.plot(fig, "transport", key="transport", points=part)
    with ui.expander("Results (one row per bar)", name="transport") as box:
        if box.open:
            provenance.table(part)
            ui.download_csv(part, "transport_results")

st.subheader("CPU efficiency")
eff = queries.transport_cpu_efficiency(where, filters)
if eff.is_empty():
    ui.no_data("TCP/RDMA efficiency pairs")
else:
    # The side-by-side section already named its testbed's origin.
    ui.reconstructed_note(eff.filter(pl.col("testbed") != testbed) if testbeds else eff)
    eff = view.with_testbed_workload(eff)
    best = view.best_gain(eff)
    workload = view.configuration_text(best)
    cols = st.columns(3)
    cols[0].metric(
        "Best RDMA efficiency gain",
        ui.fmt(best["rdma_efficiency_gain_pct"], "+.1f", "%"),
        help=f"The TCP/RDMA pair whose RDMA IOPS per CPU % gains most: {workload}",
    )
    cols[1].metric("TCP IOPS per CPU %", ui.fmt(best["tcp_iops_per_cpu_pct"], ",.0f"),
                   help=workload)  # fmt: skip
    cols[2].metric("RDMA IOPS per CPU %", ui.fmt(best["rdma_iops_per_cpu_pct"], ",.0f"),
                   help=workload)  # fmt: skip
    st.caption(f"All three on one workload: {workload}")
    fig = charts.iops_per_cpu(eff, subtitle=view.subtitle(eff))
    ui.plot(fig, "transport_cpu_efficiency", points=eff)
    with ui.expander("Data", name="transport_cpu_efficiency") as box:
        if box.open:
            ui.table(eff)
            ui.download_csv(eff, "transport_cpu_efficiency")
url.publish(chosen)
