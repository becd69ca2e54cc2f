"""The RA comparison page's rows (ra_comparison_points): a testbed's measured points in the
chosen configurations beside the published figures of a document, each printed point once.

A printed figure is drawn beside the measured bars only when some measured point ran the
same workload (`compare_workloads`: outstanding I/O, VMs, nodes, block size, profile, ...);
otherwise it is left out and the chart says why, unless the reader asks to draw it anyway,
and then the chart says what differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import polars as pl

from app.lib import selection
from app.lib.charts.common import CONTEXT_NAMES, chart_context, context_value, is_missing
from app.lib.charts.ra import natural_key

NO_REFERENCE = "(none)"
# The page's URL parameters -> widget keys (UrlState).
PARAMS = {
    "testbed": "ra_testbed",
    "ref": "ra_reference",
    "config": "ra_configurations",
    "anyway": "ra_draw_anyway",
}
MANY = ("config",)
# The data table under the chart, in this order (the columns the rows have).
TABLE_COLUMNS = (
    "origin", "result_id", "iops_figure_id", "latency_figure_id", "published_source",
    "testbed", "run_configuration", "working_set", "profile", "read_pct", "block_size_bytes",
    "random_pct", "outstanding_io", "vm_count", "nodes", "vsan_version", "transport",
    "run_ordinal", "iops", "avg_latency_ms",
)  # fmt: skip
# What a printed point and a measured point must agree on to stand side by side (where both
# state it): the workload and the configuration. Read mix is the x axis: a point at a mix
# the other side lacks is simply alone there.
WORKLOAD_KEYS = (
    "profile", "working_set", "block_size_bytes", "random_pct", "outstanding_io", "vm_count",
    "nodes", "vsan_version", "transport", "storage",
)  # fmt: skip
# Keys the chart's axes and facets already say (never in its subtitle).
ON_AXES = ("read_pct", "working_set", "origin")


def by_origin(points: pl.DataFrame, origin: str) -> pl.DataFrame:
    """The measured or the published points (an empty frame as it is)."""
    return points.filter(pl.col("origin") == origin) if len(points) else points


def testbeds(rows: pl.DataFrame) -> list[str]:
    return sorted(rows["testbed"].drop_nulls().unique().to_list()) if len(rows) else []


def of_testbed(measured: pl.DataFrame, own: str | None) -> pl.DataFrame:
    """The measured points of the chosen testbed (none when there is no testbed)."""
    return measured.filter(pl.col("testbed") == own) if own else measured.clear()


def configurations(
    own_points: pl.DataFrame, published: pl.DataFrame, own: str | None, ref: str
) -> list:
    """What else varies on the testbed `own`, sorted; against its own document (`ref`), the
    configurations the document printed figures for come first."""
    found = sorted(selection.options(own_points, "run_configuration"), key=natural_key)
    if ref == own and own:
        printed = published.filter(pl.col("testbed") == own)["run_configuration"].drop_nulls()
        return selection.printed_first(found, printed.to_list())
    return found


# --- workloads that differ -----------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Published points against the measured points they would stand beside."""

    comparable: pl.DataFrame  # some measured point ran their workload (as far as both say)
    differing: pl.DataFrame  # no measured point did
    keys: tuple[str, ...]  # where the differing ones part from their closest measured point
    measured: pl.DataFrame = field(repr=False)
    # Keys one side states and the other never does (they contradict nothing).
    unstated: tuple[str, ...] = ()

    def statement(self, published: pl.DataFrame | None = None) -> str:
        """`published: OIO 512, 16 VMs · measured: OIO 16, 1 VM`: the differing keys of
        `published` (default: the differing points) and of the measured points; '' when
        nothing differs."""
        if not self.keys:
            return ""
        printed = self.differing if published is None else published
        sides = (("published", printed), ("measured", self.measured))
        return " · ".join(f"{side}: {values_text(rows, self.keys)}" for side, rows in sides)

    def unstated_text(self) -> str:
        """`not stated by the measured runs: nodes, vSAN version` ('' when both sides state
        the same keys)."""
        said = []
        for side, rows in (
            ("the measured runs", self.measured),
            ("the document", self.differing if not self.differing.is_empty() else self.comparable),
        ):
            missing = [_name(k) for k in self.unstated if rows[k].is_null().all()]
            if missing:
                said.append(f"not stated by {side}: {', '.join(missing)}")
        return "; ".join(said)


def _known(row: dict, key: str) -> bool:
    return key in row and not is_missing(row[key])


def _conflicts(printed: dict, run: dict, keys: Sequence[str]) -> set[str]:
    """The keys both state and state differently."""
    return {
        k for k in keys if _known(printed, k) and _known(run, k) and printed[k] != run[k]
    }  # fmt: skip


