"""The Studies page's rows: each seed study's figure rebuilt from mart rows (sweep points,
config_deltas pairs, TCP/RDMA results, RA points, capacity by object type), one row per bar
or point, with the label that names its series."""

from __future__ import annotations

import polars as pl

from app.lib.charts.common import (
    CONTEXT_KEYS,
    MISSING,
    chart_context,
    context_value,
    is_missing,
    plural,
    workload_label,
)
from app.lib.queries import UNLABELLED

LENOVO = "lenovo-sr650-vsan65"
SAMSUNG = "samsung-pm1743-vsan8-esa"
SFD7_HYBRID, SFD7_ALLFLASH = "sfd7-vsan60-hybrid", "sfd7-vsan60-allflash"
MICRON = "micron-sata-vsan67"
# The study selector's URL values (`?study=samsung`) and what it shows.
STUDY_NAMES = {
    "lenovo": "Lenovo SR650 vSAN 6.5 (blog, four HCIBench runs)",
    "samsung": "Samsung PM1743 vSAN 8 ESA (white paper)",
    "sfd7": "SFD7 vSAN 6.0 scaling (blog)",
    "micron": "Micron vSAN 6.7 SATA (reference architecture)",
}
# The testbeds each study is about: a study is offered by default when the warehouse holds
# data of one of them (the page's documents switch offers all).
STUDY_TESTBEDS = {
    "lenovo": (LENOVO,),
    "samsung": (SAMSUNG,),
    "sfd7": (SFD7_HYBRID, SFD7_ALLFLASH),
    "micron": (MICRON,),
}
MICRON_NOTE = (
    "One chart per read mix across the four profiles, as the RA prints them (Figures 6-15); "
    "hatched bars and dashed lines are the RA's printed figures."
)
# What may tell two bars of one colour at one x apart, in the order a label names it.
SPLIT_KEYS = (*CONTEXT_KEYS, "vms_per_host", "outstanding_io_per_vm", "disk_groups", "storage")


def with_workload(df: pl.DataFrame, *extra: str, axis: str = "") -> pl.DataFrame:
    """A `series` label per row: its workload (read mix, block size, access; not the sweep's
    `axis`), plus the `extra` columns."""
    keys = [k for k in ("read_pct", "block_size_bytes", "random_pct") if k != axis]
    names = [
        workload_label({k: r.get(k) for k in keys})
        + "".join(f" · {context_value(c, r[c])}" for c in extra if r.get(c) is not None)
        for r in df.iter_rows(named=True)
    ]
    return df.with_columns(series=pl.Series(names, dtype=pl.String))


def subtitle(rows: pl.DataFrame, *, skip: tuple[str, ...] = ()) -> str:
    """What every row of a chart shares (its workload and configuration), then what varies."""
    return chart_context(rows).subtitle(skip=skip)


def split_colliding(df: pl.DataFrame, x: str, label: str) -> pl.DataFrame:
    """`label` made unique at each `x`: where two rows share both, the keys whose values
    differ among them (SPLIT_KEYS: VMs, outstanding I/O, ...) join their label, and as a last
    resort the result id; a chart then draws two bars, never one row over another."""
    if df.is_empty() or label not in df.columns or x not in df.columns:
        return df
    df = df.with_columns(pl.col(label).cast(pl.String).fill_null(MISSING))
    clash = pl.struct(label, x).is_duplicated()
    colliding = df.filter(clash)
    if colliding.is_empty():
        return df
    groups = colliding.group_by(label, x)
    keys = [
        k
        for k in SPLIT_KEYS
        if k in df.columns and k not in (x, label) and groups.agg(pl.col(k).n_unique())[k].max() > 1
    ]
    if keys:
        names = [
            r[label] + "".join(f" · {context_value(k, r[k])}" for k in keys)
            for r in df.iter_rows(named=True)
        ]
        df = df.with_columns(pl.Series(label, names, dtype=pl.String))
    if "result_id" in df.columns and df.select(pl.struct(label, x).is_duplicated().any()).item():
        df = df.with_columns(
            pl.when(pl.struct(label, x).is_duplicated())
            .then(pl.format("{} #{}", label, pl.col("result_id").str.slice(0, 6)))
            .otherwise(label)
            .alias(label)
        )
    return df


def of_testbed(df: pl.DataFrame, testbed: str) -> pl.DataFrame:
    """The rows of one testbed (an empty frame as it is: it may have no columns)."""
    return df.filter(pl.col("testbed") == testbed) if df.height else df


