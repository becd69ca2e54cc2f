"""Helpers for the reliability tests: run `python -m ingest` as a real process, build corpora
from the real samples (copied at run time into a temp folder, never into the repo) and read a
warehouse's raw row counts per source file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.conftest import REPO, SAMPLES

# Real samples that are rejected on purpose (tool error text only): left out of corpora
# that must load cleanly.
REJECTED_SAMPLES = ("fioplot__no_json_only_errors__randread-1-1.json",)


def ingest_env(db: Path, **extra: str) -> dict[str, str]:
    """The environment of a child process: no PERF_ setting of ours leaks in but `db`.

    No PYTHONPATH: the project is installed (editable) and the children run from REPO."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    env.update(PERF_DUCKDB_PATH=str(db), DBT_SEND_ANONYMOUS_USAGE_STATS="false", **extra)
    return env


def run_ingest(
    db: Path, *args: str, timeout: float = 300, **extra: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ingest", *args],
        cwd=REPO,
        env=ingest_env(db, **extra),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def copy_corpus(dest: Path, *folders: str) -> Path:
    """Copy sample folders (e.g. "fio", "vdbench") into dest, minus the rejected samples."""
    for folder in folders:
        shutil.copytree(
            SAMPLES / folder, dest / folder, ignore=shutil.ignore_patterns(*REJECTED_SAMPLES)
        )
    return dest


def rows_by_path(db: Path) -> dict[tuple[str, str], int]:
    """(raw table, source path) -> row count, over every raw table with `_source_file_id`."""
    with duckdb.connect(str(db), read_only=True) as con:
        tables = con.execute(
            "select table_name from information_schema.columns "
            "where table_schema = 'raw' and column_name = '_source_file_id'"
        ).fetchall()
        return {
            (table, path): n
            for (table,) in tables
            for path, n in con.execute(
                f"select s.path, count(*) from raw.{table} as t join raw.source_files as s "
                "on s.source_file_id = t._source_file_id group by s.path"
            ).fetchall()
        }


def query(db: Path, sql: str) -> list[tuple]:
    """The rows of one read-only query (a connection of its own, closed at once)."""
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def loaded_paths(db: Path) -> list[str]:
    rows = query(db, "select path from raw.source_files order by source_file_id")
    return [path for (path,) in rows]
