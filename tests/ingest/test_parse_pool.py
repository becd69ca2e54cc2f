"""Parsing in worker processes (`ingest.parse_pool`) changes nothing but speed: the same
outcomes, the same stored rows and the same rejections as a load that parses every file in
the loading process."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import types
from pathlib import Path

import duckdb
import pytest

from ingest import parse_pool
from ingest.load import load_items
from ingest.outcomes import LoadSummary
from ingest.parse_pool import ParsePool, parse_workers
from ingest.parse_step import ParsedFile, ParseJob, run_job
from ingest.raw_schema import SOURCE_FILE_ID
from ingest.walk import Walk
from tests.conftest import SAMPLES
from warehouse import FileWarehouse

FIO = SAMPLES / "fio"


def load(folder: Path, db: Path, pool: ParsePool) -> LoadSummary:
    walk = Walk([folder])
    return load_items(
        FileWarehouse(db),
        walk,
        cli_labels={},
        known_paths=walk.known_paths,
        roots=[folder.as_posix()],
        parse_pool=pool,
    )


def with_workers(step=run_job) -> ParsePool:
    """Two workers, up before the load starts (a load starts them only once it has met
    enough to parse, in the background), handed one or two files at a time."""
    pool = ParsePool(2, step)
    pool.start()
    assert pool.start_failure is None, pool.start_failure
    return pool


def outcomes(summary: LoadSummary) -> list[tuple]:
    return [
        (o.path, o.status, o.format, o.rows, o.location, o.reason, o.notes, o.no_result)
        for o in summary.outcomes
    ]


def stored(db: Path) -> dict[str, list[tuple]]:
    """Every raw table's rows, each file's id replaced by its path (ids are drawn in order of
    writing; a load time is a clock's)."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [
            name
            for (name,) in con.execute(
                "select table_name from information_schema.tables where table_schema = 'raw'"
            ).fetchall()
        ]
        rows = {}
        for name in names:
            if name == "source_files":
                sql = "select * exclude (source_file_id, loaded_at) from raw.source_files"
            else:
                sql = (
                    f"select f.path, t.* exclude ({SOURCE_FILE_ID}) from raw.{name} t "
                    f"join raw.source_files f on f.source_file_id = t.{SOURCE_FILE_ID}"
                )
            rows[name] = sorted(con.execute(sql).fetchall(), key=repr)
    return rows


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Several chunks for a few dozen files, so some are parsed ahead and some taken back.
    monkeypatch.setattr(parse_pool, "CHUNK_FILES", 2)


def test_every_sample_loads_the_same_with_workers(
    tmp_path: Path, samples: Path, small_chunks: None
) -> None:
    # GIVEN every real sample (seven formats; some skipped, one rejected), loaded once by a
    # load that parses in the loading process and once by one with two workers
    here = load(samples, tmp_path / "here.duckdb", ParsePool(0))
    pool = with_workers()
    spread = load(samples, tmp_path / "workers.duckdb", pool)
    assert pool.parsed_in_workers > len(here.stored) / 2
    # THEN the outcomes, in walk order, and every stored row are the same
    assert outcomes(spread) == outcomes(here)
    assert stored(tmp_path / "workers.duckdb") == stored(tmp_path / "here.duckdb")
    statuses = {o.status for o in here.outcomes}
    assert {"loaded", "rejected", "skipped"} <= statuses
    assert sum(o.rows for o in here.stored) > 10_000


def test_reloading_with_workers_adds_nothing(tmp_path: Path, small_chunks: None) -> None:
    # GIVEN the fio samples loaded, and a copy of one of them in another folder
    db = tmp_path / "w.duckdb"
    folder = tmp_path / "fio"
    shutil.copytree(FIO, folder)
    shutil.copy(FIO / "fioplot__fio-3.14__randread-1-1.json", folder / "zz_copy.json")
    first = load(folder, db, with_workers())
    # THEN the copy, parsed ahead beside its original, is the same content (one file stored)
    (copy,) = [o for o in first.outcomes if o.path.endswith("zz_copy.json")]
    assert copy.status == "unchanged"
    assert copy.reason.startswith("same content as ") and copy.reason.endswith("randread-1-1.json")
    # WHEN loaded again THEN nothing is parsed or stored again
    before = stored(db)
    again = load(folder, db, with_workers())
    assert {o.status for o in again.stored} == set()
    assert len(again.by_status("unchanged")) == len(first.stored) + 1
    assert stored(db) == before


def fails_on_vm2(job: ParseJob) -> ParsedFile:
    """A parse step with a bug that shows only on one file."""
    if job.source.name == "b_vm2.json":
        raise RuntimeError(f"bug met in {job.source.name}")
    return run_job(job)


def dies_on_vm2(job: ParseJob) -> ParsedFile:
    """A parse step whose process is killed on one file (as the kernel's OOM killer would),
    in a worker only (never the test's own process)."""
    if job.source.name == "b_vm2.json" and multiprocessing.parent_process() is not None:
        os.kill(os.getpid(), signal.SIGKILL)
    return run_job(job)


