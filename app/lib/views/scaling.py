"""The Scaling page's rows: sweep points named by what tells their sweeps apart (the legend)
with what they share (the subtitle), and the per-node IOPS bars and table.

A sweep is one line: its points share every held-equal label (sweeps.held_equal_json), and two
sweeps of one testbed and axis differ in at least one of them (sweep_id is their hash), so a
legend built from the labels that differ never names two sweeps alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

from app.lib.charts.common import (
    CONTEXT_KEYS,
    CONTEXT_NAMES,
    MISSING,
    axis_title,
    chart_context,
    context_value,
    is_missing,
    plural,
)

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
# URL query parameter -> widget key of the page's selectors.
PARAMS = {
    "testbed": "scaling_testbed",
    "axis": "scaling_axis",
    "measure": "scaling_measure",
    "sweeps": "scaling_sweeps",
    "nodes_testbed": "scaling_nodes_testbed",
}
# Held-equal labels that name a value (the first `;` part names it: "performance; checksum=
# true; ..." is the performance profile); a number label is printed with its unit.
NAMED_LABELS = ("profile", "working_set", "storage", "transport", "architecture")
NUMBER_UNITS = {
    "vms_per_host": ("VM", " per host"),
    "outstanding_io_per_vm": ("", "OIO {} per VM"),
    "disk_groups": ("disk group", ""),
}
# The per-node table's columns, rounded for reading (the CSV keeps the mart's values).
TABLE_COLUMNS = [
    "result_id", "testbed", "nodes", "profile", "working_set", "read_pct", "block_size_bytes",
    "random_pct", "outstanding_io", "vm_count", "iops", "iops_per_node", "host_count",
    "host_iops_min", "host_iops_max", "host_imbalance_pct", "host_iops_source",
]  # fmt: skip
# Per-node bar labels: what tells results apart, in this order (nodes is the x axis).
PER_NODE_KEYS = (
    "profile", "working_set", "read_pct", "block_size_bytes", "random_pct", "outstanding_io",
    "vm_count", "disk_groups", "storage", "transport", "vsan_version",
)  # fmt: skip


def axes(axes_present: list[str]) -> list[str]:
    """The sweep axes of a testbed, in AXES order (axes the page does not name are left out)."""
    return [a for a in AXES if a in axes_present]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def label_value(key: str, text: str | None, *, short: bool = False) -> str:
    """One held-equal label as a legend or subtitle prints it: `performance` (`performance
    profile` unless `short`), `4K`, `70% read`, `5 VMs per host`, `2 disk groups`."""
    if text is None:
        return f"{CONTEXT_NAMES.get(key, key.replace('_', ' '))} {MISSING}"
    if key == "testbed":
        return text if short else context_value(key, text)
    if key in NAMED_LABELS:
        name = text.split(";")[0].strip() or text
        if short or key not in CONTEXT_NAMES:
            return name if short else f"{key.replace('_', ' ')} {name}"
        return context_value(key, name)
    number = _number(text)
    if number is not None and key in ("block_size_bytes", "read_pct", "random_pct", "nodes"):
        return context_value(key, int(number) if key != "read_pct" else number)
    if number is not None and key in NUMBER_UNITS:
        noun, pattern = NUMBER_UNITS[key]
        return plural(number, noun) + pattern if noun else pattern.format(f"{number:g}")
    if key == "vsan_version":
        return context_value(key, text)
    return f"{key.replace('_', ' ')} {text}"


def _sort_key(text: str | None) -> tuple:
    """Numbers as numbers (0, 70, 100, never 0, 100, 70), then text, missing last."""
    number = _number(text) if text is not None else None
    return (text is None, number is None, number or 0.0, text or "")


@dataclass(frozen=True, slots=True)
class SweepLegend:
    """Sweep points with `series` (the legend entry of their sweep), sorted by it; the
    legend's title (the labels that vary) and the chart's subtitle (what every sweep shares)."""

    points: pl.DataFrame
    title: str
    subtitle: str


def _held(points: pl.DataFrame) -> dict[str, dict[str, str]]:
    """Each sweep's held-equal labels, its testbed among them (a frame may hold several)."""
    columns = [c for c in ("sweep_id", "testbed", "held_equal_json") if c in points.columns]
    held: dict[str, dict[str, str]] = {}
    for row in points.select(columns).unique(maintain_order=True).iter_rows(named=True):
        labels = json.loads(row.get("held_equal_json") or "{}")
        if row.get("testbed") is not None:
            labels["testbed"] = row["testbed"]
        held[row["sweep_id"]] = {k: None if v is None else str(v) for k, v in labels.items()}
    return held


