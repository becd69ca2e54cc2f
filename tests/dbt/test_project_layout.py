"""The dbt project's layout rules (issues 14 and 26): the folders are the layers and give the
build order (staging -> intermediate -> marts -> checks: a model reads its own layer or an
earlier one, so no intermediate model reads a mart), marts in folders by purpose, every raw table
the loader writes declared as a source, and the data-quality landing table owned by dbt with
`marts.data_quality_results` a view of its latest run.

A model's inputs are read from its SQL: `ref('x')`, the names in `import_ctes([...])` (the macro
that writes a model's import CTEs, STYLE.md rule 20) and the refs inside any other macro it
calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.dbt.conftest import DBT_PROJECT

MODELS = DBT_PROJECT / "models"
MARTS = MODELS / "marts"
# The layers in build order: a model reads models of its own layer or an earlier one (seeds are
# read by any layer).
LAYERS = ("staging", "intermediate", "marts", "checks")
MART_FOLDERS = {
    "core", "run_detail", "comparisons", "history", "data_quality", "dashboard", "reference",
}  # fmt: skip
MAX_YML_LINES = 300

_REF = re.compile(r"\bref\(\s*['\"]([a-z0-9_]+)['\"]\s*\)")
_IMPORTS = re.compile(r"\bimport_ctes\(\s*\[([^\]]*)\]", re.S)
_NAME = re.compile(r"['\"]([a-z0-9_]+)['\"]")
_MACRO = re.compile(r"{%-?\s*macro\s+([a-z0-9_]+)\((.*?){%-?\s*endmacro", re.S)


def _declared_raw_tables() -> set[str]:
    declared = set()
    for path in (MODELS / "staging").glob("*/_*__sources.yml"):
        for source in yaml.safe_load(path.read_text(encoding="utf-8"))["sources"]:
            if source.get("schema") == "raw":
                declared |= {table["name"] for table in source["tables"]}
    return declared


def _layer(path: Path) -> str:
    return path.relative_to(MODELS).parts[0]


def _models() -> dict[str, Path]:
    """Every model by name: SQL models and dbt Python models (`dbt.ref("x")` reads like
    `ref('x')`)."""
    return {path.stem: path for pattern in ("*.sql", "*.py") for path in MODELS.rglob(pattern)}


_ALIAS = re.compile(r"config\(\s*alias\s*=\s*['\"]([a-z0-9_]+)['\"]")


def relation_name(node: str) -> str:
    """The table a model node is stored as: its `config(alias=...)`, else its name
    (published_figures is stored as marts.published_results)."""
    path = _models().get(node)
    found = _ALIAS.search(path.read_text(encoding="utf-8")) if path else None
    return found.group(1) if found else node


def _macro_refs() -> dict[str, set[str]]:
    """Macro name -> the models its body refs, with those of the macros it calls."""
    bodies = {
        name: body
        for path in (DBT_PROJECT / "macros").glob("*.sql")
        for name, body in _MACRO.findall(path.read_text(encoding="utf-8"))
    }
    refs = {name: set(_REF.findall(body)) for name, body in bodies.items()}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            called = set().union(*(refs[m] for m in bodies if m != name and m + "(" in body))
            if not called <= refs[name]:
                refs[name] |= called
                changed = True
    return refs


MACRO_REFS = _macro_refs()


def model_inputs(sql: str) -> set[str]:
    """The models and seeds a model's SQL reads: its ref()s, its import_ctes([...]) names and
    the refs of the macros it calls."""
    found = set(_REF.findall(sql))
    for names in _IMPORTS.findall(sql):
        found |= set(_NAME.findall(names))
    for macro, refs in MACRO_REFS.items():
        if re.search(r"\b" + macro + r"\(", sql):
            found |= refs
    return found


def _upward_reads() -> list[str]:
    """Every read of a later layer, as `model (layer) reads input (layer)`."""
    models = _models()
    wrong = []
    for name, path in sorted(models.items()):
        layer = _layer(path)
        for read in sorted(model_inputs(path.read_text(encoding="utf-8"))):
            if read not in models:
                continue  # a seed
            read_layer = _layer(models[read])
            if LAYERS.index(read_layer) > LAYERS.index(layer):
                wrong.append(f"{name} ({layer}) reads {read} ({read_layer})")
    return wrong


def test_models_live_in_the_layer_folders() -> None:
    loose = sorted(p.name for p in MODELS.glob("*.sql"))
    assert loose == [], f"models outside a layer folder: {loose}"
    folders = {_layer(path) for path in _models().values()}
    assert folders <= set(LAYERS), folders - set(LAYERS)


def test_model_inputs_are_read_from_refs_and_import_ctes() -> None:
    sql = """{{ import_ctes([
        'int_a',
        "int_b",
    ]) }},
    c as (select * from {{ ref('fct_c') }} where x)"""
    assert model_inputs(sql) == {"int_a", "int_b", "fct_c"}


def test_no_model_reads_a_later_layer() -> None:
    # staging -> intermediate -> marts -> checks: the folders give the build order
    assert _upward_reads() == []


def test_no_intermediate_model_reads_a_mart() -> None:
    models = _models()
    marts = {name for name, path in models.items() if _layer(path) == "marts"}
    reading_marts = {
        name: sorted(model_inputs(path.read_text(encoding="utf-8")) & marts)
        for name, path in models.items()
        if _layer(path) == "intermediate"
    }
    assert {name: read for name, read in reading_marts.items() if read} == {}


def test_refs_written_by_macros_are_seen() -> None:
    # capacity_multiplier reads the policy rules through a ref of its own: a model calling it
    # reads that model (and import_ctes's refs are the names a model passes it)
    assert MACRO_REFS["capacity_multiplier"] == {"int_storage_policy_rules_by_cluster_size"}
    assert model_inputs("{{ capacity_multiplier('ftm', 'ftt', 'a') }}") == {
        "int_storage_policy_rules_by_cluster_size"
    }


def test_only_staging_reads_sources() -> None:
    reading = sorted(
        name
        for name, path in _models().items()
        if _layer(path) != "staging" and re.search(r"\bsource\(", path.read_text(encoding="utf-8"))
    )
    assert reading == []


def test_check_steps_are_named_as_a_layer_of_their_own() -> None:
    # int_ models are intermediate (they read no mart); the steps of a check, which read marts,
    # are chk_ models in checks/
    for name, path in _models().items():
        assert name.startswith("int_") == (_layer(path) == "intermediate"), name
        assert name.startswith("chk_") <= (_layer(path) == "checks"), name


def test_marts_are_in_purpose_folders() -> None:
    loose = sorted(p.name for p in MARTS.glob("*.sql"))
    assert loose == [], f"marts outside a purpose folder: {loose}"
    folders = {p.name for p in MARTS.iterdir() if p.is_dir()}
    assert folders <= MART_FOLDERS


def _property_files() -> list[Path]:
    return sorted(
        path
        for folder in ("models", "seeds", "macros")
        for path in (DBT_PROJECT / folder).rglob("*.yml")
    )


def test_property_files_stay_under_300_lines() -> None:
    # a folder's models share one yml while it stays short, else each model has its own
    long = {
        str(path.relative_to(DBT_PROJECT)): n
        for path in _property_files()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) >= MAX_YML_LINES
    }
    assert long == {}


def _described() -> dict[str, tuple[Path, str]]:
    """Model name -> (its property file, its description)."""
    found: dict[str, tuple[Path, str]] = {}
    for path in MODELS.rglob("*.yml"):
        for model in yaml.safe_load(path.read_text(encoding="utf-8")).get("models") or []:
            assert model["name"] not in found, f"{model['name']} described twice"
            found[model["name"]] = (path, model.get("description") or "")
    return found


def test_each_folder_has_one_models_yml_or_one_yml_per_model() -> None:
    described = _described()
    models = _models()
    assert set(described) == set(models)
    for name, path in models.items():
        yml = described[name][0]
        assert yml.parent == path.parent, f"{name} is described in {yml}"
        folder_ymls = sorted(p.name for p in path.parent.glob("_*__models.yml"))
        if yml.name == f"{name}.yml":
            assert folder_ymls == [], f"{path.parent}: a folder yml and per-model ymls"
        else:
            assert [yml.name] == folder_ymls, f"{name}: {yml.name} beside {folder_ymls}"


def test_every_model_states_its_grain() -> None:
    # STYLE.md rule 10: "one row per test run x job x direction"
    vague = sorted(
        name
        for name, (_, description) in _described().items()
        if not re.search(r"one row per|grain", description, re.I)
    )
    assert vague == []


@pytest.mark.slow
def test_every_raw_table_is_a_declared_source(built_warehouse) -> None:
    written = {
        name
        for (name,) in built_warehouse.query(
            "select table_name from information_schema.tables where table_schema = 'raw'"
        )
    }
    assert written - _declared_raw_tables() == set()


def _intermediate_tables() -> set[str]:
    """The intermediate models dbt_project.yml materializes as tables (by model name)."""
    config = yaml.safe_load((DBT_PROJECT / "dbt_project.yml").read_text(encoding="utf-8"))
    models = _models()
    found: set[str] = set()

    def walk(node: dict) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                if key in models and value.get("+materialized") == "table":
                    found.add(key)
                walk(value)

    walk(config["models"]["vsan_perf"]["intermediate"])
    return found


@pytest.mark.slow
def test_layers_build_into_their_schemas(built_warehouse) -> None:
    # staging and intermediate are views (but the few intermediate tables dbt_project.yml
    # names), the steps of checks views beside the intermediate models, marts (and the outcome
    # of a check, published_vs_measured) tables in marts
    built = {
        name: (schema, kind)
        for schema, name, kind in built_warehouse.query(
            "select table_schema, table_name, table_type from information_schema.tables "
            "where table_schema in ('staging', 'intermediate', 'marts')"
        )
    }
    tables = _intermediate_tables()
    assert tables, "dbt_project.yml names no intermediate table"
    for name, path in _models().items():
        layer = _layer(path)
        if name in tables:
            expected = ("intermediate", "BASE TABLE")
        elif layer in ("staging", "intermediate"):
            expected = (layer, "VIEW")
        elif name.startswith("chk_"):
            expected = ("intermediate", "VIEW")
        elif path.parent.name == "data_quality":
            expected = ("marts", "VIEW")
        else:
            expected = ("marts", "BASE TABLE")
        assert built.get(relation_name(name)) == expected, name


@pytest.mark.slow
def test_data_quality_results_is_a_view_of_the_latest_run(built_warehouse) -> None:
    kind = built_warehouse.query(
        "select table_type from information_schema.tables "
        "where table_schema = 'marts' and table_name = 'data_quality_results'"
    )
    assert kind == [("VIEW",)]
    runs = ("2001-01-01 00:00:00+00", "2001-01-02 00:00:00+00")
    insert = (
        "insert into data_quality.validation_results values "
        "(?::timestamptz, ?, 't', 'e', 'constraint', true, '', 0, '')"
    )
    try:
        for run_at in runs:
            built_warehouse.query(insert, [run_at, f"suite {run_at[:10]}"])
        shown = built_warehouse.query(
            "select suite from marts.data_quality_results where suite like 'suite 2001-%'"
        )
        # the history is kept, the view shows only the newest run
        kept = built_warehouse.query(
            "select count(*) from data_quality.validation_results where suite like 'suite 2001-%'"
        )
    finally:
        built_warehouse.query(
            "delete from data_quality.validation_results where suite like 'suite 2001-%'"
        )
    assert shown == [("suite 2001-01-02",)]
    assert kept == [(2,)]


def test_published_vs_measured_reads_the_figures_and_the_matching_rule() -> None:
    # the comparison is split by job: figures, measured values, matching rule; it reads no mart
    # itself (the chk_ steps do)
    path = MODELS / "checks" / "reference" / "published_vs_measured.sql"
    assert model_inputs(path.read_text(encoding="utf-8")) == {
        "int_published_figures",
        "chk_published_figures_matched",
        "reference_exceptions",
    }
