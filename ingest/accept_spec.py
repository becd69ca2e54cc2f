"""An acceptance spec (`ingest accept --spec FILE`): a YAML list of rules, read into typed records
with the line of every key, so an error names the file and the line.

    - name: AF-6 4K random 70/30 meets the ReadyNode target
      where: {testbed: micron-sata-vsan67, profile: baseline, read_pct: 70}
      require:
        min_iops_per_node_of_readynode_profile: AF-6
        max_avg_latency_ms: 5
        within_pct_of_published: {figure: micron67-fig10-baseline-cache-70r, pct: 5}

`where:` values are a scalar or a list (any of them); which keys exist depends on the warehouse
(its result columns and labels), so `accept_rules` checks them against it and raises the same
`SpecError` with the key's line. Everything that the file alone decides is checked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# Each requirement: the YAML type it takes, and what it means (for --help and errors).
NUMBER_REQUIREMENTS: dict[str, str] = {
    "min_iops": "IOPS at least this",
    "min_iops_per_node": "IOPS / nodes at least this",
    "max_avg_latency_ms": "mean latency at most this many ms",
    "max_p99_latency_ms": "p99 latency at most this many ms",
    "max_vm_spread_pct": "no VM's (output's) IOPS further than this % from the mean VM",
}
TRUE_REQUIREMENTS: dict[str, str] = {
    "steady_state": "the run reached steady state (fct_result_steady_state)",
    "no_regression": "no open or confirmed change point for the worse (marts.change_points)",
}
TEXT_REQUIREMENTS: dict[str, str] = {
    "min_iops_per_node_of_readynode_profile": "IOPS / nodes at least the ReadyNode profile's "
    "target (marts.readynode_profile_targets)",
}
PUBLISHED_REQUIREMENT = "within_pct_of_published"
REQUIREMENTS: tuple[str, ...] = (
    *NUMBER_REQUIREMENTS,
    *TRUE_REQUIREMENTS,
    *TEXT_REQUIREMENTS,
    PUBLISHED_REQUIREMENT,
)
RULE_KEYS = ("name", "where", "require")

Scalar = str | int | float | bool


class SpecError(Exception):
    """The spec is wrong: `path`, `line` (1-based, None when the file cannot be read) and what."""

    def __init__(self, path: Path, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        self.reason = reason
        place = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{place}: {reason}")


@dataclass(frozen=True)
class WhereKey:
    """One `where:` key: the result must have one of `values` for it."""

    key: str
    values: tuple[Scalar, ...]
    line: int


@dataclass(frozen=True)
class Requirement:
    """One `require:` entry. `value` is a number, True, a ReadyNode profile name, or (figure id,
    pct) for within_pct_of_published."""

    name: str
    value: float | bool | str | tuple[str, float]
    line: int


@dataclass(frozen=True)
class Rule:
    name: str
    where: tuple[WhereKey, ...]
    require: tuple[Requirement, ...]
    line: int


@dataclass(frozen=True)
class Spec:
    path: Path
    rules: tuple[Rule, ...]


def read_spec(path: Path) -> Spec:
    """The spec in `path`; SpecError for a file that cannot be read or a wrong rule."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(path, None, f"cannot read the spec: {exc}") from None
    return parse_spec(text, path)


