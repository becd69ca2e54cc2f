"""The sidebar filters every page shares, and how they apply to a mart's rows.

An empty selection means "no filter". A mart that lacks a filter's column (published figures
carry no transport for most documents, `dedupe_ratios` has no profile) is not filtered on it,
and a row whose label is empty (NULL: the run did not say) is kept, so filtering never hides
data only because a label is missing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd


@dataclass(frozen=True, slots=True)
class Filters:
    testbed: tuple[str, ...] = ()
    profile: tuple[str, ...] = ()
    transport: tuple[str, ...] = ()
    working_set: tuple[str, ...] = ()
    vsan_version: tuple[str, ...] = ()

    def as_params(self) -> dict[str, list[str]]:
        """Named parameters for the `$testbed`... placeholders in queries.py."""
        return {f.name: list(getattr(self, f.name)) for f in fields(self)}


FILTER_LABELS = {
    "testbed": "Testbed",
    "profile": "Profile",
    "transport": "Transport",
    "working_set": "Working set",
    "vsan_version": "vSAN version",
}


def apply(df: pd.DataFrame, filters: Filters, *, keep_null: bool = True) -> pd.DataFrame:
    """Rows of `df` that pass every filter whose column `df` has."""
    mask = pd.Series(True, index=df.index)
    for f in fields(filters):
        chosen = getattr(filters, f.name)
        if not chosen or f.name not in df.columns:
            continue
        values = df[f.name].astype("string")
        hit = values.isin(chosen)
        if keep_null:
            hit = hit | values.isna()
        mask &= hit.fillna(False).astype(bool)
    return df[mask]
