"""`python -m ingest publish`: the gate. Validate; publish only when every constraint holds.

Holding the warehouse (`Warehouse.exclusive`: the file's writer lock, or the lake's build lock,
so no build or other publish runs meanwhile), the expectations validate one version and record
the run; when no constraint failed the warehouse publishes that version (`Warehouse.publish`:
a file is copied onto its serving snapshot, a lake records the snapshot to serve). Otherwise
nothing is published and the dashboard keeps serving the last version that passed.

Exit 0 published, 1 a constraint failed (nothing published), 2 no warehouse, 3 the results
could not be recorded (nothing published).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from expectations.outcome import EXIT_USAGE
from warehouse import ResultsTableMissing, Warehouse

if TYPE_CHECKING:  # expectations.cli is imported when the gate runs: GX takes seconds
    from expectations.cli import Validation


def _refusal(run: Validation) -> tuple[str, int] | None:
    """Why a validation run may not be published, and the exit status; None: it may."""
    if run.failed_constraints:
        return f"{run.failed_constraints} constraint failures", 1
    if run.not_stored is not None and not isinstance(run.not_stored, ResultsTableMissing):
        return f"results not stored: {run.not_stored}", 3
    return None


def publish(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    """The gate (see the module docstring)."""
    from expectations.cli import validate_and_record  # imported late: GX takes seconds

    missing = wh.missing_reason()
    if missing is not None:
        console.print(f"[red]error:[/] {escape(missing)}")
        return EXIT_USAGE
    with wh.exclusive(writes=False):
        run = validate_and_record(wh, console, failures_only=True)
        refusal = _refusal(run)
        if refusal is not None:
            _refused(console, refusal[0], wh.served())
            return refusal[1]
        published = wh.publish(run.validated_snapshot, run.results_snapshot)
    if run.not_stored is not None:  # raw tables only: dbt has not created the results table
        console.print(f"[yellow]note:[/] {escape(str(run.not_stored))}")
    console.print(escape(published))
    return 0


def _refused(console: Console, why: str, served: str | None) -> None:
    keeps = f"the dashboard keeps serving {served}" if served else "nothing has been published yet"
    console.print(
        f"[red]not published:[/] {escape(why)}; {keeps}. The failures are listed above, on the "
        "dashboard's Data quality page and by `python -m expectations --failures-only`.",
        soft_wrap=True,
    )
