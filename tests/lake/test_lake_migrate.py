"""`python -m ingest migrate`: a built warehouse file copied into a lake (real PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import warehouse
from ingest.raw_schema import raw_tables
from tests.lake.file_warehouse import built_file_warehouse, file_rows, lake_rows, migrate
from warehouse import ducklake

TABLES = (
    "select schema_name, table_name from duckdb_tables() where database_name = current_database()"
    " and schema_name in ('raw', 'marts', 'data_quality') order by all"
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_file_warehouse(tmp_path_factory)


def text(out: str) -> str:
    """A message with the terminal's line wrapping undone."""
    return " ".join(out.split())


def sorted_rows(rows: list[tuple]) -> list[tuple]:
    return sorted(rows, key=repr)


def test_every_raw_and_mart_table_equals_the_files(built: Path, lake_target) -> None:
    done = migrate(built, lake_target)
    assert done.returncode == 0, done.stderr
    assert "Migrated" in done.stdout and "password" not in done.stdout
    tables = file_rows(built, TABLES)
    schemas = {schema for schema, _ in tables}
    assert schemas == {"raw", "marts", "data_quality"}
    # every raw table the loader declares (raw_schema), empty ones too
    assert {t for s, t in tables if s == "raw"} == {"source_files", *raw_tables()}
    assert lake_rows(lake_target, TABLES) == tables
    for schema, table in tables:
        sql = f'select * from "{schema}"."{table}"'
        assert sorted_rows(lake_rows(lake_target, sql)) == sorted_rows(file_rows(built, sql)), (
            f"{schema}.{table} differs"
        )
    # the ids are kept: every raw row still points at its file
    ids = "select source_file_id, path, sha256 from raw.source_files order by 1"
    assert lake_rows(lake_target, ids) == file_rows(built, ids)
    results = "select count(*) from marts.fct_workload_results"
    assert lake_rows(lake_target, results) == file_rows(built, results) != [(0,)]
    # dbt's views came along with the lake's catalog name: the data-quality view reads
    dq = "select count(*) from marts.data_quality_results"
    assert lake_rows(lake_target, dq) == file_rows(built, dq)


def test_a_second_migrate_is_refused_and_replace_starts_over(built: Path, lake_target) -> None:
    assert migrate(built, lake_target).returncode == 0
    snapshots = "select max(snapshot_id) from lake.snapshots()"
    before = lake_rows(lake_target, snapshots)
    again = migrate(built, lake_target)
    assert again.returncode == 1
    assert "is not empty" in text(again.stderr) and "--replace" in text(again.stderr)
    assert lake_rows(lake_target, snapshots) == before  # nothing written
    replaced = migrate(built, lake_target, "--replace")
    assert replaced.returncode == 0, replaced.stderr
    count = "select count(*) from raw.source_files"
    assert lake_rows(lake_target, count) == file_rows(built, count)
    assert lake_rows(lake_target, snapshots)[0][0] == before[0][0] + 1  # one transaction


def test_a_missing_file_is_a_clear_error(tmp_path: Path, lake_target) -> None:
    done = migrate(tmp_path / "none.duckdb", lake_target)
    assert done.returncode == 1
    assert "No warehouse file at" in text(done.stderr)
    with pytest.raises(ducklake.LakeError, match="does not exist"):  # the lake was never created
        lake_rows(lake_target, "select 1")


def test_an_unreachable_lake_is_a_clear_error(built: Path, tmp_path: Path) -> None:
    tgt = warehouse.from_settings(
        "ducklake:postgres:host=127.0.0.1 port=1 dbname=x password=s3", data_path=str(tmp_path)
    )
    done = migrate(built, tgt)
    assert done.returncode == 1
    assert "Cannot reach the lake's catalog" in text(done.stderr)
    assert "password=***" in text(done.stderr) and "password=s3 " not in text(done.stderr)


def test_a_file_named_like_an_alias_migrates_its_views_unchanged(
    tmp_path: Path, lake_target
) -> None:
    """Only `<file catalog>.<schema>.` names the file: in `base.duckdb` a view whose CTE is
    also called `base` kept `base.source_file_id` (it became `lake.source_file_id` and the
    migration failed)."""
    db = tmp_path / "base.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create schema raw; create schema staging")
        con.execute("create table raw.source_files as select 7::bigint as source_file_id")
        con.execute(
            "create view staging.ids as with base as (select * from base.raw.source_files) "
            "select base.source_file_id from base"
        )
    done = migrate(db, lake_target)
    assert done.returncode == 0, done.stderr
    assert lake_rows(lake_target, "select source_file_id from staging.ids") == [(7,)]
