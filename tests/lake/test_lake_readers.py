"""The dashboard's reads and its SQL console in team mode (a migrated lake, real PostgreSQL)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import warehouse
import warehouse.lake
from app.lib import db, ui
from harness.pg_cluster import throwaway_cluster
from tests.lake.file_warehouse import (
    built_file_warehouse,
    file_rows,
    lake_rows,
    migrate,
    publish_latest,
)
from warehouse import LakeWarehouse, WarehouseUnavailable, ducklake, readers
from warehouse import console as sql_console
from warehouse.ducklake import LAKE_PREFIX

COUNT = "select count(*) as n from marts.fct_workload_results"
BIG = "iops > 100000"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_file_warehouse(tmp_path_factory)


@pytest.fixture
def migrated(
    built: Path, lake_target: LakeWarehouse, monkeypatch: pytest.MonkeyPatch
) -> LakeWarehouse:
    """The built file migrated into a new lake, which the app reads (nothing published)."""
    assert migrate(built, lake_target).returncode == 0
    monkeypatch.setenv("PERF_WAREHOUSE", lake_target.uri)
    monkeypatch.setenv("PERF_LAKE_DATA_PATH", lake_target.data_path or "")
    monkeypatch.setattr(
        warehouse.lake, "LAKE_CHECK_S", 0.0
    )  # ask for the newest publication every read
    return lake_target


def write(tgt: LakeWarehouse, sql: str) -> None:
    con = ducklake.connect(tgt)
    try:
        con.execute(sql)
    finally:
        con.close()


def counts(built: Path) -> tuple[int, int]:
    """Results in the file, and those left once the big ones are deleted."""
    total = file_rows(built, "select count(*) from marts.fct_workload_results")[0][0]
    left = file_rows(built, f"select count(*) from marts.fct_workload_results where not {BIG}")
    assert 0 < left[0][0] < total
    return total, left[0][0]


def test_reads_serve_the_published_snapshot_not_a_later_commit(
    built: Path, migrated: LakeWarehouse
) -> None:
    total, left = counts(built)
    name = db.reading_path()
    assert isinstance(name, str) and name.startswith(ducklake.LAKE_PREFIX)
    # before the first publish: the latest snapshot, and the "nothing published" notice
    assert db.read(name, COUNT)["n"].to_list() == [total]
    status = db.serving_status()
    assert status.snapshot is None
    notice = ui.serving_notice(status, has_marts=True)
    assert notice is not None and notice.blocks_data
    assert "has not been validated and published yet" in notice.text
    published = publish_latest(migrated)
    write(migrated, f"delete from marts.fct_workload_results where {BIG}")  # not published
    assert lake_rows(migrated, COUNT) == [(left,)]
    assert db.read(name, COUNT)["n"].to_list() == [total]
    assert db.served_snapshot(name) == published
    status = db.serving_status()
    assert status.snapshot is not None and status.pending  # newer data awaits publishing
    assert "after the version shown here" in ui.serving_notice(status, has_marts=True).text
    newer = publish_latest(migrated)
    assert newer > published
    assert db.read(name, COUNT)["n"].to_list() == [left]
    assert db.served_snapshot(name) == newer


def test_reads_keep_the_snapshot_between_checks(
    built: Path, migrated: LakeWarehouse, monkeypatch
) -> None:
    total, left = counts(built)
    name = db.reading_path()
    publish_latest(migrated)
    assert db.read(name, COUNT)["n"].to_list() == [total]
    monkeypatch.setattr(warehouse.lake, "LAKE_CHECK_S", 3600.0)
    write(migrated, f"delete from marts.fct_workload_results where {BIG}")
    publish_latest(migrated)
    assert db.read(name, COUNT)["n"].to_list() == [total]  # not asked again yet
    monkeypatch.setattr(warehouse.lake, "LAKE_CHECK_S", 0.0)
    assert db.read(name, COUNT)["n"].to_list() == [left]


def test_the_console_reads_the_lake_and_refuses_writes(
    built: Path, migrated: LakeWarehouse
) -> None:
    total, _ = counts(built)
    publish_latest(migrated)
    name = str(db.reading_path())
    result = sql_console.run_query(name, COUNT)
    assert result.frame["n"].to_list() == [total]
    for sql in ("delete from marts.fct_workload_results", "attach 'x.duckdb' as x"):
        with pytest.raises(sql_console.QueryRejected, match="Only a single SELECT"):
            sql_console.run_query(name, sql)
    # Below the allow-list: the connection itself is read-only and has no file access.
    con = readers.locked_connection(name)
    try:
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("delete from marts.fct_workload_results")
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            con.execute("select * from read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("set enable_external_access = true")
    finally:
        con.close()
    assert lake_rows(migrated, COUNT) == [(total,)]


def test_sql_console_page_on_a_lake(built: Path, migrated: LakeWarehouse) -> None:
    """tests/app/test_pages.py's console page test, on a migrated and published lake."""
    from tests.app.test_pages import open_page

    publish_latest(migrated)
    at = open_page("app_pages/sql_console.py")
    assert "password" not in at.caption[0].value
    at.text_area(key="sql_text").input("select count(*) as n from marts.fct_workload_results")
    at.button(key="sql_run").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    expected = file_rows(built, "select count(*) from marts.fct_workload_results")[0][0]
    assert at.dataframe[-1].value["n"].tolist() == [expected]
    at.text_area(key="sql_text").input("attach '/tmp/x.duckdb' as x")
    at.button(key="sql_run").click().run()
    assert any("Only a single SELECT" in e.value for e in at.error)


def test_a_catalog_that_goes_away_is_reported_not_raised(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard keeps its lake connection; when PostgreSQL goes away under it, a read says
    the team warehouse cannot be read (the page's message), never a bare duckdb.Error; once
    PostgreSQL is back, reads work again without a restart of the dashboard."""
    with throwaway_cluster() as cluster:
        tgt = warehouse.from_settings(
            LAKE_PREFIX + cluster.new_database(), data_path=str(tmp_path / "lake-data")
        )
        assert migrate(built, tgt).returncode == 0
        publish_latest(tgt)
        monkeypatch.setenv("PERF_WAREHOUSE", tgt.uri)
        monkeypatch.setenv("PERF_LAKE_DATA_PATH", tgt.data_path or "")
        monkeypatch.setattr(
            warehouse.lake, "LAKE_CHECK_S", 3600.0
        )  # the kept connection is not re-asked
        name = db.reading_path()
        total = file_rows(built, "select count(*) from marts.fct_workload_results")[0][0]
        assert db.read(name, COUNT)["n"].to_list() == [total]
        cluster.stop()
        for _ in range(2):  # the kept connection, then a fresh connect
            with pytest.raises(WarehouseUnavailable, match="cannot be read"):
                db.read(name, "select count(*) as n from marts.fct_capacity_by_object_type")
        cluster.start()
        assert db.read(name, COUNT)["n"].to_list() == [total]
