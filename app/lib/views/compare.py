"""The Compare page's rows: two results side by side, two groups on the workloads both ran,
and the config_deltas rows that attribute a difference to one label."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib.charts.common import (
    MISSING,
    axis_title,
    bytes_label,
    chart_context,
    context_value,
    display,
    is_missing,
    workload_labels,
)

MODES = {"runs": "Two runs", "testbeds": "Two testbeds", "profiles": "Two profiles"}
# URL parameter -> widget key.
PARAMS = {
    "compare": "compare_mode",
    "testbed": "compare_testbed",
    "a": "compare_a",
    "b": "compare_b",
    "measure": "compare_y",
}
# The labels shown side by side for two runs (measures follow), and the measures.
LABELS = [
    "testbed", "profile", "transport", "vsan_version", "working_set", "nodes", "vm_count",
    "read_pct", "random_pct", "block_size_bytes", "outstanding_io", "architecture", "ftm",
    "ftt", "is_checksum", "is_dedupe", "is_compression", "stripe_width", "disk_groups",
    "storage", "source_tool", "started_at",
]  # fmt: skip
MEASURES = [
    "iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms", "p99_latency_ms",
    "cpu_util_pct",
]  # fmt: skip
# Shown side by side, but facts of a run rather than labels that could explain a difference.
RUN_FACTS = ("source_tool", "started_at")
Y_CHOICES = ["iops", "throughput_mb_s", "avg_latency_ms", "p95_latency_ms"]
# The columns of a config_deltas row the page shows: what changed, deltas, significance.
DELTA_KEYS = ("dimension", "from_value", "to_value", "differences", "working_set")
# A config_deltas `differences` label as a reader names it (others: underscores as spaces).
DIFFERENCE_NAMES = {
    "outstanding_io": "OIO",
    "outstanding_io_per_vm": "OIO per VM",
    "vms_per_host": "VMs per host",
    "block_size_bytes": "block size",
    "read_pct": "read %",
    "random_pct": "random %",
    "working_set_gb": "working set (GB)",
    "working_set_pct": "working set (%)",
    "osr_pct": "object space reservation (%)",
    "vsan_version": "vSAN version",
    "ftm": "FTM",
    "ftt": "FTT",
}
# Shown on the points of a group comparison.
HOVER = ["testbed", "profile", "working_set", "vm_count", "outstanding_io", "transport"]


def pair(results: pl.DataFrame, a: str, b: str, states: pl.DataFrame) -> pl.DataFrame:
    """Results `a` and `b` (in that order) with their steady-state means and intervals
    (fct_result_steady_state rows, `states`)."""
    rows = pl.concat([results.filter(pl.col("result_id") == rid) for rid in (a, b)])
    if states.is_empty():
        return rows
    ci = [
        c for c in states.columns
        if c.endswith(("_mean", "_ci95_low", "_ci95_high")) or c in ("ci_method", "is_steady_state")
    ]  # fmt: skip
    return rows.join(states.select("result_id", *ci), on="result_id", how="left")


def spread_text(row: Mapping[str, Any], measure: str) -> str:
    low, high = row.get(f"{measure}_ci95_low"), row.get(f"{measure}_ci95_high")
    if low is None or high is None:
        return "no spread information"
    return f"{low:,.3f} to {high:,.3f}"


def shown(column: str, value: object) -> str:
    if column == "block_size_bytes" and value is not None:
        return bytes_label(int(value))  # type: ignore[call-overload]
    return display(value)


def side_by_side(pair: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Labels then measures (with the 95 % interval of each), one column per result."""
    a, b = pair.row(0, named=True), pair.row(1, named=True)
    fields = [c for c in LABELS + MEASURES if c in pair.columns]
    out = {
        "field": [axis_title(c) if c in MEASURES else c for c in fields],
        names[0]: [shown(c, a[c]) for c in fields],
        names[1]: [shown(c, b[c]) for c in fields],
        "differs": ["yes" if a[c] != b[c] else "" for c in fields],
    }
    ci = [m for m in MEASURES if f"{m}_ci95_low" in pair.columns]
    out["field"] += [f"{axis_title(m)}, 95 % CI" for m in ci]
    out[names[0]] += [spread_text(a, m) for m in ci]
    out[names[1]] += [spread_text(b, m) for m in ci]
    out["differs"] += [""] * len(ci)
    return pl.DataFrame(out)


