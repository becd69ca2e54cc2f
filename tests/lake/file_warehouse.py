"""A small built warehouse file for the readers' and migrate tests, made once per session the
way a user makes one: `python -m ingest load` of real samples, then `python -m ingest build`.

The fio samples and the vSAN capacity samples (26 files, results with percentiles, capacity
observations): enough for every raw table kind the marts read, and a dbt build of about a
minute on a busy two-core host."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from tests.conftest import SAMPLES
from warehouse import LakeWarehouse, ducklake

REPO = Path(__file__).resolve().parents[2]
SAMPLE_DIRS = ("fio", "vsan_capacity")
_built: dict[str, Path] = {}
_guard = threading.Lock()


def file_env(db: Path, **extra: str) -> dict[str, str]:
    """The environment of a file-mode command on `db` (no team-mode setting inherited)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    return {
        **env,
        "PERF_DUCKDB_PATH": str(db),
        "DBT_TARGET_PATH": str(db.parent / "dbt-target"),
        "DBT_LOG_PATH": str(db.parent / "dbt-logs"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        **extra,
    }


def lake_env(tgt: LakeWarehouse) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    return {**env, "PERF_WAREHOUSE": tgt.uri, "PERF_LAKE_DATA_PATH": tgt.data_path or ""}


def ingest(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def built_file_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session's built warehouse file (loaded and built on first use)."""
    with _guard:
        if "db" not in _built:
            db = tmp_path_factory.mktemp("file-warehouse") / "wh.duckdb"
            env = file_env(db)
            paths = [str(SAMPLES / name) for name in SAMPLE_DIRS]
            loaded = ingest(["load", *paths, "--quiet"], env)
            assert loaded.returncode in (0, 1), loaded.stdout + loaded.stderr  # 1: a broken sample
            built = ingest(["build"], env)
            assert built.returncode == 0, built.stdout[-3000:]
            _built["db"] = db
        return _built["db"]


def migrate(db: Path, tgt: LakeWarehouse, *extra: str) -> subprocess.CompletedProcess[str]:
    return ingest(
        ["migrate", "--db", str(db), "--to", tgt.uri, "--data-path", tgt.data_path or "", *extra],
        file_env(db),
    )


def file_rows(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def lake_rows(tgt: LakeWarehouse, sql: str) -> list[tuple]:
    con = ducklake.connect(tgt, read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def publish_latest(tgt: LakeWarehouse) -> int:
    """Serve the lake's latest snapshot (`LakeWarehouse.publish`, without validating: these
    tests are about what readers see, not the gate); the snapshot now served."""
    con = ducklake.connect(tgt)
    try:
        snapshot = ducklake.current_snapshot(con)
    finally:
        con.close()
    tgt.publish(snapshot, None)
    return snapshot
