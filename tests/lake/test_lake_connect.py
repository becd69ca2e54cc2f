"""The lake connection rules (warehouse.lake) against a real PostgreSQL."""

from __future__ import annotations

import pytest

import warehouse
from warehouse import ducklake


def test_a_second_connection_sees_the_first_ones_commit_as_a_new_snapshot(lake_target):
    writer = ducklake.connect(lake_target)
    writer.execute("create table t (a integer)")
    before = ducklake.current_snapshot(writer)
    writer.execute("insert into t values (1), (2)")
    reader = ducklake.connect(lake_target, read_only=True)
    assert ducklake.current_snapshot(reader) == before + 1
    assert reader.execute("select sum(a) from t").fetchone() == (3,)
    # time travel: as of the snapshot before the insert, the table is empty
    old = ducklake.connect(lake_target, snapshot=before)
    assert old.execute("select count(*) from t").fetchone() == (0,)


def test_the_1_5_5_planner_workaround_is_on_in_lake_connections(lake_target):
    con = ducklake.connect(lake_target)
    setting = con.execute("select current_setting('disabled_optimizers')").fetchone()[0]
    assert "top_n_window_elimination" in setting


def test_target_needs_a_data_path_and_hides_the_password(monkeypatch):
    monkeypatch.delenv("PERF_LAKE_DATA_PATH", raising=False)
    with pytest.raises(ducklake.LakeError, match="PERF_LAKE_DATA_PATH"):
        warehouse.from_settings("ducklake:postgres:dbname=x")
    t = warehouse.from_settings(
        "ducklake:postgres:dbname=x password=s3cret host=h", data_path="/tmp/d"
    )
    assert "s3cret" not in t.describe() and "password=***" in t.describe()
    assert t.data_path == "/tmp/d/"
    assert warehouse.from_settings("/tmp/w.duckdb").describe() == "/tmp/w.duckdb"


def test_an_advisory_lock_is_exclusive_and_dies_with_its_holder(lake_target):
    with (
        ducklake.advisory_lock(lake_target, "x"),
        pytest.raises(ducklake.LakeError, match="held the lock"),
        ducklake.advisory_lock(lake_target, "x", timeout_s=0.3),
    ):
        pass
    with ducklake.advisory_lock(lake_target, "x", timeout_s=0.3):
        pass
