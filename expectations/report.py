"""The console report: one table row per outcome, then a one-line tally."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from expectations.outcome import CONSTRAINT, Outcome

_COLUMNS = ("suite", "expectation", "severity", "result", "observed", "note")


def _result_text(outcome: Outcome) -> str:
    if outcome.success is None:
        return "[dim]skipped[/dim]"
    if outcome.success:
        return "[green]pass[/green]"
    return "[red]FAIL[/red]" if outcome.severity == CONSTRAINT else "[yellow]alert[/yellow]"


def summary(outcomes: Sequence[Outcome]) -> str:
    """`12 passed, 1 constraint failures, 2 alerts, 0 skipped (suites on missing tables)`."""
    passed = sum(o.success is True for o in outcomes)
    failed = sum(o.failed_constraint for o in outcomes)
    alerts = sum(o.raised_alert for o in outcomes)
    skipped = sum(o.success is None for o in outcomes)
    return (
        f"{passed} passed, {failed} constraint failures, {alerts} alerts, {skipped} skipped "
        f"(suites on missing tables)"
    )


def render(outcomes: Sequence[Outcome], console: Console, failures_only: bool = False) -> None:
    table = Table(title="Data quality", show_lines=False)
    for name in _COLUMNS:
        table.add_column(name, overflow="fold")
    for o in outcomes:
        if failures_only and o.success is not False:
            continue
        table.add_row(
            o.suite,
            o.expectation,
            o.severity,
            _result_text(o),
            o.observed,
            o.notes,
            end_section=False,
        )
    console.print(table)
    console.print(summary(outcomes))
