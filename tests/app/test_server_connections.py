"""The dashboard server under many connections (app/server.py, issue 27).

GIVEN uvicorn as `streamlit run app/server.py` starts it (the module's hooks applied)
WHEN connections are opened and left idle, half-sent or unread, or WebSocket sessions pile up
THEN a connection that waits for a request longer than the request timeout is closed (idle,
half-sent, dribbling a byte at a time, or kept alive and then half-sent), past the planned
number of connections the oldest waiting ones are closed and a new request is answered, past
the planned sessions an upgrade is answered 503, one wake-up accepts a batch and not the whole
queue, a failed accept is logged once and not once per attempt, and the plan leaves the
server's own files room in its open-file limit, which it raises at start.

End to end (marked slow): the real server under a 1,024 open-file limit it cannot raise
answers a new session while 3,300 idle, half-sent and unread WebSocket connections are
opened, closes all of them, and logs a bounded number of lines. Limits are generous: the
behaviour is asserted, the figures are benchmarks/bench_server_connections.py's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from streamlit.runtime.memory_session_storage import MemorySessionStorage

from app import server
from benchmarks.bench_server_connections import (
    HALF_SENT,
    descriptors,
    fresh_answer,
    log_lines,
    open_flood,
    served,
    wait_closed,
    websocket_handshake,
)

GET = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
CLOSED_WITHIN_S = 10.0  # generous: the timeouts below are a fraction of a second


async def hello(scope: dict, receive: Any, send: Any) -> None:
    """An ASGI app: `ok` to a request, and a WebSocket accepted and held until it closes."""
    if scope["type"] == "http":
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"ok"})
    elif scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass


@pytest.fixture()
def limits(monkeypatch: pytest.MonkeyPatch) -> Iterator[server.ConnectionLimits]:
    """A small plan, whatever this machine's open-file limit: 4 connections, 1 session."""
    small = server.ConnectionLimits(open_files=1024, connections=4, sessions=1, concurrency=100)
    monkeypatch.setattr(server.ConnectionLimits, "for_open_files", classmethod(lambda *_: small))
    monkeypatch.setattr(server, "REQUEST_TIMEOUT_S", 30.0)
    yield small


@contextlib.asynccontextmanager
async def uvicorn_serving() -> AsyncIterator[tuple[str, int]]:
    """uvicorn on a loopback socket, started as Streamlit starts it (config loaded, then
    Server.startup, which app/server.py wraps); yields the address."""
    listener = socket.socket(socket.AF_INET)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    listener.setblocking(False)
    config = uvicorn.Config(
        hello, lifespan="off", ws="websockets-sansio", ws_ping_interval=None, log_config=None
    )
    config.load()
    uv = uvicorn.Server(config)
    uv.lifespan = config.lifespan_class(config)
    await uv.startup(sockets=[listener])
    main_loop = asyncio.create_task(uv.main_loop())
    try:
        yield listener.getsockname()
    finally:
        uv.should_exit = True
        await main_loop
        await asyncio.wait_for(uv.shutdown(sockets=[listener]), CLOSED_WITHIN_S)


