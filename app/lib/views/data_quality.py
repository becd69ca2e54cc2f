"""The Data quality page's counts: what the latest great-expectations run checked, failed or
skipped (rows as queries.validation_outcomes or queries.data_quality_latest give them)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import polars as pl

# Suites are `<model>.constraints` (fail the run) or `<model>.alerts` (report only); the
# severity column may hold either word, singular or plural. No severity counts as constraint.
IS_CONSTRAINT = (
    pl.col("severity").str.to_lowercase().str.starts_with("constraint")
    | pl.col("severity").str.to_lowercase().str.starts_with("error")
).fill_null(True)


@dataclass(frozen=True)
class RunSummary:
    failed: pl.DataFrame  # the expectations that failed, constraints and alerts
    constraints: int  # failed constraints: the version was not published
    alerts: int
    checked: int
    skipped: int  # suites whose table does not exist yet (success is NULL)
    run_at: dt.datetime | None


def summary(latest: pl.DataFrame) -> RunSummary:
    """The latest run's outcome rows, counted."""
    # success is NULL for a suite that was skipped (its table does not exist yet).
    failed = latest.filter(pl.col("success").not_())
    skipped = latest["success"].null_count()
    constraints = failed.filter(IS_CONSTRAINT).height
    return RunSummary(
        failed=failed,
        constraints=constraints,
        alerts=failed.height - constraints,
        checked=latest.height - skipped,
        skipped=skipped,
        run_at=latest["run_at"].max(),  # type: ignore[arg-type]
    )
