"""Fixtures for the team-mode tests: a real PostgreSQL per test session (tests/lake/pg_cluster.py)
and a fresh lake per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lake.pg_cluster import PgCluster, PostgresMissing, throwaway_cluster
from warehouse.lake import LAKE_PREFIX, Target, target


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    try:
        with throwaway_cluster() as cluster:
            yield cluster
    except PostgresMissing as exc:
        pytest.fail(str(exc))


@pytest.fixture
def lake_target(pg_cluster: PgCluster, tmp_path: Path) -> Target:
    """A new, empty lake: its own catalog database and data folder."""
    return target(LAKE_PREFIX + pg_cluster.new_database(), str(tmp_path / "lake-data"))
