"""`python -m ingest query`: the same rows in both modes, csv/json that parse, writes refused,
time travel (a migrated lake on a real PostgreSQL)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

import warehouse
from tests.lake.file_warehouse import (
    built_file_warehouse,
    file_env,
    file_rows,
    ingest,
    lake_env,
    lake_rows,
    migrate,
    publish_latest,
)
from warehouse import LakeWarehouse, ducklake

RESULTS = "select result_id, iops from marts.fct_workload_results order by result_id"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built_file_warehouse(tmp_path_factory)


@pytest.fixture
def published_lake(built: Path, lake_target: LakeWarehouse) -> LakeWarehouse:
    """The built file migrated into a new lake, its snapshot published."""
    assert migrate(built, lake_target).returncode == 0
    publish_latest(lake_target)
    return lake_target


def text(out: str) -> str:
    return " ".join(out.split())


def query_json(env: dict[str, str], sql: str, *extra: str) -> list[dict]:
    done = ingest(["query", "--format", "json", *extra, sql], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_both_modes_return_the_same_rows(built: Path, published_lake: LakeWarehouse) -> None:
    in_file = query_json(file_env(built), RESULTS)
    in_lake = query_json(lake_env(published_lake), RESULTS)
    expected = file_rows(built, RESULTS)
    assert len(expected) > 0
    assert in_lake == in_file
    assert [(r["result_id"], r["iops"]) for r in in_lake] == expected


def test_csv_and_json_hold_the_values(built: Path, published_lake: LakeWarehouse) -> None:
    sql = (
        "select result_id, iops, started_at, block_size_bytes from marts.fct_workload_results "
        "where started_at is not null order by result_id"
    )
    env = lake_env(published_lake)
    done = ingest(["query", "--format", "csv", sql], env)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    expected = file_rows(built, sql)
    assert len(rows) == len(expected) > 0
    for row, (result_id, iops, started_at, block) in zip(rows, expected, strict=True):
        assert row["result_id"] == result_id
        assert float(row["iops"]) == pytest.approx(iops, rel=1e-12)
        assert row["block_size_bytes"] == str(block)
        assert started_at.year == int(row["started_at"][:4])
    as_json = query_json(env, sql)
    assert [r["result_id"] for r in as_json] == [r["result_id"] for r in rows]
    assert as_json[0]["started_at"] == expected[0][2].isoformat()  # ISO 8601


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("delete from raw.source_files", "Only a single SELECT"),
        ("attach '/tmp/x.duckdb' as x", "Only a single SELECT"),
        ("copy marts.fct_workload_results to '/tmp/x.csv'", "Only a single SELECT"),
        ("select * from raw.source_files", "only marts.<table> and data_quality.<table>"),
        ("select * from read_csv('/etc/passwd')", "table function read_csv()"),
    ],
)
def test_writes_and_file_access_are_refused_and_the_lake_unchanged(
    published_lake: LakeWarehouse, sql: str, why: str
) -> None:
    count = "select count(*) from raw.source_files"
    snapshots = "select max(snapshot_id) from lake.snapshots()"
    before = lake_rows(published_lake, count), lake_rows(published_lake, snapshots)
    done = ingest(["query", sql], lake_env(published_lake))
    assert done.returncode == 1
    assert why in text(done.stderr)
    assert done.stdout == ""
    assert (lake_rows(published_lake, count), lake_rows(published_lake, snapshots)) == before


def test_snapshot_reads_the_older_state(built: Path, published_lake: LakeWarehouse) -> None:
    old = publish_latest(published_lake)
    writer = ducklake.connect(published_lake)
    try:
        writer.execute("delete from marts.fct_workload_results where iops > 100000")
    finally:
        writer.close()
    new = publish_latest(published_lake)
    assert new > old
    count = "select count(*) as n from marts.fct_workload_results"
    total = file_rows(built, "select count(*) from marts.fct_workload_results")[0][0]
    fewer = file_rows(
        built, "select count(*) from marts.fct_workload_results where not iops > 100000"
    )[0][0]
    assert fewer < total
    env = lake_env(published_lake)
    assert query_json(env, count) == [{"n": fewer}]  # the published (newest) snapshot
    assert query_json(env, count, "--snapshot", str(old)) == [{"n": total}]
    missing = ingest(["query", "--snapshot", "99999", count], env)
    assert missing.returncode == 1 and "has no snapshot 99999" in text(missing.stderr)
    in_file = ingest(["query", "--snapshot", "1", count], file_env(built))
    assert in_file.returncode == 1 and "team mode only" in text(in_file.stderr)


def test_unknown_table_and_unreachable_lake_are_clear_errors(
    published_lake: LakeWarehouse, tmp_path: Path
) -> None:
    unknown = ingest(["query", "select * from marts.nope"], lake_env(published_lake))
    assert unknown.returncode == 1
    assert "Table with name nope does not exist" in text(unknown.stderr)
    down = warehouse.from_settings(
        "ducklake:postgres:host=127.0.0.1 port=1 dbname=x password=s3", data_path=str(tmp_path)
    )
    gone = ingest(["query", "select 1"], lake_env(down))
    assert gone.returncode == 1
    assert "Connection refused" in text(gone.stderr)
    assert "password=***" in text(gone.stderr) and "password=s3 " not in text(gone.stderr)
