"""The console's worker processes: started ahead, reused while healthy, killed at the limit.

Starting Python with DuckDB and Arrow takes 0.2 s of CPU, over a second of wall time on a busy
host; a query should not wait for that. So idle workers are kept: one that answered is put back
(it holds no connection between queries) until it has served `MAX_USES` queries, and spare
ones are started ahead to replace those that were killed. A worker that does not answer within
the time limit is killed (SIGKILL) and reaped at once: whatever DuckDB was doing, it stops, and
no process or connection is left behind. An idle worker exits on EOF, so none outlives the
server.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
from dataclasses import asdict
from pathlib import Path

from warehouse.console_worker import Outcome, Request

# Fresh workers kept started ahead, and the most idle workers kept (about 90 MB each): the
# spares plus one that answered and is reused.
SPARES = 2
MAX_IDLE = SPARES + 1
# A worker's address-space cap is set once; recycle it before fragmentation eats into it.
MAX_USES = 25
_REPO = Path(__file__).resolve().parents[2]
_LOCK = threading.Lock()
# (worker, queries served, the kind of warehouse it reads), warmest first. A worker sets its
# memory cap at its first request, after preloading what that request's kind of warehouse
# needs (`Reader.preload`: a lake's extensions, ~850 MB of address space): a worker of another
# kind would abort on its first query.
_idle: list[tuple[subprocess.Popen[str], int, str]] = []


class NoAnswer(RuntimeError):
    """The worker ended without answering (crashed, or killed by the system)."""


class TimedOut(RuntimeError):
    """The worker did not answer in time and was killed."""


def _spawn() -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "warehouse.console_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        # Not a pipe: nobody reads it while a query runs, and a full pipe would block the child.
        stderr=subprocess.DEVNULL,
        cwd=_REPO,
        text=True,
    )


def _take(kind: str, spares: int) -> tuple[subprocess.Popen[str], int]:
    """The warmest idle worker of the kind (a new one if none), and `spares` topped up."""
    with _LOCK:
        stale = [w for w, _, k in _idle if k != kind]
        _idle[:] = [e for e in _idle if e[0].poll() is None and e[2] == kind]
        taken = _idle.pop(0)[:2] if _idle else (_spawn(), 0)
        while len(_idle) < spares:
            _idle.append((_spawn(), 0, kind))
    for worker in stale:  # the dashboard switched warehouses: the other kind is not asked
        _close(worker)
    return taken


def _give_back(worker: subprocess.Popen[str], uses: int, kind: str) -> None:
    with _LOCK:
        if uses < MAX_USES and len(_idle) < MAX_IDLE:
            _idle.insert(0, (worker, uses, kind))  # it has imported everything: use it first
            return
    _close(worker)


def _close(worker: subprocess.Popen[str]) -> None:
    try:
        worker.communicate("", timeout=5)  # EOF: an idle worker exits at once
    except subprocess.TimeoutExpired:
        _kill(worker)


def _kill(worker: subprocess.Popen[str]) -> None:
    if worker.poll() is None:
        worker.kill()
    worker.communicate()  # reap it and close the pipes: no zombie, no open handle


def shutdown() -> None:
    """End the idle workers (tests, and a server that stops serving the console)."""
    with _LOCK:
        idle = [w for w, _, _ in _idle]
        _idle.clear()
    for worker in idle:
        _close(worker)


def run(request: Request, kind: str, timeout_s: float, *, spares: int = SPARES) -> Outcome:
    """`request` answered by a worker that reads warehouses of `kind` (the reader's class);
    TimedOut (worker killed) or NoAnswer otherwise. `spares`: idle workers to start ahead (a
    server's next query; none for a one-off command)."""
    worker, uses = _take(kind, spares)
    try:
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(json.dumps(asdict(request)) + "\n")
        worker.stdin.flush()
        # One request at a time per worker and one line per answer: nothing is read ahead,
        # so the pipe's readiness is the answer's.
        ready, _, _ = select.select([worker.stdout], [], [], timeout_s)
        line = worker.stdout.readline() if ready else None
    except OSError:  # the worker died before or while taking the request
        line = ""
    if line is None:
        _kill(worker)
        raise TimedOut
    if not line.strip():
        _kill(worker)
        raise NoAnswer(f"exit status {worker.returncode}")
    outcome = Outcome(**json.loads(line))
    # Reuse a worker only with half its memory budget left: a failed or large query may leave
    # its allocator holding memory that the next query's cap would count. (A first query
    # maps about 200 MB of DuckDB threads and arenas: 3/4 would retire every worker.)
    if outcome.ok and outcome.headroom_bytes >= request.memory_bytes // 2:
        _give_back(worker, uses + 1, kind)
    else:
        _close(worker)
    return outcome
