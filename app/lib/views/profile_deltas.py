"""The Profiles & configs page's rows: profile latency deltas per read mix, and one bar per
config_deltas pair, named by what differs between the bars (the rest goes in the subtitle) so
that no two bars stack into one."""

from __future__ import annotations

import json

import polars as pl

from app.lib.charts.common import ChartContext, chart_context, context_value, is_missing

METRICS = {
    "latency_vs_baseline_pct": "Latency vs baseline",
    "iops_vs_baseline_pct": "IOPS vs baseline",
    "latency_vs_previous_pct": "Latency vs previous profile (step)",
    "iops_vs_previous_pct": "IOPS vs previous profile (step)",
}
# URL parameter -> widget key: every selector of the page.
PARAMS = {
    "testbed": "deltas_testbed",
    "delta": "deltas_metric",
    "bs": "deltas_block_size",
    "dim": "configs_dimension",
    "metric": "configs_metric",
    "color": "configs_color_by",
}
# One heatmap cell: a working set, profile and read mix.
CELL = ("working_set", "profile", "read_pct")
# What a pair's bar can be coloured by.
CONTEXTS = ("working_set", "read_pct", "testbed")
# A config_deltas row's context as the chart context keys name it (the from side; a VM or node
# count that changes within the pair is its own dimension, or printed "from → to").
PAIR_CONTEXT = {
    "testbed": "testbed",
    "block_size_bytes": "block_size_bytes",
    "read_pct": "read_pct",
    "random_pct": "random_pct",
    "outstanding_io": "outstanding_io",
    "from_vm_count": "vm_count",
    "from_nodes": "nodes",
    "working_set": "working_set",
}
# Labels config_deltas holds equal within a pair that are chart context keys, and the mart's
# column of each (`held_<label>`; older warehouses have only `held_equal_labels`, JSON text).
HELD_CONTEXT = ("profile", "transport", "vsan_version")
# Held-equal labels another context key already says (the from-side columns above).
HELD_COVERED = frozenset(
    {"block_size_bytes", "read_pct", "random_pct", "working_set", "nodes", "outstanding_io",
     "vms_per_host", "outstanding_io_per_vm", "testbed"}
)  # fmt: skip
# A working set's size: named by the working set (cache / capacity) when the bars name it.
WORKING_SET_SIZES = frozenset({"working_set_gb", "working_set_pct"})
# What a storage profile sets: named by the profile when the bars' profiles differ.
PROFILE_SETTINGS = frozenset(
    {"checksum", "compression", "dedupe", "ftm", "ftt", "osr_pct", "stripe_width"}
)
# A dimension whose from/to values are a context key: the pair's label already says it.
DIMENSION_KEYS = {
    "vms_per_host": ("vm_count",),
    "nodes": ("nodes", "vm_count"),
    "working_set": ("working_set",),
}


def testbeds(deltas: pl.DataFrame, configs: pl.DataFrame) -> list[str]:
    """The testbeds either section has rows of, sorted."""
    found = {t for df in (deltas, configs) if "testbed" in df.columns for t in df["testbed"]}
    return sorted(t for t in found if t is not None)


def opening_testbed(deltas: pl.DataFrame, offered: list[str]) -> int:
    """The index (in `offered`) of the testbed the page opens on: the one whose heatmap has
    the most read mixes (columns), then the most profiles (rows); a testbed with one read mix
    draws a single column, which compares nothing across mixes."""
    if deltas.is_empty() or not offered:
        return 0
    counts = deltas.group_by("testbed").agg(
        mixes=pl.col("read_pct").n_unique(), profiles=pl.col("profile").n_unique()
    )
    best = counts.filter(pl.col("testbed").is_in(offered)).sort(
        ["mixes", "profiles", "testbed"], descending=[True, True, False]
    )
    return offered.index(best["testbed"][0]) if best.height else 0


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


def held_labels(part: pl.DataFrame) -> list[dict[str, str]]:
    """Each row's labels held equal within its pair (`held_equal_labels`, JSON text)."""
    if "held_equal_labels" not in part.columns:
        return [{} for _ in range(part.height)]
    return [json.loads(h) if h else {} for h in part["held_equal_labels"].to_list()]


