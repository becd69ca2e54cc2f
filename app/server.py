"""Serve the dashboard: `streamlit run app/server.py [-- --warehouse W]` (scripts/main.sh does).

The warehouse is chosen as for `python -m ingest`: `--warehouse` (and `--data-path`) after
`--`, else PERF_WAREHOUSE, else PERF_DUCKDB_PATH or data/warehouse.duckdb.

The pages are app/streamlit_app.py's (AppTest runs that file directly). This file adds what
happens once, when the server starts, so that the first person to open a page does not wait
for it: the libraries the pages use are imported and the published warehouse is attached
(its catalog read). On a 2-core machine that took the first page view about 0.5 s longer
than the next one (tests/app/test_browser.py measures the first view of the default page).
At shutdown it stops the chart exports' browser (charts/export.py), if an export started one.
It also sends every response without Nagle's delay (`nodelay_on_every_tcp_connection`), and
it bounds what the server holds when connections pile up (`bound_connections`).

Bounding connections (issue 27). Streamlit 1.67 serves through uvicorn (h11), which keeps a
connection that never sends a complete request for ever (its keep-alive timer starts only
after a first response), counts a WebSocket upgrade against no limit, and sets no limit of its
own; Streamlit passes uvicorn only its WebSocket settings. 3,000 idle, half-sent or unread
WebSocket connections were all held, a new session got no answer once the descriptors were
used (the usual limit, 1,024), and asyncio logged each failed accept with its traceback (6.7
million lines in 90 s). The server now (figures: benchmarks/bench_server_connections.py):
- raises its soft open-file limit to the hard one at start, and logs both;
- plans its connections from that limit (`ConnectionLimits`): past `connections`, the oldest
  connections that wait for a request (idle, half-sent, kept alive) are closed to make room;
  past `sessions` WebSocket sessions, an upgrade gets 503; past `concurrency` connections,
  uvicorn answers requests with 503 (`limit_concurrency`);
- closes a connection whose request is not complete `REQUEST_TIMEOUT_S` after it began to
  wait for one (a header timeout, which uvicorn lacks), and a kept-alive one after
  `KEEP_ALIVE_S` (uvicorn's `timeout_keep_alive`); a WebSocket that does not answer pings is
  closed by uvicorn after `server.websocketPingInterval` twice (app/.streamlit/config.toml);
- accepts `ACCEPT_BATCH` connections per event-loop wake-up, so those limits act before the
  descriptors run out, and logs a failed accept or a 503 once per `LOG_REPEATS_EVERY_S`.
Shared use belongs behind a reverse proxy that bounds each client first (README, "The
dashboard server": nginx's limit_conn, client_header_timeout, proxy_read_timeout).
"""

from __future__ import annotations

import argparse
import asyncio.base_events
import asyncio.selector_events
import contextlib
import functools
import itertools
import logging
import math
import os
import resource
import socket
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h11
import streamlit as st
import uvicorn
from streamlit.logger import get_logger
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.lib.charts.export import stop_browser

LOG = get_logger(__name__)  # Streamlit's handler and `logger.level`: the lines show in its log
PAGES_SCRIPT = Path(__file__).with_name("streamlit_app.py")

