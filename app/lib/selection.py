"""Selector helpers shared by the RA, transport, scaling and studies pages (no Streamlit).

A chart never merges rows, so whatever varies and is not on an axis must be chosen: these
helpers list a frame's choices in the marts' own order.
"""

from __future__ import annotations

import json

import polars as pl


def options(df: pl.DataFrame, column: str) -> list:
    """The distinct non-null values of `column` in the order the rows give them."""
    if df.is_empty() or column not in df.columns:
        return []
    return df[column].drop_nulls().unique(maintain_order=True).to_list()


def held_equal_label(held_equal_json: str | None, keys: tuple[str, ...]) -> str:
    """`read_pct=70, block_size_bytes=131072` from a sweep's held-equal JSON, for `keys`."""
    if not held_equal_json:
        return ""
    held = json.loads(held_equal_json)
    return ", ".join(f"{k}={held[k]}" for k in keys if k in held)


def flat(df: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (config_deltas.differences: a list of structs) as JSON text, so a table
    shows them and a CSV export can hold them."""
    nested = [c for c, t in df.schema.items() if isinstance(t, (pl.List, pl.Struct, pl.Array))]
    return df.with_columns(
        pl.Series(c, [json.dumps(v, default=str) for v in df[c].to_list()], dtype=pl.String)
        for c in nested
    )
