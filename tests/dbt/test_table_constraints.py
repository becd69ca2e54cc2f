"""The constraints of table models (macros/table_constraints.sql): `not_null`, `unique`,
`foreign_key` and `check`, declared in the YAML, checked by the post-hook in the model's
transaction, only on tables; and the project's table materialization
(macros/materializations/table.sql), which replaces a table in that one transaction."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

from tests.dbt.conftest import DBT_PROJECT

pytestmark = pytest.mark.slow


def _declared() -> dict[str, list[str]]:
    """model name -> the columns its YAML's not_null and unique constraints name."""
    found: dict[str, list[str]] = {}
    for path in sorted((DBT_PROJECT / "models").rglob("*.yml")):
        for model in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("models", []):
            names = [c for k in model.get("constraints", []) for c in k.get("columns", [])]
            for column in model.get("columns", []):
                kinds = {c.get("type") for c in column.get("constraints", [])}
                if kinds & {"not_null", "unique"}:
                    names.append(column["name"])
            if names:
                found[model["name"]] = names
    return found


DECLARED = _declared()
# A model whose table is named otherwise (`config(alias='published_results')`).
ALIASES = {
    path.stem: match.group(1)
    for path in (DBT_PROJECT / "models").rglob("*.sql")
    if (match := re.search(r"alias\s*=\s*'(\w+)'", path.read_text(encoding="utf-8")))
}


def test_the_reference_build_checks_every_table_s_declared_columns(built_warehouse):
    """The build passed with the hook on every table; the declared columns exist (a
    misspelt name would check nothing: the hook names it, and DuckDB refuses it)."""
    assert built_warehouse.build_success, built_warehouse.build_failures
    present = set(
        built_warehouse.query(
            "select table_name, column_name from information_schema.columns "
            "where table_schema in ('intermediate', 'marts', 'checks')"
        )
    )
    assert len(DECLARED) > 40  # the tables of the result pipeline and the marts
    for model, columns in DECLARED.items():
        for column in columns:
            assert (ALIASES.get(model, model), column) in present, f"{model}.{column}"


def test_no_column_keeps_the_test_beside_its_constraint():
    """One check, one place: a constrained column does not also keep the data test."""
    for path in sorted((DBT_PROJECT / "models").rglob("*.yml")):
        for model in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("models", []):
            for column in model.get("columns", []):
                kinds = {c.get("type") for c in column.get("constraints", [])}
                tests = set(t for t in column.get("data_tests") or [] if isinstance(t, str))
                assert not kinds & tests, f"{model['name']}.{column['name']}: {kinds & tests}"


def _build_project(
    tmp_path: Path, models: dict[str, str], materialized: str, *, fails: bool = True
) -> dict:
    """`dbt build` of a one-folder project with the post-hook and the project's table
    materialization: node name -> (status, message)."""
    from dbt.cli.main import dbtRunner

    project = tmp_path / "project"
    shutil.rmtree(project, ignore_errors=True)  # a second build of the same warehouse
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    shutil.copy(DBT_PROJECT / "macros" / "table_constraints.sql", project / "macros")
    shutil.copytree(DBT_PROJECT / "macros" / "materializations", project / "macros" / "m")
    (project / "dbt_project.yml").write_text(
        "name: nn\nversion: '1.0'\nconfig-version: 2\nprofile: nn\n"
        f"models:\n  nn:\n    +materialized: {materialized}\n"
        '    +post-hook: "{{ enforce_table_constraints() }}"\n',
        encoding="utf-8",
    )
    (project / "profiles.yml").write_text(
        "nn:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {tmp_path / 'nn.duckdb'}\n      threads: 1\n",
        encoding="utf-8",
    )
    for name, text in models.items():
        (project / "models" / name).write_text(text, encoding="utf-8")
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    args = ["--project-dir", str(project), "--profiles-dir", str(project), "--quiet"]
    result = dbtRunner().invoke(["build", *args, "--log-path", str(tmp_path / "logs")])
    assert result.success is not fails, result.exception
    return {r.node.name: (str(r.status), r.message or "") for r in result.result}


