"""What the server does once at start (app/server.py), before anyone opens a page.

GIVEN the published warehouse (or none at all)
WHEN the server's warm-up runs
THEN the published snapshot is attached and kept, as a first page view would leave it, and a
warehouse that cannot be read does not stop the server (the page reports it); every
connection the server accepts sends without Nagle's delay (TCP_NODELAY); and `streamlit run`
takes its settings from app/.streamlit/config.toml wherever it starts. What the server holds
under many connections: test_server_connections.py.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from app import server
from warehouse import file


def test_warm_up_attaches_the_published_snapshot(warehouse_env: Path) -> None:
    file._kept.clear()
    server.warm_up()
    assert file.serving_path(warehouse_env) in file._kept


def test_warm_up_without_a_warehouse_lets_the_server_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(tmp_path / "missing.duckdb"))
    file._kept.clear()
    server.warm_up()  # no exception
    assert file._kept == {}


def test_the_server_serves_the_pages_script() -> None:
    assert server.PAGES_SCRIPT.name == "streamlit_app.py"
    assert server.PAGES_SCRIPT.parent == Path(server.__file__).parent
    assert server.PAGES_SCRIPT.is_file()


def nodelay_of_an_accepted_connection(listener: socket.socket) -> int:
    """TCP_NODELAY of the connection an asyncio server accepts on `listener`."""

    async def accept_one() -> int:
        seen: list[int] = []

        def on_connect(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        srv = await asyncio.start_server(on_connect, sock=listener)
        reader, writer = await asyncio.open_connection(*listener.getsockname())
        await reader.read()  # until the server closes it
        writer.close()
        srv.close()
        await srv.wait_closed()
        return seen[0]

    return asyncio.run(accept_one())


def test_connections_on_a_streamlit_style_socket_send_without_delay() -> None:
    # GIVEN a listening socket made as Streamlit 1.67 makes it: socket.socket(family), proto 0,
    # which asyncio's own TCP_NODELAY rule skips (each kept-alive response then waited for
    # the browser's 40 ms delayed ACK)
    listener = socket.socket(socket.AF_INET)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    assert listener.proto == 0
    # WHEN the server module is loaded (imported above, as `streamlit run` loads it), THEN a
    # connection accepted on that socket has TCP_NODELAY set
    assert nodelay_of_an_accepted_connection(listener) != 0


# What `streamlit run <script>` loads, by the steps of streamlit.web.cli._main_run.
CONFIG_AS_RUN = """
import json, os, sys
from streamlit import config
from streamlit.web import bootstrap
config._main_script_path = os.path.abspath(sys.argv[1])
bootstrap.load_config_options(flag_options={})
names = sys.argv[2:]
print(json.dumps({n: [config.get_option(n), config.get_where_defined(n)] for n in names}))
"""


def test_streamlit_run_reads_the_apps_config_from_any_working_directory(tmp_path: Path) -> None:
    # GIVEN `streamlit run app/server.py` started outside the repository
    options = {
        "server.enableStaticServing": True,  # the charts' plotly.js bundle (app/static/)
        "client.toolbarMode": "viewer",
        "browser.gatherUsageStats": False,
        "server.headless": True,
        "server.websocketPingInterval": 20,  # uvicorn's ws ping interval and timeout
    }
    script = str(server.PAGES_SCRIPT.with_name("server.py"))
    done = subprocess.run(
        [sys.executable, "-c", CONFIG_AS_RUN, script, *options],
        cwd=tmp_path, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    # THEN every setting comes from app/.streamlit/config.toml, the repository's one file
    read = json.loads(done.stdout.strip().splitlines()[-1])
    config = server.PAGES_SCRIPT.parent / ".streamlit" / "config.toml"
    assert read == {name: [value, str(config)] for name, value in options.items()}
