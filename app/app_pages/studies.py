"""The seed studies' figures, rebuilt from the marts: Lenovo's four runs, Samsung's sweeps,
RAID, TCP/RDMA and JBOF, SFD7's scaling, disk groups and working sets, Micron's per-read-mix
figures and capacity by object type. Every bar or point is one mart row."""

from __future__ import annotations

import polars as pl
import streamlit as st

from app.lib import charts, provenance, queries, queries_studies, ui
from app.lib.charts import studies as study_charts

where, filters = ui.context()

LENOVO = "lenovo-sr650-vsan65"
SAMSUNG = "samsung-pm1743-vsan8-esa"
SFD7_HYBRID, SFD7_ALLFLASH = "sfd7-vsan60-hybrid", "sfd7-vsan60-allflash"
MICRON = "micron-sata-vsan67"
RESULT_METRICS = ("iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms")


def with_workload(df: pl.DataFrame, *extra: str, axis: str = "") -> pl.DataFrame:
    """A `series` label per row: its workload (read mix, block size, access; not the sweep's
    `axis`), plus the `extra` columns."""
    keys = [k for k in ("read_pct", "block_size_bytes", "random_pct") if k != axis]
    names = [
        charts.workload_label({k: r.get(k) for k in keys})
        + "".join(f" · {c.replace('_', ' ')} {r[c]}" for c in extra if r.get(c) is not None)
        for r in df.iter_rows(named=True)
    ]
    return df.with_columns(series=pl.Series(names, dtype=pl.String))


def sweep(testbed: str | tuple[str, ...], axis: str) -> pl.DataFrame:
    points = queries_studies.sweep_points(where, filters)
    if points.is_empty():
        return points
    testbeds = (testbed,) if isinstance(testbed, str) else testbed
    return points.filter(pl.col("testbed").is_in(testbeds) & (pl.col("axis") == axis))


def pair_results(testbed: str, dimension: str) -> pl.DataFrame:
    """The results of the config_deltas pairs of one testbed that differ only in `dimension`."""
    deltas = queries.config_deltas(where, filters)
    results = queries_studies.study_results(where, filters, testbed)
    if deltas.is_empty() or results.is_empty():
        return results.clear()
    pairs = deltas.filter((pl.col("testbed") == testbed) & (pl.col("dimension") == dimension))
    ids = set(pairs["from_result_id"].to_list()) | set(pairs["to_result_id"].to_list())
    return results.filter(pl.col("result_id").is_in(list(ids)))


def show(fig, name: str, rows: pl.DataFrame, what: str) -> None:
    if rows.is_empty():
        ui.no_data(what)
        return
    provenance.plot(fig, name, key=name)


def knee_note(points: pl.DataFrame) -> None:
    if "is_knee" not in points.columns:
        return
    knees = points.filter(pl.col("is_knee").fill_null(False))
    for row in knees.iter_rows(named=True):
        st.caption(f"Latency knee ({row['series']}): {row['vm_count']} VMs (sweeps mart).")


def lenovo() -> None:
    runs = queries_studies.study_results(where, filters, LENOVO)
    order = runs["profile_order"].drop_nulls()[0].to_list() if runs.height else []
    show(
        study_charts.metric_panels(
            runs, x="profile", title="Lenovo SR650: the four HCIBench runs", x_order=order
        ),
        "study_lenovo",
        runs,
        "Lenovo SR650 results",
    )


def sweep_section(heading: str, testbed: str, axis: str, x: str, title: str) -> pl.DataFrame:
    """A subheading and one sweep's IOPS-and-latency lines along `axis`; the points drawn."""
    st.subheader(heading)
    points = with_workload(sweep(testbed, axis))
    name = f"study_{testbed}_{axis}"
    show(study_charts.sweep_lines(points, x=x, title=title), name, points, title)
    return points


def pair_section(heading: str, dimension: str, x: str, color_by: str, title: str) -> None:
    """A subheading and the Samsung result pairs that differ only in `dimension`, side by side."""
    st.subheader(heading)
    pairs = pair_results(SAMSUNG, dimension)
    show(
        study_charts.metric_panels(with_workload(pairs), x=x, color_by=color_by, title=title),
        f"study_samsung_{dimension}",
        pairs,
        title,
    )


def samsung() -> None:
    vms = sweep_section(
        "VM-count scaling", SAMSUNG, "vms_per_host", "vm_count",
        "Samsung: IOPS and latency by VM count",
    )  # fmt: skip
    knee_note(vms)
    st.subheader("Block size")
    sizes = with_workload(sweep(SAMSUNG, "block_size_bytes"), "vm_count", axis="block_size_bytes")
    show(
        study_charts.sweep_lines(
            sizes,
            x="block_size_bytes",
            y="throughput_mb_s",
            title="Samsung: throughput and latency by block size",
        ),
        "study_samsung_block_size",
        sizes,
        "Samsung block-size sweep",
    )
    pair_section("RAID-1 vs RAID-5", "profile", "profile", "series", "Samsung: RAID-1 vs RAID-5")
    st.subheader("TCP vs RDMA")
    tcp = queries.transport_comparison(where, filters)
    tcp = with_workload(tcp.filter(pl.col("testbed") == SAMSUNG)) if tcp.height else tcp
    show(
        study_charts.metric_panels(
            tcp,
            x="series",
            color_by="transport",
            metrics=("iops", "throughput_mb_s", "cpu_util_pct", "iops_per_cpu_pct"),
            title="Samsung: TCP vs RDMA, IOPS per host-CPU percent",
        ),
        "study_samsung_transport",
        tcp,
        "Samsung TCP/RDMA results",
    )
    pair_section("JBOF vs local NVMe", "storage", "series", "storage", "Samsung: JBOF vs local")