def compare_workloads(measured: pl.DataFrame, published: pl.DataFrame) -> Comparison:
    """Which published points some measured point matches on every WORKLOAD_KEYS key both
    state (a key one side does not state contradicts nothing), and on which keys the others
    differ from their closest measured point (fewest keys apart). Without measured points
    there is nothing to pair: every published point is comparable."""
    keys = [k for k in WORKLOAD_KEYS if k in published.columns and k in measured.columns]
    if measured.is_empty() or published.is_empty() or not keys:
        return Comparison(published, published.clear(), (), measured)
    runs = measured.select(keys).unique().to_dicts()
    apart: set[str] = set()
    matches = []
    for printed in published.select(keys).to_dicts():
        closest = min((_conflicts(printed, run, keys) for run in runs), key=len)
        matches.append(not closest)
        apart |= closest
    mask = pl.Series(matches, dtype=pl.Boolean)
    ordered_keys = tuple(k for k in WORKLOAD_KEYS if k in apart)
    stated = [
        k for k in keys if measured[k].is_null().all() != published[k].is_null().all()
    ]  # fmt: skip
    return Comparison(
        published.filter(mask), published.filter(~mask), ordered_keys, measured, tuple(stated)
    )


# Keys whose subtitle text (`OIO 16`, `4 nodes`) is a name and a number: with several values
# the name is said once (`outstanding I/O 16 or 512`).
_NUMBERED = ("outstanding_io", "vm_count", "nodes")


def _name(key: str) -> str:
    return CONTEXT_NAMES.get(key, key.replace("_", " "))


def values_text(rows: pl.DataFrame, keys: Iterable[str]) -> str:
    """`OIO 512, 16 VMs`: each key's values among `rows`, numbers sorted as numbers
    (`outstanding I/O 16 or 512`, `profile: baseline or density` when several; `nodes not
    stated` when none is known)."""
    parts = []
    for key in keys:
        values = sorted(rows[key].drop_nulls().unique().to_list(), key=natural_key)
        name = _name(key)
        if not values:
            parts.append(f"{name} not stated")
        elif len(values) == 1:
            parts.append(context_value(key, values[0]))
        elif key in _NUMBERED:
            parts.append(f"{name} " + " or ".join(f"{int(v):,}" for v in values))
        elif key in ("profile", "working_set", "vsan_version", "transport", "storage"):
            parts.append(f"{name} " + " or ".join(str(v) for v in values))
        else:
            parts.append(" or ".join(context_value(key, v) for v in values))
    return ", ".join(parts)


# --- the chart's rows --------------------------------------------------------------------


@dataclass(frozen=True)
class ChartRows:
    data: pl.DataFrame  # one row per bar: a result, or a printed figure
    # A document's own printed points that contradict every run's configuration (not drawn).
    unmatched: int = 0
    comparison: Comparison | None = None  # the document's points against the measured ones
    drawn_anyway: bool = False  # the reader asked to draw differing points too
    shared_configuration: str = ""  # what every chosen configuration says (in the subtitle)

    @property
    def left_out(self) -> int:
        """Printed points not drawn because their workload differs."""
        if self.comparison is None or self.drawn_anyway:
            return 0
        return self.comparison.differing.height


def short_configurations(values: Iterable[str]) -> tuple[dict[str, str], str]:
    """`key=value, ...` configurations -> the part that tells each apart, and the part they
    all share (`block_size=4K, ftm=RAID-5` + `transport=tcp` / `transport=rdma`)."""
    parsed = {v: dict(p.split("=", 1) for p in v.split(", ") if "=" in p) for v in values}
    keys = list(dict.fromkeys(k for pairs in parsed.values() for k in pairs))
    shared = [k for k in keys if len({pairs.get(k) for pairs in parsed.values()}) == 1]
    labels = {
        v: ", ".join(f"{k}={p[k]}" for k in keys if k in p and k not in shared)
        for v, p in parsed.items()
    }
    first = next(iter(parsed.values()), {})
    return labels, ", ".join(f"{k}={first[k]}" for k in shared)


def _printed_labels(doc: pl.DataFrame) -> pl.Series:
    """Another document's points: what tells its printed points apart (`OIO 960, tcp`)."""
    rows = doc.to_dicts()
    keys = [
        k
        for k in WORKLOAD_KEYS
        if k not in ("profile", "working_set") and k in doc.columns and doc[k].n_unique() > 1
    ]
    text = [", ".join(context_value(k, r[k]) for k in keys if _known(r, k)) for r in rows]
    return pl.Series("configuration", text, dtype=pl.String)


