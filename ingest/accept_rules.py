"""Verdicts: each requirement of a rule on each result it matches (pass / fail / inconclusive with
the measured value, the limit and the unit), the run-validity rules that keep a result from
passing, and how a result's and a rule's verdict follow from them. Pure functions on the facts
`accept_facts` read.

Run validity (a result excluded by one of these fails, whatever it measured, and says which):
- `steady_state`: the interval series never reached steady state (is_steady_state false; a
  result without an interval series is not judged here, only by `require: steady_state`);
- `vms_finished_early`: outputs (VMs, fio jobs) left out because they never finished;
- `partial`: any other partial result (an HCIBench -res.txt cut short);
- `host_cpu_saturated`: marts.fct_result_host_cpu says so (the busiest host's mean CPU at or
  above dbt var host_cpu_saturated_pct; history's run validity uses the same column).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ingest.accept_facts import Catalog, ChangePoint, ResultFacts
from ingest.accept_spec import Requirement, Rule, SpecError

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
_SEVERITY = {PASS: 0, INCONCLUSIVE: 1, FAIL: 2}
NO_CHANGE_POINT_MART = "inconclusive: no change-point mart in this warehouse"
# Published metrics that are a result's own measure (a column of fct_workload_results).
RESULT_METRICS = (
    "iops", "read_iops", "write_iops", "throughput_mb_s",
    "avg_latency_ms", "read_latency_ms", "write_latency_ms", "p95_latency_ms", "p99_latency_ms",
)  # fmt: skip


@dataclass(frozen=True)
class Check:
    requirement: str
    status: str
    measured: float | None
    limit: float | None
    unit: str
    reason: str


@dataclass(frozen=True)
class Exclusion:
    validity_rule: str
    reason: str


@dataclass(frozen=True)
class ResultVerdict:
    facts: ResultFacts
    status: str
    excluded_by: tuple[Exclusion, ...]
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class RuleVerdict:
    rule: Rule
    status: str
    reason: str
    results: tuple[ResultVerdict, ...]


def worst(statuses: list[str]) -> str:
    return max(statuses, key=_SEVERITY.__getitem__, default=PASS)


def _fmt(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".")


# --- run validity ---------------------------------------------------------------------------


def exclusions(facts: ResultFacts) -> tuple[Exclusion, ...]:
    found: list[Exclusion] = []
    if facts.is_steady_state is False:
        found.append(
            Exclusion(
                "steady_state",
                f"never reached steady state ({facts.steady_state_criterion})",
            )
        )
    if facts.vms_excluded > 0:
        found.append(Exclusion("vms_finished_early", facts.partial_reason or "VMs left out"))
    elif facts.is_partial:
        found.append(Exclusion("partial", facts.partial_reason or "partial result"))
    if facts.is_host_cpu_saturated:
        # a host this busy limits the storage it drives: the run measures the CPU, not vSAN
        assert facts.host_cpu_pct is not None and facts.host_cpu_saturated_pct is not None
        host = f" on {facts.busiest_host}" if facts.busiest_host else ""
        found.append(
            Exclusion(
                "host_cpu_saturated",
                f"host CPU {_fmt(facts.host_cpu_pct)} %{host} "
                f">= {_fmt(facts.host_cpu_saturated_pct)} % (saturated)",
            )
        )
    return tuple(found)


# --- requirements ----------------------------------------------------------------------------


def _bound(
    name: str, measured: float | None, limit: float, unit: str, *, at_least: bool, what: str
) -> Check:
    if measured is None:
        return Check(name, INCONCLUSIVE, None, limit, unit, f"inconclusive: no {what}")
    ok = measured >= limit if at_least else measured <= limit
    sign = (">=" if ok else "<") if at_least else ("<=" if ok else ">")
    reason = f"{what} {_fmt(measured)} {unit} {sign} {_fmt(limit)} {unit}"
    return Check(name, PASS if ok else FAIL, measured, limit, unit, reason)


NUMBER_CHECKS = {
    # requirement: (the measure read, unit, at_least, words)
    "min_iops": ("iops", "IOPS", True, "IOPS"),
    "min_iops_per_node": ("iops_per_node", "IOPS/node", True, "IOPS per node"),
    "max_avg_latency_ms": ("avg_latency_ms", "ms", False, "mean latency"),
    "max_p99_latency_ms": ("p99_latency_ms", "ms", False, "p99 latency"),
    "max_vm_spread_pct": ("vm_spread_pct", "%", False, "VM spread"),
}


def _measured(facts: ResultFacts, measure: str) -> float | None:
    if measure == "iops_per_node":
        return facts.iops_per_node
    if measure == "vm_spread_pct":
        # one output has no spread to speak of
        return facts.vm_spread_pct if facts.output_count >= 2 else None
    return facts.measure(measure)


def check(req: Requirement, facts: ResultFacts, catalog: Catalog) -> Check:
    if req.name in NUMBER_CHECKS:
        measure, unit, at_least, what = NUMBER_CHECKS[req.name]
        assert isinstance(req.value, float)
        return _bound(
            req.name, _measured(facts, measure), req.value, unit, at_least=at_least, what=what
        )
    if req.name == "steady_state":
        return _steady_state(facts)
    if req.name == "min_iops_per_node_of_readynode_profile":
        assert isinstance(req.value, str)
        target = catalog.readynode_targets[req.value]
        return _bound(
            req.name,
            facts.iops_per_node,
            target,
            "IOPS/node",
            at_least=True,
            what=f"IOPS per node (ReadyNode {req.value} target)",
        )
    if req.name == "within_pct_of_published":
        assert isinstance(req.value, tuple)
        return _within_published(facts, catalog, *req.value)
    if req.name == "no_regression":
        return _no_regression(facts, catalog)
    raise ValueError(f"no check for requirement {req.name!r}")  # accept_spec knows them all


def _steady_state(facts: ResultFacts) -> Check:
    if facts.is_steady_state is None:
        return Check(
            "steady_state", INCONCLUSIVE, None, None, "", "inconclusive: no interval series"
        )
    if facts.is_steady_state:
        return Check("steady_state", PASS, None, None, "", "reached steady state")
    return Check(
        "steady_state",
        FAIL,
        None,
        None,
        "",
        f"never reached steady state ({facts.steady_state_criterion})",
    )


def _within_published(facts: ResultFacts, catalog: Catalog, figure_id: str, pct: float) -> Check:
    name = "within_pct_of_published"
    figure = catalog.figures[figure_id]
    measured = facts.measure(figure.metric)
    if measured is None:
        return Check(name, INCONCLUSIVE, None, pct, "%", f"inconclusive: no {figure.metric}")
    if figure.value == 0:
        return Check(name, INCONCLUSIVE, measured, pct, "%", "inconclusive: published value is 0")
    off = 100 * (measured - figure.value) / figure.value
    ok = abs(off) <= pct
    reason = (
        f"{figure.metric} {_fmt(measured)} {figure.unit} is {off:+.2f} % from {figure_id} "
        f"({_fmt(figure.value)} {figure.unit}); limit ±{_fmt(pct)} %"
    )
    return Check(name, PASS if ok else FAIL, off, pct, "%", reason)


def is_worse(change: ChangePoint) -> bool:
    """Latency up is worse; for every other measure (IOPS, MB/s, IOPS per CPU %) down is."""
    return change.change_pct > 0 if "latency" in change.measure else change.change_pct < 0


def applies_to(change: ChangePoint, facts: ResultFacts) -> bool:
    """The change is in the result's series (its series_key, marts.history_points; in a
    warehouse without it, the same values of the change point's columns that results have)
    and the result is at or after it. A change point without either says nothing about other
    results: it applies to its own only."""
    if change.result_id == facts.result_id:
        return True
    if change.series_key is not None and facts.series_key is not None:
        if change.series_key != facts.series_key:
            return False
    elif not change.series or any(facts.columns.get(k) != v for k, v in change.series.items()):
        return False
    if change.started_at is None or facts.started_at is None:
        return False
    return facts.started_at >= change.started_at


def _no_regression(facts: ResultFacts, catalog: Catalog) -> Check:
    name = "no_regression"
    if not catalog.change_points.present:
        return Check(name, INCONCLUSIVE, None, None, "", NO_CHANGE_POINT_MART)
    worse = [c for c in catalog.change_points.rows if is_worse(c) and applies_to(c, facts)]
    if not worse:
        return Check(name, PASS, None, None, "", "no open or confirmed change for the worse")
    largest = max(worse, key=lambda c: abs(c.change_pct))
    reasons = "; ".join(
        f"{c.measure} {c.change_pct:+.1f} % from result {c.result_id} ({c.review_state})"
        for c in worse
    )
    return Check(name, FAIL, largest.change_pct, 0.0, "%", f"change for the worse: {reasons}")


# --- what the spec names must exist in the warehouse -------------------------------------------


def check_references(rule: Rule, catalog: Catalog, spec_path: Path) -> None:
    """SpecError, with the line, for a where key, ReadyNode profile or figure this warehouse
    does not have (or a figure that is not a result's own measure)."""
    for where in rule.where:
        if where.key not in catalog.column_types and where.key not in catalog.label_keys:
            known = ", ".join(catalog.known_keys())
            raise SpecError(
                spec_path, where.line, f"unknown where key {where.key!r}; known keys: {known}"
            )
    for req in rule.require:
        if req.name == "min_iops_per_node_of_readynode_profile" and (
            req.value not in catalog.readynode_targets
        ):
            known = ", ".join(sorted(catalog.readynode_targets))
            raise SpecError(
                spec_path, req.line, f"unknown ReadyNode profile {req.value!r} (known: {known})"
            )
        if req.name == "within_pct_of_published":
            assert isinstance(req.value, tuple)
            figure = catalog.figures.get(req.value[0])
            if figure is None:
                raise SpecError(
                    spec_path,
                    req.line,
                    f"no published figure {req.value[0]!r} in marts.published_results",
                )
            if figure.metric not in RESULT_METRICS:
                raise SpecError(
                    spec_path,
                    req.line,
                    f"figure {figure.figure_id!r} is a {figure.metric} figure; "
                    f"within_pct_of_published needs one of {', '.join(RESULT_METRICS)}",
                )


# --- verdicts ----------------------------------------------------------------------------------


def result_verdict(rule: Rule, facts: ResultFacts, catalog: Catalog) -> ResultVerdict:
    checks = tuple(check(req, facts, catalog) for req in rule.require)
    excluded = exclusions(facts)
    status = FAIL if excluded else worst([c.status for c in checks])
    return ResultVerdict(facts, status, excluded, checks)


def rule_verdict(rule: Rule, results: list[ResultFacts], catalog: Catalog) -> RuleVerdict:
    if not results:
        return RuleVerdict(rule, FAIL, "fail: the rule matches no result", ())
    verdicts = tuple(result_verdict(rule, facts, catalog) for facts in results)
    status = worst([v.status for v in verdicts])
    counts = {s: sum(v.status == s for v in verdicts) for s in (PASS, FAIL, INCONCLUSIVE)}
    reason = ", ".join(f"{n} {s}" for s, n in counts.items() if n) + f" of {len(verdicts)}"
    return RuleVerdict(rule, status, reason, verdicts)
