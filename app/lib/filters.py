"""The sidebar filters every page shares, and the SQL that applies them to a mart.

An empty selection means "no filter". A mart that lacks a filter's column (published figures
carry no transport for most documents, `dedupe_ratios` has no profile) is not filtered on it,
and a row whose label is empty (NULL: the run did not say) is kept, so filtering never hides
data only because a label is missing. The testbed is the exception: a chosen testbed shows
that testbed only.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, fields


@dataclass(frozen=True, slots=True)
class Filters:
    testbed: tuple[str, ...] = ()
    profile: tuple[str, ...] = ()
    transport: tuple[str, ...] = ()
    working_set: tuple[str, ...] = ()
    vsan_version: tuple[str, ...] = ()

    def chosen(self) -> dict[str, list[str]]:
        """The filters with a selection: column -> chosen values."""
        return {f.name: list(getattr(self, f.name)) for f in fields(self) if getattr(self, f.name)}

    def testbed_only(self) -> Filters:
        """The same testbed selection, no other filter (marts compared across labels)."""
        return Filters(testbed=self.testbed)


FILTER_LABELS = {
    "testbed": "Testbed",
    "profile": "Profile",
    "transport": "Transport",
    "working_set": "Working set",
    "vsan_version": "vSAN version",
}


@dataclass(frozen=True, slots=True)
class Where:
    """A SQL condition on a mart's rows and its named parameters (`$testbed`, ...)."""

    sql: str
    params: dict[str, list[str]]


def where(filters: Filters, columns: Collection[str]) -> Where:
    """The condition applying `filters` to a mart with `columns` (`true` when none applies).

    Column names come from the fixed Filters fields, values are bound as parameters.
    """
    terms: list[str] = []
    params: dict[str, list[str]] = {}
    for name, values in filters.chosen().items():
        if name not in columns:
            continue
        keep_null = "" if name == "testbed" else name + " is null or "
        terms.append("(" + keep_null + "list_contains($" + name + ", " + name + "))")
        params[name] = values
    return Where(" and ".join(terms) or "true", params)