# What one connection costs, measured on this server (/proc/<pid>/fd): 7 descriptors at rest,
# 9 after a page view; an HTTP connection is one descriptor, a WebSocket session four (its
# socket, and the epoll and self-pipe pair of the event loop Streamlit makes per session).
SESSION_DESCRIPTORS = 4
# asyncio accepts up to the listen backlog (uvicorn: 2,048) per wake-up, before the server sees
# any of them: a flood used every descriptor in one go. 32 a wake-up keeps what is accepted
# ahead of the idle ones closed to a few batches (the reserve below holds four), and still
# drains a flood fast: a request queued behind 3,000 connections was answered in 0.11 s.
ACCEPT_BATCH = 32
# Streamlit keeps a closed session for server.disconnectedSessionTTL (120 s), at most 128 of
# them (MemorySessionStorage's maxsize), each with its event loop's three descriptors: 400
# sessions opened and closed left 394 descriptors held (7 + 128 x 3 + 3).
RETAINED_SESSIONS = 128
# Descriptors kept out of the connection plan: the server's own files (the warehouse, static
# files being sent, the file watcher: 9 measured), four accept batches in flight and the
# retained sessions' event loops.
RESERVE_MIN = 64 + 4 * ACCEPT_BATCH + RETAINED_SESSIONS * (SESSION_DESCRIPTORS - 1)
# The plan is made for at most this many descriptors even when the hard limit is higher
# (often 524,288): 7,680 connections, of them up to 1,536 sessions, ~50 KB a session when
# idle (200 unread sessions took 10 MB), so a raised limit does not become unbounded memory.
PLANNED_FILES_MAX = 16_384
# A connection that has not sent a complete request line and headers 10 s after it began to
# wait for one is closed. Chromium keeps its own unused, preconnected sockets for 10 s
# (net/socket/client_socket_pool.cc, unused idle socket timeout), so a browser's speculative
# connection is never cut before the browser would drop it; a request's headers take
# milliseconds on loopback or a LAN, and a reverse proxy sends them whole.
REQUEST_TIMEOUT_S = 10.0
# uvicorn's default keep-alive (Streamlit leaves it): a page fetches its ~60 scripts within a
# second, and a browser reopens a closed kept-alive connection by itself.
KEEP_ALIVE_S = 5
# A repeated warning (a failed accept, a 503, connections closed to make room) is logged at
# most once per 10 s, with how many were held back: six lines a minute, not a million.
LOG_REPEATS_EVERY_S = 10.0
ACCEPT_FAILED = "socket.accept() out of system resource"  # asyncio's message (selector_events)
CONCURRENCY_EXCEEDED = "Exceeded concurrency limit."  # uvicorn's warning for each 503
SESSIONS_FULL_BODY = b"Too many sessions: try again soon.\n"
SESSIONS_FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s"
) % (len(SESSIONS_FULL_BODY), SESSIONS_FULL_BODY)


def nodelay_on_every_tcp_connection() -> None:
    """Send each response as soon as it is written (TCP_NODELAY) on every connection.

    asyncio sets TCP_NODELAY only on sockets whose `proto` is IPPROTO_TCP, and Streamlit
    1.67 binds its listening socket as `socket.socket(family)` (proto 0), which every
    accepted connection inherits. Without it, Nagle's algorithm holds the last segment of
    each response on a kept-alive connection until the browser's delayed ACK (40 ms on
    Linux): a fresh browser fetches Streamlit's ~60 JavaScript modules over 6 connections,
    so the page's start waited ~0.4 s on the network with the CPU idle.
    The listening socket is bound before this module is imported, so the fix is where
    asyncio decides, for each connection accepted from now on.
    """
    if not hasattr(socket, "TCP_NODELAY") or not hasattr(asyncio.base_events, "_set_nodelay"):
        return

    def set_nodelay(sock: socket.socket) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    asyncio.base_events._set_nodelay = set_nodelay  # private hook: see the docstring


