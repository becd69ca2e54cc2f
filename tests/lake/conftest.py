"""Fixtures for the team-mode tests: a real PostgreSQL per test session (harness/pg_cluster.py)
and a fresh lake per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import warehouse
from harness.pg_cluster import PgCluster, PostgresMissing, throwaway_cluster
from warehouse import LakeWarehouse
from warehouse.ducklake import LAKE_PREFIX


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    try:
        with throwaway_cluster() as cluster:
            yield cluster
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture
def lake_target(pg_cluster: PgCluster, tmp_path: Path) -> LakeWarehouse:
    """A new, empty lake: its own catalog database and data folder."""
    wh = warehouse.from_settings(
        LAKE_PREFIX + pg_cluster.new_database(), data_path=str(tmp_path / "lake-data")
    )
    assert isinstance(wh, LakeWarehouse)
    return wh
