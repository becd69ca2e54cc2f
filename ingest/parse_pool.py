"""Parse files in worker processes while the loading process reads, checks and writes.

A first load spent about half of its time detecting formats, parsing and turning rows into
Arrow (`ingest.parse_step`, a pure function), the rest reading, hashing, checking what the
warehouse holds and writing, which stay in the loading process, in walk order. The load
(`ingest.load`) hands the parse of each file that needs one to this pool ahead of its turn and
takes the results back in walk order, so outcomes, ids and the summary are those of a load
in one process.

- Workers: `PERF_INGEST_PARSE_WORKERS` (default: the usable CPUs, at most 4; 0 parses every
  file in the loading process). They are forked from a fork server that imported the
  parsers once (never forked from the loading process, whose DuckDB runs threads), and
  started only once the load has met enough to parse (`START_FILES` files or `START_BYTES`):
  a one-file load and a re-load, which parses nothing, never start them. They start in the
  background (until they are up, the loading process parses) and end with the load.
- Small files travel in chunks of consecutive files (`CHUNK_FILES`, `CHUNK_BYTES`), their
  tables back as one Arrow IPC stream per table and chunk: a task and a table each cost
  more to send than a small file's parse.
- A file over `IN_PROCESS_BYTES` is parsed in the loading process when its turn comes (a
  large esxtop capture parses on threads of its own; its tables are not copied between
  processes), so memory stays bounded as without workers, plus the load's window.
- A file whose worker dies (killed, out of memory) is parsed again alone in a new process;
  if that one dies too, it is that file's rejection, and the other files load.
- Workers never run the caller's `__main__` (`_launching`): multiprocessing re-runs a
  script's in each new process, and the pytest process's, after the app tests ran Streamlit
  pages in it, was a page script that every worker ran again and died of.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import types
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, replace
from importlib.machinery import ModuleSpec
from typing import Protocol

import pyarrow as pa

from ingest.outcomes import Outcome
from ingest.parse_step import ParsedFile, ParseJob, parser_failure, run_job, unexpected_failure
from ingest.without_pandas import answer_pyarrow_probe

WORKERS_SETTING = "PERF_INGEST_PARSE_WORKERS"
MAX_DEFAULT_WORKERS = 4
# Parse work met before the workers are started: below it, starting them (a fork server
# importing the parsers, about a CPU second) costs more than it saves.
START_FILES = 32
START_BYTES = 8 * 1024**2
# A file over this is parsed in the loading process, as without workers.
IN_PROCESS_BYTES = 64 * 1024**2
# Files sent to a worker together: up to CHUNK_FILES, closed once CHUNK_BYTES are in it.
CHUNK_FILES = 16
CHUNK_BYTES = 1024**2
# The file bytes a load holds ahead of the file it stages (see `ParsePool.window_files`).
WINDOW_BYTES = 64 * 1024**2

Step = Callable[[ParseJob], ParsedFile | Outcome]


def parse_workers() -> int:
    """Worker processes for a load: `PERF_INGEST_PARSE_WORKERS`, else the usable CPUs (at
    most `MAX_DEFAULT_WORKERS`); 0 parses in the loading process."""
    setting = os.environ.get(WORKERS_SETTING, "").strip()
    if not setting:
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
        return min(MAX_DEFAULT_WORKERS, usable or os.cpu_count() or 1)
    try:
        workers = int(setting)
    except ValueError:
        raise ValueError(f"{WORKERS_SETTING}={setting!r} is not a whole number") from None
    return max(0, workers)


class Ticket(Protocol):
    """A file's parse, asked for when the file's turn comes."""

    def result(self) -> ParsedFile | Outcome: ...


def _guarded(step: Step, job: ParseJob) -> ParsedFile | Outcome:
    """The step's answer; an exception out of it (a step is not meant to raise) is the
    file's rejection, in a worker as in the loading process."""
    try:
        return step(job)
    except Exception as exc:
        return unexpected_failure(job.source.path, exc)


@dataclass(frozen=True, slots=True)
class _Here:
    """Parsed in the loading process when its turn comes."""

    job: ParseJob
    step: Step

    def result(self) -> ParsedFile | Outcome:
        return _guarded(self.step, self.job)


class _Chunk:
    """Consecutive files handed to one worker together: one task per small file cost more
    to send and receive than its parse (0.5 ms a task, 0.2 ms a table read back)."""

    def __init__(self, pool: ParsePool) -> None:
        self.pool = pool
        self.jobs: list[ParseJob] = []
        self.bytes = 0
        self.future: Future | None = None
        self.executor: ProcessPoolExecutor | None = None
        self._results: list[ParsedFile | Outcome] | None = None

    def add(self, job: ParseJob) -> _InChunk:
        self.jobs.append(job)
        self.bytes += len(job.data)
        return _InChunk(self, len(self.jobs) - 1)

    def full(self) -> bool:
        return len(self.jobs) >= CHUNK_FILES or self.bytes >= CHUNK_BYTES

    def result_of(self, index: int) -> ParsedFile | Outcome:
        if self._results is None:
            self._results = self.pool.finish(self)
        return self._results[index]