def sweep_legend(points: pl.DataFrame, axis: str = "") -> SweepLegend:
    """Name each sweep by the held-equal labels that differ among the sweeps shown (short
    values: `performance · cache`), print the shared ones once in the subtitle, and sort the
    sweeps by their labels (numbers as numbers). A sweep whose labels are all shared (one
    sweep) is named `sweep`; two sweeps alike in every label (held_equal_json missing) keep
    apart by their sweep id."""
    if points.is_empty():
        return SweepLegend(points.with_columns(series=pl.lit(None, pl.String)), "", "")
    held = _held(points)
    # in the subtitles' order (testbed, block size, read mix, ...), then by name
    order_of = {k: i for i, k in enumerate(CONTEXT_KEYS)}
    found = {k for labels in held.values() for k in labels} - {axis}
    keys = sorted(found, key=lambda k: (order_of.get(k, len(order_of)), k))
    differ = [k for k in keys if len({labels.get(k) for labels in held.values()}) > 1]
    shared = [k for k in keys if k not in differ]
    order = sorted(held, key=lambda s: [_sort_key(held[s].get(k)) for k in differ] + [s])
    names = {
        s: " · ".join(label_value(k, held[s].get(k), short=True) for k in differ) for s in order
    }
    taken: dict[str, int] = {}
    for name in names.values():
        taken[name] = taken.get(name, 0) + 1
    names = {
        s: (n or "sweep") if taken[n] == 1 else f"{n or 'sweep'} #{s[:6]}" for s, n in names.items()
    }
    rank = {s: i for i, s in enumerate(order)}
    named = (
        points.with_columns(
            series=pl.col("sweep_id").replace_strict(names, return_dtype=pl.String),
            _rank=pl.col("sweep_id").replace_strict(rank, return_dtype=pl.Int64),
        )
        .sort("_rank", "axis_value")
        .drop("_rank")
    )
    first = next(iter(held.values()))
    subtitle = " · ".join(label_value(k, first.get(k)) for k in shared)
    title = " · ".join(CONTEXT_NAMES.get(k, k.replace("_", " ")) for k in differ)
    return SweepLegend(named, title, subtitle)


def sweep_options(named: pl.DataFrame) -> list[str]:
    """The sweeps a reader can pick, in legend order."""
    return named["series"].unique(maintain_order=True).to_list() if named.height else []


def sweep_title(testbed: str, y: str, axis: str) -> str:
    return f"{testbed}: {axis_title(y).split(' (')[0]} by {AXES[axis].lower()}"


def table(points: pl.DataFrame) -> pl.DataFrame:
    """The sweep points as listed (the held-equal JSON is in each point's series name)."""
    return points.drop("held_equal_json", strict=False)


# --- Per-node IOPS ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PerNode:
    """One testbed's results with `series` (what varies among them besides nodes), sorted
    by nodes and series; the legend title and the subtitle (what every result shares)."""

    rows: pl.DataFrame
    title: str
    subtitle: str


def per_node(results: pl.DataFrame, testbed: str | None) -> PerNode:
    """The per-node bars of one testbed (scaling_points rows with IOPS per node)."""
    if results.is_empty() or testbed is None:
        return PerNode(results.clear().with_columns(series=pl.lit(None, pl.String)), "", "")
    rows = results.filter((pl.col("testbed") == testbed) & pl.col("iops_per_node").is_not_null())
    keys = [k for k in PER_NODE_KEYS if k in rows.columns]
    context = chart_context(rows, ("testbed", *keys))
    # What tells bars at one node count apart names them; a key that changes only with the
    # node count (VMs, outstanding I/O of a host-count sweep) is said once in the subtitle.
    at_one_count = rows.group_by("nodes").agg(pl.col(k).n_unique() for k in context.varying)
    varying = [k for k in context.varying if at_one_count[k].max() > 1]
    with_nodes = [k for k in context.varying if k not in varying]
    labels = [
        " · ".join(_short(k, r.get(k)) for k in varying) or "result"
        for r in rows.iter_rows(named=True)
    ]
    rows = rows.with_columns(series=pl.Series(labels, dtype=pl.String))
    # two results alike in every key at one node count stay two bars: the result id tells
    rows = rows.with_columns(
        series=pl.when(pl.struct("series", "nodes").is_duplicated())
        .then(pl.format("{} #{}", "series", pl.col("result_id").str.slice(0, 6)))
        .otherwise("series")
    )
    rows = rows.sort([*varying, "nodes", "result_id"], nulls_last=True)
    title = " · ".join(_name(k) for k in varying)
    said = [_long(k, v) for k, v in context.fixed.items() if k != "nodes" and not is_missing(v)]
    if with_nodes:
        said.append(", ".join(_name(k) for k in with_nodes) + " change with nodes")
    if varying:
        said.append("varies: " + ", ".join(_name(k) for k in varying))
    return PerNode(rows, title, " · ".join(said))


def _long(key: str, value: object) -> str:
    """A key every bar shares, as the subtitle says it."""
    if key == "disk_groups":
        return plural(value, "disk group")
    return f"storage {value}" if key == "storage" else context_value(key, value)


def _short(key: str, value: object) -> str:
    """A key's value as a bar's legend entry names it: `baseline`, `70% read`, `2 disk groups`."""
    if is_missing(value):
        return f"{_name(key)} {MISSING}"
    if key in ("profile", "working_set", "transport", "storage"):
        return str(value)
    return plural(value, "disk group") if key == "disk_groups" else context_value(key, value)


def _name(key: str) -> str:
    return CONTEXT_NAMES.get(key, key.replace("_", " "))


def per_node_testbeds(results: pl.DataFrame) -> list[str]:
    """Testbeds with IOPS per node, those with more than one node count first."""
    if results.is_empty():
        return []
    known = results.filter(pl.col("iops_per_node").is_not_null())
    counts = known.group_by("testbed").agg(pl.col("nodes").n_unique().alias("n"))
    return [t for t, _ in sorted(counts.iter_rows(), key=lambda r: (-r[1], r[0]))]


def per_node_table(rows: pl.DataFrame) -> pl.DataFrame:
    """The per-node rows as a reader reads them: IOPS whole, the imbalance to one decimal."""
    shown = rows.select([c for c in TABLE_COLUMNS if c in rows.columns])
    whole = [
        c for c in ("iops", "iops_per_node", "host_iops_min", "host_iops_max") if c in shown.columns
    ]
    return shown.with_columns(
        *(pl.col(c).round(0) for c in whole),
        *(pl.col(c).round(1) for c in ("host_imbalance_pct",) if c in shown.columns),
    )
