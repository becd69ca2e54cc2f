"""The record every step passes on: one expectation's outcome, and what a run's outcomes mean.

Kept free of great-expectations and DuckDB so that the report and the command line can use it
without paying for those imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CONSTRAINT = "constraint"  # a failure fails the run
ALERT = "alert"  # a failure is reported only

EXIT_OK, EXIT_CONSTRAINT_FAILED, EXIT_USAGE, EXIT_NOT_STORED = 0, 1, 2, 3


@dataclass(frozen=True, slots=True)
class Outcome:
    """One row of the report and of data_quality.validation_results (without run_at).

    `success` is None when the suite was not evaluated (its table is missing).
    """

    suite: str
    table_name: str
    expectation: str
    severity: str
    success: bool | None
    observed: str
    unexpected_count: int | None
    notes: str

    @property
    def failed_constraint(self) -> bool:
        return self.success is False and self.severity == CONSTRAINT

    @property
    def raised_alert(self) -> bool:
        return self.success is False and self.severity == ALERT


def exit_code(outcomes: Sequence[Outcome]) -> int:
    """1 when a constraint failed, else 0: alerts never change the exit status."""
    return EXIT_CONSTRAINT_FAILED if any(o.failed_constraint for o in outcomes) else EXIT_OK
