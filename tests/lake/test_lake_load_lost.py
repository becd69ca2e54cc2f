"""A team-mode load whose PostgreSQL stops under it (issue 27: a psycopg traceback from the lock
release hid the first error, no summary, and exit 1, the code of "a file was rejected").

GIVEN a lake on its own PostgreSQL and a load of 60 fio outputs, committed 4 files at a time
WHEN PostgreSQL stops (immediate shutdown, as a crash or a cut network looks) after the load's
first commits
THEN the load ends with exit 3, one clear error naming the lost catalog and how many files were
committed before it (no traceback, no password), a summary, and every file it had not stored is
said not to be stored; once PostgreSQL is back, the same load completes: each file stored once.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import warehouse
from harness.pg_cluster import throwaway_cluster
from tests.lake.test_lake_load import finish, fio_files, load, read, start_load
from warehouse import ducklake

FILES = 60


def _load_commits(tgt) -> int:
    try:
        con = read(tgt)
    except ducklake.LakeError:
        return 0  # the lake's catalog is still being created by the loader
    try:
        (n,) = con.execute(
            "select count(*) from lake.snapshots() where author = 'ingest load'"
        ).fetchone()
        return int(n)
    finally:
        con.close()


def test_a_lost_catalog_stops_the_load_clearly_and_a_rerun_completes(tmp_path: Path) -> None:
    files = fio_files(tmp_path / "fio", FILES)
    with throwaway_cluster() as cluster:
        tgt = warehouse.from_settings(
            "ducklake:postgres:" + cluster.new_database() + " password=s3cret-pw",
            data_path=str(tmp_path / "lake-data"),
        )
        proc = start_load(tgt, files, PERF_INGEST_BATCH_FILES="4")
        deadline = time.monotonic() + 240
        while _load_commits(tgt) < 2:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the load ended before two commits: {finish(proc)}")
            time.sleep(0.2)
        cluster.stop()
        rc, out = finish(proc, timeout=240)
        text = " ".join(out.split())
        assert rc == 3, out
        assert "Traceback" not in out and "s3cret-pw" not in out
        assert "error: Lost the lake's catalog DuckLake ducklake:postgres:" in text
        committed = int(text.split("The ")[-1].split(" files committed before it")[0])
        assert 8 <= committed < FILES
        assert "Summary:" in text and "Re-run the same load" in text

        cluster.start()
        assert _load_commits(tgt) * 4 >= committed  # what was committed stayed
        rc, out = load(tgt, files)
        assert rc == 0, out
        con = read(tgt)
        try:
            stored = con.execute(
                "select count(*), count(distinct path) from raw.source_files"
            ).fetchone()
        finally:
            con.close()
        assert stored == (FILES, FILES)
