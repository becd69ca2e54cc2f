"""`python -m ingest accept --spec FILE [--format table|json] [--record]`: acceptance in CI.

Checks every rule of an acceptance spec (a YAML list of `where:` + `require:` rules, see
docs/examples/acceptance.yaml) against each result it matches, in the published version of the
warehouse (the one the dashboard serves; before the first publish, the newest), read-only.
Each result gets pass / fail / inconclusive per requirement with the measured value, the limit
and the unit; a result that a run-validity rule excludes (never steady, VMs finished early,
partial, host CPU saturated) fails and says which rule excluded it; a rule that matches no
result fails. `--record` then appends the verdicts to acceptance.verdicts (dbt creates it; the
dashboard reads marts.acceptance_results once the version is published).

Exit status: 0 when every rule passes, 1 when any rule fails or is inconclusive (or the
warehouse cannot be read), 2 for a spec error (file and line on stderr) or a usage error.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ingest.accept_facts import Catalog, matching_results, read_catalog
from ingest.accept_rules import (
    FAIL,
    INCONCLUSIVE,
    PASS,
    RuleVerdict,
    check_references,
    rule_verdict,
    worst,
)
from ingest.accept_spec import (
    NUMBER_REQUIREMENTS,
    PUBLISHED_REQUIREMENT,
    TEXT_REQUIREMENTS,
    TRUE_REQUIREMENTS,
    Spec,
    SpecError,
    read_spec,
)
from warehouse.base import ResultsTableMissing, Warehouse

VERDICTS_TABLE = "acceptance.verdicts"
EXIT_PASS, EXIT_FAIL, EXIT_SPEC = 0, 1, 2
STYLE = {PASS: "green", FAIL: "red", INCONCLUSIVE: "yellow"}


@dataclass(frozen=True)
class AcceptanceRun:
    spec: Spec
    warehouse: str
    status: str
    rules: tuple[RuleVerdict, ...]


def requirements_help() -> str:
    """The requirements a rule may use, one line each (the --help epilog)."""
    lines = [f"  {name}: N  {text}" for name, text in NUMBER_REQUIREMENTS.items()]
    lines += [f"  {name}: true  {text}" for name, text in TRUE_REQUIREMENTS.items()]
    lines += [f"  {name}: AF-6  {text}" for name, text in TEXT_REQUIREMENTS.items()]
    lines.append(
        f"  {PUBLISHED_REQUIREMENT}: {{figure: ID, pct: N}}  within N % of a figure of "
        "marts.published_results"
    )
    return "require: (any of)\n" + "\n".join(lines)


def add_arguments(cmd: argparse.ArgumentParser) -> None:
    cmd.epilog = requirements_help()
    cmd.add_argument(
        "--spec",
        required=True,
        type=Path,
        metavar="FILE",
        help="the acceptance spec: a YAML list of rules (where: + require:); by convention "
        "acceptance.yaml in the warehouse folder (see docs/examples/acceptance.yaml)",
    )
    cmd.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table (default) or json: one object with every rule, result and check",
    )
    cmd.add_argument(
        "--record",
        action="store_true",
        help="also append the verdicts to acceptance.verdicts in the warehouse (under the "
        "writer lock); marts.acceptance_results shows the latest run of each spec once the "
        "version is published",
    )


def evaluate(wh: Warehouse, spec: Spec) -> AcceptanceRun:
    """Every rule's verdict on the published version. SpecError for a key, profile or figure
    the warehouse does not have; LookupError for a warehouse without marts."""
    reader = wh.reader()
    with reader.cursor() as con:
        catalog: Catalog = read_catalog(con)
        for rule in spec.rules:
            check_references(rule, catalog, spec.path)
        verdicts = tuple(
            rule_verdict(rule, matching_results(con, rule, catalog), catalog) for rule in spec.rules
        )
    return AcceptanceRun(spec, reader.name, worst([v.status for v in verdicts]), verdicts)


def run(wh: Warehouse, args: argparse.Namespace, console: Console) -> int:
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    try:
        spec = read_spec(args.spec)
        outcome = evaluate(wh, spec)
    except SpecError as exc:
        errors.print(f"[red]spec error:[/] {escape(str(exc))}")
        return EXIT_SPEC
    except LookupError as exc:
        errors.print(f"[red]error:[/] {escape(str(exc))}")
        return EXIT_FAIL
    if args.format == "json":
        sys.stdout.write(json.dumps(as_json(outcome), ensure_ascii=False) + "\n")
        sys.stdout.flush()
    else:
        _print_table(outcome, console)
    if args.record:
        try:
            count = record(wh, outcome, dt.datetime.now(dt.UTC))
        except ResultsTableMissing as exc:
            errors.print(f"[red]not recorded:[/] {escape(str(exc))}")
            return EXIT_FAIL
        errors.print(f"recorded {count} verdict rows in {VERDICTS_TABLE} (publish to show them)")
    return EXIT_PASS if outcome.status == PASS else EXIT_FAIL


# --- output -----------------------------------------------------------------------------------


def as_json(outcome: AcceptanceRun) -> dict[str, Any]:
    """The --format json document (its schema is in docs/CONTRACT.md)."""
    return {
        "spec": str(outcome.spec.path),
        "warehouse": outcome.warehouse,
        "status": outcome.status,
        "rules": [_rule_json(v) for v in outcome.rules],
    }


def _rule_json(verdict: RuleVerdict) -> dict[str, Any]:
    return {
        "name": verdict.rule.name,
        "line": verdict.rule.line,
        "where": {w.key: list(w.values) for w in verdict.rule.where},
        "status": verdict.status,
        "reason": verdict.reason,
        "results": [
            {
                "result_id": r.facts.result_id,
                "testbed": r.facts.testbed,
                "profile": r.facts.profile,
                "started_at": r.facts.started_at.isoformat() if r.facts.started_at else None,
                "status": r.status,
                "excluded_by": [
                    {"validity_rule": e.validity_rule, "reason": e.reason} for e in r.excluded_by
                ],
                "checks": [
                    {
                        "requirement": c.requirement,
                        "status": c.status,
                        "measured": c.measured,
                        "limit": c.limit,
                        "unit": c.unit,
                        "reason": c.reason,
                    }
                    for c in r.checks
                ],
            }
            for r in verdict.results
        ],
    }


def _status(status: str) -> str:
    return f"[{STYLE[status]}]{status}[/]"


def _rule_table(verdict: RuleVerdict) -> Table:
    """One rule: its verdict in the title, a row per result x requirement (and exclusion)."""
    title = f"{escape(verdict.rule.name)}: {_status(verdict.status)} ({escape(verdict.reason)})"
    table = Table(title=title, title_justify="left")
    for name in ("result", "testbed / profile", "requirement", "verdict", "reason"):
        table.add_column(name, overflow="fold")
    for result in verdict.results:
        place = escape(f"{result.facts.testbed or '-'} / {result.facts.profile or '-'}")
        short_id = result.facts.result_id[:12]
        for exclusion in result.excluded_by:
            reason = f"excluded by {exclusion.validity_rule}: {exclusion.reason}"
            table.add_row(short_id, place, "run validity", _status(FAIL), escape(reason))
        for c in result.checks:
            table.add_row(short_id, place, c.requirement, _status(c.status), escape(c.reason))
    return table


def _print_table(outcome: AcceptanceRun, console: Console) -> None:
    console.print(f"acceptance: {escape(str(outcome.spec.path))} on {escape(outcome.warehouse)}")
    for verdict in outcome.rules:
        if verdict.results:
            console.print(_rule_table(verdict))
        else:
            console.print(
                f"{escape(verdict.rule.name)}: {_status(verdict.status)} ({escape(verdict.reason)})"
            )
    console.print(f"overall: {_status(outcome.status)}")


# --- --record ---------------------------------------------------------------------------------

VERDICT_COLUMNS = (
    "run_at", "spec", "rule_name", "rule_line", "rule_status", "result_id", "testbed", "profile",
    "result_status", "excluded_by", "requirement", "check_status", "measured", "limit_value",
    "unit", "reason",
)  # fmt: skip


def verdict_rows(outcome: AcceptanceRun, run_at: dt.datetime) -> list[tuple[Any, ...]]:
    """One row per rule x result x requirement; a rule that matched nothing is one row without
    a result; a result's exclusions are in `excluded_by` on each of its rows."""
    rows: list[tuple[Any, ...]] = []
    spec = str(outcome.spec.path)
    for v in outcome.rules:
        head = (run_at, spec, v.rule.name, v.rule.line, v.status)
        if not v.results:
            rows.append(
                (*head, None, None, None, None, None, None, None, None, None, None, v.reason)
            )
        for r in v.results:
            excluded = "; ".join(f"{e.validity_rule}: {e.reason}" for e in r.excluded_by) or None
            result = (r.facts.result_id, r.facts.testbed, r.facts.profile, r.status, excluded)
            for c in r.checks:
                rows.append(
                    (*head, *result, c.requirement, c.status, c.measured, c.limit, c.unit, c.reason)
                )
    return rows


def record(wh: Warehouse, outcome: AcceptanceRun, run_at: dt.datetime) -> int:
    """Append the run's verdicts in one commit; ResultsTableMissing before dbt made the table."""
    rows = verdict_rows(outcome, run_at)
    names = ", ".join(VERDICT_COLUMNS)
    marks = ", ".join("?" for _ in VERDICT_COLUMNS)
    with wh.exclusive(writes=True):
        con = wh.connect_writer()
        try:
            (exists,) = con.execute(
                "select count(*) from information_schema.tables where table_catalog ="
                " current_database() and table_schema = 'acceptance' and table_name = 'verdicts'"
            ).fetchone()
            if not exists:
                raise ResultsTableMissing(
                    f"{VERDICTS_TABLE} does not exist; build the warehouse first "
                    "(`python -m ingest build` runs dbt, which creates it)"
                )

            def append() -> None:
                con.executemany(f"insert into {VERDICTS_TABLE} ({names}) values ({marks})", rows)
                wh.label_commit(
                    con, "ingest accept", f"acceptance verdicts of {outcome.spec.path}", {}
                )

            wh.commit(con, append)
        finally:
            con.close()
    return len(rows)