def sweep(points: pl.DataFrame, testbed: str | tuple[str, ...], axis: str) -> pl.DataFrame:
    """The sweep points (queries_studies.sweep_points) of some testbeds along one axis."""
    if points.is_empty():
        return points
    testbeds = (testbed,) if isinstance(testbed, str) else testbed
    return points.filter(pl.col("testbed").is_in(testbeds) & (pl.col("axis") == axis))


def pair_results(
    deltas: pl.DataFrame, results: pl.DataFrame, testbed: str, dimension: str
) -> pl.DataFrame:
    """The results of the config_deltas pairs of one testbed that differ only in `dimension`
    (`results`: that testbed's workload results)."""
    if deltas.is_empty() or results.is_empty():
        return results.clear()
    pairs = deltas.filter((pl.col("testbed") == testbed) & (pl.col("dimension") == dimension))
    ids = set(pairs["from_result_id"].to_list()) | set(pairs["to_result_id"].to_list())
    return results.filter(pl.col("result_id").is_in(list(ids)))


def knee_notes(points: pl.DataFrame) -> list[str]:
    """The latency knees the sweeps mart marks, one caption each."""
    if "is_knee" not in points.columns:
        return []
    knees = points.filter(pl.col("is_knee").fill_null(False))
    return [
        f"Latency knee ({row['series']}): {plural(row['vm_count'], 'VM')} (sweeps mart)."
        for row in knees.iter_rows(named=True)
        if not is_missing(row.get("vm_count"))
    ]


def profile_order(runs: pl.DataFrame) -> list[str]:
    """The profiles in the order the study ran them (the mart's `profile_order`)."""
    orders = runs["profile_order"].drop_nulls() if "profile_order" in runs.columns else []
    return orders[0].to_list() if len(orders) else []


def per_node(hosts: pl.DataFrame, scaling: pl.DataFrame) -> pl.DataFrame:
    """The host-count sweep points with each result's IOPS per host (scaling_points); a point
    that is the mean of repeated runs has no single result's per-node value."""
    hosts = hosts.join(scaling.select("result_id", "iops_per_node"), on="result_id", how="left")
    return hosts.with_columns(
        iops_per_node=pl.when(pl.col("run_count") == 1).then(pl.col("iops_per_node"))
    )


def disk_group_pairs(groups: pl.DataFrame) -> pl.DataFrame:
    """The disk-group sweep points named by testbed, read mix and the working set held equal,
    coloured by their disk-group count."""
    if not groups.height:
        return groups
    names = [
        f"{r['testbed'].removeprefix('sfd7-vsan60-')} · {r['read_pct']}% read"
        + ("" if r["held"] is None else f" · {r['held']}")
        for r in groups.with_columns(
            held=pl.col("held_equal_json").str.json_path_match("$.working_set")
        ).iter_rows(named=True)
    ]
    return groups.with_columns(
        series=pl.Series(names, dtype=pl.String),
        disk_groups_label=_disk_groups(groups["disk_groups"]),
    )


def working_set_points(ws: pl.DataFrame) -> pl.DataFrame:
    """The working-set sweep points in GB, one series per disk-group count."""
    if not ws.height:
        return ws
    return ws.with_columns(
        working_set_gb=pl.col("axis_value"),
        series=_disk_groups(ws["disk_groups"]),
    )


def _disk_groups(counts: pl.Series) -> pl.Series:
    """`1 disk group`, `2 disk groups` (`disk groups —` where the count is unknown)."""
    return pl.Series(
        [f"disk groups {MISSING}" if is_missing(n) else plural(n, "disk group") for n in counts],
        dtype=pl.String,
    )


def read_mixes(points: pl.DataFrame) -> list:
    return sorted(points["read_pct"].drop_nulls().unique().to_list()) if points.height else []


def observations(objects: pl.DataFrame, *, testbed: bool = True) -> pl.DataFrame:
    """Capacity-by-object-type rows with the `observation` each bar group stands for: its
    testbed (unless one testbed is shown), working set, capture time and observation id (two
    captures may share the rest)."""
    parts = [
        pl.col("working_set").fill_null(MISSING),
        pl.col("captured_at").cast(pl.String).str.slice(0, 16).fill_null("undated"),
        pl.col("capacity_observation_id").cast(pl.String).str.slice(0, 6),
    ]
    if testbed:
        name = pl.col("testbed").fill_null(UNLABELLED)
        return objects.with_columns(observation=pl.format("{} · {} · {} · #{}", name, *parts))
    return objects.with_columns(observation=pl.format("{} test · {} · #{}", *parts))


def studies_offered(testbeds: list[str], everything: bool) -> list[str]:
    """The studies (STUDY_NAMES keys) to offer: those about a testbed in `testbeds`, or all."""
    return [
        study
        for study, about in STUDY_TESTBEDS.items()
        if everything or any(testbed in testbeds for testbed in about)
    ]