def parse_spec(text: str, path: Path) -> Spec:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        raise SpecError(path, line, f"not YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise SpecError(path, None, f"not YAML: {exc}") from None
    if root is None:
        raise SpecError(path, 1, "the spec is empty: a YAML list of rules is expected")
    if not isinstance(root, SequenceNode):
        raise SpecError(path, _line(root), "a YAML list of rules is expected (`- where: ...`)")
    if not root.value:
        raise SpecError(path, _line(root), "the spec has no rules")
    return Spec(path, tuple(_rule(node, index, path) for index, node in enumerate(root.value)))


def _line(node: Node) -> int:
    return node.start_mark.line + 1


def _mapping(node: Node, what: str, path: Path) -> list[tuple[ScalarNode, Node]]:
    if not isinstance(node, MappingNode):
        raise SpecError(path, _line(node), f"{what} must be a mapping (key: value)")
    pairs: list[tuple[ScalarNode, Node]] = []
    seen: set[str] = set()
    for key, value in node.value:
        if not isinstance(key, ScalarNode):
            raise SpecError(path, _line(key), f"a key of {what} must be a plain name")
        if key.value in seen:
            raise SpecError(path, _line(key), f"{key.value!r} is given twice in {what}")
        seen.add(key.value)
        pairs.append((key, value))
    return pairs


def _rule(node: Node, index: int, path: Path) -> Rule:
    pairs = dict((k.value, (k, v)) for k, v in _mapping(node, f"rule {index + 1}", path))
    for key, (key_node, _) in pairs.items():
        if key not in RULE_KEYS:
            raise SpecError(
                path,
                _line(key_node),
                f"unknown rule key {key!r} (a rule has {', '.join(RULE_KEYS)})",
            )
    for needed in ("where", "require"):
        if needed not in pairs:
            raise SpecError(path, _line(node), f"rule {index + 1} has no `{needed}:`")
    name = f"rule {index + 1} (line {_line(node)})"
    if "name" in pairs:
        name_node = pairs["name"][1]
        name = str(_scalar(name_node, "name", path))
    where_node = pairs["where"][1]
    where = tuple(_where(k, v, path) for k, v in _mapping(where_node, "where", path))
    if not where:
        # an empty `where:` would pick every result: almost always a slip, never what CI means
        raise SpecError(path, _line(where_node), "where has no key: say which results to check")
    return Rule(
        name=name,
        where=where,
        require=_requirements(pairs["require"][1], path),
        line=_line(node),
    )


def _scalar(node: Node, what: str, path: Path) -> Scalar:
    """A YAML scalar with its YAML type (int, float, bool, text); null is refused."""
    if not isinstance(node, ScalarNode):
        raise SpecError(path, _line(node), f"{what} must be a single value")
    value = SafeConstructor().construct_object(node)
    if value is None:
        raise SpecError(path, _line(node), f"{what} has no value")
    if not isinstance(value, str | int | float | bool):
        raise SpecError(path, _line(node), f"{what} must be a number, true/false or text")
    return value


def _where(key: ScalarNode, node: Node, path: Path) -> WhereKey:
    what = f"where.{key.value}"
    if isinstance(node, SequenceNode):
        if not node.value:
            raise SpecError(path, _line(node), f"{what} is an empty list")
        values = tuple(_scalar(item, what, path) for item in node.value)
    else:
        values = (_scalar(node, what, path),)
    return WhereKey(key.value, values, _line(key))


def _requirements(node: Node, path: Path) -> tuple[Requirement, ...]:
    pairs = _mapping(node, "require", path)
    if not pairs:
        raise SpecError(path, _line(node), "require has no requirement")
    return tuple(_requirement(key, value, path) for key, value in pairs)


def _requirement(key: ScalarNode, node: Node, path: Path) -> Requirement:
    name, line = key.value, _line(key)
    what = f"require.{name}"
    if name in NUMBER_REQUIREMENTS:
        return Requirement(name, _number(node, what, path), line)
    if name in TRUE_REQUIREMENTS:
        if _scalar(node, what, path) is not True:
            raise SpecError(path, _line(node), f"{what} takes `true` (leave it out otherwise)")
        return Requirement(name, True, line)
    if name in TEXT_REQUIREMENTS:
        value = _scalar(node, what, path)
        if not isinstance(value, str):
            raise SpecError(path, _line(node), f"{what} takes a profile name such as AF-6")
        return Requirement(name, value, line)
    if name == PUBLISHED_REQUIREMENT:
        return Requirement(name, _published(node, what, path), line)
    raise SpecError(path, line, f"unknown requirement {name!r} (known: {', '.join(REQUIREMENTS)})")


def _number(node: Node, what: str, path: Path) -> float:
    value = _scalar(node, what, path)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise SpecError(path, _line(node), f"{what} takes a number, not {value!r}")
    if value < 0:
        raise SpecError(path, _line(node), f"{what} takes a number of at least 0, not {value}")
    return float(value)


def _published(node: Node, what: str, path: Path) -> tuple[str, float]:
    pairs = {k.value: (k, v) for k, v in _mapping(node, what, path)}
    unknown = [k for k in pairs if k not in ("figure", "pct")]
    if unknown:
        raise SpecError(
            path, _line(pairs[unknown[0]][0]), f"{what} has figure and pct, not {unknown[0]!r}"
        )
    if "figure" not in pairs or "pct" not in pairs:
        raise SpecError(path, _line(node), f"{what} needs both figure: ID and pct: N")
    figure = _scalar(pairs["figure"][1], f"{what}.figure", path)
    return str(figure), _number(pairs["pct"][1], f"{what}.pct", path)
