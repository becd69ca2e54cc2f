"""The notices beside the data (app/lib/notices.py): each decision on literal inputs, and the
notice of unlabelled rows drawn while a page runs, even one that stops early.

No warehouse: the serving status is a stand-in with the attributes the decision reads, so the
test does not depend on how `warehouse` builds one.
"""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from app.lib import filters, notices

RUN_AT = dt.datetime(2026, 11, 23, 21, 5, 51, tzinfo=dt.UTC)
NS = 1_795_000_000_000_000_000  # 2026-11-18 11:06:40 UTC


def test_no_data_names_what_and_the_hint() -> None:
    notice = notices.no_data_notice("sweeps", "They need results that differ in one axis.")
    assert notice == notices.Notice(
        "info",
        "No sweeps in the warehouse for the current filters. "
        "They need results that differ in one axis.",
    )
    assert notices.no_data_notice("results").text.endswith("current filters.")


def test_reconstructed_note_names_only_reconstructed_testbeds_in_view() -> None:
    # GIVEN rows of three testbeds (and one without a label), two of them reconstructed
    testbeds = ["samsung", None, "lab-a", "micron", "samsung"]
    notice = notices.reconstructed_notice(testbeds, known=["micron", "samsung", "elsewhere"])
    # THEN the note names those two, once each, in order; and nothing when none is shown
    assert notice is not None and notice.level == "info"
    assert notice.text.startswith("Reconstructed data: results of micron, samsung come from")
    assert notices.reconstructed_notice(["lab-a", None], known=["micron"]) is None


def test_a_link_value_not_offered_is_named() -> None:
    notice = notices.link_not_offered_notice("b", "no-such-testbed")
    assert notice is not None and notice.level == "warning"
    assert "`b` = `no-such-testbed` is not in the warehouse" in notice.text
    assert notices.link_not_offered_notice("b", None) is None


@pytest.mark.parametrize(
    ("kept", "start"),
    [(False, "Hidden by the filters (no value to match): "), (True, "Kept, although")],
)
def test_unlabelled_rows_are_counted_per_mart_and_filter(kept: bool, start: str) -> None:
    # GIVEN results and published figures without a transport label, results without a testbed
    counts = {
        "fct_workload_results": {"transport": 1234, "testbed": 2},
        "published_results": {"transport": 5},
        "sweep_points": {},
    }
    notice = notices.unlabelled_notice(counts, kept)
    # THEN one part per filter label (in the sidebar's order), each mart's rows by their noun
    assert notice is not None and notice.text.startswith(start)
    assert "2 results without Testbed; 1,234 results, 5 published figures without Transport" in (
        notice.text
    )
    assert ("Switch on" in notice.text) is not kept
    assert notices.unlabelled_notice({"sweep_points": {}}, kept) is None


def test_a_mart_without_a_noun_is_named_by_its_table() -> None:
    notice = notices.unlabelled_notice({"fct_new_mart": {"profile": 3}}, kept=False)
    assert notice is not None and "3 rows of fct_new_mart without Profile" in notice.text


def status(**fields: object) -> SimpleNamespace:
    """A serving status: the latest version served, validated and unchanged since."""
    validation = SimpleNamespace(run_at=RUN_AT, constraint_failures=0)
    base = {
        "failed_newer_version": False, "unpublished": False, "changed_since_validation": False,
        "snapshot": "warehouse.serving.duckdb", "snapshot_as_of_ns": NS, "main_changed_ns": NS,
        "validation": validation,
    }  # fmt: skip
    return SimpleNamespace(**{**base, **fields})


def test_serving_the_latest_version_says_nothing() -> None:
    assert notices.serving_notice(status(), has_marts=True) is None  # type: ignore[arg-type]


def test_no_marts_says_how_to_build_and_publish() -> None:
    notice = notices.serving_notice(status(), has_marts=False)  # type: ignore[arg-type]
    assert notice is not None and notice.level == "warning" and not notice.blocks_data
    assert "no `marts` tables yet" in notice.text


