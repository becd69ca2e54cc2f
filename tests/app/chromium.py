"""Drive Debian's headless chromium over the DevTools protocol (no Playwright download here).

`chromium --dump-dom` returns the page before Streamlit's websocket has delivered anything (the
body is an empty `#root`), so the browser test opens a DevTools session instead: navigate,
poll the DOM until the script run has finished and the content stopped changing, then read
the HTML and take a full-page screenshot. Only `websockets` (a Streamlit dependency) is used.
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
)
WIDTH, HEIGHT = 1400, 1800

# What the page looks like to the test, read in one round trip. A run is over when the status
# widget ("Running...") is gone and no skeleton placeholder is left.
_STATE_JS = """
(() => {
  const q = (s) => document.querySelectorAll(s).length;
  return JSON.stringify({
    running: q('[data-testid="stStatusWidgetRunningIcon"]') + q('[data-testid="stSkeleton"]')
             + q('[data-testid="stAppSkeleton"]'),
    title: (document.querySelector('h1') || {}).innerText || '',
    blocks: q('[data-testid="stElementContainer"]'),
    plots: q('.js-plotly-plot .main-svg'),
    charts: q('[data-testid="stPlotlyChart"]'),
    height: document.documentElement.scrollHeight,
  });
})()
"""


@dataclass(frozen=True)
class PageView:
    url: str
    html: str
    text: str
    screenshot_png: bytes
    load_s: float


class Chromium:
    """One headless chromium process and a DevTools session on its first tab."""

    def __init__(self, *, start_timeout_s: float = 30.0) -> None:
        self._profile = Path(tempfile.mkdtemp(prefix="chromium-test-"))
        self._proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port = self._wait_for_port(start_timeout_s)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        page = next(t for t in targets if t.get("type") == "page")
        self._ws: ClientConnection = connect(
            page["webSocketDebuggerUrl"], max_size=None, open_timeout=10
        ).__enter__()  # closed in close(); websockets warns about a bare connect()
        self._ids = itertools.count(1)
        self.call("Page.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )

    def _wait_for_port(self, timeout_s: float) -> int:
        # chromium writes the port it picked into DevToolsActivePort once it listens.
        marker = self._profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if marker.is_file() and marker.read_text().strip():
                return int(marker.read_text().split()[0])
            if self._proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self._proc.returncode}")
            time.sleep(0.1)
        raise TimeoutError("chromium did not open its DevTools port")

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its result, skipping the events sent meanwhile."""
        msg_id = next(self._ids)
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        while True:
            msg = json.loads(self._ws.recv(timeout=60))
            if msg.get("id") != msg_id:
                continue
            if "error" in msg:
                raise RuntimeError(f"{method}: {msg['error']}")
            return msg["result"]

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def _state(self) -> dict[str, Any]:
        return json.loads(self.evaluate(_STATE_JS))

    def open(self, url: str, *, timeout_s: float = 45.0, settle_s: float = 1.5) -> PageView:
        """Load `url`, wait until Streamlit has rendered it and nothing changed for `settle_s`."""
        started = time.monotonic()
        self.call("Page.navigate", {"url": url})
        deadline = started + timeout_s
        last: dict[str, Any] | None = None
        stable_since = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.25)
            state = self._state()
            done = state["title"] and not state["running"] and state["plots"] >= state["charts"]
            if state != last:
                last, stable_since = state, time.monotonic()
            elif done and time.monotonic() - stable_since >= settle_s:
                break
        else:
            raise TimeoutError(f"{url} did not finish rendering in {timeout_s:g} s: {last}")
        load_s = time.monotonic() - started
        html = self.evaluate("document.documentElement.outerHTML")
        text = self.evaluate("document.body.innerText")
        return PageView(url, html, text, self.screenshot(), load_s)

    def screenshot(self) -> bytes:
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        try:
            self._ws.close()
        finally:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