def _context_frame(part: pl.DataFrame) -> pl.DataFrame:
    """The rows' context under the chart context keys: the from-side columns, and the
    HELD_CONTEXT labels the pairs hold equal (NULL where a pair does not hold one)."""
    present = {c: k for c, k in PAIR_CONTEXT.items() if c in part.columns}
    frame = part.select(pl.col(c).alias(k) for c, k in present.items())
    if all(f"held_{k}" in part.columns for k in HELD_CONTEXT):
        return frame.with_columns(part[f"held_{k}"].cast(pl.String).alias(k) for k in HELD_CONTEXT)
    held = held_labels(part)
    return frame.with_columns(
        pl.Series(k, [h.get(k) for h in held], dtype=pl.String) for k in HELD_CONTEXT
    )


def pair_context(part: pl.DataFrame) -> ChartContext:
    """What the config_deltas rows share (the subtitle) and what differs among them (the bar
    labels and the colour)."""
    return chart_context(_context_frame(part))


def _other_varying(held: list[dict[str, str]], named: set[str]) -> list[str]:
    """Labels every pair holds equal, outside the context keys, whose values differ between
    the pairs (e.g. disk groups): a bar's label must name them too, or two bars read alike.
    A profile's settings (a working set's size) are left to its name when the labels or the
    colours already name it (`named`)."""
    if not held:
        return []
    keys = set.intersection(*(set(h) for h in held)) - HELD_COVERED - set(HELD_CONTEXT)
    if "profile" in named:
        keys -= PROFILE_SETTINGS
    if "working_set" in named:
        keys -= WORKING_SET_SIZES
    return sorted(k for k in keys if len({h[k] for h in held}) > 1)


def _counted(row: dict, key: str) -> str:
    """A VM or node count of a pair: `16 VMs`, or `16 → 32 VMs` when the pair changes it."""
    before, after = row.get(f"from_{key}"), row.get(f"to_{key}")
    if is_missing(after) or before == after:
        return context_value(key, before)
    return f"{before} → {context_value(key, after)}"


def named_pairs(part: pl.DataFrame, *, color_by: str | None = None) -> pl.DataFrame:
    """A `pair` label per config_deltas row: the change (`raid1 → raid5`), then only the
    context keys whose values differ between the rows (the colour's key aside: the legend
    says it), each as a subtitle prints it (`70% read`, `OIO 16`, `1 VM`), then other
    held-equal labels that differ (`stripe width 2`). Two rows with the same label and
    colour are numbered (#1, #2): a chart never adds them into one bar."""
    # Bars in the order of what varies (read mix 0, 30, ... as numbers), then the change.
    order = [c for c in (*PAIR_CONTEXT, "from_value", "to_value") if c in part.columns]
    part = part.sort(order, nulls_last=True)
    frame = _context_frame(part)
    held = held_labels(part)
    dimension = part["dimension"][0] if "dimension" in part.columns and part.height else ""
    skip = {color_by, dimension, *DIMENSION_KEYS.get(dimension, ())}
    varying = chart_context(frame).varying
    keys = [k for k in varying if k not in skip]
    named = {*varying, dimension}
    others = [k for k in _other_varying(held, named) if k != dimension]
    names = []
    for r, c, h in zip(part.iter_rows(named=True), frame.iter_rows(named=True), held, strict=True):
        parts = [f"{r['from_value']} → {r['to_value']}"]
        for key in keys:
            counted = key in ("vm_count", "nodes")
            parts.append(_counted(r, key) if counted else context_value(key, c[key]))
        parts += [f"{k.replace('_', ' ')} {h[k]}" for k in others]
        names.append(" · ".join(parts))
    part = part.with_columns(pair=pl.Series(names, dtype=pl.String))
    # Bars of one label differ in their colour (grouped side by side); the same label and
    # colour twice is numbered.
    same = ["pair", color_by] if color_by in part.columns else ["pair"]
    n = pl.int_range(pl.len()).over(same) + 1
    return part.with_columns(
        pair=pl.when(pl.len().over(same) > 1)
        .then(pl.format("{} #{}", pl.col("pair"), n))
        .otherwise(pl.col("pair"))
    )


def pair_subtitle(part: pl.DataFrame, *, color_by: str | None = None) -> str:
    """The subtitle of the one-label comparison: what every pair shares, and what varies."""
    return pair_context(part).subtitle(skip=[color_by] if color_by else ())
