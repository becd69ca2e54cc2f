"""What the pages show, worked out from literal mart rows (app/lib/views): the pure half of
each page, without Streamlit or a warehouse."""

from __future__ import annotations

import datetime as dt

import polars as pl

from app.lib.views import data_quality


def test_data_quality_counts_constraints_alerts_and_skipped_suites() -> None:
    # GIVEN a run: one constraint and one alert failed (severity in either spelling, or none),
    # one passed, one suite skipped (its table does not exist yet: success NULL)
    run_at = dt.datetime(2026, 11, 23, 21, 5, tzinfo=dt.UTC)
    latest = pl.DataFrame(
        {
            "suite": ["a.constraints", "a.alerts", "b.constraints", "c.constraints", "d"],
            "severity": ["Constraints", "alert", "constraint", "constraint", None],
            "success": [False, False, True, None, False],
            "run_at": [run_at] * 5,
        }
    )
    run = data_quality.summary(latest)
    # THEN a failure without a severity counts as a constraint
    assert (run.constraints, run.alerts, run.checked, run.skipped) == (2, 1, 4, 1)
    assert run.failed["suite"].to_list() == ["a.constraints", "a.alerts", "d"]
    assert run.run_at == run_at
