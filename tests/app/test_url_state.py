"""Selectors whose values live in the URL (app/lib/url_state.py): a link chooses, the URL
follows every change, and a URL the page wrote itself is never taken for a new link.

The decisions are checked on plain objects standing in for st.query_params and
st.session_state; one page in AppTest checks the round trip through Streamlit's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from app.lib.filters import Filters
from app.lib.url_state import FilterUrl, UrlState

OPTIONS = ["micron", "samsung", "sfd7"]


class Query:
    """st.query_params as the helper uses it: repeated keys, the last value wins."""

    def __init__(self, **params: str | list[str]) -> None:
        self.params = {k: [v] if isinstance(v, str) else list(v) for k, v in params.items()}

    def get_all(self, key: str) -> list[str]:
        return list(self.params.get(key, []))

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.params))

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


def text_box(label: str, *, key: str, state: dict, **_: Any) -> Any:
    """A text box as Streamlit draws one bound to `key`: it shows the session value."""
    return state.get(key, "")


def test_a_text_link_fills_the_box_and_the_box_keeps_its_own_text_otherwise() -> None:
    # GIVEN a link with a search text, WHEN the page draws its box
    query, state = Query(a="history-lab read_pct=70"), {}
    url = url_state(query, state)
    # THEN the box holds the link's text
    assert url.text("a", "search", widget=text_box, state=state) == "history-lab read_pct=70"
    # WHEN the reader types another text (the box's on_change writes the URL)
    state["page_a"] = "nodes=4"
    url.follow("a")
    assert query.params == {"a": ["nodes=4"]}
    # and empties it: the page publishes no text, the URL drops the parameter
    state["page_a"] = ""
    url.follow("a")
    again = url_state(query, state)
    assert again.text("a", "search", widget=text_box, state=state) == ""
    again.publish({"a": None})
    assert query.params == {}


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


# --- The sidebar filters (FilterUrl) ------------------------------------------------------

# What the sidebar offers (queries.filter_options' types: read % float, sizes and I/Os int).
FILTER_OPTIONS = {
    "testbed": ["micron-sata-vsan67", "samsung-pm1743-vsan8-esa"],
    "profile": ["baseline", "density"],
    "read_pct": [0.0, 37.5, 70.0, 100.0],
    "block_size_bytes": [4096, 65536],
    "access": ["random", "sequential"],
    "outstanding_io": [16, 512],
}


def test_a_filter_link_sets_the_sidebar_with_the_filters_types() -> None:
    # GIVEN a link with two profiles, a read mix, a block size, an outstanding I/O and keep
    query = Query(
        f_profile=["baseline", "density"],
        f_read_pct="37.5",
        f_block_size_bytes="4096",
        f_outstanding_io="512",
        f_access="random",
        f_keep="1",
    )
    state: dict = {}
    # WHEN the sidebar restores it THEN every widget holds the URL's values, typed
    assert FilterUrl(query, state).restore(FILTER_OPTIONS) == []
    assert state == {
        "filter_profile": ["baseline", "density"],
        "filter_read_pct": [37.5],
        "filter_block_size_bytes": [4096],
        "filter_outstanding_io": [512],
        "filter_access": ["random"],
        "filter_keep_unlabelled": True,
    }


def test_the_url_writes_what_the_sidebar_holds_in_the_conventions_text() -> None:
    query = Query(other="kept")
    state = {
        "filter_read_pct": [70.0, 100.0],
        "filter_block_size_bytes": [65536],
        "filter_testbed": [],
        "filter_keep_unlabelled": False,
    }
    FilterUrl(query, state).publish()
    assert query.params == {
        "other": ["kept"],
        "f_read_pct": ["70", "100"],
        "f_block_size_bytes": ["65536"],
    }
    # WHEN the reader switches "keep rows without a value" on (the toggle's on_change)
    state["filter_keep_unlabelled"] = True
    FilterUrl(query, state).follow(FilterUrl.KEEP)
    assert query.params["f_keep"] == ["1"]
    # WHEN the reader clears the read mix THEN its parameter goes
    state["filter_read_pct"] = []
    FilterUrl(query, state).follow("read_pct")
    assert "f_read_pct" not in query.params


def test_a_url_without_the_filters_keeps_the_sidebar_and_gets_them_back() -> None:
    # GIVEN a session filtered on density; WHEN st.navigation's page change drops the query
    query, state = Query(), {"filter_profile": ["density"], "filter_keep_unlabelled": True}
    url = FilterUrl(query, state)
    assert url.restore(FILTER_OPTIONS) == []
    # THEN the sidebar keeps density and the run writes it back into the URL
    assert state["filter_profile"] == ["density"]
    url.publish()
    assert query.params == {"f_profile": ["density"], "f_keep": ["1"]}


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        pytest.param({"f_read_pct": "abc"}, "`f_read_pct`: `abc` is not a percentage", id="nan"),
        pytest.param({"f_read_pct": "170"}, "`f_read_pct`: `170` is not a percentage", id="170"),
        pytest.param(
            {"f_block_size_bytes": "4K"}, "`f_block_size_bytes`: `4K` is not a positive", id="4K"
        ),
        pytest.param(
            {"f_outstanding_io": "1.5"}, "`f_outstanding_io`: `1.5` is not a positive", id="1.5"
        ),
        pytest.param({"f_access": "diagonal"}, "`f_access`: `diagonal` is not one of", id="acc"),
        pytest.param(
            {"f_profile": "turbo"}, "`f_profile`: `turbo` is not in the warehouse", id="x"
        ),
        pytest.param({"f_colour": "red"}, "`f_colour`: no such filter", id="unknown-filter"),
        pytest.param({"f_keep": "yes"}, "`f_keep`: `yes` is not 1 or 0", id="keep"),
    ],
)
def test_a_malformed_or_unknown_filter_value_is_left_out_and_named(params, reason) -> None:
    # GIVEN a link with one good value and one bad one
    query, state = Query(f_testbed="micron-sata-vsan67", **params), {}
    problems = FilterUrl(query, state).restore(FILTER_OPTIONS)
    # THEN the bad one is named with its parameter, the good one applies, nothing raises
    assert len(problems) == 1 and problems[0].startswith(reason), problems
    assert state["filter_testbed"] == ["micron-sata-vsan67"]
    assert not any(v for k, v in state.items() if k != "filter_testbed")


APP = Path(__file__).resolve().parents[2] / "app" / "streamlit_app.py"
FILTER_KEYS = {name: FilterUrl.widget_key(name) for name in FILTER_OPTIONS}


def test_a_shared_url_restores_the_sidebar_and_the_pages_filters(warehouse_env: Path) -> None:
    # GIVEN a URL filtered on the Micron RA, 70 % and 100 % read, 4K, rows without a value kept
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["f_testbed"] = "micron-sata-vsan67"
    at.query_params["f_read_pct"] = ["70", "100"]
    at.query_params["f_block_size_bytes"] = "4096"
    at.query_params["f_keep"] = "1"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # THEN the sidebar holds those values, typed, and the page reads them
    assert at.multiselect(key=FILTER_KEYS["testbed"]).value == ["micron-sata-vsan67"]
    assert at.multiselect(key=FILTER_KEYS["read_pct"]).value == [70.0, 100.0]
    assert at.multiselect(key=FILTER_KEYS["block_size_bytes"]).value == [4096]
    assert at.toggle(key=FilterUrl.widget_key(FilterUrl.KEEP)).value is True
    expected = Filters(
        testbed=("micron-sata-vsan67",),
        read_pct=(70.0, 100.0),
        block_size_bytes=(4096,),
        keep_unlabelled=True,
    )
    assert at.session_state["filters"] == expected
    assert not at.warning or all("left out" not in w.value for w in at.warning)

    # WHEN the reader adds the density profile THEN the URL says so
    at.multiselect(key=FILTER_KEYS["profile"]).select("density").run()
    assert at.query_params["f_profile"] in ("density", ["density"])
    assert at.session_state["filters"].profile == ("density",)

    # WHEN the reader moves to another page (st.navigation drops the query in a browser)
    at.query_params.clear()
    at.switch_page("app_pages/scaling.py").run()
    assert not at.exception, [e.value for e in at.exception]
    # THEN the filters hold there and the URL names them again
    assert at.session_state["filters"] == Filters(**{**_fields(expected), "profile": ("density",)})
    # (the page's own selectors add their parameters, none starting with f_)
    assert sorted(k for k in at.query_params if k.startswith("f_")) == [
        "f_block_size_bytes",
        "f_keep",
        "f_profile",
        "f_read_pct",
        "f_testbed",
    ]
    assert at.query_params["f_read_pct"] == ["70", "100"]


def test_a_bad_filter_link_is_named_and_the_page_still_opens(warehouse_env: Path) -> None:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params["f_read_pct"] = ["seventy", "100"]
    at.query_params["f_nodes"] = "4"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    warning = next(w.value for w in at.warning if "left out" in w.value)
    assert "`f_read_pct`: `seventy` is not a percentage" in warning
    assert "`f_nodes`: no such filter" in warning
    assert at.session_state["filters"].read_pct == (100.0,)


def _fields(filters: Filters) -> dict:
    return {name: getattr(filters, name) for name in Filters.__dataclass_fields__}