def sfd7_per_node(hosts: pl.DataFrame) -> None:
    """IOPS per host of the host-count sweep points (scaling_points, one row per result):
    flat = linear scaling."""
    per_node = queries.scaling_points(where, filters)
    if hosts.is_empty() or per_node.is_empty():
        return
    hosts = hosts.join(
        per_node.select("result_id", "iops_per_node"), on="result_id", how="left"
    ).with_columns(
        # a point that is the mean of repeated runs has no single result's per-node value
        iops_per_node=pl.when(pl.col("run_count") == 1).then(pl.col("iops_per_node"))
    )
    show(
        study_charts.sweep_lines(
            hosts,
            x="nodes",
            y="iops_per_node",
            y2=None,
            title="SFD7 hybrid: IOPS per host by hosts (flat = linear scaling)",
        ),
        "study_sfd7_per_node",
        hosts,
        "SFD7 per-node IOPS",
    )


def sfd7() -> None:
    hosts = sweep_section(
        "8 → 64 hosts (hybrid)", SFD7_HYBRID, "nodes", "nodes",
        "SFD7 hybrid: IOPS and latency by hosts",
    )  # fmt: skip
    sfd7_per_node(hosts)
    st.subheader("1 vs 2 disk groups")
    groups = sweep((SFD7_HYBRID, SFD7_ALLFLASH), "disk_groups")
    if groups.height:
        names = [
            f"{r['testbed'].removeprefix('sfd7-vsan60-')} · {r['read_pct']}% read"
            + ("" if r["held"] is None else f" · {r['held']}")
            for r in groups.with_columns(
                held=pl.col("held_equal_json").str.json_path_match("$.working_set")
            ).iter_rows(named=True)
        ]
        groups = groups.with_columns(
            series=pl.Series(names, dtype=pl.String),
            disk_groups_label=pl.format("{} disk group(s)", pl.col("disk_groups")),
        )
    show(
        study_charts.metric_panels(
            groups,
            x="series",
            color_by="disk_groups_label",
            metrics=("iops", "avg_latency_ms"),
            title="SFD7: one vs two disk groups per host",
        ),
        "study_sfd7_disk_groups",
        groups,
        "SFD7 disk-group pairs",
    )
    st.subheader("Working-set size (all-flash)")
    ws = sweep(SFD7_ALLFLASH, "working_set")
    if ws.height:
        ws = ws.with_columns(
            working_set_gb=pl.col("axis_value"),
            series=pl.format("{} disk group(s)", pl.col("disk_groups")),
        )
    show(
        study_charts.sweep_lines(
            ws, x="working_set_gb", title="SFD7 all-flash: IOPS and latency by working set (GB)"
        ),
        "study_sfd7_working_set",
        ws,
        "SFD7 working-set sweeps",
    )


def micron() -> None:
    points = queries.ra_points(where, filters)
    points = points.filter(pl.col("testbed") == MICRON) if points.height else points
    st.caption(
        "One chart per read mix across the four profiles, as the RA prints them (Figures 6-15); "
        "hatched bars and dashed lines are the RA's printed figures."
    )
    for mix in sorted(points["read_pct"].drop_nulls().unique().to_list()) if points.height else []:
        part = points.filter(pl.col("read_pct") == mix)
        show(
            charts.ra_comparison(part, x="profile", title=f"Micron vSAN 6.7: {mix}% read"),
            f"study_micron_r{mix}",
            part,
            "Micron results",
        )
    st.subheader("Capacity by object type")
    objects = queries_studies.capacity_by_object_type(where, filters)
    if objects.height:
        objects = objects.filter(pl.col("testbed") == MICRON).with_columns(
            observation=pl.format(
                "{} test · {} · #{}",
                pl.col("working_set").fill_null(charts.MISSING),
                pl.col("captured_at").cast(pl.String).str.slice(0, 16).fill_null("undated"),
                pl.col("capacity_observation_id").cast(pl.String).str.slice(0, 6),
            )
        )
    show(
        study_charts.capacity_by_object_type(objects, title="Micron: used capacity by object type"),
        "study_micron_objects",
        objects,
        "Micron capacity breakdown",
    )


STUDIES = {
    "Lenovo SR650 vSAN 6.5 (blog, four HCIBench runs)": lenovo,
    "Samsung PM1743 vSAN 8 ESA (white paper)": samsung,
    "SFD7 vSAN 6.0 scaling (blog)": sfd7,
    "Micron vSAN 6.7 SATA (reference architecture)": micron,
}
study = st.selectbox("Study", list(STUDIES))
STUDIES[study]()
