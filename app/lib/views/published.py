"""The Published vs measured page's rows: each published figure against what the marts
computed (published_vs_measured), with how the document gave the value and where the
measured value comes from."""

from __future__ import annotations

import polars as pl

from app.lib.charts.published import ratio_points

STATUS_ORDER = ["match", "mismatch", "ambiguous", "unmatched", "not_expressible"]
STATUS_HELP = {
    "match": "within the tolerance of the printed digits (or the qualifier)",
    "mismatch": "one matched row, outside the tolerance",
    "ambiguous": "several rows carry the figure's labels and not all hold",
    "unmatched": "no measured row carries the figure's labels",
    "not_expressible": "no mart computes this metric",
}
NEVER_PRINTED = "derived here, never printed"
# Columns shown narrow, so that figure .. status are on screen without scrolling.
NARROW_COLUMNS = ("unit", "published_value", "measured_value", "difference", "status")
# Marts whose matched key is a workload result: those rows link to the run explorer.
RESULT_MARTS = ("fct_workload_results", "per_node_iops")
# What the reader needs first (figure, metric, unit, published, measured, difference,
# status), then a capacity's value in each unit, how the value was given and measured, why.
COLUMNS = [
    "figure_id", "metric", "unit", "published_value", "measured_value", "difference", "status",
    "value_as_printed", "published_tb", "published_tib", "measured_tb", "measured_tib",
    "published_as", "measured_on", "reason", "source_document", "table_or_figure", "testbed",
    "exception_kind", "exception_reason", "note",
]  # fmt: skip


def published_as(derivation: str | None, chart_read: bool | None) -> str:
    """How the document gave the value (published_results.derivation / chart_read)."""
    if derivation == "derived":
        return NEVER_PRINTED
    if chart_read:
        return "read off a chart"
    return "printed" if derivation == "published" else "unknown"


def figures_table(
    rows: pl.DataFrame, figures: pl.DataFrame, reconstructed: list[str]
) -> pl.DataFrame:
    """published_vs_measured rows with each figure's derivation, chart reading and note
    (published_results, `figures`), how the document gave it (`published_as`), where the
    measured value comes from (`measured_on`: `reconstructed` testbeds are the reference
    dataset's) and the result it links to (`result_id`, when the matched key is a result)."""
    if not figures.is_empty():
        rows = rows.join(
            figures.select("figure_id", "derivation", "chart_read", "note"),
            on="figure_id",
            how="left",
        )
    else:
        rows = rows.with_columns(
            derivation=pl.lit(None, pl.String), chart_read=pl.lit(None, pl.Boolean),
            note=pl.lit(None, pl.String),
        )  # fmt: skip
    return rows.with_columns(
        published_as=pl.Series(
            [published_as(d, c) for d, c in rows.select("derivation", "chart_read").iter_rows()],
            dtype=pl.String,
        ),
        measured_on=pl.when(pl.col("measured_value").is_null())
        .then(pl.lit(None, pl.String))
        .when(pl.col("testbed").is_in(list(reconstructed)))
        .then(pl.lit("reconstructed from the documents"))
        .otherwise(pl.lit("measured")),
        result_id=pl.when(pl.col("target_mart").is_in(RESULT_MARTS))
        .then(pl.col("matched_result_id"))
        .otherwise(pl.lit(None, pl.String)),
    )


# The documents switch of the pages about documents (Published vs measured, Studies).
ALL_DOCUMENTS_LABEL = "All documents"
ALL_DOCUMENTS_HELP = (
    "Off: only the documents whose testbed has data in this warehouse. On: every document, "
    "also those of testbeds never loaded (their figures are unmatched)."
)


def documents_about(figures: pl.DataFrame, testbeds: list[str]) -> list[str]:
    """The documents (`source_document`) with a figure of one of `testbeds`: those a warehouse
    holding data of `testbeds` can be compared with."""
    if figures.is_empty():
        return []
    about = figures.filter(pl.col("testbed").is_in(list(testbeds)))
    return sorted(about["source_document"].unique().to_list())


