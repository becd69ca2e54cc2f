"""Published vs measured: every figure of the source documents against what the marts computed.

One row per published figure (`published_vs_measured`), with how the document gave the value
(printed, read off a chart, or derived here from printed numbers: never printed) and whether
the measured side comes from a cluster or from the reference dataset (reconstructed from the
documents), each marked on its own row. Filterable by study and status (kept in the URL,
`?study=...&status=...`, so a view can be shared); the sidebar filters apply to the figures'
labels.
"""

import streamlit as st

from app.lib import charts, provenance, queries, queries_provenance, ui
from app.lib.url_state import UrlState
from app.lib.views import published as view

where, filters = ui.context()
url = UrlState(
    {"study": "published_study", "status": "published_status", "documents": "published_documents"},
    many=("study", "status"),
)

rows = queries_provenance.published_vs_measured(where, filters)
if not ui.has_data(rows, "published figures", "They come from `seeds/published_results.csv`."):
    st.stop()
figures = queries_provenance.published_figures(where, filters)
rows = view.figures_table(rows, figures, queries.reconstructed_testbeds(where))
everything = url.toggle("documents", view.ALL_DOCUMENTS_LABEL, help=view.ALL_DOCUMENTS_HELP)
about = view.documents_about(rows, queries_provenance.testbeds_with_data(where))
shown = view.of_documents(rows, None if everything else about)
hidden = view.hidden_note(rows, shown)
rows = shown
if hidden:
    st.caption(hidden)
if rows.is_empty():
    st.info("No published figure is about a testbed this warehouse holds data of.")
    st.stop()

left, right = st.columns(2)
studies = url.select(
    "study", "Study (source document)", view.studies(rows), widget=left.multiselect,
    placeholder="All",
)  # fmt: skip
statuses = url.select(
    "status", "Status", view.statuses(rows), widget=right.multiselect, placeholder="All",
    format_func=view.status_label,
)  # fmt: skip
url.publish({"study": studies, "status": statuses}, only=("study", "status"))
rows = view.chosen(rows, studies, statuses)

cols = st.columns(len(view.STATUS_ORDER))
for col, (status, count) in zip(cols, view.status_counts(rows).items(), strict=True):
    col.metric(status.replace("_", " ").capitalize(), f"{count:,}")
st.caption(view.caption(rows))
points, left_out = view.chart_points(rows)
fig = charts.published_ratio_chart(points, left_out=left_out)
ui.plot(fig, "published_vs_measured", points=view.points_table(points))
shown = view.table(rows)
provenance.table(
    shown,
    column_config={
        # narrow enough that figure .. status fit the page's width, first
        "figure_id": st.column_config.TextColumn(width="medium"),
        **{c: st.column_config.Column(width="small") for c in view.NARROW_COLUMNS},
        "reason": st.column_config.TextColumn(width="large"),
        "note": st.column_config.TextColumn(width="large"),
        "result_id": None,  # the link column names the run
    },
    height=640,
)
ui.download_csv(shown.drop("result_id"), "published_vs_measured")
