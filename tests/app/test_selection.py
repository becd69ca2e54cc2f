"""What a selector offers and holds (app/lib/selection.py), on literal frames."""

from __future__ import annotations

import polars as pl
import pytest

from app.lib import selection


def test_options_keep_the_marts_order_without_nulls() -> None:
    df = pl.DataFrame({"c": ["b", None, "a", "b"]})
    assert selection.options(df, "c") == ["b", "a"]
    assert selection.options(df, "missing") == [] == selection.options(df.clear(), "c")


def test_several_lists_what_has_something_to_compare() -> None:
    # GIVEN three testbeds: two profiles, one profile (and an unlabelled row), no profile
    df = pl.DataFrame(
        {
            "testbed": ["t2", "t2", "t1", "t1", "t3", "t0", "t0"],
            "profile": ["raid1", "raid5", "raid1", None, None, "a", "b"],
        }
    )
    # THEN only the testbeds with two profiles, sorted; NULL is no second value
    assert selection.several(df, "testbed", "profile") == ["t0", "t2"]
    assert selection.several(df.clear(), "testbed", "profile") == []


@pytest.mark.parametrize(
    ("own", "documented", "first"),
    [
        (["lab", "micron", "samsung"], ["samsung", "micron"], "micron"),  # results + figures
        (["(no testbed label)", "lab"], ["micron"], "lab"),  # else a labelled one
        (["(no testbed label)"], [], "(no testbed label)"),
        ([], ["micron"], None),
    ],
)
def test_a_page_opens_on_a_testbed_with_its_own_figures(
    own: list[str], documented: list[str], first: str | None
) -> None:
    assert selection.opening_testbed(own, documented, "(no testbed label)") == first


def test_printed_configurations_come_first_in_their_order() -> None:
    configurations = ["a", "b", "c", "d"]
    assert selection.printed_first(configurations, ["d", "b", None]) == ["b", "d", "a", "c"]
    assert configurations == ["a", "b", "c", "d"]  # not changed in place


@pytest.mark.parametrize(
    ("wanted", "is_new", "held", "offered", "expected"),
    [
        ("r9", True, None, ["r1", "r2"], "r9"),  # a link just followed, hidden by the filters
        ("r9", False, "r9", ["r1"], "r9"),  # the result that link brought, still selected
        ("r9", False, None, ["r1"], None),  # the page's own URL: a filter moves it on
        ("r9", False, "r8", ["r1"], None),  # an older link's result is not held
        ("r1", True, None, ["r1", "r2"], None),  # the filters offer it anyway
        (None, False, "r9", ["r1"], None),  # no URL
    ],
)
def test_a_followed_link_holds_its_result_outside_the_filters(
    wanted: str | None, is_new: bool, held: str | None, offered: list[str], expected: str | None
) -> None:
    assert selection.held_link(wanted, is_new, held, offered) == expected