@dataclass(frozen=True, slots=True)
class _InChunk:
    chunk: _Chunk
    index: int

    def result(self) -> ParsedFile | Outcome:
        return self.chunk.result_of(self.index)


class ParsePool:
    """The workers of one load (none until `submit` has met enough to parse)."""

    def __init__(self, workers: int, step: Step = run_job) -> None:
        self.workers = workers
        self.step = step  # a module-level function: workers import it by name
        self._met_files = 0
        self._met_bytes = 0
        self._starter: threading.Thread | None = None
        self._executor: ProcessPoolExecutor | None = None  # set once its workers are up
        self._open: _Chunk | None = None  # the chunk being filled
        self._unsent: deque[_Chunk] = deque()  # full, waiting for the workers to be up
        self.parsed_in_workers = 0  # files whose parse came back from a worker
        # Why the workers could not be started (the load then parses in its own process).
        self.start_failure: str | None = None
        self._closed = False

    @property
    def window_files(self) -> int:
        """How many files a load may hold ahead of the one it stages: enough for a chunk
        in every worker, one queued and one being filled; without workers, one chunk (the
        files whose identity keys a lake loader takes in one round trip)."""
        return CHUNK_FILES * (self.workers + 2) if self.workers else CHUNK_FILES

    def here(self, job: ParseJob) -> Ticket:
        """The file's parse in this process, when its turn comes."""
        return _Here(job, self.step)

    def submit(self, job: ParseJob) -> Ticket:
        """The file's parse: in a worker when they are up, else in this process at its turn."""
        if not self.workers or len(job.data) > IN_PROCESS_BYTES:
            return _Here(job, self.step)
        self._met_files += 1
        self._met_bytes += len(job.data)
        if (
            self._starter is None
            and self._met_files > 1  # one file has nothing to overlap with
            and (self._met_files >= START_FILES or self._met_bytes >= START_BYTES)
        ):
            self._begin()
        chunk = self._open or _Chunk(self)
        ticket = chunk.add(job)
        self._open = chunk
        if chunk.full():
            self._open = None
            self._unsent.append(chunk)
        self._send_unsent()
        return ticket

    def start(self) -> None:
        """Start the workers now and wait until they are up (for a caller that knows the
        load is large, and for tests; `submit` starts them in the background)."""
        if self.workers and self._starter is None:
            self._begin()
        if self._starter is not None:
            self._starter.join()

    def _begin(self) -> None:
        _FORK_SERVER.enter()
        self._starter = threading.Thread(target=self._start, name="parse-pool", daemon=True)
        self._starter.start()

    def _send_unsent(self) -> None:
        """Hand the workers, once they are up, every full chunk not parsed here yet (those
        met while they started included)."""
        executor = self._executor
        while executor is not None and self._unsent:
            chunk = self._unsent.popleft()
            try:
                with _launching():
                    chunk.future = executor.submit(_run_chunk, self.step, chunk.jobs)
                chunk.executor = executor
            except BrokenProcessPool:  # a worker died: new ones for the files to come
                self.replace(executor)
                return

    def finish(self, chunk: _Chunk) -> list[ParsedFile | Outcome]:
        """The chunk's results, asked for when its first file's turn comes."""
        if chunk is self._open:  # not full yet (the last files of the load)
            self._open = None
        if chunk in self._unsent:  # the workers are not up yet (or no load needs them)
            self._unsent.remove(chunk)
        future = chunk.future
        if future is None:
            self._send_unsent()  # the workers, up meanwhile, take the chunks after it
            return [_guarded(self.step, job) for job in chunk.jobs]
        try:
            results = _unpack(future.result())
            self.parsed_in_workers += len(results)
            return results
        except BrokenProcessPool:  # a worker died: every file it held fails so
            if chunk.executor is not None:
                self.replace(chunk.executor)
            return [self.alone(job) for job in chunk.jobs]

    def alone(self, job: ParseJob) -> ParsedFile | Outcome:
        """A file whose worker died, parsed again in a process of its own: its result, or
        its rejection if that process dies too (the file that killed it, not a neighbour)."""
        with _executor(1) as one:
            try:
                with _launching():
                    alone = one.submit(_guarded, self.step, job)
                return alone.result()
            except BrokenProcessPool:
                reason = "its process ended abruptly (killed, or out of memory)"
                return parser_failure(job.source.path, job.fmt, _ProcessEnded(reason))

    def close(self) -> None:
        """Stop the workers (a load's processes end with it)."""
        self._closed = True
        if self._starter is not None:
            self._starter.join()
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._starter is not None:
            _FORK_SERVER.leave()

    def _start(self) -> None:
        """In the background: start the workers and wait until each is up, then let
        `submit` use them (until then the loading process parses)."""
        executor = None
        try:
            executor = _executor(self.workers)
            with _launching():
                ups = [executor.submit(_up) for _ in range(self.workers)]
            for up in ups:
                up.result()
        except BaseException as exc:  # no workers: every file is parsed in the loading process
            self.start_failure = f"{type(exc).__name__}: {exc}"
            if executor is not None:
                executor.shutdown(wait=True, cancel_futures=True)
            return
        if self._closed:
            executor.shutdown(wait=True, cancel_futures=True)
            return
        self._executor = executor

    def replace(self, broken: ProcessPoolExecutor) -> None:
        """New workers in the background for the files to come, once `broken` is (the
        loading process parses meanwhile)."""
        if self._executor is broken:
            self._executor = None
            broken.shutdown(wait=False, cancel_futures=True)
            self._starter = threading.Thread(target=self._start, name="parse-pool", daemon=True)
            self._starter.start()