class OncePer:
    """Lets one event through per `seconds` and counts the ones it holds back."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last = -math.inf
        self.held = 0

    def let_through(self) -> int | None:
        """None: hold this one back; otherwise how many were held back since the last one."""
        now = time.monotonic()
        if now - self.last < self.seconds:
            self.held += 1
            return None
        held, self.held, self.last = self.held, 0, now
        return held


def held_back(count: int) -> str:
    return f" ({count} more since the last such line)" if count else ""


@dataclass(frozen=True)
class ConnectionLimits:
    """What one server holds, planned from its open-file limit (the module docstring)."""

    open_files: int  # the soft limit the plan is made for (at most PLANNED_FILES_MAX)
    connections: int  # HTTP and WebSocket connections; past it the oldest waiting are closed
    sessions: int  # WebSocket sessions; the next upgrade is answered 503
    concurrency: int  # uvicorn's limit_concurrency: past it, requests are answered 503

    @classmethod
    def for_open_files(cls, open_files: int) -> ConnectionLimits:
        """A quarter of the descriptors, at least RESERVE_MIN, is kept out of the plan;
        sessions may take half of the rest, the remainder is one descriptor per connection.
        At 1,024: 280 connections, of them up to 56 sessions, and 503 past 408 (accept batches
        in flight before the oldest waiting ones are closed). At 16,384: 7,680 and 1,536."""
        files = min(open_files, PLANNED_FILES_MAX)
        usable = max(files - max(files // 4, RESERVE_MIN), 2 * SESSION_DESCRIPTORS)
        sessions = usable // (2 * SESSION_DESCRIPTORS)
        connections = usable - (SESSION_DESCRIPTORS - 1) * sessions
        return cls(files, connections, sessions, connections + 4 * ACCEPT_BATCH)


def raise_open_file_limit() -> int:
    """Raise the soft open-file limit to the hard one; the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, PLANNED_FILES_MAX)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError) as exc:  # e.g. above the kernel's nr_open
            LOG.warning("open-file limit stays %d (hard %d): %s", soft, hard, exc)
            return soft
        LOG.info("open-file limit raised from %d to %d (the hard limit)", soft, wanted)
        return wanted
    LOG.info("open-file limit %d (hard %d)", soft, hard)
    return soft


