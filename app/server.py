"""Serve the dashboard: `streamlit run app/server.py` (scripts/main.sh does).

The pages are app/streamlit_app.py's (AppTest runs that file directly). This file adds what
happens once, when the server starts, so that the first person to open a page does not wait
for it: the libraries the pages use are imported and the published warehouse is attached
(its catalog read). On a 2-core machine that took the first page view about 0.5 s longer
than the next one (tests/app/test_browser.py measures the first view of the default page).
It also sends every response without Nagle's delay (`nodelay_on_every_tcp_connection`).
"""

from __future__ import annotations

import asyncio.base_events
import contextlib
import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import streamlit as st

LOG = logging.getLogger(__name__)
PAGES_SCRIPT = Path(__file__).with_name("streamlit_app.py")


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
    yield


nodelay_on_every_tcp_connection()
app = st.App(str(PAGES_SCRIPT), lifespan=lifespan)
