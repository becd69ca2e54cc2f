"""The seed studies' figures, rebuilt from the marts: Lenovo's four runs, Samsung's sweeps,
RAID, TCP/RDMA and JBOF, SFD7's scaling, disk groups and working sets, Micron's per-read-mix
figures and capacity by object type. Every bar or point is one mart row; a chart's subtitle
says its workload and configuration, its legend what varies. `?study=samsung` opens a study.
By default only the studies whose testbed the warehouse holds data of; a switch offers all
(`?documents=1`)."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_provenance, queries_studies, ui
from app.lib.charts import studies as study_charts
from app.lib.url_state import UrlState
from app.lib.views import published as documents
from app.lib.views import scaling as sweeps
from app.lib.views import studies as view
from app.lib.views.studies import LENOVO, MICRON, SAMSUNG, SFD7_ALLFLASH, SFD7_HYBRID

where, filters = ui.context()
url = UrlState({"study": "studies_study", "documents": "studies_documents"})


def show(fig: go.Figure, name: str, rows: pl.DataFrame, what: str, note: str = "") -> None:
    # the subtitle: `note`, else what the chart's rows share and what varies among them
    if rows.is_empty():
        ui.no_data(what)
        return
    if not fig.layout.title.subtitle.text:
        charts.with_subtitle(fig, note or view.subtitle(rows))
    provenance.plot(fig, name, key=name, points=rows)


def sweep(testbed: str | tuple[str, ...], axis: str) -> sweeps.SweepLegend:
    points = view.sweep(queries_studies.sweep_points(where, filters), testbed, axis)
    return sweeps.sweep_legend(points, axis)


def lenovo() -> None:
    runs = queries_studies.study_results(where, filters, LENOVO)
    runs = view.split_colliding(runs, "testbed", "profile")
    title = "Lenovo SR650: the four HCIBench runs"
    fig = study_charts.metric_panels(
        runs, x="profile", title=title, x_order=view.profile_order(runs)
    )
    show(fig, "study_lenovo", runs, "Lenovo SR650 results")


def sweep_section(heading: str, testbed: str, axis: str, x: str, title: str) -> pl.DataFrame:
    st.subheader(heading)
    named = sweep(testbed, axis)
    fig = study_charts.sweep_lines(named.points, x=x, title=title, legend_title=named.title)
    show(fig, f"study_{testbed}_{axis}", named.points, title, named.subtitle)
    return named.points


def pair_section(heading: str, dimension: str, x: str, color_by: str, title: str) -> None:
    st.subheader(heading)
    deltas = queries.config_deltas(where, filters)
    results = queries_studies.study_results(where, filters, SAMSUNG)
    pairs = view.pair_results(deltas, results, SAMSUNG, dimension)
    pairs = view.split_colliding(view.with_workload(pairs), x, color_by)
    fig = study_charts.metric_panels(pairs, x=x, color_by=color_by, title=title)
    show(fig, f"study_samsung_{dimension}", pairs, title)


def samsung() -> None:
    vms = sweep_section(
        "VM-count scaling", SAMSUNG, "vms_per_host", "vm_count",
        "Samsung: IOPS and latency by VM count",
    )  # fmt: skip
    for note in view.knee_notes(vms):
        st.caption(note)
    st.subheader("Block size")
    sizes = sweep(SAMSUNG, "block_size_bytes")
    title = "Samsung: throughput and latency by block size"
    fig = study_charts.sweep_lines(
        sizes.points, x="block_size_bytes", y="throughput_mb_s", title=title,
        legend_title=sizes.title,
    )  # fmt: skip
    show(fig, "study_samsung_block_size", sizes.points, "Samsung block-size sweep", sizes.subtitle)
    pair_section("RAID-1 vs RAID-5", "profile", "profile", "series", "Samsung: RAID-1 vs RAID-5")
    st.subheader("TCP vs RDMA")
    tcp = queries.transport_comparison(where, filters)
    tcp = view.split_colliding(
        view.with_workload(view.of_testbed(tcp, SAMSUNG)), "series", "transport"
    )
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
        show(
            fig,
            "study_sfd7_per_node",
            hosts,
            "SFD7 per-node IOPS",
            sweep(SFD7_HYBRID, "nodes").subtitle,
        )
    st.subheader("1 vs 2 disk groups")
    groups = view.disk_group_pairs(sweep((SFD7_HYBRID, SFD7_ALLFLASH), "disk_groups").points)
    groups = view.split_colliding(groups, "series", "disk_groups_label")
    fig = study_charts.metric_panels(
        groups, x="series", color_by="disk_groups_label", metrics=("iops", "avg_latency_ms"),
        title="SFD7: one vs two disk groups per host",
    )  # fmt: skip
    show(fig, "study_sfd7_disk_groups", groups, "SFD7 disk-group pairs")
    st.subheader("Working-set size (all-flash)")
    ws = sweep(SFD7_ALLFLASH, "working_set")
    points = view.working_set_points(ws.points)
    title = "SFD7 all-flash: IOPS and latency by working set (GB)"
    fig = study_charts.sweep_lines(points, x="working_set_gb", title=title, legend_title=ws.title)
    show(fig, "study_sfd7_working_set", points, "SFD7 working-set sweeps", ws.subtitle)


def micron() -> None:
    points = view.of_testbed(queries.ra_points(where, filters), MICRON)
    st.caption(view.MICRON_NOTE)
    for mix in view.read_mixes(points):
        part = points.filter(pl.col("read_pct") == mix)
        fig = charts.ra_comparison(part, x="profile", title=f"Micron vSAN 6.7: {mix:g}% read")
        show(fig, f"study_micron_r{mix:g}", part, "Micron results")
    st.subheader("Capacity by object type")
    objects = queries_studies.capacity_by_object_type(where, filters)
    if objects.height:
        objects = view.observations(view.of_testbed(objects, MICRON), testbed=False)
    title = "Micron: used capacity by object type"
    fig = study_charts.capacity_by_object_type(objects, title=title)
    show(fig, "study_micron_objects", objects, "Micron capacity breakdown")


STUDIES = {"lenovo": lenovo, "samsung": samsung, "sfd7": sfd7, "micron": micron}
everything = url.toggle(
    "documents", documents.ALL_DOCUMENTS_LABEL, help=documents.ALL_DOCUMENTS_HELP
)
offered = view.studies_offered(queries_provenance.testbeds_with_data(where), everything)
study = url.select("study", "Study", offered, format_func=view.STUDY_NAMES.get)
url.publish({"study": study}, only=("study",))
if study is None:
    st.info(
        "No study is about a testbed this warehouse holds data of: switch on "
        f"'{documents.ALL_DOCUMENTS_LABEL}' to see the studies."
    )
else:
    STUDIES[study]()
