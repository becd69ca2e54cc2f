"""The dbt project's layout rules (issue 14): marts in folders by purpose with one yml each,
every raw table the loader writes declared as a source, and the data-quality landing table owned
by dbt with `marts.data_quality_results` a view of its latest run."""

from __future__ import annotations

import pytest
import yaml

from tests.dbt.conftest import DBT_PROJECT

pytestmark = pytest.mark.slow

MARTS = DBT_PROJECT / "models" / "marts"
MART_FOLDERS = {"core", "run_detail", "comparisons", "data_quality", "dashboard"}


def _declared_raw_tables() -> set[str]:
    declared = set()
    for path in (DBT_PROJECT / "models" / "staging").glob("*/_*__sources.yml"):
        for source in yaml.safe_load(path.read_text(encoding="utf-8"))["sources"]:
            if source.get("schema") == "raw":
                declared |= {table["name"] for table in source["tables"]}
    return declared


def test_marts_are_in_purpose_folders_with_one_yml_each() -> None:
    loose = sorted(p.name for p in MARTS.glob("*.sql"))
    assert loose == [], f"marts outside a purpose folder: {loose}"
    folders = {p.name for p in MARTS.iterdir() if p.is_dir()}
    assert folders <= MART_FOLDERS
    for folder in folders - {"dashboard"}:
        assert (MARTS / folder / f"_{folder}__models.yml").is_file(), folder


def test_every_raw_table_is_a_declared_source(built_warehouse) -> None:
    written = {
        name
        for (name,) in built_warehouse.query(
            "select table_name from information_schema.tables where table_schema = 'raw'"
        )
    }
    assert written - _declared_raw_tables() == set()


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


def test_published_vs_measured_reads_no_mart_itself() -> None:
    # the comparison is split by job: figures, measured values (chk_ steps), matching rule
    path = DBT_PROJECT / "models" / "checks" / "reference" / "published_vs_measured.sql"
    text = path.read_text(encoding="utf-8")
    # a model's inputs are named in ref() or in its import_ctes([...]) list
    assert "'int_published_figures'" in text
    assert "'fct_workload_results'" not in text
