"""RA comparison: IOPS bars and latency points per read mix, a testbed against its own
published figures (or another document's). Every bar is one result or one printed figure.

`?testbed=<t>&ref=<document's testbed>&config=<c>&config=<c>&anyway=1`: every selector lives
in the URL, so a view can be shared; a printed figure whose workload no measured point ran is
drawn only with `anyway=1` ("Draw them anyway"), the differences stated on the chart.
"""

import streamlit as st

from app.lib import charts, provenance, queries, report_button, selection, ui
from app.lib.url_state import UrlState
from app.lib.views import ra_comparison as view

where, filters = ui.context()
url = UrlState(view.PARAMS, many=view.MANY)

st.markdown(
    "IOPS (bars) and average latency (points, right axis) across read mixes, one colour per "
    "profile, cache and capacity working sets side by side, as in the Micron vSAN RA. "
    "Published figures are hatched bars beside the measured ones. Every bar is one result or "
    "one printed figure: what else varies on the testbed is the *configuration* selector."
)

points = queries.ra_points(where, filters)
measured, published = view.by_origin(points, "measured"), view.by_origin(points, "published")
own_testbeds, ref_testbeds = view.testbeds(measured), view.testbeds(published)
# Open on something meaningful: the first testbed with results AND its own published figures.
first = selection.opening_testbed(own_testbeds, ref_testbeds, queries.UNLABELLED)
left, mid = st.columns(2)
own = url.select(
    "testbed",
    "Testbed",
    own_testbeds,
    index=own_testbeds.index(first) if first in own_testbeds else 0,
    widget=left.selectbox,
    placeholder="no results",
)
ref_options = [view.NO_REFERENCE, *ref_testbeds]
ref = url.select(
    "ref",
    "Published figures of",
    ref_options,
    index=ref_options.index(own) if own in ref_testbeds else 0,
    widget=mid.selectbox,
    help="A document's own figures sit under the configurations of its testbed they do not "
    "contradict; any document's figures are drawn only beside measured points of the same "
    "workload (outstanding I/O, VMs, nodes, block size, profile, ...).",
)

own_points = view.of_testbed(measured, own)
configurations = view.configurations(own_points, published, own, ref)
chosen = configurations[:1]
if len(configurations) > 1:
    url.restore("config", configurations)
    # a testbed's configurations only (another testbed's stay behind in session state)
    held = [c for c in st.session_state.get(view.PARAMS["config"]) or [] if c in configurations]
    st.session_state[view.PARAMS["config"]] = held or configurations[:1]
    chosen = url.select(
        "config",
        "Configuration (what else varies on this testbed; several = one series each)",
        configurations,
        format_func=lambda c: c or "(nothing else varies)",
    )
# A toggle holds a bool: the URL says `anyway=1` when it is on.
anyway_key = view.PARAMS["anyway"]
if url.is_new("anyway"):
    st.session_state[anyway_key] = url.in_url("anyway") == "1"
rows = view.chart_rows(
    own_points, published, own, ref, chosen, anyway=st.session_state.get(anyway_key, False)
)
if rows.left_out or rows.drawn_anyway:
    st.toggle(
        "Draw them anyway",
        key=anyway_key,
        on_change=lambda: url.publish(
            {"anyway": "1" if st.session_state[anyway_key] else None}, only=("anyway",)
        ),
        help="Draw printed figures whose workload no measured point ran, the differences "
        "stated on the chart.",
    )
if rows.left_out:
    st.warning(view.refusal(rows, ref), icon=":material/compare_arrows:")
elif rows.drawn_anyway and rows.comparison is not None and rows.comparison.keys:
    st.warning(f"Workloads differ: {rows.comparison.statement()}.", icon=":material/warning:")
if rows.unmatched:
    st.caption(
        f"{rows.unmatched} printed point(s) of this document contradict every run's "
        "configuration and are not drawn: see the Published vs measured page."
    )
url.publish(
    {
        "testbed": own,
        "ref": ref,
        "config": chosen if len(configurations) > 1 else None,
        "anyway": "1" if rows.drawn_anyway else None,
    }
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
    reconstructed = queries.reconstructed_testbeds(where)
    fig = charts.ra_comparison(
        rows.data,
        title=view.title(own, ref),
        subtitle=view.subtitle(rows, own, ref, reconstructed),
    )
    table = view.table(rows.data)
    provenance.plot(fig, "ra_comparison", key="ra_comparison", points=table)
    st.metric("Peak IOPS (your testbed)", ui.fmt(own_points["iops"].max(), ",.0f"))
    report_button.controls(where, own, None if ref == view.NO_REFERENCE else ref)
    label = "Data points (one row per result or printed figure)"
    with ui.expander(label, name="ra_comparison") as box:
        if box.open:
            provenance.table(table)
            ui.download_csv(table, "ra_comparison")
