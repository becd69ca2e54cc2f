"""Crash safety: `python -m ingest load` killed with SIGKILL at several points of a load.

After each kill the warehouse opens, holds a prefix of the files in load order with each
file complete (its row counts per raw table equal a clean load's) or absent, and a re-run
completes the load to exactly the clean load's counts. Kill points come from the
`PERF_INGEST_KILL=<stage>:<n>` hook (`warehouse.kill_point`) plus kills at wall-clock times.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.conftest import REPO
from tests.reliability.conftest import (
    copy_corpus,
    ingest_env,
    loaded_paths,
    rows_by_path,
    run_ingest,
)
from warehouse.file import pending_path as pending_marker
from warehouse.file import serving_path

KILLED = -signal.SIGKILL


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_corpus(tmp_path_factory.mktemp("corpus"), "fio")


@pytest.fixture(scope="module")
def clean(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict]:
    """Load order and row counts of an uninterrupted load."""
    db = tmp_path_factory.mktemp("clean") / "w.duckdb"
    done = run_ingest(db, "load", str(corpus), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    order = loaded_paths(db)
    assert len(order) >= 12, "the corpus must hold enough files for the kill points"
    return order, rows_by_path(db)


def _assert_prefix_of_clean(db: Path, clean: tuple[list[str], dict]) -> list[str]:
    order, counts = clean
    con = duckdb.connect(str(db))  # read-write: replays whatever the WAL holds
    con.close()
    present = loaded_paths(db)
    assert present == order[: len(present)], "files must be loaded in order, none skipped"
    got = rows_by_path(db)
    expected = {key: n for key, n in counts.items() if key[1] in set(present)}
    assert got == expected, "a loaded file must have all its rows, no more"
    return present


def _assert_rerun_completes(db: Path, corpus: Path, clean: tuple[list[str], dict]) -> None:
    served = serving_path(db)
    before = served.read_bytes() if served.is_file() else None
    done = run_ingest(db, "load", str(corpus), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(loaded_paths(db)) == sorted(clean[0])
    assert rows_by_path(db) == clean[1]
    # A load never publishes: only `ingest publish`, after validation, changes the snapshot.
    assert (served.read_bytes() if served.is_file() else None) == before
    assert pending_marker(db).exists(), "the dashboard must learn the load is not published"


def _assert_publish_completes(db: Path, clean: tuple[list[str], dict]) -> None:
    done = run_ingest(db, "publish")
    assert done.returncode == 0, done.stdout + done.stderr
    assert rows_by_path(serving_path(db)) == clean[1], "the snapshot matches the main file"
    assert not pending_marker(db).exists()
    assert not list(db.parent.glob(".*.tmp")), "no temporary snapshot left behind"


@pytest.mark.parametrize(
    ("kill_at", "batch_files", "files_present"),
    [
        # One file per transaction, so the n-th commit is the n-th file.
        pytest.param("before_commit:1", 1, 0, id="first-file-uncommitted"),
        pytest.param("after_commit:1", 1, 1, id="first-file-committed"),
        pytest.param("before_commit:5", 1, 4, id="fifth-file-uncommitted"),
        pytest.param("after_commit:8", 1, 8, id="eighth-file-committed"),
        pytest.param("before_commit:12", 1, 11, id="twelfth-file-uncommitted"),
        # Batched writes (several files per transaction): a kill loses at most the batch
        # being written, and every file present is whole.
        pytest.param("before_commit:2", 4, 4, id="second-batch-uncommitted"),
        pytest.param("after_commit:2", 4, 8, id="second-batch-committed"),
    ],
)
def test_kill_mid_load_keeps_whole_files_and_rerun_completes(
    tmp_path: Path,
    corpus: Path,
    clean: tuple[list[str], dict],
    kill_at: str,
    batch_files: int,
    files_present: int,
) -> None:
    db = tmp_path / "w.duckdb"
    killed = run_ingest(
        db,
        "load",
        str(corpus),
        "--quiet",
        PERF_INGEST_KILL=kill_at,
        PERF_INGEST_BATCH_FILES=str(batch_files),
    )
    assert killed.returncode == KILLED, killed.stdout + killed.stderr
    assert len(_assert_prefix_of_clean(db, clean)) == files_present
    _assert_rerun_completes(db, corpus, clean)


def test_kill_while_publishing_keeps_the_old_snapshot(
    tmp_path: Path, corpus: Path, clean: tuple[list[str], dict]
) -> None:
    db = tmp_path / "w.duckdb"
    first = run_ingest(db, "load", str(corpus / "fio" / "generated-locally"), "--quiet")
    assert first.returncode == 0, first.stdout + first.stderr
    published = run_ingest(db, "publish")
    assert published.returncode == 0, published.stdout + published.stderr
    before = rows_by_path(serving_path(db))
    assert 0 < len({path for _, path in before}) < len(clean[0])
    rest = run_ingest(db, "load", str(corpus), "--quiet")
    assert rest.returncode == 0, rest.stdout + rest.stderr
    # WHEN the publish dies after copying the new snapshot, before renaming it
    killed = run_ingest(db, "publish", PERF_INGEST_KILL="publish_copy:1")
    assert killed.returncode == KILLED
    # THEN the dashboard still reads the complete old snapshot; the main file has everything
    assert rows_by_path(serving_path(db)) == before
    assert rows_by_path(db) == clean[1]
    assert pending_marker(db).exists(), "the killed publish leaves the version unpublished"
    _assert_publish_completes(db, clean)


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [1.2, 2.2])
def test_kill_at_a_wall_clock_time(
    tmp_path: Path, corpus: Path, clean: tuple[list[str], dict], after_s: float
) -> None:
    db = tmp_path / "w.duckdb"
    process = subprocess.Popen(
        [sys.executable, "-m", "ingest", "load", str(corpus), "--quiet"],
        cwd=REPO,
        env=ingest_env(db),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(after_s)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    if db.exists():  # killed before the file was even created: nothing to check
        _assert_prefix_of_clean(db, clean)
    _assert_rerun_completes(db, corpus, clean)


# --- the writer lock covers the whole process tree ------------------------------------------


def _children(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (from /proc/<pid>/stat)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for its new parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _uses(db: Path) -> list[int]:
    """Live processes started with PERF_DUCKDB_PATH=db (every child of an ingest writer)."""
    needle = f"PERF_DUCKDB_PATH={db}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes().split(b"\0") and _alive(int(environ.parent.name)):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def _wait_for(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("build",), id="ingest-build-dbt"),
        pytest.param(
            ("locked", "--", sys.executable, "-c", "import time; time.sleep(120)"), id="locked"
        ),
    ],
)
def test_sigkill_of_a_writer_takes_its_child_and_frees_the_lock(
    tmp_path: Path, corpus: Path, command: tuple[str, ...]
) -> None:
    # GIVEN a warehouse with raw data and a writer running its child (dbt, or CMD)
    db = tmp_path / "w.duckdb"
    assert (
        run_ingest(db, "load", str(corpus / "fio" / "generated-locally"), "--quiet").returncode == 0
    )
    writer = subprocess.Popen(
        [sys.executable, "-m", "ingest", *command],
        cwd=REPO,
        env=ingest_env(db),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert _wait_for(lambda: _children(writer.pid), 30), "the writer never started its child"
    (child,) = _children(writer.pid)
    time.sleep(2.0)  # dbt is parsing or building; CMD is sleeping
    assert _alive(child) and writer.poll() is None
    # WHEN the writer is killed with SIGKILL
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=10) == KILLED
    # THEN its child dies with it: no process of this warehouse survives
    assert _wait_for(lambda: not _alive(child), 10), f"child {child} outlived its writer"
    assert _wait_for(lambda: not _uses(db), 10), f"still running: {_uses(db)}"
    # AND the next writer gets the lock at once and publishes a complete snapshot
    done = run_ingest(db, "publish", PERF_WRITER_LOCK_TIMEOUT_S="5")
    assert done.returncode == 0, done.stdout + done.stderr
    assert rows_by_path(serving_path(db)) == rows_by_path(db)
