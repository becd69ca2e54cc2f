"""A team-mode loader killed with SIGKILL mid-load (`PERF_INGEST_KILL`, warehouse.kill_point)
leaves the lake consistent, its advisory locks released by PostgreSQL with its session, and a
re-run completes the load with nothing twice."""

from __future__ import annotations

import signal
from pathlib import Path

import duckdb
import pytest

from ingest.load import load_items
from ingest.walk import Walk
from tests.lake.test_lake_load import counts, fio_files, load, paths_stored, read, rows_by_path
from warehouse import FileWarehouse, LakeWarehouse

KILLED = -signal.SIGKILL
FILES = 12


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return fio_files(tmp_path_factory.mktemp("fio"), FILES)


@pytest.fixture(scope="module")
def clean_rows(corpus: list[Path], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """(raw table, path) -> rows of an uninterrupted load (into a warehouse file)."""
    db = tmp_path_factory.mktemp("clean") / "w.duckdb"
    load_items(FileWarehouse(db), Walk(corpus), cli_labels={}, known_paths={str(p) for p in corpus})
    with duckdb.connect(str(db), read_only=True) as con:
        rows = rows_by_path(con)
    assert len({path for _, path in rows}) == FILES
    return rows


@pytest.mark.parametrize(
    ("kill_at", "files_present"),
    [
        # Four files per commit: a kill loses at most the batch being written.
        pytest.param("before_commit:1", 0, id="first-batch-uncommitted"),
        pytest.param("before_commit:2", 4, id="second-batch-uncommitted"),
        pytest.param("after_commit:2", 8, id="second-batch-committed"),
    ],
)
def test_a_killed_loader_leaves_whole_files_and_a_rerun_completes(
    lake_target: LakeWarehouse,
    corpus: list[Path],
    clean_rows: dict,
    kill_at: str,
    files_present: int,
) -> None:
    rc, out = load(lake_target, corpus, PERF_INGEST_KILL=kill_at, PERF_INGEST_BATCH_FILES="4")
    assert rc == KILLED, out
    # THEN every stored file has all its rows, and no row lacks its file
    with read(lake_target) as con:
        present = paths_stored(con)
        assert len(present) == files_present == len(set(present))
        assert rows_by_path(con) == {k: n for k, n in clean_rows.items() if k[1] in present}
    # WHEN loaded again (the killed session's locks are gone: this would wait otherwise)
    rc, out = load(lake_target, corpus, PERF_INGEST_BATCH_FILES="4")
    # THEN the rest is loaded, nothing twice
    assert rc == 0 and counts(out) == (FILES - files_present, files_present, 0), out
    with read(lake_target) as con:
        assert paths_stored(con) == sorted(map(str, corpus))
        assert rows_by_path(con) == clean_rows