RESULTS = {  # a NULL in the second not_null column
    "results.sql": "select * from (values (1, 10.0), (2, null)) as v(result_id, iops)",
    "per_node.sql": "select * from {{ ref('results') }}",
    "results.yml": (
        "version: 2\nmodels:\n  - name: results\n    columns:\n"
        "      - name: result_id\n        constraints: [{type: not_null}]\n"
        "      - name: iops\n        constraints: [{type: not_null}]\n"
    ),
}


def test_a_null_in_a_constrained_column_fails_the_model_and_skips_what_reads_it(tmp_path):
    status = _build_project(tmp_path, RESULTS, "table")
    assert status["results"][0] == "error"
    assert "NOT NULL constraint failed: results.iops" in status["results"][1]
    assert "result_id" not in status["results"][1]  # the column that holds the NULL
    assert status["per_node"][0] == "skipped"


def test_a_view_that_declares_a_constraint_fails_instead_of_checking_nothing(tmp_path):
    status = _build_project(tmp_path, RESULTS, "view")
    assert status["results"][0] == "error"
    assert "results is a view: it declares constraints" in status["results"][1]


DUPLICATES = {  # result 2 twice; (esx-01, 7) twice; (NULL, 8) twice
    "results.sql": (
        "select * from (values (1, 'esx-01', 7), (2, 'esx-01', 7), (2, null, 8), (3, null, 8))"
        " as v(result_id, host, sample)"
    ),
    "per_node.sql": "select * from {{ ref('results') }}",
}
UNIQUE_COLUMN = (
    "version: 2\nmodels:\n  - name: results\n    columns:\n"
    "      - name: result_id\n        constraints: [{type: not_null}, {type: unique}]\n"
)
UNIQUE_KEY = (
    "version: 2\nmodels:\n  - name: results\n"
    "    constraints:\n      - type: unique\n        columns: [host, sample]\n"
)


def test_a_repeated_value_of_a_unique_column_fails_the_model_with_the_value(tmp_path):
    status = _build_project(tmp_path, {**DUPLICATES, "results.yml": UNIQUE_COLUMN}, "table")
    assert status["results"][0] == "error"
    assert "UNIQUE constraint failed: results.(result_id): 2 rows hold (2)" in status["results"][1]
    assert status["per_node"][0] == "skipped"


def test_a_unique_key_counts_its_nulls_as_one_value(tmp_path):
    """A key's NULLs are grouped, as tests/generic/unique_combination_of_columns.sql did."""
    models = {**DUPLICATES, "results.yml": UNIQUE_KEY}
    models["results.sql"] = models["results.sql"].replace("(2, 'esx-01', 7)", "(2, 'esx-02', 7)")
    status = _build_project(tmp_path, models, "table")
    assert status["results"][0] == "error"
    assert "results.(host, sample): 2 rows hold (NULL, 8)" in status["results"][1]


FOREIGN_KEY = {  # result 9's testbed 3 is not a testbed; result 8 has none (NULL)
    "testbeds.sql": "select * from (values (1), (2)) as v(testbed_id)",
    "results.sql": "select * from (values (7, 1), (8, null), (9, 3)) as v(result_id, testbed_id)",
    "per_node.sql": "select * from {{ ref('results') }}",
    "results.yml": (
        "version: 2\nmodels:\n  - name: results\n    columns:\n"
        "      - name: testbed_id\n        constraints:\n"
        "          - {type: foreign_key, to: ref('testbeds'), to_columns: [testbed_id]}\n"
    ),
}


