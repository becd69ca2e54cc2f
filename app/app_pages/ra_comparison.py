"""RA comparison: IOPS bars and latency lines per read mix, a testbed against its own
published figures (or another document's). Every bar is one result or one printed figure."""

import streamlit as st

from app.lib import charts, provenance, queries, selection, ui
from app.lib.views import ra_comparison as view

where, filters = ui.context()

st.markdown(
    "IOPS (bars) and average latency (lines, right axis) across read mixes, one colour per "
    "profile, cache and capacity working sets side by side, as in the Micron vSAN RA. "
    "Published figures are hatched bars and dashed lines. Every bar is one result or one "
    "printed figure: what else varies on the testbed is the *configuration* selector."
)

points = queries.ra_points(where, filters)
measured, published = view.by_origin(points, "measured"), view.by_origin(points, "published")
own_testbeds, ref_testbeds = view.testbeds(measured), view.testbeds(published)
# Open on something meaningful: the first testbed with results AND its own published figures.
first = selection.opening_testbed(own_testbeds, ref_testbeds, queries.UNLABELLED)
left, mid = st.columns(2)
own = left.selectbox(
    "Testbed",
    own_testbeds,
    index=own_testbeds.index(first) if first in own_testbeds else None,
    placeholder="no results",
)
ref_options = [view.NO_REFERENCE, *ref_testbeds]
ref = mid.selectbox(
    "Published figures of",
    ref_options,
    index=ref_options.index(own) if own in ref_testbeds else 0,
    help="A document's own figures sit under the configurations of its testbed they do not "
    "contradict; another document's figures are shown as printed.",
)

own_points = view.of_testbed(measured, own)
configurations = view.configurations(own_points, published, own, ref)
chosen = configurations[:1]
if len(configurations) > 1:
    chosen = st.multiselect(
        "Configuration (what else varies on this testbed; several = one series each)",
        configurations,
        default=configurations[:1],
        format_func=lambda c: c or "(nothing else varies)",
    )

rows = view.chart_rows(own_points, published, own, ref, chosen)
if rows.unmatched:
    st.caption(
        f"{rows.unmatched} printed point(s) of this document contradict every run's "
        "configuration and are not drawn: see the Published vs measured page."
    )
if rows.data.is_empty():
    ui.no_data(
        "workload results or published IOPS figures",
        "Load results with `python -m ingest load`, then `python -m ingest build` and "
        "`python -m ingest publish` (validates, then publishes).",
    )
else:
    ui.reconstructed_note(own_points)
    ui.latency_kind_note(own_points)
    provenance.plot(
        charts.ra_comparison(rows.data, title=view.title(own, ref)),
        "ra_comparison",
        key="ra_comparison",
    )
    st.metric("Peak IOPS (your testbed)", ui.fmt(own_points["iops"].max(), ",.0f"))
    label = "Data points (one row per result or printed figure)"
    with ui.expander(label, name="ra_comparison") as box:
        if box.open:
            provenance.table(view.table(rows.data))
            ui.download_csv(view.table(rows.data), "ra_comparison")
