"""Benchmark: what one dashboard server holds while idle connections pile up (issue 27).

Not a test: it prints a table. `streamlit run` serves the dashboard under a given open-file
limit (default 1,024, soft and hard: the usual limit, and one the server cannot raise), and
this process opens, over loopback only, N connections of each kind a careless or hostile
client leaves behind:
- idle: connected, nothing sent;
- half-sent: a request whose headers never end (`GET / HTTP/1.1`, one header, no blank line);
- websocket: a complete WebSocket handshake to Streamlit's `/_stcore/stream`, never read
  (so never answering the server's pings).
The kinds are opened in turn (one of each, then the next three), so each is represented
among the connections the server accepts. Then it prints, per server:
- descriptors the server process holds before and after the flood (/proc/<pid>/fd);
- a fresh session's answer: a new connection's GET of /_stcore/health and of the page (/),
  with the status and seconds, or "none" when nothing came back within `--answer-timeout`;
- seconds from the flood's start until the server had closed every connection of a kind (a
  closed connection is one whose TCP state on this side is CLOSE_WAIT or CLOSE: the server
  sent FIN or RST; this side never reads), or how many it closed within `--wait`;
- the server's log: lines written during the run, and how many say "Too many open files".

Two servers by default: plain Streamlit serving the pages' script (app/streamlit_app.py,
what Streamlit does without this repository's server hooks) and the dashboard's server
(app/server.py, what scripts/main.sh runs).

    python -m benchmarks.bench_server_connections                  # 1,000 of each kind
    python -m benchmarks.bench_server_connections --per-kind 300 --nofile 256 --wait 45
    python -m benchmarks.bench_server_connections --only server --nofile 1024:65536

Targets (issue 27): a fresh session is answered while the connections pile up; idle and
half-sent connections are closed within the server's request timeout, unread WebSockets
within its ping interval + timeout; the log does not fill with "Too many open files".
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import http.client
import os
import resource
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from harness.process import stop

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "out" / "server_connections"
SCRIPTS = {
    "plain": REPO / "app" / "streamlit_app.py",  # plain Streamlit: no server hooks
    "server": REPO / "app" / "server.py",  # the dashboard's server (scripts/main.sh)
}
KINDS = ("idle", "half-sent", "websocket")
HALF_SENT = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # the blank line that ends it never comes
# Linux TCP states (include/net/tcp_states.h): the first byte of TCP_INFO.
TCP_ESTABLISHED, TCP_SYN_SENT, TCP_CLOSE, TCP_CLOSE_WAIT = 1, 2, 7, 8


def websocket_handshake(host: str) -> bytes:
    """A complete WebSocket upgrade request to Streamlit's session endpoint."""
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: streamlit\r\n\r\n"
    ).encode()


def raise_own_file_limit(needed: int) -> None:
    """This process holds every flood socket: lift its soft open-file limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def tcp_state(sock: socket.socket) -> int:
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def closed_by_server(sock: socket.socket) -> bool:
    """The server sent FIN (CLOSE_WAIT) or RST (CLOSE): read without reading the data."""
    return tcp_state(sock) in (TCP_CLOSE, TCP_CLOSE_WAIT)


@dataclass
class Flood:
    """The flood's sockets by kind; `connected` are those whose handshake completed."""

    sockets: dict[str, list[socket.socket]] = field(default_factory=dict)
    connected: dict[str, int] = field(default_factory=dict)

    def closed(self) -> dict[str, int]:
        return {kind: sum(map(closed_by_server, socks)) for kind, socks in self.sockets.items()}

    def close(self) -> None:
        for socks in self.sockets.values():
            for sock in socks:
                sock.close()


def open_flood(address: tuple[str, int], per_kind: int, connect_timeout_s: float = 10.0) -> Flood:
    """`per_kind` connections of each of KINDS to `address`, opened in turn and left as they
    are: nothing more is sent and nothing is read. Connects are non-blocking, so a server
    whose accept queue is full costs `connect_timeout_s` at most, not a retry per socket."""
    raise_own_file_limit(len(KINDS) * per_kind + 256)
    flood = Flood({kind: [] for kind in KINDS})
    payloads = {"idle": b"", "half-sent": HALF_SENT, "websocket": None}
    pending: dict[socket.socket, str] = {}
    for _ in range(per_kind):
        for kind in KINDS:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            sock.connect_ex(address)
            flood.sockets[kind].append(sock)
            pending[sock] = kind
    deadline = time.monotonic() + connect_timeout_s
    with selectors.DefaultSelector() as sel:
        for sock in pending:
            sel.register(sock, selectors.EVENT_WRITE)
        while pending and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=max(0.0, deadline - time.monotonic())):
                sock = key.fileobj
                sel.unregister(sock)
                kind = pending.pop(sock)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    continue
                payload = payloads[kind]
                if payload is None:
                    payload = websocket_handshake(f"{address[0]}:{address[1]}")
                if payload:
                    sock.send(payload)  # a few hundred bytes: the send buffer takes them
    flood.connected = {
        kind: sum(tcp_state(s) != TCP_SYN_SENT for s in socks)
        for kind, socks in flood.sockets.items()
    }
    return flood


