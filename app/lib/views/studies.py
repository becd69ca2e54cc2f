"""The Studies page's rows: each seed study's figure rebuilt from mart rows (sweep points,
config_deltas pairs, TCP/RDMA results, RA points, capacity by object type), one row per bar
or point, with the label that names its series."""

from __future__ import annotations

import polars as pl

from app.lib.charts.common import MISSING, workload_label
from app.lib.queries import UNLABELLED

LENOVO = "lenovo-sr650-vsan65"
SAMSUNG = "samsung-pm1743-vsan8-esa"
SFD7_HYBRID, SFD7_ALLFLASH = "sfd7-vsan60-hybrid", "sfd7-vsan60-allflash"
MICRON = "micron-sata-vsan67"


def with_workload(df: pl.DataFrame, *extra: str, axis: str = "") -> pl.DataFrame:
    """A `series` label per row: its workload (read mix, block size, access; not the sweep's
    `axis`), plus the `extra` columns."""
    keys = [k for k in ("read_pct", "block_size_bytes", "random_pct") if k != axis]
    names = [
        workload_label({k: r.get(k) for k in keys})
        + "".join(f" · {c.replace('_', ' ')} {r[c]}" for c in extra if r.get(c) is not None)
        for r in df.iter_rows(named=True)
    ]
    return df.with_columns(series=pl.Series(names, dtype=pl.String))


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
        f"Latency knee ({row['series']}): {row['vm_count']} VMs (sweeps mart)."
        for row in knees.iter_rows(named=True)
    ]


def profile_order(runs: pl.DataFrame) -> list[str]:
    """The profiles in the order the study ran them (the mart's `profile_order`)."""
    return runs["profile_order"].drop_nulls()[0].to_list() if runs.height else []


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
        disk_groups_label=pl.format("{} disk group(s)", pl.col("disk_groups")),
    )


def working_set_points(ws: pl.DataFrame) -> pl.DataFrame:
    """The working-set sweep points in GB, one series per disk-group count."""
    if not ws.height:
        return ws
    return ws.with_columns(
        working_set_gb=pl.col("axis_value"),
        series=pl.format("{} disk group(s)", pl.col("disk_groups")),
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