class ConnectionGuard:
    """One server's HTTP connections: those waiting for a request, oldest first, are the ones
    closed to make room; WebSocket sessions are counted against `limits.sessions`."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.http: set[BoundedH11Protocol] = set()  # open and not upgraded
        self.waiting: dict[BoundedH11Protocol, None] = {}  # insertion order: oldest first
        self.closing = 0  # closed here, their connection_lost not run yet
        self.evictions = OncePer(LOG_REPEATS_EVERY_S)
        self.refusals = OncePer(LOG_REPEATS_EVERY_S)

    def opened(self, protocol: BoundedH11Protocol) -> None:
        self.http.add(protocol)
        self.wait_for_request(protocol)
        excess = len(protocol.connections) - self.closing - self.limits.connections
        if excess <= 0:
            return
        oldest = [p for p in itertools.islice(self.waiting, excess) if p is not protocol]
        for victim in oldest:
            self.close(victim)
        held = self.evictions.let_through() if oldest else None
        if held is not None:
            LOG.warning(
                "%d connections open (limit %d): closed the %d oldest waiting for a request%s",
                len(protocol.connections), self.limits.connections, len(oldest), held_back(held),
            )  # fmt: skip

    def wait_for_request(self, protocol: BoundedH11Protocol) -> None:
        self.waiting.pop(protocol, None)
        self.waiting[protocol] = None
        protocol.arm_request_deadline(REQUEST_TIMEOUT_S)

    def busy(self, protocol: BoundedH11Protocol) -> None:
        self.waiting.pop(protocol, None)
        protocol.disarm_request_deadline()

    def close(self, protocol: BoundedH11Protocol) -> None:
        self.busy(protocol)
        if not protocol.transport.is_closing():
            protocol.closed_here = True
            self.closing += 1
            protocol.close_unanswered()

    def lost(self, protocol: BoundedH11Protocol) -> None:
        self.busy(protocol)
        self.http.discard(protocol)
        if protocol.closed_here:
            protocol.closed_here = False
            self.closing -= 1

    def admit_session(self, protocol: BoundedH11Protocol) -> bool:
        """Whether an upgrade may become a session; `protocol` stops being an HTTP one."""
        sessions = len(protocol.connections) - len(self.http)
        if sessions < self.limits.sessions:
            self.busy(protocol)
            self.http.discard(protocol)
            return True
        held = self.refusals.let_through()
        if held is not None:
            LOG.warning(
                "%d WebSocket sessions open (limit %d): new ones are answered 503%s",
                sessions, self.limits.sessions, held_back(held),
            )  # fmt: skip
        return False


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a request deadline, room made by closing the oldest
    waiting connections, and a cap on WebSocket sessions (`ConnectionGuard`)."""

    def __init__(self, *args: Any, guard: ConnectionGuard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self.request_deadline: asyncio.TimerHandle | None = None
        self.closed_here = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.guard.opened(self)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:  # a whole request line and headers came
            self.guard.busy(self)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.guard.wait_for_request(self)  # kept alive: the next request's clock starts

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.lost(self)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        if self.guard.admit_session(self):
            super().handle_websocket_upgrade(event)
            return
        self.transport.write(SESSIONS_FULL)
        self.transport.close()

    def arm_request_deadline(self, seconds: float) -> None:
        self.disarm_request_deadline()
        self.request_deadline = self.loop.call_later(seconds, self.request_timed_out)

    def disarm_request_deadline(self) -> None:
        if self.request_deadline is not None:
            self.request_deadline.cancel()
            self.request_deadline = None

    def request_timed_out(self) -> None:
        self.request_deadline = None
        if self.conn.their_state is h11.IDLE:
            self.guard.close(self)

    def close_unanswered(self) -> None:
        """Close a connection that has no request in progress, as uvicorn's keep-alive does."""
        with contextlib.suppress(h11.LocalProtocolError):
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()


def accept_in_small_batches() -> None:
    """Accept at most ACCEPT_BATCH connections per wake-up of the listening socket.

    asyncio's selector loop accepts up to `backlog` connections per wake-up (uvicorn passes
    2,048) before any of them reaches the server, and on EMFILE it goes on calling accept()
    for the rest of the batch, logging and rescheduling each time (CPython gh-151615, fixed
    after 3.11). The batch size is the only argument changed.
    """
    loop_class = asyncio.selector_events.BaseSelectorEventLoop
    original = loop_class._accept_connection
    if getattr(original, "accept_batch", None):
        return

    @functools.wraps(original)
    def accept(
        self: Any, factory: Any, sock: Any, sslcontext: Any = None, server: Any = None,
        backlog: int = 100, *rest: Any,
    ) -> None:  # fmt: skip
        # what _start_serving passes, positionally, with the backlog cut to a batch
        batch = min(backlog, ACCEPT_BATCH)
        return original(self, factory, sock, sslcontext, server, batch, *rest)

    accept.accept_batch = ACCEPT_BATCH  # type: ignore[attr-defined]
    loop_class._accept_connection = accept  # private hook: see the docstring


class RepeatedWarnings(logging.Filter):
    """Lets each of `messages` through once per LOG_REPEATS_EVERY_S, noting the ones held."""

    def __init__(self, messages: tuple[str, ...]) -> None:
        super().__init__()
        self.gates = {message: OncePer(LOG_REPEATS_EVERY_S) for message in messages}

    def filter(self, record: logging.LogRecord) -> bool:
        gate = self.gates.get(record.msg) if isinstance(record.msg, str) else None
        if gate is None:
            return True
        held = gate.let_through()
        if held and not record.args:
            record.msg = record.msg + held_back(held)
        return held is not None


def quiet_failed_accepts(loop: asyncio.AbstractEventLoop, limits: ConnectionLimits) -> None:
    """A failed accept (EMFILE) is one line, at most once per LOG_REPEATS_EVERY_S; asyncio's
    default prints each with its traceback (eight lines) and retries the accept a second
    later, which it still does."""
    previous = loop.get_exception_handler()
    gate = OncePer(LOG_REPEATS_EVERY_S)

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_FAILED:
            if previous is not None:
                previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        held = gate.let_through()
        if held is not None:
            LOG.warning(
                "cannot accept a connection (%s; %d descriptors planned): retrying in 1 s%s",
                context.get("exception"), limits.open_files, held_back(held),
            )  # fmt: skip

    loop.set_exception_handler(handle)


def apply_limits(server: uvicorn.Server) -> ConnectionLimits:
    """Raise the file limit, plan the connections and set them on the server's config."""
    limits = ConnectionLimits.for_open_files(raise_open_file_limit())
    config = server.config
    config.timeout_keep_alive = KEEP_ALIVE_S
    config.limit_concurrency = limits.concurrency
    if isinstance(config.http_protocol_class, type) and issubclass(
        config.http_protocol_class, H11Protocol
    ):
        guard = ConnectionGuard(limits)
        config.http_protocol_class = functools.partial(BoundedH11Protocol, guard=guard)
    else:  # e.g. httptools installed: uvicorn's limits only
        LOG.warning("HTTP protocol %r: no request timeout", config.http_protocol_class)
    quiet_failed_accepts(asyncio.get_running_loop(), limits)
    uvicorn_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, RepeatedWarnings) for f in uvicorn_log.filters):
        uvicorn_log.addFilter(RepeatedWarnings((CONCURRENCY_EXCEEDED,)))
    if limits.sessions < 32:  # fewer browser tabs at once than a team opens
        LOG.warning(
            "an open-file limit of %d leaves %d connections: raise it (ulimit -n, LimitNOFILE)",
            limits.open_files, limits.connections,
        )  # fmt: skip
    LOG.info(
        "connections: %d held (oldest waiting closed past it), %d WebSocket sessions, 503 past "
        "%d; a request must be complete %g s after the connection waits for it, kept-alive "
        "connections close after %d s",
        limits.connections, limits.sessions, limits.concurrency, REQUEST_TIMEOUT_S, KEEP_ALIVE_S,
    )  # fmt: skip
    return limits


