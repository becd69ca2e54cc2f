"""The pages' script: `streamlit run app/server.py` serves it (AppTest runs it directly).

Builds the navigation, renders the title and the shared sidebar filters (kept in session
state for the pages), checks the warehouse can be opened, says when the version shown is
older than the main file (and why), then runs the chosen page.
"""

from __future__ import annotations

import streamlit as st

from app.lib import db, navigation, notices, queries, ui
from app.lib.filters import FILTER_LABELS, Filters, filter_value_label
from app.lib.url_state import FilterUrl

st.set_page_config(
    page_title="vSAN performance warehouse", page_icon=navigation.APP_ICON, layout="wide"
)

PAGES = [
    st.Page(spec.path, title=spec.title, icon=spec.icon, default=index == 0)
    for index, spec in enumerate(navigation.PAGES)
]
page = st.navigation(PAGES)

# What the pages read: a file path, or in team mode the lake's password-free name.
where = str(db.reading_path())
st.session_state["where"] = where
st.title("vSAN performance warehouse")
st.caption(f"{page.title} · warehouse `{where}`")

# Only validated versions are published; say when the main file holds more (a failed
# validation, or a load / plain `dbt build` not yet published) and the command that fixes it.
status = db.serving_status()
st.session_state["serving_status"] = status
ui.forget_old_snapshot(status)
# Add results runs without a served version, and without a warehouse at all: it makes them.
adding = page.title == navigation.ADD_RESULTS
try:
    tables = queries.marts_columns(where)
except db.WarehouseUnavailable as exc:
    if not adding:
        st.error(str(exc), icon=":material/error:")
        st.stop()
    st.info(f"{exc}: the first upload creates it.", icon=":material/info:")
    page.run()
    st.stop()

notice = notices.serving_notice(status, has_marts=bool(tables))
notices.show(notice)
if (
    notice is not None
    and notice.blocks_data
    and page.title not in ("Data quality", navigation.ADD_RESULTS)
):
    st.stop()  # no snapshot yet: the main file's marts have not passed validation

# The filters live in the URL (`?f_profile=baseline&f_read_pct=70&f_keep=1`), so a filtered
# view can be shared: a link sets the widgets, the widgets write the URL (url_state.FilterUrl).
link = FilterUrl()
with st.sidebar:
    st.header("Filters")
    options = queries.filter_options(where)
    left_out = link.restore(options)
    chosen = {
        name: tuple(
            st.multiselect(
                label,
                options.get(name, []),
                key=FilterUrl.widget_key(name),
                placeholder="All",
                format_func=filter_value_label(name),
                on_change=link.follow,
                args=(name,),
            )
        )
        for name, label in FILTER_LABELS.items()
    }
    keep = st.toggle(
        "Keep rows without a value",
        key=FilterUrl.widget_key(FilterUrl.KEEP),
        help="A row whose run did not say a filtered label (or whose mart cannot tell) is "
        "hidden by default; the page says how many. Switch on to show such rows too.",
        on_change=link.follow,
        args=(FilterUrl.KEEP,),
    )
    st.caption("Empty = all. Filters apply to every chart and table, published figures too.")
# Every run: after a page change (which drops the query) or a left-out link value.
link.publish()
notices.show(notices.filter_link_notice(left_out))
st.session_state["filters"] = Filters(**chosen, keep_unlabelled=keep)
# The page's notice of rows the filters hid (or kept) for lack of a value, filled as the
# page's filtered reads tally them (queries._rows).
notices.watch_unlabelled(keep)

try:
    page.run()
except db.WarehouseUnavailable as exc:
    st.error(str(exc), icon=":material/error:")
