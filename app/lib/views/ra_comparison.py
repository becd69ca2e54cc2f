"""The RA comparison page's rows (ra_comparison_points): a testbed's measured points in the
chosen configurations beside the published figures of a document, each printed point once."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from app.lib import selection

NO_REFERENCE = "(none)"
# The data table under the chart, in this order (the columns the rows have).
TABLE_COLUMNS = (
    "origin", "result_id", "iops_figure_id", "latency_figure_id", "published_source",
    "run_configuration", "working_set", "profile", "read_pct", "run_ordinal", "iops",
    "avg_latency_ms",
)  # fmt: skip


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
    found = sorted(selection.options(own_points, "run_configuration"))
    if ref == own and own:
        printed = published.filter(pl.col("testbed") == own)["run_configuration"].drop_nulls()
        return selection.printed_first(found, printed.to_list())
    return found


@dataclass(frozen=True)
class ChartRows:
    data: pl.DataFrame  # one row per bar: a result, or a printed figure
    # A document's own printed points that contradict every run's configuration (not drawn).
    unmatched: int = 0


def chart_rows(
    own_points: pl.DataFrame,
    published: pl.DataFrame,
    own: str | None,
    ref: str,
    chosen: list,
) -> ChartRows:
    """The measured points of `own` in the `chosen` configurations, and the published figures
    of `ref`: under the configurations of its testbed they do not contradict when `ref` is
    `own`'s own document; as printed otherwise, each printed point once, its series named by
    the document (two of its figures at one read mix, e.g. Table 3's TCP and RDMA, stay two
    bars)."""
    shown = [own_points.filter(pl.col("run_configuration").is_in(chosen))] if own else []
    unmatched = 0
    if ref != NO_REFERENCE:
        doc = published.filter(pl.col("testbed") == ref)
        if ref == own:
            unmatched = doc.filter(pl.col("run_configuration").is_null()).height
            doc = doc.filter(pl.col("run_configuration").is_in(chosen))
        else:
            doc = doc.unique(
                ["iops_figure_id", "latency_figure_id"], keep="first", maintain_order=True
            ).with_columns(
                run_configuration=pl.format(
                    "{} (published) {}", pl.lit(ref), pl.col("run_configuration").fill_null("")
                )
            )
        shown.append(doc)
    data = pl.concat(shown, how="diagonal_relaxed") if shown else pl.DataFrame()
    return ChartRows(data, unmatched)


def title(own: str | None, ref: str) -> str:
    """The chart's title: the testbed, and the other document compared (if any)."""
    names = " vs ".join(t for t in (own, None if ref in (NO_REFERENCE, own) else ref) if t)
    suffix = " (with its published figures)" if ref == own else ""
    return f"IOPS and latency by read mix: {names}{suffix}"


def table(data: pl.DataFrame) -> pl.DataFrame:
    return data.select([c for c in TABLE_COLUMNS if c in data.columns])
