"""The Scaling page's rows: sweep points named by what tells their sweeps apart, and the
per-node IOPS table."""

from __future__ import annotations

import json

import polars as pl

AXES = {
    "nodes": "Hosts in the cluster",
    "vms_per_host": "Worker VMs per host",
    "outstanding_io_per_vm": "Outstanding I/O per VM",
    "block_size_bytes": "Block size",
    "read_pct": "Read mix (% reads)",
    "working_set": "Working set (sort value: GB or %)",
    "disk_groups": "Disk groups per host",
}
Y_CHOICES = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms"]
TABLE_COLUMNS = [
    "result_id", "testbed", "nodes", "iops", "iops_per_node", "host_iops_min", "host_iops_max",
    "host_imbalance_pct",
]  # fmt: skip


def axes(axes_present: list[str]) -> list[str]:
    """The sweep axes of a testbed, in AXES order (axes the page does not name are left out)."""
    return [a for a in AXES if a in axes_present]


def sweep_names(points: pl.DataFrame) -> pl.DataFrame:
    """`series`: what tells the sweeps apart (the held-equal labels that differ among them)."""
    held = {
        sweep: json.loads(text or "{}")
        for sweep, text in points.select("sweep_id", "held_equal_json").unique().iter_rows()
    }
    keys = sorted({k for labels in held.values() for k in labels})
    differ = [k for k in keys if len({labels.get(k) for labels in held.values()}) > 1]
    names = {
        s: ", ".join(f"{k}={labels.get(k, '(none)')}" for k in differ) or "sweep"
        for s, labels in held.items()
    }
    return points.with_columns(series=pl.col("sweep_id").replace_strict(names))


def table(points: pl.DataFrame) -> pl.DataFrame:
    """The sweep points as listed (the held-equal JSON is in each point's series name)."""
    return points.drop("held_equal_json", strict=False)
