"""Acceptance verdicts on plain facts (ingest.accept_rules): which results a change point of
marts.change_points counts against for `no_regression`."""

from __future__ import annotations

import datetime as dt

import pytest

from ingest.accept_facts import ChangePoint, ResultFacts
from ingest.accept_rules import applies_to


def _facts(result_id: str, series_key: str | None, day: int) -> ResultFacts:
    return ResultFacts(
        result_id=result_id, testbed="lab", profile=None,
        started_at=dt.datetime(2026, 9, day, tzinfo=dt.UTC), nodes=4, iops_per_node=None,
        is_partial=False, partial_reason=None, vms_excluded=0, is_steady_state=None,
        steady_state_criterion=None, vm_spread_pct=None, output_count=1, host_cpu_pct=None,
        busiest_host=None, is_host_cpu_saturated=None, host_cpu_saturated_pct=None,
        series_key=series_key, columns={"testbed": "lab"},
    )  # fmt: skip


@pytest.mark.parametrize(
    ("facts", "applies"),
    [
        pytest.param(_facts("r9", "s1", 20), True, id="same series, later"),
        pytest.param(_facts("r1", "s1", 2), False, id="same series, earlier"),
        pytest.param(_facts("r9", "s2", 20), False, id="another configuration of the testbed"),
        # a warehouse without history_points: the testbed column is all the change says
        pytest.param(_facts("r9", None, 20), True, id="no series known"),
    ],
)
def test_a_change_point_applies_to_later_results_of_its_own_series(
    facts: ResultFacts, applies: bool
) -> None:
    change = ChangePoint(
        measure="iops", result_id="r5", started_at=dt.datetime(2026, 9, 10, tzinfo=dt.UTC),
        change_pct=-8.0, review_state="open", series_key="s1", series={"testbed": "lab"},
    )  # fmt: skip
    assert applies_to(change, facts) is applies
