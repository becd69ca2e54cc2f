"""What a selector offers and holds: the choices of a frame and the value a page opens on
(no Streamlit; the URL side of a selector is app/lib/url_state.py).

A chart never merges rows, so whatever varies and is not on an axis must be chosen: these
helpers list a frame's choices in the marts' own order, pick a meaningful first value, and
say which result a followed link keeps in the run explorer's selector.
"""

from __future__ import annotations

import json

import polars as pl


def options(df: pl.DataFrame, column: str) -> list:
    """The distinct non-null values of `column` in the order the rows give them."""
    if df.is_empty() or column not in df.columns:
        return []
    return df[column].drop_nulls().unique(maintain_order=True).to_list()


def several(df: pl.DataFrame, group: str, column: str) -> list:
    """The values of `group` (sorted) whose rows hold at least two values of `column`: what
    has something to compare (NULL is no value)."""
    if df.is_empty():
        return []
    known = df.filter(pl.col(column).is_not_null())
    counts = known.group_by(group).agg(pl.col(column).n_unique().alias("n"))
    return sorted(counts.filter(pl.col("n") > 1)[group].to_list())


def opening_testbed(own: list[str], documented: list[str], unlabelled: str) -> str | None:
    """The testbed a page opens on: the first with results and published figures of its own,
    else the first with a testbed label, else the first (None: no results)."""
    both = [t for t in own if t in documented]
    labelled = [t for t in own if t != unlabelled]
    return (both or labelled or own or [None])[0]


def printed_first(configurations: list, printed: list) -> list:
    """The configurations, those a document printed figures for first (else in order)."""
    known = set(printed)
    return sorted(configurations, key=lambda c: c not in known)


def held_link(wanted: str | None, is_new: bool, held: str | None, offered: list[str]) -> str | None:
    """The result a link names that the run explorer must offer although the sidebar filters
    hide it: a link just followed (`is_new`), or the one a followed link brought in (`held`)
    while the URL still names it. None when the filters offer it anyway, or no link holds it
    (a URL the page wrote itself is no link: a filter that hides its result moves the
    selector on)."""
    if not wanted or not (is_new or held == wanted) or wanted in offered:
        return None
    return wanted


def flat(df: pl.DataFrame) -> pl.DataFrame:
    """Nested columns (config_deltas.differences: a list of structs) as JSON text, so a table
    shows them and a CSV export can hold them."""
    nested = [c for c, t in df.schema.items() if isinstance(t, (pl.List, pl.Struct, pl.Array))]
    return df.with_columns(
        pl.Series(c, [json.dumps(v, default=str) for v in df[c].to_list()], dtype=pl.String)
        for c in nested
    )