def three_files(folder: Path) -> Path:
    """Three real fio outputs (the middle one is the file the steps above fail on) and one
    cut short (rejected by its parser)."""
    folder.mkdir()
    shutil.copy(FIO / "fioplot__fio-3.14__randread-1-1.json", folder / "a_vm1.json")
    shutil.copy(FIO / "fioplot__fio-3.16__randread-32-32.json", folder / "b_vm2.json")
    shutil.copy(FIO / "fioplot__fio-3.1__randwrite-8-1.json", folder / "c_vm3.json")
    cut = (FIO / "fioplot__fio-2.18__randread-01-64.json").read_bytes()[:3000]
    (folder / "d_cut.json").write_bytes(cut)
    return folder


def test_a_step_failing_in_a_worker_is_that_files_rejection(
    tmp_path: Path, small_chunks: None
) -> None:
    # GIVEN a parse step that raises on one file, run in the loading process and in workers
    folder = three_files(tmp_path / "in")
    here = load(folder, tmp_path / "here.duckdb", ParsePool(0, fails_on_vm2))
    spread = load(folder, tmp_path / "workers.duckdb", with_workers(fails_on_vm2))
    # THEN that file is rejected with the same words, the cut file by its parser, the others
    # load, and the two warehouses hold the same rows
    assert outcomes(spread) == outcomes(here)
    rejected = {Path(o.path).name: (o.location, o.reason) for o in spread.by_status("rejected")}
    assert rejected["b_vm2.json"] == (
        "file",
        "could not be loaded (RuntimeError: bug met in b_vm2.json)",
    )
    assert rejected["d_cut.json"][0].startswith("line ")
    assert sorted(Path(o.path).name for o in spread.stored) == ["a_vm1.json", "c_vm3.json"]
    assert stored(tmp_path / "workers.duckdb") == stored(tmp_path / "here.duckdb")


def test_a_worker_killed_on_a_file_is_that_files_rejection(
    tmp_path: Path, small_chunks: None
) -> None:
    # GIVEN a parse step whose process is killed on one file, and a chunk holding that file
    # and a good one (the good one is parsed again alone, in a process of its own)
    folder = three_files(tmp_path / "in")
    summary = load(folder, tmp_path / "w.duckdb", with_workers(dies_on_vm2))
    # THEN only that file is rejected, saying its parser's process ended; the others load
    # as without workers
    rejected = {Path(o.path).name: (o.location, o.reason) for o in summary.by_status("rejected")}
    assert rejected["b_vm2.json"] == (
        "file",
        "parser failed unexpectedly (_ProcessEnded: its process ended abruptly (killed, or "
        "out of memory)); please report this file",
    )
    assert set(rejected) == {"b_vm2.json", "d_cut.json"}
    assert sorted(Path(o.path).name for o in summary.stored) == ["a_vm1.json", "c_vm3.json"]
    here = load(folder, tmp_path / "here.duckdb", ParsePool(0, run_job))
    good = {o.path for o in summary.stored}
    assert [o for o in outcomes(summary) if o[0] in good] == [
        o for o in outcomes(here) if o[0] in good
    ]


def test_the_setting_sizes_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PERF_INGEST_PARSE_WORKERS", "0")
    assert parse_workers() == 0
    monkeypatch.setenv("PERF_INGEST_PARSE_WORKERS", "3")
    assert parse_workers() == 3
    monkeypatch.delenv("PERF_INGEST_PARSE_WORKERS")
    assert 1 <= parse_workers() <= parse_pool.MAX_DEFAULT_WORKERS
    monkeypatch.setenv("PERF_INGEST_PARSE_WORKERS", "two")
    with pytest.raises(ValueError, match="PERF_INGEST_PARSE_WORKERS='two' is not a whole number"):
        parse_workers()


def test_workers_that_cannot_start_leave_the_load_the_same_and_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GIVEN a machine where worker processes cannot be started
    def no_processes(workers: int):
        raise OSError("[Errno 11] Resource temporarily unavailable")

    monkeypatch.setattr(parse_pool, "_executor", no_processes)
    folder = three_files(tmp_path / "in")
    pool = ParsePool(2)
    pool.start()
    summary = load(folder, tmp_path / "w.duckdb", pool)
    # THEN every file is parsed in the loading process, as without workers, and the load says
    # why the workers are missing
    here = load(folder, tmp_path / "here.duckdb", ParsePool(0))
    assert outcomes(summary) == outcomes(here)
    assert summary.workers_failed == "OSError: [Errno 11] Resource temporarily unavailable"
    assert here.workers_failed is None


def test_workers_never_run_the_caller_s_main_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small_chunks: None
) -> None:
    """multiprocessing has each new process import its parent's `__main__` again, by path for
    a script: after the app tests, the CI's pytest process's was a Streamlit page (Streamlit's
    script runner installs it). Workers that ran it died, and the load parsed in one process."""
    # GIVEN a caller whose __main__ is a script that ends any process that runs it
    script = tmp_path / "page.py"
    script.write_text("import os\n\nos._exit(3)\n", encoding="utf-8")
    page = types.ModuleType("__main__")
    page.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", page)
    # WHEN its load parses with workers
    pool = with_workers()
    summary = load(three_files(tmp_path / "in"), tmp_path / "w.duckdb", pool)
    # THEN they started and parsed, and the caller's __main__ is its own again
    assert summary.workers_failed is None
    assert pool.parsed_in_workers >= 2
    assert sys.modules["__main__"] is page