@dataclass(frozen=True, slots=True)
class _Packed:
    """A chunk's results on their way back: the files' results without their tables, and
    the tables of one name and schema from every file in one Arrow IPC stream with where
    each file's rows lie (one schema and one batch to read instead of one per file and
    table; pickling Arrow tables column by column cost more than parsing small files)."""

    results: list[ParsedFile | Outcome]
    streams: list[tuple[pa.Buffer, list[tuple[int, int, str, int, int]]]]


def _run_chunk(step: Step, jobs: list[ParseJob]) -> _Packed:
    """In a worker: every file of the chunk, packed for the way back."""
    results = [_guarded(step, job) for job in jobs]
    try:
        return _pack(results)
    except Exception:  # a table IPC cannot write goes back as it is (pickled)
        return _Packed(results, [])


def _pack(results: list[ParsedFile | Outcome]) -> _Packed:
    groups: dict[tuple[str, pa.Schema], list[tuple[int, int, pa.Table]]] = {}
    for file, result in enumerate(results):
        if isinstance(result, ParsedFile):
            for position, (name, table) in enumerate(result.tables.items()):
                groups.setdefault((name, table.schema), []).append((file, position, table))
    streams = []
    for (name, schema), members in groups.items():
        joined = pa.concat_tables([table for _, _, table in members]).combine_chunks()
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, schema) as writer:
            writer.write_table(joined)
        places, offset = [], 0
        for file, position, table in members:
            places.append((file, position, name, offset, table.num_rows))
            offset += table.num_rows
        streams.append((sink.getvalue(), places))
    bare = [replace(r, tables={}) if isinstance(r, ParsedFile) else r for r in results]
    return _Packed(bare, streams)


def _unpack(packed: _Packed) -> list[ParsedFile | Outcome]:
    """The chunk's results with each file's tables as slices of the streams' tables."""
    placed: list[list[tuple[int, str, pa.Table]]] = [[] for _ in packed.results]
    for stream, places in packed.streams:
        joined = pa.ipc.open_stream(stream).read_all()
        for file, position, name, offset, rows in places:
            placed[file].append((position, name, joined.slice(offset, rows)))
    if not packed.streams:
        return packed.results
    return [
        replace(result, tables={name: table for _, name, table in sorted(placed[file])})
        if isinstance(result, ParsedFile)
        else result
        for file, result in enumerate(packed.results)
    ]


class _ProcessEnded(Exception):
    pass


# What `__main__` is while workers are launched: named like a package's `__main__`, which
# multiprocessing never imports again in a new process.
_STAND_IN_MAIN = types.ModuleType("__main__")
_STAND_IN_MAIN.__spec__ = ModuleSpec("ingest.__main__", None)
_MAIN_SWAP = threading.Lock()


@contextmanager
def _launching() -> Iterator[None]:
    """While worker processes may be launched (a pool launches one at a `submit`):
    `__main__` is a stand-in the new process does not import. multiprocessing makes each new
    process import its parent's `__main__` again, by path when it has no module name: a
    caller's own script without a `__main__` guard runs again in every worker, and in a
    process that runs Streamlit pages (the CI's pytest process after the app tests: Streamlit's
    script runner installs the page as `__main__`) every worker ran that page and died,
    and the load parsed in one process. (The dashboard's uploads load in a child
    `python -m ingest load`, whose `__main__` is a module.) The caller's `__main__` is put back
    unless something replaced the stand-in meanwhile (a script run starting in another thread
    keeps its own)."""
    with _MAIN_SWAP:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = _STAND_IN_MAIN
        try:
            yield
        finally:
            if sys.modules.get("__main__") is _STAND_IN_MAIN and main is not None:
                sys.modules["__main__"] = main


def _executor(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=_context(), initializer=_worker_init)


def _context() -> multiprocessing.context.BaseContext:
    """A fork server that imported this module (the parsers, pyarrow) once; workers are
    forked from it, never from the loading process (whose DuckDB runs threads)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


class _ForkServerUsers:
    """The loads of this process using the fork server: the last to end stops it, so no
    process outlives the loads (a dashboard that loaded an upload keeps no parser process;
    multiprocessing has no public call for it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0

    def enter(self) -> None:
        with self._lock:
            self._users += 1

    def leave(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users:
                return
            server = getattr(sys.modules.get("multiprocessing.forkserver"), "_forkserver", None)
            stop = getattr(server, "_stop", None)
            if stop is not None:
                stop()


_FORK_SERVER = _ForkServerUsers()


def _up() -> bool:
    return True


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: the loading process handles it and stops us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answer_pyarrow_probe()
