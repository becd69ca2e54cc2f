"""The dashboard keeps answering while loads and builds run, and writers never fail because
of the dashboard or of each other.

Design (warehouse/filelock.py): writers take the advisory lock `<db>.lock` and wait for each
other; `ingest publish` validates and then publishes `<db stem>.serving.duckdb` by atomic
rename; the dashboard (app/lib/db.py) only ever opens that snapshot read-only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.reliability.conftest import copy_corpus, ingest_env, loaded_paths, run_ingest
from warehouse.file import serving_path

# A real dbt build, trimmed to the main mart and what it is built from (tests whose parents
# are not all selected are left out, or they would fail on models this build skips).
DBT_SELECT = ("--select", "+fct_workload_results", "--indirect-selection", "cautious")


def _start_reader(db: Path, stop: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.reliability._reader", str(stop)],
        cwd=REPO,
        env=ingest_env(db),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop_reader(reader: subprocess.Popen, stop: Path) -> dict:
    stop.touch()
    out, err = reader.communicate(timeout=60)
    assert reader.returncode == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_reader_never_fails_while_three_writers_run_at_once(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus", "fio", "vdbench")
    db = tmp_path / "w.duckdb"
    first = run_ingest(db, "load", str(corpus / "fio"), "--quiet")
    assert first.returncode == 0, first.stdout + first.stderr
    assert not serving_path(db).exists(), "a load never publishes"
    published = run_ingest(db, "publish")
    assert published.returncode == 0, published.stdout + published.stderr
    assert serving_path(db).is_file()
    files_before = len(loaded_paths(db))

    # GIVEN a dashboard-like reader querying in a loop
    stop = tmp_path / "stop"
    reader = _start_reader(db, stop)
    time.sleep(1.0)
    # WHEN a load, a dbt build, a second load and a publish all start at once, then the
    # main job's last step publishes what they built
    steps = [
        ("load", str(corpus / "vdbench"), "--quiet"),
        ("build", *DBT_SELECT),
        ("load", str(corpus / "fio"), "--label", "profile=relabelled", "--quiet"),
        ("publish",),
    ]
    with ThreadPoolExecutor(len(steps)) as pool:
        results = list(pool.map(lambda step: run_ingest(db, *step), steps))
    steps.append(("publish",))
    results.append(run_ingest(db, "publish"))
    time.sleep(0.5)  # a few reads of the final snapshot
    stats = _stop_reader(reader, stop)
    print(f"reads {stats['reads']} ({stats['failed']} failed); {len(steps) - 1} writers at once")

    # THEN every writer succeeded (they queued on the lock), no read failed,
    failed_writes = [
        (step, done.stdout[-2000:] + done.stderr[-2000:])
        for step, done in zip(steps, results, strict=True)
        if done.returncode != 0
    ]
    assert failed_writes == []
    assert stats["failed"] == 0, stats["failures"]
    assert stats["reads"] > 20
    # AND the reader saw the snapshot advance (more files, then the marts the build made)
    files_seen = {files for files, _ in stats["seen"]}
    assert files_before in files_seen and len(files_seen) >= 2, stats["seen"]
    assert any(marts > 0 for _, marts in stats["seen"]), stats["seen"]
    assert len(loaded_paths(serving_path(db))) == len(loaded_paths(db))


def _hold_lock(db: Path, seconds: float) -> subprocess.Popen:
    """A process holding the writer lock for `seconds` (it prints `held` once it has it)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path\n"
            "from warehouse.filelock import writer_lock\n"
            f"with writer_lock(Path({str(db)!r})):\n"
            f"    print('held', flush=True); time.sleep({seconds})",
        ],
        cwd=REPO,
        env=ingest_env(db),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_second_writer_waits_for_the_lock_instead_of_failing(tmp_path: Path) -> None:
    # GIVEN a process holding the writer lock for 2 s
    db = tmp_path / "w.duckdb"
    holder = _hold_lock(db, 2)
    # WHEN a load starts meanwhile THEN it waits for the lock and succeeds
    started = time.monotonic()
    done = run_ingest(db, "load", str(REPO / "tests" / "fixtures" / "vdbench"), "--quiet")
    waited = time.monotonic() - started
    holder.wait(timeout=10)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert waited >= 1.0
    # AND with a short timeout a writer gives up with a clear message instead of hanging
    # (held for longer than `publish` takes to import the expectations before it asks)
    holder = _hold_lock(db, 60)
    try:
        busy = run_ingest(db, "publish", PERF_WRITER_LOCK_TIMEOUT_S="0.3")
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert busy.returncode != 0
    assert "another writer has held" in busy.stderr
    assert not serving_path(db).exists(), "nothing published without the lock"
