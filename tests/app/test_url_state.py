"""Selectors whose values live in the URL (app/lib/url_state.py): a link chooses, the URL
follows every change, and a URL the page wrote itself is never taken for a new link.

The decisions are checked on plain objects standing in for st.query_params and
st.session_state; one page in AppTest checks the round trip through Streamlit's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from streamlit.testing.v1 import AppTest

from app.lib.url_state import UrlState

OPTIONS = ["micron", "samsung", "sfd7"]


class Query:
    """st.query_params as the helper uses it: repeated keys, the last value wins."""

    def __init__(self, **params: str | list[str]) -> None:
        self.params = {k: [v] if isinstance(v, str) else list(v) for k, v in params.items()}

    def get_all(self, key: str) -> list[str]:
        return list(self.params.get(key, []))

    def __setitem__(self, key: str, value: str | Iterable[str]) -> None:
        self.params[key] = [value] if isinstance(value, str) else list(value)

    def pop(self, key: str, default: Any = None) -> Any:
        return self.params.pop(key, default)


def widget(label: str, options: list[str], *, key: str, state: dict, **_: Any) -> Any:
    """A selector as Streamlit draws one bound to `key`: it shows the session value."""
    return state[key]


def url_state(query: Query, state: dict, many: tuple[str, ...] = ()) -> UrlState:
    return UrlState({"a": "page_a", "b": "page_b"}, many=many, query=query, state=state)


def select(url: UrlState, param: str, options: list[str], state: dict, index: int = 0) -> Any:
    return url.select(param, param, options, index=index, widget=widget, state=state)


def test_a_first_view_opens_on_the_default_and_writes_it_into_the_url() -> None:
    query, state = Query(), {}
    url = url_state(query, state)
    a, b = select(url, "a", OPTIONS, state), select(url, "b", OPTIONS, state, index=1)
    url.publish({"a": a, "b": b})
    assert (a, b) == ("micron", "samsung")
    assert query.params == {"a": ["micron"], "b": ["samsung"]}


def test_a_link_chooses_the_value() -> None:
    # GIVEN a session that shows micron, WHEN a link names sfd7
    query, state = Query(a="sfd7"), {"page_a": "micron"}
    url = url_state(query, state)
    assert url.is_new("a")
    # THEN sfd7 is selected, and the URL already says so
    assert select(url, "a", OPTIONS, state) == "sfd7"
    assert not url_state(query, state).is_new("a")


def test_the_url_follows_the_widget_so_its_old_value_is_no_link() -> None:
    # GIVEN the URL and the selector on micron; WHEN the reader picks samsung
    query, state = Query(a="micron"), {"page_a": "samsung"}
    url_state(query, state).follow("a")  # the selector's on_change, before the page runs
    # THEN the URL says samsung, and the next run keeps it (micron is not taken for a link)
    assert query.params["a"] == ["samsung"]
    url = url_state(query, state)
    assert not url.is_new("a") and select(url, "a", OPTIONS, state) == "samsung"


def test_a_value_not_offered_is_returned_to_be_named_and_the_default_shown() -> None:
    query, state = Query(a="lenovo"), {}
    url = url_state(query, state)
    assert url.restore("a", OPTIONS) == "lenovo"
    assert select(url, "a", OPTIONS, state, index=2) == "sfd7"
    url.publish({"a": "sfd7"})
    assert query.params["a"] == ["sfd7"]


def test_a_value_no_longer_offered_moves_to_the_default() -> None:
    # GIVEN samsung selected; WHEN a filter leaves it out of the options
    query, state = Query(a="samsung"), {"page_a": "samsung"}
    url = url_state(query, state)
    assert url.restore("a", ["micron", "sfd7"]) is None  # the page's own value: no link
    assert select(url, "a", ["micron", "sfd7"], state) == "micron"


def test_no_options_no_value() -> None:
    url = url_state(Query(), {})
    assert select(url, "a", [], {}) is None


def test_publish_removes_what_the_selection_no_longer_has() -> None:
    query = Query(a="micron", b="samsung", other="kept")
    url_state(query, {}).publish({"a": "sfd7"})
    assert query.params == {"a": ["sfd7"], "other": ["kept"]}


def test_several_values_restore_what_is_offered_and_publish_all() -> None:
    # GIVEN a shared URL with two studies, one of them not in this warehouse
    query, state = Query(a=["micron", "lenovo"]), {}
    url = url_state(query, state, many=("a", "b"))
    assert url.in_url("a") == ["micron", "lenovo"] and url.in_url("b") == []
    url.restore("a", OPTIONS)
    assert state["page_a"] == ["micron"]
    # a URL without the parameter leaves the multiselect to its own default (nothing chosen)
    url.restore("b", OPTIONS)
    assert "page_b" not in state
    url.publish({"a": ["micron", "sfd7"], "b": []})  # nothing chosen: nothing in the URL
    assert query.params == {"a": ["micron", "sfd7"]}


def test_a_link_holds_its_value_outside_the_options_while_the_widget_keeps_it() -> None:
    # GIVEN the sidebar filters offer r1 and r2; WHEN a link names r9
    query, state = Query(a="r9"), {"page_a": "r1"}
    url = url_state(query, state)
    assert url.held_link("a", ["r1", "r2"]) == "r9"
    url.hold("a", "r9")
    assert select(url, "a", ["r9", "r1", "r2"], state) == "r9"
    # THEN the next run still offers it (the URL names it, the widget holds it)
    assert url_state(query, state).held_link("a", ["r1", "r2"]) == "r9"
    # WHEN the reader picks r2 THEN r9 is no longer held
    state["page_a"] = "r2"
    url_state(query, state).follow("a")
    assert url_state(query, state).held_link("a", ["r1", "r2"]) is None


def test_a_filter_that_hides_the_pages_own_value_holds_nothing() -> None:
    query, state = Query(a="r1"), {"page_a": "r1"}
    assert url_state(query, state).held_link("a", ["r2"]) is None


def url_bound_page() -> None:
    import streamlit as st

    from app.lib.url_state import UrlState

    url = UrlState({"testbed": "demo_testbed"})
    options = ["micron", "samsung", "sfd7"]
    if (rejected := url.restore("testbed", options)) is not None:
        st.warning(f"not offered: {rejected}")
    chosen = url.select("testbed", "Testbed", options, index=1)
    url.publish({"testbed": chosen})
    st.write(f"showing {chosen}")


def test_a_page_round_trips_through_streamlits_url_and_session_state() -> None:
    # GIVEN the page opened from a shared URL
    at = AppTest.from_function(url_bound_page)
    at.query_params["testbed"] = "sfd7"
    at.run()
    assert at.selectbox(key="demo_testbed").value == "sfd7"
    # WHEN the reader picks another testbed THEN the URL follows, and stays on the next run
    at.selectbox(key="demo_testbed").set_value("micron").run()
    assert at.query_params["testbed"] in ("micron", ["micron"])
    at.run()
    assert at.selectbox(key="demo_testbed").value == "micron"
    assert at.markdown[-1].value == "showing micron"
    # WHEN a link names a testbed the page does not offer THEN it is named, not shown
    at.query_params["testbed"] = "lenovo"
    at.run()
    assert [w.value for w in at.warning] == ["not offered: lenovo"]
    assert at.selectbox(key="demo_testbed").value == "micron"
    assert at.query_params["testbed"] in ("micron", ["micron"])
