"""Acceptance specs (`ingest accept --spec`): what a spec error says (the file, the line, what)
and that the command exits 2 on one before it reads any warehouse."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.__main__ import main
from ingest.accept_spec import SpecError, parse_spec, read_spec
from tests.conftest import marts_warehouse

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "acceptance.yaml"
SPEC = Path("acceptance.yaml")


def _error(text: str) -> SpecError:
    with pytest.raises(SpecError) as caught:
        parse_spec(text, SPEC)
    return caught.value


def test_the_example_spec_parses_into_its_rules() -> None:
    spec = read_spec(EXAMPLE)
    assert [len(r.require) for r in spec.rules] == [3, 2, 2]
    first = spec.rules[0]
    assert [(w.key, w.values) for w in first.where] == [
        ("testbed", ("micron-sata-vsan67",)),
        ("working_set", ("cache",)),
        ("read_pct", (100,)),
        ("block_size_bytes", (4096,)),
    ]
    published = spec.rules[1].require[0]
    assert published.name == "within_pct_of_published"
    assert published.value == ("micron67-fig10-baseline-cache-r100-iops", 5.0)


def test_where_lists_mean_any_of_and_rules_without_a_name_are_named_by_their_line() -> None:
    spec = parse_spec("- where: {profile: [baseline, density]}\n  require: {min_iops: 1}\n", SPEC)
    (rule,) = spec.rules
    assert rule.where[0].values == ("baseline", "density")
    assert rule.name == "rule 1 (line 1)"


def test_an_unknown_rule_key_names_its_line() -> None:
    error = _error("- where: {profile: baseline}\n  require: {min_iops: 1}\n  wehre: x\n")
    assert error.line == 3
    assert "unknown rule key 'wehre'" in error.reason
    assert str(error).startswith("acceptance.yaml:3: ")


def test_an_unknown_requirement_names_its_line_and_the_known_ones() -> None:
    error = _error("- where: {profile: baseline}\n  require:\n    min_iops: 1\n    max_iops: 9\n")
    assert error.line == 4
    assert "unknown requirement 'max_iops'" in error.reason
    assert "min_iops_per_node_of_readynode_profile" in error.reason


@pytest.mark.parametrize(
    ("require", "line", "words"),
    [
        ("    min_iops: fast\n", 3, "require.min_iops takes a number, not 'fast'"),
        ("    max_avg_latency_ms: -1\n", 3, "at least 0"),
        ("    steady_state: false\n", 3, "takes `true`"),
        ("    min_iops_per_node_of_readynode_profile: 6\n", 3, "a profile name such as AF-6"),
        ("    within_pct_of_published: {figure: f1}\n", 3, "needs both figure: ID and pct: N"),
        ("    within_pct_of_published: {figure: f1, pct: x}\n", 3, "pct takes a number"),
        ("    min_iops: [1, 2]\n", 3, "must be a single value"),
    ],
)
def test_a_wrong_type_names_the_line_of_the_value(require: str, line: int, words: str) -> None:
    error = _error(f"- where: {{profile: baseline}}\n  require:\n{require}")
    assert error.line == line
    assert words in error.reason


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "the spec is empty"),
        ("where: {a: 1}\n", 1, "a YAML list of rules"),
        ("- require: {min_iops: 1}\n", 1, "has no `where:`"),
        ("- where: {a: 1}\n  require: {}\n", 2, "require has no requirement"),
        ("- where: {}\n  require: {min_iops: 1}\n", 1, "where has no key"),
        ("- where: {a: 1}\n  require: {min_iops: 1\n", 3, "not YAML"),
        ("- where: {a: 1, a: 2}\n  require: {min_iops: 1}\n", 1, "'a' is given twice"),
        ("- where: {a: ~}\n  require: {min_iops: 1}\n", 1, "where.a has no value"),
    ],
)
def test_a_wrong_shape_names_its_line(text: str, line: int, words: str) -> None:
    error = _error(text)
    assert error.line == line
    assert words in error.reason


def test_the_command_exits_2_with_the_file_and_line_before_reading_a_warehouse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "acceptance.yaml"
    spec.write_text("- where: {profile: baseline}\n  require:\n    min_iops: fast\n")
    missing = tmp_path / "no-warehouse.duckdb"
    assert main(["accept", "--spec", str(spec), "--db", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"{spec}:3:" in " ".join(err.split())
    assert not missing.exists()


def test_a_missing_spec_file_is_a_spec_error(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        read_spec(tmp_path / "nope.yaml")
    assert caught.value.line is None
    assert "cannot read the spec" in caught.value.reason


@pytest.mark.parametrize(
    ("sql", "words"),
    [
        ("create schema marts", "the warehouse has no marts yet: run `python -m ingest build`"),
        (
            "create schema marts; create table marts.fct_workload_results (result_id varchar)",
            "the warehouse lacks marts.fct_result_host_cpu, marts.fct_result_labels",
        ),
    ],
)
def test_a_warehouse_without_the_marts_exits_1_and_says_to_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sql: str, words: str
) -> None:
    spec = tmp_path / "acceptance.yaml"
    spec.write_text("- where: {profile: baseline}\n  require: {min_iops: 1}\n")
    db = marts_warehouse(tmp_path / "warehouse.duckdb", sql)
    assert main(["accept", "--spec", str(spec), "--db", str(db)]) == 1
    assert words in " ".join(capsys.readouterr().err.split())