def of_documents(rows: pl.DataFrame, documents: list[str] | None) -> pl.DataFrame:
    """The rows of `documents` (None: every document's)."""
    if documents is None or rows.is_empty():
        return rows
    return rows.filter(pl.col("source_document").is_in(list(documents)))


def hidden_note(rows: pl.DataFrame, shown: pl.DataFrame) -> str:
    """What the switch hides, said under it ('' when it hides nothing)."""
    hidden = rows.filter(~pl.col("figure_id").is_in(shown["figure_id"].to_list()))
    if hidden.is_empty():
        return ""
    documents = hidden["source_document"].n_unique()
    return (
        f"{hidden.height:,} figures of {documents} "
        f"document{'s' if documents != 1 else ''} about testbeds this warehouse holds no data "
        f"of are hidden: switch on '{ALL_DOCUMENTS_LABEL}' to see them."
    )


def studies(rows: pl.DataFrame) -> list[str]:
    return sorted(rows["source_document"].unique().to_list())


def statuses(rows: pl.DataFrame) -> list[str]:
    """The statuses the rows have, in STATUS_ORDER."""
    present = set(rows["status"].to_list())
    return [s for s in STATUS_ORDER if s in present]


def status_label(status: str) -> str:
    return f"{status} ({STATUS_HELP.get(status, '')})"


def chosen(rows: pl.DataFrame, studies: list[str], statuses: list[str]) -> pl.DataFrame:
    """The rows of the chosen studies and statuses (nothing chosen: all)."""
    if studies:
        rows = rows.filter(pl.col("source_document").is_in(studies))
    if statuses:
        rows = rows.filter(pl.col("status").is_in(statuses))
    return rows


def status_counts(rows: pl.DataFrame) -> dict[str, int]:
    """Rows per status, every status of STATUS_ORDER (0 when none)."""
    return {status: int((rows["status"] == status).sum()) for status in STATUS_ORDER}


def caption(rows: pl.DataFrame) -> str:
    never_printed = rows.filter(pl.col("published_as") == NEVER_PRINTED).height
    return (
        f"{rows.height:,} figures. Each row says how the document gave its value "
        f"(`published_as`: {never_printed:,} shown here were derived from printed numbers and "
        "never printed) and where the measured value comes from (`measured_on`: a cluster, or "
        "the reference dataset reconstructed from the documents, which reproduces them by "
        "construction)."
    )


def stated_unit(rows: pl.DataFrame) -> pl.DataFrame:
    """`unit` as printed, with what it really is where the mart knows (a capacity's "TB":
    `TB as printed by vSphere = TiB (2^40 bytes)`), so a value is never read in the wrong
    unit."""
    if "unit_meaning" not in rows.columns:
        return rows
    return rows.with_columns(unit=pl.coalesce("unit_meaning", "unit"))


def without_float_noise(rows: pl.DataFrame) -> pl.DataFrame:
    """`difference` to 6 significant digits, and 0 where it is float noise (under 10^-9 of
    the published value: 410082 against 410082.0000000001)."""
    if "difference" not in rows.columns:
        return rows
    difference = pl.col("difference")
    noise = difference.abs() <= 1e-9 * pl.col("published_value").abs()
    return rows.with_columns(
        difference=pl.when(noise).then(0.0).otherwise(difference.round_sig_figs(6))
    )


def table(rows: pl.DataFrame) -> pl.DataFrame:
    """The table's rows: COLUMNS in order (the unit stated, `difference` without float
    noise), and the run link's result_id."""
    rows = without_float_noise(stated_unit(rows))
    return rows.select([c for c in [*COLUMNS, "result_id"] if c in rows.columns])


def chart_points(rows: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """The figures the ratio chart draws (charts.published.ratio_points), and how many of the
    rows it leaves out (no measured value, or a published value of 0)."""
    points = ratio_points(rows)
    return points, rows.height - points.height


def points_table(points: pl.DataFrame) -> pl.DataFrame:
    """The chart's points as its CSV offers them: the table's columns, then the ratio and its
    tolerance band."""
    shown = table(points).drop("result_id", strict=False)
    return shown.hstack(points.select("ratio", "band_low", "band_high"))
