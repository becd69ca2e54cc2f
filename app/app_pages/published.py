"""Published vs measured: every figure of the source documents against what the marts computed.

One row per published figure (`published_vs_measured`), with how the document gave the value
(printed, read off a chart, or derived here from printed numbers: never printed) and whether
the measured side comes from a cluster or from the reference dataset (reconstructed from the
documents), each marked on its own row. Filterable by study and status (kept in the URL,
`?study=...&status=...`, so a view can be shared); the sidebar filters apply to the figures'
labels.
"""

import polars as pl
import streamlit as st

from app.lib import provenance, queries, queries_provenance, ui

where, filters = ui.context()

STATUS_ORDER = ["match", "mismatch", "ambiguous", "unmatched", "not_expressible"]
STATUS_HELP = {
    "match": "within the tolerance of the printed digits (or the qualifier)",
    "mismatch": "one matched row, outside the tolerance",
    "ambiguous": "several rows carry the figure's labels and not all hold",
    "unmatched": "no measured row carries the figure's labels",
    "not_expressible": "no mart computes this metric",
}
URL_SEEN = "published_url_seen"  # the URL values the page last acted on
# Marts whose matched key is a workload result: those rows link to the run explorer.
RESULT_MARTS = ("fct_workload_results", "per_node_iops")
COLUMNS = [
    "source_document", "table_or_figure", "metric", "value_as_printed", "published_value",
    "published_as", "measured_value", "measured_on", "unit", "status", "reason", "testbed",
    "exception_kind", "exception_reason", "note", "figure_id",
]  # fmt: skip


def published_as(derivation: str | None, chart_read: bool | None) -> str:
    """How the document gave the value (published_results.derivation / chart_read)."""
    if derivation == "derived":
        return "derived here, never printed"
    if chart_read:
        return "read off a chart"
    return "printed" if derivation == "published" else "unknown"


rows = queries_provenance.published_vs_measured(where, filters)
if not ui.has_data(rows, "published figures", "They come from `seeds/published_results.csv`."):
    st.stop()

figures = queries_provenance.published_figures(where, filters)
if not figures.is_empty():
    rows = rows.join(
        figures.select("figure_id", "derivation", "chart_read", "note"), on="figure_id", how="left"
    )
else:
    rows = rows.with_columns(
        derivation=pl.lit(None, pl.String), chart_read=pl.lit(None, pl.Boolean),
        note=pl.lit(None, pl.String),
    )  # fmt: skip
reconstructed = set(queries.reconstructed_testbeds(where))
rows = rows.with_columns(
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


def from_url(param: str, key: str, options: list[str]) -> None:
    """A shared URL (`?study=...&status=...`) sets the selection once, when it is new."""
    values = st.query_params.get_all(param)
    seen = st.session_state.setdefault(URL_SEEN, {})
    if values and seen.get(param) != values:
        st.session_state[key] = [v for v in values if v in options]
    seen[param] = values


def to_url(param: str, values: list[str]) -> None:
    """The selection into the URL, so this view can be shared."""
    if values != st.query_params.get_all(param):
        st.query_params[param] = values
    st.session_state.setdefault(URL_SEEN, {})[param] = values


left, right = st.columns(2)
study_options = sorted(rows["source_document"].unique().to_list())
from_url("study", "published_study", study_options)
studies = left.multiselect(
    "Study (source document)", study_options, key="published_study", placeholder="All"
)
present = set(rows["status"].to_list())
status_options = [s for s in STATUS_ORDER if s in present]
from_url("status", "published_status", status_options)
statuses = right.multiselect(
    "Status",
    status_options,
    key="published_status",
    placeholder="All",
    format_func=lambda s: f"{s} ({STATUS_HELP.get(s, '')})",
)
to_url("study", studies)
to_url("status", statuses)
if studies:
    rows = rows.filter(pl.col("source_document").is_in(studies))
if statuses:
    rows = rows.filter(pl.col("status").is_in(statuses))

cols = st.columns(len(STATUS_ORDER))
for col, status in zip(cols, STATUS_ORDER, strict=True):
    col.metric(status.replace("_", " ").capitalize(), f"{(rows['status'] == status).sum():,}")

never_printed = rows.filter(pl.col("published_as") == "derived here, never printed").height
st.caption(
    f"{rows.height:,} figures. Each row says how the document gave its value (`published_as`: "
    f"{never_printed:,} shown here were derived from printed numbers and never printed) and "
    "where the measured value comes from (`measured_on`: a cluster, or the reference dataset "
    "reconstructed from the documents, which reproduces them by construction)."
)
shown = rows.select([c for c in [*COLUMNS, "result_id"] if c in rows.columns])
provenance.table(
    shown,
    column_config={
        "reason": st.column_config.TextColumn(width="large"),
        "note": st.column_config.TextColumn(width="large"),
        "result_id": None,  # the link column names the run
    },
    height=640,
)
ui.download_csv(shown.drop("result_id"), "published_vs_measured")