def test_a_value_missing_from_the_parent_fails_the_model_and_a_null_does_not(tmp_path):
    """dbt's `relationships` test as a constraint: `to` is built first (dbt makes it a
    dependency), every non-NULL value must be one of its keys."""
    status = _build_project(tmp_path, FOREIGN_KEY, "table")
    assert status["testbeds"][0] == "success"
    assert status["results"][0] == "error"
    message = status["results"][1]
    assert "FOREIGN KEY constraint failed: results.(testbed_id) = (3) is not in" in message
    assert 'testbeds".(testbed_id)' in message or "testbeds.(testbed_id)" in message
    assert status["per_node"][0] == "skipped"
    # without result 9 the NULL of result 8 passes, as the test let it
    models = {**FOREIGN_KEY, "results.sql": FOREIGN_KEY["results.sql"].replace(", (9, 3)", "")}
    status = _build_project(tmp_path, models, "table", fails=False)
    assert status["results"][0] == "success" and status["per_node"][0] == "success"


CHECK = {  # `udp` is not a transport; NULL (no label) passes
    "results.sql": (
        "select * from (values (1, 'tcp', 0.2), (2, null, 0.9), (3, 'udp', 0.5))"
        " as v(result_id, transport, q_value)"
    ),
    "results.yml": (
        "version: 2\nmodels:\n  - name: results\n    columns:\n"
        "      - name: transport\n        constraints:\n"
        "          - {type: check, expression: \"transport in ('tcp', 'rdma')\"}\n"
    ),
}


def test_a_value_outside_a_check_fails_the_model_with_the_column_and_an_example(tmp_path):
    """dbt's `accepted_values` test as a check constraint: NULL passes, as it did."""
    status = _build_project(tmp_path, CHECK, "table")
    assert status["results"][0] == "error"
    assert (
        "CHECK constraint failed: results.transport: transport in ('tcp', 'rdma'): 1 rows, e.g. udp"
        in status["results"][1]
    )
    models = {**CHECK, "results.sql": CHECK["results.sql"].replace("'udp'", "'rdma'")}
    assert _build_project(tmp_path, models, "table", fails=False)["results"][0] == "success"


def test_a_model_level_check_names_the_table_and_counts_the_rows(tmp_path):
    yml = (
        "version: 2\nmodels:\n  - name: results\n    constraints:\n"
        "      - {type: check, expression: q_value < 0.8}\n"
    )
    status = _build_project(tmp_path, {**CHECK, "results.yml": yml}, "table")
    assert "CHECK constraint failed: results: q_value < 0.8: 1 rows" in status["results"][1]


def test_a_rebuild_that_breaks_a_constraint_leaves_the_previous_table(tmp_path):
    """The table is dropped, made again and checked in one transaction: a violation rolls
    it all back, so readers keep the last good table (as dbt's build-beside-and-swap did)."""
    models = {**CHECK, "results.sql": CHECK["results.sql"].replace("'udp'", "'rdma'")}
    _build_project(tmp_path, models, "table", fails=False)
    _build_project(tmp_path, CHECK, "table")  # 'udp': refused
    # (dbt keeps the database open in this process: same settings, so not read-only)
    with duckdb.connect(str(tmp_path / "nn.duckdb")) as con:
        rows = con.execute("select result_id, transport from results order by 1").fetchall()
    assert rows == [(1, "tcp"), (2, None), (3, "rdma")]


def test_no_table_keeps_a_data_test(tmp_path):
    """Every check of a table is a constraint (a data test is a dbt node of its own, about
    25 ms of dbt's Python each in every build that rebuilds the table): the tests left are
    those that read a view or a seed."""
    assert _tests_of(tmp_path, "table") == []
    # the same listing finds the tests of views (it would find a table's)
    assert "not_null_stg_fio__jobs_fio_job_id" in _tests_of(tmp_path, "view")


def _tests_of(tmp_path: Path, materialized: str) -> list[str]:
    """The data tests whose every parent is a model of that materialization (`dbt ls`)."""
    from dbt.cli.main import dbtRunner

    listed = dbtRunner().invoke(
        ["ls", "--project-dir", str(DBT_PROJECT), "--profiles-dir", str(DBT_PROJECT),
         "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs"),
         "--quiet", "--output", "name", "--resource-type", "test",
         "--select", f"config.materialized:{materialized}", "--indirect-selection", "cautious"]
    )  # fmt: skip
    assert listed.success, listed.exception
    return sorted(listed.result)