def unpaired_text(pair: pl.DataFrame) -> str:
    """Why two runs get no delta: the labels they differ in (run facts aside)."""
    differing = [
        c for c in LABELS
        if c in pair.columns and c not in RUN_FACTS and pair[c].n_unique() > 1
    ]  # fmt: skip
    return (
        "These runs are not a one-label pair in `config_deltas` (they differ in: "
        + (", ".join(differing) or "free-form labels only")
        + "), so no change is attributed to one label and no significance is computed: "
        "the values stand side by side."
    )


def delta_columns(deltas: pl.DataFrame) -> list[str]:
    """What a delta row says: its keys, the deltas, their intervals and significance."""
    wanted = [c for c in DELTA_KEYS if c in deltas.columns]
    return wanted + [
        c for c in deltas.columns
        if c not in wanted and ("delta" in c or "ci95" in c or "signific" in c or c == "verdict")
        and not c.endswith("_id")
    ]  # fmt: skip


def group_values(results: pl.DataFrame, column: str) -> list[str]:
    return sorted(results[column].drop_nulls().cast(pl.String).unique().to_list())


def on_shared_workloads(results: pl.DataFrame, column: str, a: str, b: str) -> pl.DataFrame:
    """Every result of `column` = `a` or `b` on the workloads both ran, with its `workload`
    (outstanding I/O and working set left out: those may differ between the sides)."""
    rows = results.filter(pl.col(column).cast(pl.String).is_in([a, b]))
    rows = rows.with_columns(
        workload=pl.Series(
            workload_labels(rows, without=("outstanding_io", "working_set")), dtype=pl.String
        )
    )
    both = rows.group_by("workload").agg(pl.col(column).n_unique().alias("sides"))
    shared = both.filter(pl.col("sides") == 2)["workload"]
    return rows.filter(pl.col("workload").is_in(shared.implode()))


def profile_pairs(deltas: pl.DataFrame, testbed: str | None, a: str, b: str) -> pl.DataFrame:
    """The config_deltas rows of `testbed` whose two results differ only in profile a/b."""
    if deltas.is_empty():
        return deltas
    return deltas.filter(
        (pl.col("dimension") == "profile")
        & (pl.col("testbed") == testbed)
        & pl.col("from_value").is_in([a, b])
        & pl.col("to_value").is_in([a, b])
    )


def group_table(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.select("result_id", "workload", *LABELS[:8], *MEASURES)


def _difference_value(label: str, value: object) -> str:
    if is_missing(value):
        return MISSING
    if label == "block_size_bytes" and str(value).isdigit():
        return bytes_label(int(str(value)))
    return str(value)


def differences_text(differences: list[dict] | None) -> str:
    """A config_deltas `differences` list as text: `profile: raid1 → raid5; OIO: 16 → 32`
    (the mart's order; MISSING for an unknown side)."""
    return "; ".join(
        f"{DIFFERENCE_NAMES.get(d['label'], str(d['label']).replace('_', ' '))}: "
        f"{_difference_value(d['label'], d.get('from_value'))} → "
        f"{_difference_value(d['label'], d.get('to_value'))}"
        for d in differences or ()
    )


def readable_differences(deltas: pl.DataFrame) -> pl.DataFrame:
    """config_deltas rows with `differences` as text (differences_text), not nested values."""
    if "differences" not in deltas.columns:
        return deltas
    texts = [differences_text(d) for d in deltas["differences"].to_list()]
    return deltas.with_columns(differences=pl.Series(texts, dtype=pl.String))


def pair_names(pair: pl.DataFrame) -> list[str]:
    """The legend names of runs A and B: what differs between them among the chart context
    keys (`A: baseline profile · OIO 16`), else their start times; the rest is the subtitle."""
    varying = chart_context(pair).varying
    names = []
    for side, row in zip("AB", pair.iter_rows(named=True), strict=True):
        parts = [context_value(k, row[k]) for k in varying]
        if not parts:
            parts = [f"started {display(row.get('started_at'))[:16]}"]
        names.append(f"{side}: " + " · ".join(parts))
    return names
