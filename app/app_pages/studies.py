"""The seed studies' figures, rebuilt from the marts: Lenovo's four runs, Samsung's sweeps,
RAID, TCP/RDMA and JBOF, SFD7's scaling, disk groups and working sets, Micron's per-read-mix
figures and capacity by object type. Every bar or point is one mart row."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_studies, ui
from app.lib.charts import studies as study_charts
from app.lib.views import studies as view
from app.lib.views.studies import LENOVO, MICRON, SAMSUNG, SFD7_ALLFLASH, SFD7_HYBRID

where, filters = ui.context()


def show(fig: go.Figure, name: str, rows: pl.DataFrame, what: str) -> None:
    if rows.is_empty():
        ui.no_data(what)
        return
    provenance.plot(fig, name, key=name)


def sweep(testbed: str | tuple[str, ...], axis: str) -> pl.DataFrame:
    return view.sweep(queries_studies.sweep_points(where, filters), testbed, axis)


def lenovo() -> None:
    runs = queries_studies.study_results(where, filters, LENOVO)
    title = "Lenovo SR650: the four HCIBench runs"
    fig = study_charts.metric_panels(
        runs, x="profile", title=title, x_order=view.profile_order(runs)
    )
    show(fig, "study_lenovo", runs, "Lenovo SR650 results")


def sweep_section(heading: str, testbed: str, axis: str, x: str, title: str) -> pl.DataFrame:
    """A subheading and one sweep's IOPS-and-latency lines along `axis`; the points drawn."""
    st.subheader(heading)
    points = view.with_workload(sweep(testbed, axis))
    name = f"study_{testbed}_{axis}"
    show(study_charts.sweep_lines(points, x=x, title=title), name, points, title)
    return points


def pair_section(heading: str, dimension: str, x: str, color_by: str, title: str) -> None:
    """A subheading and the Samsung result pairs that differ only in `dimension`, side by side."""
    st.subheader(heading)
    deltas = queries.config_deltas(where, filters)
    results = queries_studies.study_results(where, filters, SAMSUNG)
    pairs = view.pair_results(deltas, results, SAMSUNG, dimension)
    fig = study_charts.metric_panels(view.with_workload(pairs), x=x, color_by=color_by, title=title)
    show(fig, f"study_samsung_{dimension}", pairs, title)


def samsung() -> None:
    vms = sweep_section(
        "VM-count scaling", SAMSUNG, "vms_per_host", "vm_count",
        "Samsung: IOPS and latency by VM count",
    )  # fmt: skip
    for note in view.knee_notes(vms):
        st.caption(note)
    st.subheader("Block size")
    sizes = view.with_workload(
        sweep(SAMSUNG, "block_size_bytes"), "vm_count", axis="block_size_bytes"
    )
    title = "Samsung: throughput and latency by block size"
    fig = study_charts.sweep_lines(sizes, x="block_size_bytes", y="throughput_mb_s", title=title)
    show(fig, "study_samsung_block_size", sizes, "Samsung block-size sweep")
    pair_section("RAID-1 vs RAID-5", "profile", "profile", "series", "Samsung: RAID-1 vs RAID-5")
    st.subheader("TCP vs RDMA")
    tcp = queries.transport_comparison(where, filters)
    tcp = view.with_workload(view.of_testbed(tcp, SAMSUNG)) if tcp.height else tcp
    fig = study_charts.metric_panels(
        tcp, x="series", color_by="transport",
        metrics=("iops", "throughput_mb_s", "cpu_util_pct", "iops_per_cpu_pct"),
        title="Samsung: TCP vs RDMA, IOPS per host-CPU percent",
    )  # fmt: skip
    show(fig, "study_samsung_transport", tcp, "Samsung TCP/RDMA results")
    pair_section("JBOF vs local NVMe", "storage", "series", "storage", "Samsung: JBOF vs local")


def sfd7() -> None:
    hosts = sweep_section(
        "8 → 64 hosts (hybrid)", SFD7_HYBRID, "nodes", "nodes",
        "SFD7 hybrid: IOPS and latency by hosts",
    )  # fmt: skip
    # IOPS per host of the host-count sweep points: flat = linear scaling.
    scaling = queries.scaling_points(where, filters)
    if not hosts.is_empty() and not scaling.is_empty():
        hosts = view.per_node(hosts, scaling)
        title = "SFD7 hybrid: IOPS per host by hosts (flat = linear scaling)"
        fig = study_charts.sweep_lines(hosts, x="nodes", y="iops_per_node", y2=None, title=title)
        show(fig, "study_sfd7_per_node", hosts, "SFD7 per-node IOPS")
    st.subheader("1 vs 2 disk groups")
    groups = view.disk_group_pairs(sweep((SFD7_HYBRID, SFD7_ALLFLASH), "disk_groups"))
    fig = study_charts.metric_panels(
        groups, x="series", color_by="disk_groups_label", metrics=("iops", "avg_latency_ms"),
        title="SFD7: one vs two disk groups per host",
    )  # fmt: skip
    show(fig, "study_sfd7_disk_groups", groups, "SFD7 disk-group pairs")
    st.subheader("Working-set size (all-flash)")
    ws = view.working_set_points(sweep(SFD7_ALLFLASH, "working_set"))
    title = "SFD7 all-flash: IOPS and latency by working set (GB)"
    show(study_charts.sweep_lines(ws, x="working_set_gb", title=title),
         "study_sfd7_working_set", ws, "SFD7 working-set sweeps")  # fmt: skip


def micron() -> None:
    points = view.of_testbed(queries.ra_points(where, filters), MICRON)
    st.caption(
        "One chart per read mix across the four profiles, as the RA prints them (Figures 6-15); "
        "hatched bars and dashed lines are the RA's printed figures."
    )
    for mix in view.read_mixes(points):
        part = points.filter(pl.col("read_pct") == mix)
        fig = charts.ra_comparison(part, x="profile", title=f"Micron vSAN 6.7: {mix}% read")
        show(fig, f"study_micron_r{mix}", part, "Micron results")
    st.subheader("Capacity by object type")
    objects = queries_studies.capacity_by_object_type(where, filters)
    if objects.height:
        objects = view.observations(view.of_testbed(objects, MICRON), testbed=False)
    title = "Micron: used capacity by object type"
    fig = study_charts.capacity_by_object_type(objects, title=title)
    show(fig, "study_micron_objects", objects, "Micron capacity breakdown")


STUDIES = {
    "Lenovo SR650 vSAN 6.5 (blog, four HCIBench runs)": lenovo,
    "Samsung PM1743 vSAN 8 ESA (white paper)": samsung,
    "SFD7 vSAN 6.0 scaling (blog)": sfd7,
    "Micron vSAN 6.7 SATA (reference architecture)": micron,
}
study = st.selectbox("Study", list(STUDIES))
STUDIES[study]()