def bound_connections() -> None:
    """Apply `apply_limits` to the uvicorn server that imports this module.

    `streamlit run` builds its uvicorn.Config before it imports this file (config.load(),
    inside Server.serve) and reads the config's protocol class and limits in
    Server.startup, which runs next: wrapping startup reaches that server's config."""
    accept_in_small_batches()
    original = uvicorn.Server.startup
    if getattr(original, "applies_limits", False):
        return

    @functools.wraps(original)
    async def startup(self: uvicorn.Server, sockets: list[socket.socket] | None = None) -> None:
        apply_limits(self)
        await original(self, sockets=sockets)

    startup.applies_limits = True  # type: ignore[attr-defined]
    uvicorn.Server.startup = startup  # type: ignore[method-assign]


def warm_up() -> None:
    """Import the pages' libraries and read the warehouse the pages read, as a first page view
    would. A warehouse that cannot be read is left for the page to report in its own words."""
    from app.lib import charts, db, plotly_view, provenance, queries, ui  # noqa: F401

    try:  # uncached (not queries.marts_columns): the point is the attach, whatever is cached
        db.marts_columns(db.reading_path())
    except Exception as exc:
        LOG.info("warm-up could not read the warehouse: %s", exc)


@contextlib.asynccontextmanager
async def lifespan(_app: st.App) -> AsyncIterator[None]:
    warm_up()
    try:
        yield
    finally:
        # The chart exports' chromium (started by a first export), with its temporary profile.
        stop_browser()


def warehouse_from_arguments(argv: list[str]) -> None:
    """`streamlit run app/server.py -- --warehouse W [--data-path P]`: the same choice as
    PERF_WAREHOUSE and PERF_LAKE_DATA_PATH (`python -m ingest --warehouse`), made here once,
    in the environment, where the pages and the upload job's commands read it."""
    parser = argparse.ArgumentParser(
        prog="streamlit run app/server.py --", add_help=False, allow_abbrev=False
    )
    parser.add_argument("--warehouse")
    parser.add_argument("--data-path", dest="data_path")
    args, _ = parser.parse_known_args(argv)
    if args.warehouse:
        os.environ["PERF_WAREHOUSE"] = args.warehouse
    if args.data_path:
        os.environ["PERF_LAKE_DATA_PATH"] = args.data_path


warehouse_from_arguments(sys.argv[1:])
nodelay_on_every_tcp_connection()
bound_connections()
app = st.App(str(PAGES_SCRIPT), lifespan=lifespan)
