"""Shared test settings: where the real samples live, and small helpers."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from ingest.records import SourceFile
from ingest.sources import source_for

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PERF_SHARED_DIR", REPO.parent / "shared")).resolve()
SAMPLES = SHARED / "samples"
FIXTURES = REPO / "tests" / "fixtures"
# Fixtures several test modules read.
HCIB28_VDB_STDOUT = (
    FIXTURES
    / "hcibench"
    / "results"
    / "hcib28"
    / "vdb-2vmdk-100ws-4k-100rdpct-100randompct-4threads-1700200000"
    / "hci-vdb-datastore-2004-0-1.txt"
)
# One table in `marts`, for the SQL console tests that need no real marts.
ONE_TABLE = "create schema marts; create table marts.t as select 1 as a"
POWERCLI_CSV = FIXTURES / "vsan_perfsvc" / "valid" / "get-vsanstat_export.csv"


def source_of(
    path: Path, labels: dict | None = None, hcibench_case: str | None = None
) -> tuple[bytes, SourceFile]:
    """Bytes of a file and the SourceFile the loader would hand a parser."""
    data = path.read_bytes()
    return data, source_for(path.as_posix(), data, labels=labels, hcibench_case=hcibench_case)


def marts_warehouse(path: Path, sql: str = "create schema marts") -> Path:
    """A small warehouse file: `sql` run on a new DuckDB file (by default an empty `marts`
    schema), for tests that need a warehouse but no real marts."""
    con = duckdb.connect(str(path))
    con.execute(sql)
    con.close()
    return path


@pytest.fixture(scope="session")
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.fail(f"real samples not found at {SAMPLES}: check out ../shared beside the repo")
    return SAMPLES