def test_a_failed_newer_version_keeps_the_last_one_that_passed() -> None:
    failed = SimpleNamespace(run_at=RUN_AT, constraint_failures=3)
    shown = status(failed_newer_version=True, validation=failed)
    notice = notices.serving_notice(shown, has_marts=True)  # type: ignore[arg-type]
    assert notice is not None and notice.level == "error" and not notice.blocks_data
    assert "failed validation (2026-11-23 21:05:51 UTC: 3 constraint failures)" in notice.text
    assert "as of 2026-11-18 11:06:40 UTC" in notice.text
    # and with nothing published yet, nothing validated can be shown: the data pages stop
    none = status(failed_newer_version=True, validation=failed, snapshot=None)
    assert notices.serving_notice(none, has_marts=True).blocks_data  # type: ignore[arg-type,union-attr]


def test_an_unpublished_change_names_the_publish_command() -> None:
    changed = status(unpublished=True, changed_since_validation=True, main_changed_ns=NS + 10**9)
    notice = notices.serving_notice(changed, has_marts=True)  # type: ignore[arg-type]
    assert notice is not None and notice.level == "warning"
    assert "changed at 2026-11-18 11:06:41 UTC" in notice.text
    assert "Run `python -m ingest publish`" in notice.text


def test_a_failed_validation_is_said_on_the_data_quality_page() -> None:
    assert notices.validation_failed_notice(RUN_AT, 0, None) is None
    notice = notices.validation_failed_notice(RUN_AT, 2, status())  # type: ignore[arg-type]
    assert notice is not None and notice.level == "error"
    assert notice.text.startswith("The latest validation (2026-11-23 21:05:51 UTC) FAILED: 2")
    assert "shows the last version that passed (as of 2026-11-18 11:06:40 UTC)" in notice.text
    unpublished = notices.validation_failed_notice(RUN_AT, 2, status(snapshot=None))  # type: ignore[arg-type]
    assert unpublished is not None and "no version has passed yet." in unpublished.text


def test_file_times_and_timestamps_read_the_same() -> None:
    assert notices.when(NS) == "2026-11-18 11:06:40 UTC"
    assert notices.when(RUN_AT) == "2026-11-23 21:05:51 UTC"
    assert notices.when(None) == "an unknown time"


def test_a_tally_outside_a_page_run_goes_nowhere() -> None:
    filters.tally_unlabelled("fct_workload_results", {"transport": 3})  # no error, no notice


def page_that_stops_after_a_filtered_read() -> None:
    import streamlit as st

    from app.lib import filters, notices

    notices.watch_unlabelled(kept=False)
    st.write("the page")
    filters.tally_unlabelled("fct_workload_results", {"transport": 7})
    filters.tally_unlabelled("published_results", {})
    st.info("No workload results in the warehouse for the current filters.")
    st.stop()


def test_the_unlabelled_notice_is_drawn_above_a_page_that_stops() -> None:
    # GIVEN a page whose filtered read hid rows, then found nothing to show and stopped
    at = AppTest.from_function(page_that_stops_after_a_filtered_read).run()
    assert not at.exception
    # THEN the notice is in its placeholder above the page, with the counts reported
    texts = [i.value for i in at.info]
    assert texts[0].startswith("Hidden by the filters (no value to match): 7 results without")
    assert texts[1].startswith("No workload results")
    assert at.info[0].icon == ":material/filter_alt:"


def test_latency_kind_notice_names_what_is_not_total_latency() -> None:
    assert notices.latency_kind_notice(["total", None]) is None
    notice = notices.latency_kind_notice(["total", "completion", "mixed", "completion"])
    assert notice is not None and notice.level == "info"
    assert "2 results: fio's completion latency (`clat`" in notice.text
    assert "1 result: a mean of total and completion latencies" in notice.text