async def connect(
    address: tuple[str, int], send: bytes = b""
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A client connection; keep the writer: a collected StreamWriter closes its connection."""
    reader, writer = await asyncio.open_connection(*address)
    if send:
        writer.write(send)
        await writer.drain()
    return reader, writer


async def closed_by_server(reader: asyncio.StreamReader, within_s: float) -> bool:
    """Whether the server closes the connection within `within_s` (what it sent is read)."""
    try:
        async with asyncio.timeout(within_s):
            while await reader.read(4096):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return True


async def answer(address: tuple[str, int], request: bytes) -> bytes:
    reader, _writer = await connect(address, request)
    async with asyncio.timeout(CLOSED_WITHIN_S):
        return await reader.readuntil(b"\r\n")


def test_a_connection_that_does_not_complete_a_request_in_time_is_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(server, "REQUEST_TIMEOUT_S", 0.5)

    async def scenario() -> dict[str, bool]:
        async with uvicorn_serving() as address:
            idle, _idle_writer = await connect(address)
            half_sent, _half_sent_writer = await connect(address, HALF_SENT)
            # kept alive: one request answered, then the next one's headers never end
            kept_reader, kept_writer = await connect(address, GET)
            await kept_reader.readuntil(b"\r\n\r\n")
            kept_writer.write(HALF_SENT)
            # a header line a byte at a time, every 0.1 s: each byte is not a new deadline
            slow_reader, slow_writer = await connect(address)

            async def dribble() -> None:
                with contextlib.suppress(ConnectionError):
                    for byte in HALF_SENT * 10:
                        slow_writer.write(bytes([byte]))
                        await asyncio.sleep(0.1)

            dribbling = asyncio.create_task(dribble())
            # a request that comes before the timeout is answered
            prompt_reader, prompt_writer = await connect(address)
            await asyncio.sleep(0.2)
            prompt_writer.write(GET)
            status = await prompt_reader.readuntil(b"\r\n")
            closed = {
                name: await closed_by_server(reader, CLOSED_WITHIN_S)
                for name, reader in {
                    "idle": idle,
                    "half-sent": half_sent,
                    "kept alive, then half-sent": kept_reader,
                    "dribbling": slow_reader,
                }.items()
            }
            dribbling.cancel()
            closed["answered before the timeout"] = status.startswith(b"HTTP/1.1 200")
            return closed

    assert asyncio.run(scenario()) == {
        "idle": True,
        "half-sent": True,
        "kept alive, then half-sent": True,
        "dribbling": True,
        "answered before the timeout": True,
    }


def test_past_the_planned_connections_the_oldest_waiting_are_closed(
    limits: server.ConnectionLimits,
) -> None:
    async def scenario() -> tuple[list[bool], bytes]:
        async with uvicorn_serving() as address:
            waiting = []
            for _ in range(6):  # two more than the 4 planned
                waiting.append(await connect(address))
                await asyncio.sleep(0.1)  # the server has seen it before the next one
            status = await answer(address, GET)  # the 7th: room is made for it too
            closed = [await closed_by_server(r, CLOSED_WITHIN_S) for r, _ in waiting[:3]]
            still_open = [not await closed_by_server(r, 0.3) for r, _ in waiting[3:]]
            return closed + still_open, status

    closed_then_open, status = asyncio.run(scenario())
    assert status.startswith(b"HTTP/1.1 200")
    assert closed_then_open == [True] * 6  # 1-3 closed (oldest first), 4-6 still open


def test_past_the_planned_sessions_an_upgrade_is_answered_503(
    limits: server.ConnectionLimits,
) -> None:
    async def scenario() -> list[bytes]:
        async with uvicorn_serving() as address:
            handshake = websocket_handshake("{}:{}".format(*address))
            first, _open = await connect(address, handshake)  # the one planned session
            second, _refused = await connect(address, handshake)
            async with asyncio.timeout(CLOSED_WITHIN_S):
                return [await first.readuntil(b"\r\n"), await second.readuntil(b"\r\n")]

    first, second = asyncio.run(scenario())
    assert first.startswith(b"HTTP/1.1 101")
    assert second.startswith(b"HTTP/1.1 503")


def test_one_wake_up_accepts_a_batch_not_the_whole_queue() -> None:
    # GIVEN 100 connections queued on a listening socket
    listener = socket.socket(socket.AF_INET)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.setblocking(False)
    queued = [socket.create_connection(listener.getsockname()) for _ in range(100)]
    made: list[asyncio.BaseTransport] = []

    class Accepted(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            made.append(transport)

    async def one_wake_up() -> int:
        loop = asyncio.get_running_loop()
        # WHEN asyncio's accept step runs once, with uvicorn's backlog (2,048)
        loop._accept_connection(Accepted, listener, None, None, 2048)
        await asyncio.sleep(0.2)
        for transport in made:
            transport.close()
        await asyncio.sleep(0)
        return len(made)

    try:
        # THEN a batch is accepted, the rest wait for the next wake-up
        assert asyncio.run(one_wake_up()) == server.ACCEPT_BATCH
    finally:
        for sock in queued:
            sock.close()
        listener.close()


@pytest.fixture()
def server_log() -> Iterator[list[str]]:
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    server.LOG.addHandler(handler)
    yield lines
    server.LOG.removeHandler(handler)


def test_a_failed_accept_is_logged_once_not_once_per_attempt(server_log: list[str]) -> None:
    limits = server.ConnectionLimits.for_open_files(1024)

    async def fail_accepts() -> None:
        loop = asyncio.get_running_loop()
        server.quiet_failed_accepts(loop, limits)
        for _ in range(2048):  # one wake-up of asyncio's accept loop before the fix
            loop.call_exception_handler({
                "message": server.ACCEPT_FAILED,
                "exception": OSError(24, "Too many open files"),
            })  # fmt: skip

    asyncio.run(fail_accepts())
    assert len(server_log) == 1
    assert "Too many open files" in server_log[0]


def test_a_repeated_warning_notes_how_many_were_held_back(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = server.OncePer(60.0)
    assert [gate.let_through() for _ in range(4)] == [0, None, None, None]
    monkeypatch.setattr(gate, "last", gate.last - 61.0)  # a minute later
    assert gate.let_through() == 3


def test_the_plan_leaves_the_servers_own_files_room() -> None:
    for open_files in (1024, 4096, 16_384, 1_048_576):
        plan = server.ConnectionLimits.for_open_files(open_files)
        retained = server.RETAINED_SESSIONS * (server.SESSION_DESCRIPTORS - 1)
        in_flight = 4 * server.ACCEPT_BATCH
        held = plan.connections + (server.SESSION_DESCRIPTORS - 1) * plan.sessions
        assert held + retained + in_flight + 64 <= plan.open_files <= open_files
        assert plan.concurrency - plan.connections == in_flight  # 503 only past a burst
    assert server.ConnectionLimits.for_open_files(1024).sessions >= 32  # a team's tabs
    assert server.ConnectionLimits.for_open_files(10**6).open_files == server.PLANNED_FILES_MAX


def test_the_retained_sessions_figure_is_streamlits() -> None:
    import inspect

    maxsize = inspect.signature(MemorySessionStorage).parameters["maxsize"].default
    assert maxsize == server.RETAINED_SESSIONS


RAISE = "from app import server; print(server.raise_open_file_limit())"


def test_the_open_file_limit_is_raised_to_the_hard_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard < 512:
        pytest.skip(f"hard open-file limit {hard}")

    def lower_soft() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    done = subprocess.run(
        [sys.executable, "-c", RAISE], capture_output=True, text=True, timeout=120,
        preexec_fn=lower_soft, check=True,
    )  # fmt: skip
    assert int(done.stdout.split()[-1]) == hard


# End to end: the real server, the real limit.
SERVER = Path(server.__file__)
NOFILE = 1024  # the usual soft limit, here the hard one too: the server cannot raise it
PER_KIND = 1100  # 3,300 connections in all
PING_S = 2  # --server.websocketPingInterval: an unread session is closed after ~4 s


@pytest.mark.slow
def test_a_new_session_is_answered_while_idle_connections_pile_up(
    empty_warehouse: Path, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    flags = ("--server.websocketPingInterval", str(PING_S))
    with served(SERVER, empty_warehouse, log, nofile=(NOFILE, NOFILE), flags=flags) as run:
        lines_at_start, _ = log_lines(log)
        started = time.monotonic()
        flood = open_flood(run.address, PER_KIND)
        try:
            assert sum(flood.connected.values()) > NOFILE
            # THEN a new session is answered while they are open
            health = fresh_answer(run.address, "/_stcore/health", 30.0)
            page = fresh_answer(run.address, "/", 30.0)
            held = descriptors(run.pid)
            # and every one of them is closed: idle and half-sent within (3x) the request
            # timeout, unread WebSockets at once (503, past the sessions) or on the ping timeout
            closed_after = wait_closed(flood, 3 * server.REQUEST_TIMEOUT_S + 4 * PING_S, started)
            closed = flood.closed()
            health_later = fresh_answer(run.address, "/_stcore/health", 30.0)
        finally:
            flood.close()
        lines, too_many_open_files = log_lines(log)
    assert (health.status, page.status, health_later.status) == (200, 200, 200)
    assert held < NOFILE - 64  # room left for its own files
    assert closed == flood.connected, closed_after
    assert lines - lines_at_start < 100  # was over a million a minute
    assert too_many_open_files <= 10
