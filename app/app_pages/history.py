"""History: one configuration's results over time, its change points, and their review.

The search text, the configuration (series) and the measure are in the URL
(`?search=...&series=...&measure=...`).
"""

import streamlit as st

from app.lib import provenance, queries_history, ui
from app.lib.charts.history import history_chart
from app.lib.url_state import UrlState
from app.lib.views import history as view

where, filters = ui.context()
url = UrlState(view.PARAMS)
chosen: dict[str, str | None] = {}

points = queries_history.history_points(where, filters)
series = view.series_choices(points)
if series.is_empty():
    ui.no_data("repeated configuration (a configuration run more than once)", view.HISTORY_HINT)
else:
    search = url.text("search", "Search configurations by label",
                      placeholder="e.g. history-lab read_pct=70")  # fmt: skip
    chosen["search"] = search or None
    offered = view.matching(series, search)
    if offered.is_empty():
        st.info(f"No configuration's labels hold “{search}”.")
    else:
        left, right = st.columns([3, 1])
        choice = url.select("series", "Configuration", offered["choice"].to_list(),
                            widget=left.selectbox)  # fmt: skip
        chosen["series"] = choice
        key = offered.filter(offered["choice"] == choice)["series_key"][0]
        measure = url.select("measure", "Measure", view.measures_of(points, key),
                             widget=right.selectbox, format_func=view.measure_label)  # fmt: skip
        chosen["measure"] = measure
        part = view.one_series(points, key, measure)
        decisions = queries_history.review_decisions()
        changes = view.with_decisions(
            view.series_changes(queries_history.change_points(where, filters), key, measure),
            decisions,
        )
        settings = view.built_settings(part)
        short = view.too_few_runs(part, settings)
        if short:
            st.info(short)
        fig = history_chart(
            part,
            changes,
            view.segments(part, changes),
            measure=measure,
            title=f"{view.measure_label(measure)} over time",
            subtitle=view.subtitle(choice, changes, settings),
        )
        provenance.plot(fig, "history", key="history_chart", points=part)
        if changes.is_empty() and not short:
            st.caption("No change point in this series and measure.")
        st.text_input("Your name (optional, kept with a review)", key="history_reviewer")
        for i, row in enumerate(changes.to_dicts()):
            st.markdown(view.change_caption(row))
            note_key = f"history_note_{i}"
            st.text_input("Note (optional)", key=note_key)
            buttons = st.columns(len(view.REVIEW_ACTIONS))
            for column, (state, label) in zip(buttons, view.REVIEW_ACTIONS, strict=True):
                column.button(
                    label,
                    key=f"history_{state}_{i}",
                    disabled=row["review_state"] == state,
                    on_click=view.review_clicked,
                    args=(st.session_state, queries_history.record_review, row, state,
                          note_key, "history_reviewer"),
                )  # fmt: skip
url.publish(chosen)
