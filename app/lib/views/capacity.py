"""The Capacity page's headline figures of one capacity observation (latest_dedupe_ratios):
ratios, the policy's multiplier and the space saved. TB = 10^12 bytes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from app.lib.charts.common import fmt
from app.lib.charts.studies import TB


def heading(row: Mapping[str, Any]) -> str:
    """`**testbed** · profile · working set · captured <time> UTC`."""
    context = " · ".join(str(row[c]) for c in ("profile", "working_set") if row.get(c))
    return (
        f"**{row['testbed']}**"
        + (f" · {context}" if context else "")
        + f" · captured {str(row['captured_at'])[:16]} UTC"
    )


def headline(row: Mapping[str, Any]) -> list[tuple[str, str, str | None]]:
    """The four headline metrics: (label, value, help)."""
    policy = f"{row['ftm']} FTT={row['ftt']}" if row.get("ftm") else "no policy label"
    logical, physical = row["logical_used_bytes"], row["physical_used_bytes"]
    saved = None if logical is None or physical is None else (logical - physical) / TB
    sizes = (
        f"logical {fmt(logical and logical / TB, ',.2f', ' TB')}, "
        f"physical {fmt(physical and physical / TB, ',.2f', ' TB')} (TB = 10^12 bytes)"
    )
    return [
        ("Dedupe & compression", fmt(row["dedupe_compression_ratio"], ".2f", "x"), None),
        ("Capacity multiplier", fmt(row["capacity_multiplier"], ".2f", "x"), policy),
        ("Usable to raw", fmt(row["usable_to_raw_ratio"], ".2f", "x"), None),
        ("Saved", fmt(saved, ",.2f", " TB"), sizes),
    ]


def undated(ratios: pl.DataFrame) -> int:
    """Observations without a capture time: never a headline (nothing says when)."""
    return ratios.filter(pl.col("captured_at").is_null()).height
