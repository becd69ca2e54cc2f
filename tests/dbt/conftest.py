"""A warehouse built once per session: real samples loaded, then `dbt build`."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
import yaml

from ingest.__main__ import main as ingest_main
from tests.conftest import REPO, SAMPLES

DBT_PROJECT = REPO / "dbt_project"
# The synthetic HCIBench results tree (synth/fixtures/hcibench.py): per-VM fio
# and Vdbench outputs with their `-res.txt` summaries, loaded beside the samples.
HCIBENCH_RESULTS = REPO / "tests" / "fixtures" / "hcibench" / "results"

# Two terse outputs of one test, copied (at run time, never into the repo)
# into a labelled folder so `result_per: folder` aggregation, run labels and
# per-node division are exercised on real bytes.
FOLDER_RESULT_FILES = ("fio-3.33__terse-v3-2jobs.txt", "fio-3.33__terse-v5-2jobs.txt")
FOLDER_RESULT_LABELS = {
    "testbed": "pytest-lab",
    "nodes": 2,
    "transport": "tcp",
    "profile": "baseline",
    "result_per": "folder",
}


@dataclass(frozen=True)
class BuiltWarehouse:
    path: Path
    build_success: bool
    build_failures: list[str]
    labelled_folder: Path

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        return query_built(self.path, sql, params)


def query_built(db: Path, sql: str, params: list | None = None) -> list[tuple]:
    """Rows of `sql` on a warehouse dbt built in this process: dbt-duckdb keeps its own
    (read-write) handle open, and DuckDB only shares a file between handles of the same
    configuration, so this opens it as dbt did."""
    con = duckdb.connect(str(db))
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


@dataclass(frozen=True)
class LoadedAndBuilt:
    """A folder loaded with `ingest load` and built with dbt, for one test module."""

    db: Path
    load_exit: int
    success: bool
    failures: list[str]

    def query(self, sql: str, params: list | None = None) -> list[tuple]:
        return query_built(self.db, sql, params)


def load_and_build(tree: Path, work: Path) -> LoadedAndBuilt:
    """`ingest load` of `tree` into `work/warehouse.duckdb`, then `dbt build`."""
    from ingest.__main__ import main as ingest_main

    db = work / "warehouse.duckdb"
    load_exit = ingest_main(["load", str(tree), "--db", str(db), "--quiet"])
    success, failures = _dbt_build(db, work)
    return LoadedAndBuilt(db, load_exit, success, failures)


def _labelled_folder(root: Path) -> Path:
    folder = root / "labelled"
    folder.mkdir()
    for name in FOLDER_RESULT_FILES:
        shutil.copy(SAMPLES / "fio" / "generated-locally" / name, folder / name)
    (folder / "run.yaml").write_text(yaml.safe_dump(FOLDER_RESULT_LABELS), encoding="utf-8")
    return folder


def _dbt_build(
    db_path: Path, work: Path, select: list[str] | None = None
) -> tuple[bool, list[str]]:
    from dbt.cli.main import dbtRunner

    saved = {k: os.environ.get(k) for k in ("PERF_DUCKDB_PATH", "DBT_SEND_ANONYMOUS_USAGE_STATS")}
    os.environ["PERF_DUCKDB_PATH"] = str(db_path)
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    try:
        result = dbtRunner().invoke(
            [
                "build",
                "--project-dir",
                str(DBT_PROJECT),
                "--profiles-dir",
                str(DBT_PROJECT),
                "--target-path",
                str(work / "target"),
                "--log-path",
                str(work / "logs"),
                "--quiet",
                *(["--select", *select] if select else []),
            ]
        )
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    failures = [
        f"{r.node.name}: {r.status} {r.message}"
        for r in (result.result or [])
        # exposures (the dashboard pages) build nothing: dbt reports them as no-op
        if str(r.status) not in ("success", "pass", "no-op")
    ]
    return result.success, failures


@pytest.fixture(scope="session")
def built_warehouse(
    samples: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BuiltWarehouse]:
    work = tmp_path_factory.mktemp("dbt_build")
    db_path = work / "warehouse.duckdb"
    folder = _labelled_folder(work)
    # Exit 1 is expected: the samples include files the parsers reject on purpose.
    assert ingest_main(["load", str(samples), "--db", str(db_path)]) in (0, 1)
    assert ingest_main(["load", str(folder), "--db", str(db_path)]) == 0
    assert ingest_main(["load", str(HCIBENCH_RESULTS), "--db", str(db_path)]) == 0
    success, failures = _dbt_build(db_path, work)
    yield BuiltWarehouse(db_path, success, failures, folder)
