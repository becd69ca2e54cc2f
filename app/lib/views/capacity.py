"""The Capacity page's rows: the headline figures of one capacity observation
(latest_dedupe_ratios: ratios, the policy's multiplier, the space saved), the observations
the chart draws (and why the others are not drawn), and the published capacity figures.
Every capacity is shown in TB (10^12 bytes) and TiB (2^40 bytes), read from the marts'
columns of each unit (dedupe_ratios *_tb / *_tib, published_vs_measured)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib.charts.common import MISSING, chart_context, fmt, plural
from app.lib.queries import UNLABELLED

UNITS = "TB = 10^12 bytes, TiB = 2^40 bytes"
PUBLISHED_METRICS = (
    "dedupe_compression_ratio",
    "capacity_multiplier",
    "usable_to_raw_ratio",
    "capacity_used_before_tb",
    "capacity_used_after_tb",
    "capacity_primary_tb",
    "capacity_redundancy_tb",
    "capacity_overhead_pct",
)
# The published capacity table: the figure as printed, what its unit really is, the
# published and measured values in both units, the status; then where it comes from.
PUBLISHED_COLUMNS = [
    "figure_id", "metric", "value_as_printed", "unit", "unit_meaning", "published_tb",
    "published_tib", "measured_tb", "measured_tib", "published_value", "measured_value",
    "status", "source_document", "table_or_figure", "testbed",
]  # fmt: skip


def heading(row: Mapping[str, Any]) -> str:
    """`**testbed** · profile · working set · captured <time> UTC`."""
    context = " · ".join(str(row[c]) for c in ("profile", "working_set") if row.get(c))
    return (
        f"**{row['testbed']}**"
        + (f" · {context}" if context else "")
        + f" · captured {str(row['captured_at'])[:16]} UTC"
    )


def both_units(tb: object, tib: object, *, units: bool = True) -> str:
    """`27.60 TB = 25.10 TiB` (`units=False`: `27.60 / 25.10`, under a label naming them);
    MISSING when the bytes are unknown."""
    if fmt(tb) == MISSING:
        return MISSING
    if not units:
        return f"{fmt(tb)} / {fmt(tib)}"
    return f"{fmt(tb, ',.2f', ' TB')} = {fmt(tib, ',.2f', ' TiB')}"


def headline(row: Mapping[str, Any]) -> list[tuple[str, str, str | None]]:
    """The four headline metrics: (label, value, help); capacities in TB and TiB."""
    policy = f"{row['ftm']} FTT={row['ftt']}" if row.get("ftm") else "no policy label"
    sizes = (
        f"logical {both_units(row['logical_used_tb'], row['logical_used_tib'])}, "
        f"physical {both_units(row['physical_used_tb'], row['physical_used_tib'])} ({UNITS})"
    )
    return [
        ("Dedupe & compression", fmt(row["dedupe_compression_ratio"], ".2f", "x"), None),
        ("Capacity multiplier", fmt(row["capacity_multiplier"], ".2f", "x"), policy),
        ("Usable to raw", fmt(row["usable_to_raw_ratio"], ".2f", "x"), None),
        ("Saved, TB / TiB", both_units(row["saved_tb"], row["saved_tib"], units=False), sizes),
    ]


def undated(ratios: pl.DataFrame) -> int:
    """Observations without a capture time: never a headline (nothing says when)."""
    return ratios.filter(pl.col("captured_at").is_null()).height


def drawn(ratios: pl.DataFrame) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """The observations the capacity chart draws (a testbed label and both used sizes), and
    a note per reason the others are not drawn: an observation without a testbed label says
    nothing of which cluster it is (the pyvmomi samples), and without the used bytes there is
    no bar to draw."""
    # the query layer names a missing testbed UNLABELLED; rows built elsewhere leave it NULL
    labelled = pl.col("testbed").is_not_null() & (pl.col("testbed") != UNLABELLED)
    sized = pl.col("logical_used_bytes").is_not_null() & pl.col("physical_used_bytes").is_not_null()
    unlabelled = ratios.filter(~labelled).height
    unsized = ratios.filter(labelled & ~sized).height
    notes = []
    if unlabelled:
        notes.append(f"{plural(unlabelled, 'observation')} without a testbed label not drawn")
    if unsized:
        notes.append(f"{plural(unsized, 'observation')} without used bytes not drawn")
    return ratios.filter(labelled & sized), tuple(notes)


def as_text_lists(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows with each list column (dedupe_ratios.source_file_ids, source_names, ...) as
    comma-separated text, so a table and a CSV show the files an observation came from."""
    lists = [name for name, dtype in rows.schema.items() if isinstance(dtype, pl.List)]
    return rows.with_columns(
        pl.col(name).cast(pl.List(pl.String)).list.join(", ") for name in lists
    )


def merged_captures(ratios: pl.DataFrame) -> int:
    """Observations loaded from more than one file (one capture as JSON and as XML)."""
    if "source_file_count" not in ratios.columns:
        return 0
    return ratios.filter(pl.col("source_file_count") > 1).height


def published_capacity(rows: pl.DataFrame) -> pl.DataFrame:
    """The capacity figures of published_vs_measured, as PUBLISHED_COLUMNS."""
    if rows.is_empty():
        return rows
    rows = rows.filter(pl.col("metric").is_in(PUBLISHED_METRICS))
    return rows.select([c for c in PUBLISHED_COLUMNS if c in rows.columns])


def object_types_subtitle(objects: pl.DataFrame) -> str:
    """The object-type chart's subtitle: what its observations share, what varies, the unit."""
    context = chart_context(objects, keys=("testbed", "nodes", "profile", "working_set"))
    return context.subtitle(extra=["TB = 10^12 bytes"])