def wait_closed(flood: Flood, wait_s: float, started: float) -> dict[str, float | None]:
    """Seconds from `started` (time.monotonic(), when the flood was opened) until the server
    had closed every connected socket of each kind (None: not within `wait_s` of `started`);
    polls the sockets' TCP state four times a second."""
    done: dict[str, float | None] = dict.fromkeys(flood.sockets)
    while time.monotonic() - started < wait_s:
        closed = flood.closed()
        for kind, count in closed.items():
            if done[kind] is None and count >= flood.connected[kind]:
                done[kind] = time.monotonic() - started
        if all(v is not None for v in done.values()):
            break
        time.sleep(0.25)
    return done


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no answer within the timeout
    seconds: float

    def __str__(self) -> str:
        if self.status is None:
            return f"none in {self.seconds:.0f} s"
        return f"{self.status} in {self.seconds:.2f} s"


def fresh_answer(address: tuple[str, int], path: str, timeout_s: float) -> Answer:
    """A new connection's GET of `path`: the status and the seconds it took, or no answer."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(*address, timeout=timeout_s)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return Answer(resp.status, time.monotonic() - started)
    except (OSError, http.client.HTTPException):
        return Answer(None, time.monotonic() - started)
    finally:
        conn.close()


def descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def log_lines(log: Path) -> tuple[int, int]:
    """Lines in the server's log, and how many of them say "Too many open files"."""
    text = log.read_text(errors="replace")
    return text.count("\n"), text.count("Too many open files")


@dataclass
class Served:
    address: tuple[str, int]
    pid: int
    log: Path

    @property
    def url(self) -> str:
        return "http://{}:{}".format(*self.address)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def served(
    script: Path,
    db: Path,
    log: Path,
    nofile: tuple[int, int] | None = None,
    flags: tuple[str, ...] = (),
    start_timeout_s: float = 90.0,
) -> Iterator[Served]:
    """`streamlit run script` on a free loopback port, under the open-file limit `nofile`
    (soft, hard) when given; yields once /_stcore/health answers ok, stops the server after."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
        "--server.port", str(port), "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false", *flags,
    ]  # fmt: skip
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db)}

    def limit_files() -> None:  # in the child, before exec: the server starts under it
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as out:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, preexec_fn=limit_files
        )
    address = ("127.0.0.1", port)
    try:
        deadline = time.monotonic() + start_timeout_s
        while fresh_answer(address, "/_stcore/health", 2.0).status != 200:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Served(address, proc.pid, log)
    finally:
        stop(proc, 20)


def measure(name: str, args: argparse.Namespace) -> list[str]:
    """One server's row of figures, flooded as the module docstring says."""
    log = OUT / f"{name}.log"
    rows = []
    with served(SCRIPTS[name], args.db, log, nofile=args.nofile) as server:
        time.sleep(1.0)  # let the start-up settle (the warm-up's files)
        held_before = descriptors(server.pid)
        lines_before, _ = log_lines(log)
        started = time.monotonic()
        flood = open_flood(server.address, args.per_kind)
        try:
            time.sleep(args.settle)
            held_after = descriptors(server.pid)
            health = fresh_answer(server.address, "/_stcore/health", args.answer_timeout)
            page = fresh_answer(server.address, "/", args.answer_timeout)
            closed_after = wait_closed(flood, args.wait, started)
            closed = flood.closed()
            health_later = fresh_answer(server.address, "/_stcore/health", args.answer_timeout)
        finally:
            flood.close()
        seconds = time.monotonic() - started
        lines, emfile = log_lines(log)
    rows.append(f"{name}: {SCRIPTS[name].relative_to(REPO)}, open-file limit {args.nofile}")
    rows.append(f"  descriptors held: {held_before} before, {held_after} with the flood open")
    rows.append(f"  fresh session while flooded: health {health}, page {page}")
    for kind in KINDS:
        when = closed_after[kind]
        connected = flood.connected[kind]
        shown = (
            f"all {connected} closed after {when:.1f} s"
            if when is not None
            else f"{closed[kind]} of {connected} closed within {args.wait:.0f} s"
        )
        rows.append(f"  {kind:<9}: {shown}")
    rows.append(f"  fresh session after the wait: health {health_later}")
    rows.append(
        f'  log: {lines - lines_before} lines in {seconds:.0f} s, {emfile} "Too many open files"'
    )
    return rows


def parse_nofile(text: str) -> tuple[int, int]:
    soft, _, hard = text.partition(":")
    return int(soft), int(hard or soft)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=1000, help="connections of each kind")
    parser.add_argument(
        "--nofile", type=parse_nofile, default=(1024, 1024), help="SOFT[:HARD] for the server"
    )
    parser.add_argument("--wait", type=float, default=60.0, help="seconds to wait for closes")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds after the flood")
    parser.add_argument("--answer-timeout", type=float, default=10.0)
    parser.add_argument("--only", choices=sorted(SCRIPTS), action="append")
    parser.add_argument(
        "--db",
        type=Path,
        default=Path(os.environ.get("PERF_DUCKDB_PATH", OUT / "missing.duckdb")),
        help="the warehouse served (default: $PERF_DUCKDB_PATH; none is fine for this)",
    )
    args = parser.parse_args()
    print(
        f"{args.per_kind} connections of each kind ({', '.join(KINDS)}), loopback; "
        f"server open-file limit soft {args.nofile[0]}, hard {args.nofile[1]}"
    )
    for name in args.only or list(SCRIPTS):
        print("\n".join(measure(name, args)), flush=True)


if __name__ == "__main__":
    main()