def chart_rows(
    own_points: pl.DataFrame,
    published: pl.DataFrame,
    own: str | None,
    ref: str,
    chosen: list,
    *,
    anyway: bool = False,
) -> ChartRows:
    """The measured points of `own` in the `chosen` configurations, and the published figures
    of `ref`: under the configurations of its testbed they do not contradict when `ref` is
    `own`'s own document; as printed otherwise, each printed point once. Published points
    whose workload no measured point shares are left out unless `anyway`.

    Every row gets `configuration`: the legend's short name of what else varies (the
    configurations' shared part is `shared_configuration`)."""
    measured = own_points.filter(pl.col("run_configuration").is_in(chosen)) if own else None
    labels, shared = short_configurations(chosen if own else [])
    shown = []
    if measured is not None:
        shown.append(
            measured.with_columns(
                configuration=pl.col("run_configuration").replace_strict(labels, default="")
            )
        )
    unmatched, comparison = 0, None
    if ref != NO_REFERENCE:
        doc = published.filter(pl.col("testbed") == ref)
        if ref == own:
            unmatched = doc.filter(pl.col("run_configuration").is_null()).height
            doc = doc.filter(pl.col("run_configuration").is_in(chosen))
            doc = doc.with_columns(
                configuration=pl.col("run_configuration").replace_strict(labels, default="")
            )
        else:
            doc = doc.unique(
                ["iops_figure_id", "latency_figure_id"], keep="first", maintain_order=True
            )
            doc = doc.with_columns(_printed_labels(doc))
        comparison = compare_workloads(measured if measured is not None else doc.clear(), doc)
        shown.append(doc if anyway else comparison.comparable)
    data = pl.concat(shown, how="diagonal_relaxed") if shown else pl.DataFrame()
    # the subtitle says these from the rows' own columns (`4K`, `OIO 960`, `15 VMs`)
    said = {"block_size", *WORKLOAD_KEYS}
    shared = ", ".join(p for p in shared.split(", ") if p and p.split("=", 1)[0] not in said)
    return ChartRows(data, unmatched, comparison, anyway, shared)


# --- what the chart and the page say ---------------------------------------------------------


def title(own: str | None, ref: str) -> str:
    """The chart's title: the testbed, and the other document compared (if any)."""
    names = " vs ".join(t for t in (own, None if ref in (NO_REFERENCE, own) else ref) if t)
    suffix = " (with its published figures)" if ref == own else ""
    return f"IOPS and latency by read mix: {names}{suffix}"


def refusal(rows: ChartRows, ref: str) -> str:
    """Why some printed figures are not drawn ('' when all are)."""
    if not rows.left_out or rows.comparison is None:
        return ""
    what, verb = ("figure", "is") if rows.left_out == 1 else ("figures", "are")
    return (
        f"{rows.left_out} published {what} of {ref} {verb} not drawn: no measured point ran "
        f"their workload ({rows.comparison.statement()})"
    )


def subtitle(rows: ChartRows, own: str | None, ref: str, reconstructed: Sequence[str]) -> str:
    """The chart's subtitle, up to three lines: what every drawn row shares (testbed, block
    size, random/sequential, OIO, VMs, nodes, ...; the data's origin), what the hatched bars
    are, and what differs between the printed and the measured workloads (or why printed
    figures are left out)."""
    data, comparison = rows.data, rows.comparison
    printed = by_origin(data, "published") if "origin" in data.columns else data.clear()
    # keys the printed and measured points state differently are said on their own line
    differing = (*comparison.keys, *comparison.unstated) if comparison else ()
    skip = {*ON_AXES, *(differing if not printed.is_empty() else ())}
    if "testbed" in data.columns and data["testbed"].n_unique() > 1:
        skip.add("testbed")  # the title names both
    context = chart_context(data)
    extra = [f"configuration {rows.shared_configuration}"] if rows.shared_configuration else []
    if own and own in reconstructed:
        whose = f"{own}: " if "testbed" in skip else ""
        extra.append(f"{whose}reconstructed from published figures")
    lines = [context.subtitle(skip=skip, extra=extra)]
    if not printed.is_empty():
        sources = sorted(printed["published_source"].drop_nulls().unique(), key=natural_key)
        lines.append(f"hatched: published figures of {ref} ({', '.join(sources)})")
    if comparison is not None and not printed.is_empty() and comparison.keys:
        lines.append(f"drawn although workloads differ: {comparison.statement(printed)}")
    if rows.left_out:
        lines.append(refusal(rows, ref))
    if comparison is not None and comparison.unstated and (rows.left_out or not printed.is_empty()):
        lines.append(comparison.unstated_text())
    # each line is wrapped to the figure's width by the layout rules (charts.finish)
    return "<br>".join(line for line in lines if line)


def table(data: pl.DataFrame) -> pl.DataFrame:
    return data.select([c for c in TABLE_COLUMNS if c in data.columns])
