"""The Profiles & configs page's rows: profile latency deltas per read mix, and one bar per
config_deltas pair, named so that no two bars stack into one."""

from __future__ import annotations

import polars as pl

from app.lib.charts.common import workload_label

METRICS = {
    "latency_vs_baseline_pct": "Latency vs baseline",
    "iops_vs_baseline_pct": "IOPS vs baseline",
    "latency_vs_previous_pct": "Latency vs previous profile (step)",
    "iops_vs_previous_pct": "IOPS vs previous profile (step)",
}
# One heatmap cell: a working set, profile and read mix.
CELL = ("working_set", "profile", "read_pct")
# What a pair's bar can be coloured by.
CONTEXTS = ("working_set", "testbed", "read_pct")


def block_sizes(part: pl.DataFrame) -> list[int]:
    return sorted(part["block_size_bytes"].drop_nulls().unique())


def shares_cells(part: pl.DataFrame) -> bool:
    """Several results share a heatmap cell (another label varies): drawing it would average
    them, so the page lists the rows instead."""
    return part.select([c for c in CELL if c in part.columns]).is_duplicated().any()


def colour_choices(part: pl.DataFrame) -> tuple[list[str], int]:
    """The contexts a pair's bars can be coloured by, and the first that varies (else 0)."""
    contexts = [c for c in CONTEXTS if c in part.columns]
    varying = [c for c in contexts if part[c].n_unique() > 1]
    return contexts, contexts.index(varying[0]) if varying else 0


def named_pairs(part: pl.DataFrame) -> pl.DataFrame:
    """A `pair` label per config_deltas row: the change, testbed, workload and VM count; two
    rows with the same label are numbered (#1, #2): a chart never adds them into one bar."""
    names = [
        f"{r['from_value']} → {r['to_value']} · {r['testbed']} · "
        + workload_label(r)
        + ("" if r.get("from_vm_count") is None else f", {r['from_vm_count']} VMs")
        for r in part.iter_rows(named=True)
    ]
    part = part.with_columns(pair=pl.Series(names, dtype=pl.String))
    n = pl.int_range(pl.len()).over("pair") + 1
    return part.with_columns(
        pair=pl.when(pl.len().over("pair") > 1)
        .then(pl.format("{} #{}", pl.col("pair"), n))
        .otherwise(pl.col("pair"))
    )
