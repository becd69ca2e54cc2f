"""What the server does once at start (app/server.py), before anyone opens a page.

GIVEN the published warehouse (or none at all)
WHEN the server's warm-up runs
THEN the published snapshot is attached and kept, as a first page view would leave it, and a
warehouse that cannot be read does not stop the server (the page reports it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app import server
from app.lib import db
from warehouse import serving_path


def test_warm_up_attaches_the_published_snapshot(warehouse_env: Path) -> None:
    db._kept.clear()
    server.warm_up()
    assert serving_path(warehouse_env) in db._kept


def test_warm_up_without_a_warehouse_lets_the_server_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(tmp_path / "missing.duckdb"))
    db._kept.clear()
    server.warm_up()  # no exception
    assert db._kept == {}


def test_the_server_serves_the_pages_script() -> None:
    assert server.PAGES_SCRIPT.name == "streamlit_app.py"
    assert server.PAGES_SCRIPT.parent == Path(server.__file__).parent
    assert server.PAGES_SCRIPT.is_file()
