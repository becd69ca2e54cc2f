"""Every notice the dashboard shows beside its data, decided in one place.

Each decision is a pure function returning a `Notice` (None when there is nothing to say):
"no data for these filters", "reconstructed data", what the dashboard serves and why, the
rows the sidebar filters hid or kept, a link the page cannot follow, a failed validation.
`show` draws one; `ui.no_data`, `ui.reconstructed_note` and `ui.has_data` decide and draw in
one call for the pages (they read the queries these decisions take as input).

The notice of rows without a value for a chosen filter is gathered while the page runs: each
filtered read (`queries._rows`) adds its counts to the run's tally (`filters.tally_unlabelled`,
plain data), and `watch_unlabelled`, called above the page, shows the notice in its
placeholder as the counts come in, so it is there even when a page stops early (`st.stop`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import streamlit as st

from app.lib import filters

if TYPE_CHECKING:
    from app.lib.db import ServingStatus

PUBLISH = "`python -m ingest publish`"
ERROR, WARNING = ":material/error:", ":material/warning:"


@dataclass(frozen=True, slots=True)
class Notice:
    level: str  # "info", "warning" or "error"
    text: str
    icon: str | None = None
    # Nothing validated can be shown: the data pages stop (the Data quality page still runs).
    blocks_data: bool = False


def show(notice: Notice | None, slot: Any = None) -> None:
    """Draw `notice` (nothing for None), in `slot` (an `st.empty()`) when given."""
    if notice is None:
        return
    box = slot if slot is not None else st
    draw = {"error": box.error, "warning": box.warning, "info": box.info}[notice.level]
    draw(notice.text, icon=notice.icon)


# --- What a latency measures ---------------------------------------------------------------

# fct_workload_results.avg_latency_kind: which span an average latency measures, when it is not
# the whole I/O's (`total`, fio `lat` / Vdbench's response time).
LATENCY_KINDS = {
    "completion": "fio's completion latency (`clat`: its output carried no usable total "
    "`lat`), which leaves out submission time",
    "mixed": "a mean of total and completion latencies (some of its outputs carried no usable "
    "total `lat`)",
}


def latency_kind_notice(kinds: Iterable[str | None]) -> Notice | None:
    """Say so where an average latency drawn is not total latency; None when every one is (or
    has none). `kinds`: avg_latency_kind of the results drawn."""
    counts: dict[str, int] = {}
    for kind in kinds:
        if kind in LATENCY_KINDS:
            counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    parts = [f"{n} result{'s' if n > 1 else ''}: {LATENCY_KINDS[k]}" for k, n in counts.items()]
    text = "Not total latency: the average latency of " + "; of ".join(parts) + "."
    return Notice("info", text, icon=":material/timer:")


# --- No data, reconstructed data ------------------------------------------------------------


def no_data_notice(what: str, hint: str = "") -> Notice:
    return Notice("info", f"No {what} in the warehouse for the current filters. {hint}".strip())


def reconstructed_notice(testbeds: Iterable[str | None], known: Iterable[str]) -> Notice | None:
    """The reconstructed-data note for rows of `testbeds` (NULLs ignored), when some are among
    `known`: the testbeds whose data is rebuilt from published figures (testbed_data_origins)."""
    shown = sorted(set(known).intersection(t for t in testbeds if t is not None))
    if not shown:
        return None
    return Notice(
        "info",
        "Reconstructed data: results of "
        + ", ".join(shown)
        + " come from the reference dataset, rebuilt from published figures rather than "
        "measured on a cluster. They reproduce the documents' numbers, not per-VM detail.",
        icon=":material/info:",
    )


# --- Links the page cannot follow as they are -------------------------------------------------


def link_not_offered_notice(param: str, value: object) -> Notice | None:
    """A shared link's value that is not among the selector's options (None: nothing to say)."""
    if value is None:
        return None
    return Notice(
        "warning",
        f"The link's `{param}` = `{value}` is not in the warehouse for the current filters.",
        icon=":material/link_off:",
    )


def filter_link_notice(left_out: Iterable[str]) -> Notice | None:
    """The sidebar filter values a link named that the sidebar cannot take (url_state.FilterUrl
    says which parameter and why); None when it took them all."""
    lines = list(left_out)
    if not lines:
        return None
    return Notice(
        "warning",
        "The link's filters were not all applied; left out:\n"
        + "\n".join(f"- {line}" for line in lines),
        icon=":material/link_off:",
    )


def unknown_result_notice(result_id: str) -> Notice:
    return Notice(
        "error",
        f"No workload result `{result_id}` in the warehouse: the link may come from another "
        "warehouse or an older version of it.",
        icon=ERROR,
    )


LINKED_OUTSIDE_FILTERS = Notice(
    "info",
    "The linked result does not pass the sidebar filters; it is shown because the link names it.",
    icon=":material/link:",
)


# --- What the dashboard serves, and why (see warehouse.status) ------------------------------


def when(value: int | dt.datetime | None) -> str:
    """A file time (ns) or a timestamp as `2026-11-23 21:05:51 UTC`."""
    if value is None:
        return "an unknown time"
    if isinstance(value, int):
        value = dt.datetime.fromtimestamp(value / 1e9, dt.UTC)
    return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _failed_validation(s: ServingStatus) -> Notice:
    v = s.validation
    assert v is not None
    text = (
        f"A newer version of the warehouse failed validation ({when(v.run_at)}: "
        f"{v.constraint_failures} constraint failures), so it was not published. "
    )
    if s.snapshot is not None:
        as_of = when(s.snapshot_as_of_ns)
        text += f"The dashboard still shows the last version that passed (as of {as_of}). "
    else:
        text += "No version has passed yet, so there is nothing to show. "
    text += "The failures: the Data quality page, or `python -m expectations --failures-only`."
    if s.changed_since_validation:
        text += (
            " The warehouse has changed since that validation: "
            f"{PUBLISH} validates it again and publishes it if every constraint holds."
        )
    return Notice("error", text, icon=ERROR, blocks_data=s.snapshot is None)


def serving_notice(s: ServingStatus, has_marts: bool) -> Notice | None:
    """Why the dashboard shows less than the main file holds, and the one command that fixes
    it; None when it shows the latest version. `has_marts`: the file read has marts tables."""
    if s.failed_newer_version:
        return _failed_validation(s)
    if s.unpublished and (s.snapshot is not None or has_marts):
        v = s.validation
        if v is not None and v.constraint_failures == 0 and not s.changed_since_validation:
            text = f"A newer version passed validation ({when(v.run_at)}) but is not published. "
        elif s.snapshot is not None:
            text = (
                f"The warehouse changed at {when(s.main_changed_ns)} (a load or `dbt build`) "
                f"after the version shown here (as of {when(s.snapshot_as_of_ns)}). "
            )
        else:
            text = (
                f"The warehouse (changed at {when(s.main_changed_ns)}) has not been validated "
                "and published yet, so there is nothing to show. "
            )
        text += f"Run {PUBLISH}: it validates the new version and publishes it if every "
        text += "constraint holds."
        return Notice("warning", text, icon=WARNING, blocks_data=s.snapshot is None)
    if not has_marts:
        return Notice(
            "warning",
            "The warehouse has no `marts` tables yet: run `python -m ingest build`, then "
            f"{PUBLISH} (it validates, then publishes). `bash scripts/main.sh --no-serve` "
            "does it all: load, build, validate and publish.",
            icon=WARNING,
        )
    return None


def validation_failed_notice(
    run_at: dt.datetime | None, constraints: int, s: ServingStatus | None
) -> Notice | None:
    """The Data quality page's verdict on the latest validation run (None: no constraint
    failed)."""
    if not constraints:
        return None
    shown = (
        f"the dashboard shows the last version that passed (as of {when(s.snapshot_as_of_ns)})."
        if s is not None and s.snapshot is not None
        else "no version has passed yet."
    )
    return Notice(
        "error",
        f"The latest validation ({when(run_at)}) FAILED: {constraints} constraint failures. "
        f"That version was not published; {shown} Fix the data (or the load), then run "
        "`python -m ingest publish`.",
        icon=ERROR,
    )


# --- Rows without a value for a chosen filter, hidden or kept -------------------------------

# What a mart's rows are, in the notice.
ROW_NOUNS = {
    "fct_workload_results": "results",
    "published_results": "published figures",
    "published_vs_measured": "published figures",
    "config_deltas": "result pairs",
    "profile_latency_deltas": "profile deltas",
    "dedupe_ratios": "capacity observations",
    "latest_dedupe_ratios": "latest capacity observations",
    "ra_comparison_points": "RA chart points",
    "scaling_points": "scaling points",
    "sweep_points": "sweep points",
    "transport_comparison": "TCP/RDMA results",
    "transport_cpu_efficiency": "TCP/RDMA pairs",
}


def unlabelled_notice(counts: Mapping[str, Mapping[str, int]], kept: bool) -> Notice | None:
    """Per filter label, the rows of each mart without a value for it (`counts`: mart ->
    filter name -> rows); `kept`: the sidebar keeps such rows rather than hiding them."""
    parts = []
    for spec in filters.SPECS:
        per_mart = [
            f"{n:,} {ROW_NOUNS.get(table, 'rows of ' + table)}"
            for table, found in counts.items()
            if (n := found.get(spec.name))
        ]
        if per_mart:
            parts.append(f"{', '.join(per_mart)} without {spec.label}")
    if not parts:
        return None
    if kept:
        text = "Kept, although the filters cannot say they match: " + "; ".join(parts) + "."
    else:
        text = (
            "Hidden by the filters (no value to match): "
            + "; ".join(parts)
            + '. Switch on "Keep rows without a value" in the sidebar to show them.'
        )
    return Notice("info", text, icon=":material/filter_alt:")


@dataclass(slots=True)
class UnlabelledRows:
    """One page run's counts of rows without a value for a chosen filter (mart -> filter
    name -> rows), drawn in `slot` each time a mart's counts arrive."""

    kept: bool
    slot: Any
    counts: dict[str, Mapping[str, int]] = field(default_factory=dict)

    def add(self, table: str, counts: Mapping[str, int]) -> None:
        self.counts[table] = counts
        show(unlabelled_notice(self.counts, self.kept), self.slot)


def watch_unlabelled(kept: bool) -> None:
    """Called once per page run (streamlit_app.py) where the notice goes: a placeholder that
    shows the notice as the page's filtered reads report their counts (the last run's are
    forgotten)."""
    filters.start_tally(UnlabelledRows(kept, st.empty()).add)
