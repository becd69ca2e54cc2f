"""The documents switch of the Studies and Published vs measured pages: which documents a
warehouse's testbeds make relevant (app/lib/views), and the switch's URL round trip
(UrlState.toggle) on plain objects standing in for st.query_params and st.session_state."""

from __future__ import annotations

from typing import Any

import polars as pl

from app.lib.url_state import UrlState
from app.lib.views import published, studies
from tests.app.test_url_state import Query

FIGURES = pl.DataFrame(
    {
        "figure_id": ["own-1", "own-2", "micron-1", "sfd7-h", "sfd7-a"],
        "source_document": ["own_doc", "own_doc", "micron_ra", "sfd7", "sfd7"],
        "testbed": ["my-lab", "my-lab", "micron-sata-vsan67", "sfd7-vsan60-hybrid",
                    "sfd7-vsan60-allflash"],
    }
)  # fmt: skip


def test_documents_about_the_warehouses_testbeds() -> None:
    assert published.documents_about(FIGURES, ["my-lab"]) == ["own_doc"]
    # a document of two testbeds is about either
    assert published.documents_about(FIGURES, ["sfd7-vsan60-allflash"]) == ["sfd7"]
    assert published.documents_about(FIGURES, []) == []


def test_of_documents_keeps_theirs_and_none_keeps_all() -> None:
    shown = published.of_documents(FIGURES, ["own_doc"])
    assert shown["figure_id"].to_list() == ["own-1", "own-2"]
    assert published.of_documents(FIGURES, None).equals(FIGURES)


def test_hidden_note_counts_figures_and_documents_left_out() -> None:
    shown = published.of_documents(FIGURES, ["own_doc"])
    assert published.hidden_note(FIGURES, shown).startswith("3 figures of 2 documents about")
    assert published.hidden_note(FIGURES, FIGURES) == ""


def test_studies_offered_by_testbed_or_all() -> None:
    assert studies.studies_offered(["my-lab"], everything=False) == []
    assert studies.studies_offered(["sfd7-vsan60-hybrid", "my-lab"], everything=False) == ["sfd7"]
    assert studies.studies_offered([], everything=True) == list(studies.STUDY_NAMES)


def switch(label: str, *, key: str, state: dict, **_: Any) -> bool:
    """A toggle as Streamlit draws one bound to `key`: it shows the session value."""
    return state[key]


def toggle(query: Query, state: dict) -> bool:
    url = UrlState({"documents": "page_documents"}, query=query, state=state)
    return url.toggle("documents", "All documents", widget=switch, state=state)


def test_switch_is_off_by_default_and_leaves_the_url_clean() -> None:
    query, state = Query(), {}
    assert toggle(query, state) is False
    assert query.params == {}


def test_a_link_turns_the_switch_on_and_the_url_keeps_saying_so() -> None:
    query, state = Query(documents="1"), {"page_documents": False}
    assert toggle(query, state) is True
    assert query.params == {"documents": ["1"]}


def test_the_switch_turned_off_takes_its_parameter_out_of_the_url() -> None:
    # GIVEN a view opened by a link with the switch on; WHEN the reader turns it off
    query, state = Query(documents="1"), {}
    assert toggle(query, state) is True
    state["page_documents"] = False
    UrlState({"documents": "page_documents"}, query=query, state=state)._follow_toggle("documents")
    # THEN the URL loses it, and the next run keeps the switch off
    assert query.params == {}
    assert toggle(query, state) is False
