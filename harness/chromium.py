"""Drive Debian's headless chromium over the DevTools protocol (no Playwright download here).

`chromium --dump-dom` returns the page before Streamlit's websocket has delivered anything (the
body is an empty `#root`), so the browser test opens a DevTools session instead: navigate,
record every network request and JavaScript exception, poll the DOM until the page has
settled, then read the HTML and take a full-page screenshot. Only `websockets` (a Streamlit
dependency) is used.

Settled, as a person sees it: Streamlit says the script run is over (`stApp`'s
`data-test-script-state` is `notRunning`), no skeleton, spinner or stale (greyed) element is
left, every chart (CHART_SELECTOR) holds its drawn SVG, and none of that changes for `quiet_s`. The
settle time is from the navigation to the first moment of that final state (the quiet wait
only confirms it), so it does not include the confirmation.
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
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
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})
POLL_S = 0.05

# A page's charts: app/lib/plotly_view.py's component, or st.plotly_chart for a figure the
# cartesian bundle cannot draw.
CHART_SELECTOR = 'div.perf-plot, [data-testid="stPlotlyChart"]'
# What the page looks like to the test, read in one round trip.
_STATE_JS = """
(() => {
  const CHARTS = 'CHART_SELECTOR';
  const q = (s) => document.querySelectorAll(s).length;
  const charts = [...document.querySelectorAll(CHARTS)];
  const app = document.querySelector('[data-testid="stApp"]');
  return JSON.stringify({
    script: app ? app.getAttribute('data-test-script-state') : 'none',
    busy: q('[data-testid="stStatusWidgetRunningIcon"]') + q('[data-testid="stSkeleton"]')
          + q('[data-testid="stAppSkeleton"]') + q('[data-testid="stSpinner"]')
          + q('[data-stale="true"]'),
    title: (document.querySelector('h1') || {}).innerText || '',
    blocks: q('[data-testid="stElementContainer"]'),
    charts: charts.length,
    drawn: charts.filter((c) => c.querySelector('.main-svg')).length,
    height: document.documentElement.scrollHeight,
  });
})()
""".replace("CHART_SELECTOR", CHART_SELECTOR)


# The window's size and the height of the page's content (Streamlit's main column scrolls
# inside the window, so the document itself is never taller than the window).
_HEIGHTS_JS = """
[window.innerWidth, window.innerHeight, Math.max(document.documentElement.scrollHeight,
  ...[...document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"]')]
    .map((e) => e.scrollHeight))]
"""
MAX_SCREENSHOT_HEIGHT = 12_000  # px: a page of long tables is cut there
RELAYOUT_S = 0.5  # Streamlit's sidebar eases over 0.3 s after a resize


def is_local(url: str) -> bool:
    """A request the page may make offline: this machine, or no host at all (data:, blob:)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome", "devtools"):
        return True
    return (parts.hostname or "") in LOCAL_HOSTS or f"[{parts.hostname}]" in LOCAL_HOSTS


@dataclass
class Traffic:
    """What one page view asked the network for, and what failed."""

    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "url: reason"
    exceptions: list[str] = field(default_factory=list)  # uncaught JavaScript exceptions

    @property
    def external(self) -> list[str]:
        return [url for url in self.requests if not is_local(url)]


@dataclass(frozen=True)
class PageView:
    url: str
    html: str
    text: str
    screenshot_png: bytes
    settle_s: float  # navigation -> settled (see the module docstring)
    traffic: Traffic
    # Navigation -> the first poll that saw the script run in each state ("running",
    # "notRunning"...): where the settle time went (server run or browser drawing).
    script_states_s: dict[str, float] = field(default_factory=dict)
    # The page's main-thread busy time (DevTools TaskDuration: scripts, layout, paint) up to
    # the end of the wait: what the browser itself spent, whatever else the machine runs.
    browser_busy_s: float = 0.0
    charts: int = 0  # charts on the settled page, every one drawn


def _settled(state: dict[str, Any]) -> bool:
    return bool(
        state.get("title")
        and state["script"] == "notRunning"
        and not state["busy"]
        and state["drawn"] == state["charts"]
    )


class Chromium:
    """One headless chromium process and a DevTools session on its first tab."""

    def __init__(self, *, start_timeout_s: float = 30.0, cache: bool = False) -> None:
        self._profile = Path(tempfile.mkdtemp(prefix="chromium-test-"))
        # Its own process group: chromium starts helper processes (some minutes later, e.g.
        # the on-device-model service) that outlive a terminated browser; close() ends the
        # whole group.
        self._proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        port = self._wait_for_port(start_timeout_s)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as resp:
            targets = json.load(resp)
        page = next(t for t in targets if t.get("type") == "page")
        self._ws: ClientConnection = connect(
            page["webSocketDebuggerUrl"], max_size=None, open_timeout=10
        ).__enter__()  # closed in close(); websockets warns about a bare connect()
        self._ids = itertools.count(1)
        self._traffic = Traffic()
        self._urls: dict[str, str] = {}  # requestId -> url, to name failed loads
        for domain in ("Page", "Network", "Runtime", "Performance"):
            self.call(f"{domain}.enable")
        # Without the HTTP cache every page view loads what a fresh browser loads.
        self.call("Network.setCacheDisabled", {"cacheDisabled": not cache})
        self.resize(WIDTH, HEIGHT)

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

    def _event(self, msg: dict[str, Any]) -> None:
        """Record the network and exception events sent between command replies."""
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            self._urls[params["requestId"]] = url
            self._traffic.requests.append(url)
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            url = self._urls.get(params["requestId"], "?")
            self._traffic.failed.append(f"{url}: {params.get('errorText', '')}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            exc = details.get("exception", {}).get("description") or details.get("text", "")
            self._traffic.exceptions.append(exc)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command and return its result, recording the events sent meanwhile."""
        msg_id = next(self._ids)
        self._ws.send(json.dumps({"id": msg_id, "method": method, "params": params or {}}))
        while True:
            msg = json.loads(self._ws.recv(timeout=60))
            if msg.get("id") != msg_id:
                self._event(msg)
                continue
            if "error" in msg:
                raise RuntimeError(f"{method}: {msg['error']}")
            return msg["result"]

    def evaluate(self, expression: str, *, await_promise: bool = False) -> Any:
        params = {"expression": expression, "returnByValue": True, "awaitPromise": await_promise}
        result = self.call("Runtime.evaluate", params)
        return result["result"].get("value")

    def _state(self) -> dict[str, Any]:
        value = self.evaluate(_STATE_JS)
        # None while the document is being replaced (no execution context yet).
        return json.loads(value) if value else {"script": "none"}

    def open(self, url: str, *, timeout_s: float = 60.0, quiet_s: float = 1.5) -> PageView:
        """Load `url` and wait until it has settled and stayed so for `quiet_s`."""
        self.call("Page.navigate", {"url": "about:blank"})
        self._traffic, self._urls = Traffic(), {}
        busy_before = self._task_duration_s()
        started = time.monotonic()
        self.call("Page.navigate", {"url": url})
        deadline = started + timeout_s
        last: dict[str, Any] | None = None
        since = started
        seen: dict[str, float] = {}
        while time.monotonic() < deadline:
            time.sleep(POLL_S)
            now, state = time.monotonic(), self._state()
            seen.setdefault(state["script"], round(now - started, 3))
            if state != last:
                last, since = state, now
            elif _settled(state) and now - since >= quiet_s:
                break
        else:
            raise TimeoutError(f"{url} did not settle in {timeout_s:g} s: {last}")
        busy = self._task_duration_s()
        busy -= busy_before if busy >= busy_before else 0.0  # a new renderer starts at 0
        html = self.evaluate("document.documentElement.outerHTML")
        text = self.evaluate("document.body.innerText")
        shot = self.screenshot()
        return PageView(
            url, html, text, shot, since - started, self._traffic, seen, busy, last["charts"]
        )

    def resize(self, width: int, height: int) -> None:
        """The window's size in CSS pixels, as a person resizing the browser window sets it."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def click(self, selector: str) -> None:
        """Move the mouse onto the first element `selector` matches and click it, as a person
        does (Plotly reports a click on the point the mouse hovers)."""
        find = f"document.querySelector({json.dumps(selector)})"
        box = self.evaluate(
            f"(() => {{ const e = {find}; if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        if box is None:
            raise LookupError(f"nothing on the page matches {selector}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            extra = {"button": "left", "clickCount": 1} if kind != "mouseMoved" else {}
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **extra})
            time.sleep(0.1)  # Plotly finds the hovered point between move and press

    def wait_for(self, expression: str, timeout_s: float = 30.0) -> Any:
        """Poll the JavaScript `expression` until it is truthy; return its value."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(POLL_S)
        raise TimeoutError(f"not true within {timeout_s:g} s: {expression}")

    def _task_duration_s(self) -> float:
        metrics = self.call("Performance.getMetrics")["metrics"]
        return next((m["value"] for m in metrics if m["name"] == "TaskDuration"), 0.0)

    def visit(self, url: str, wait_s: float = 2.0) -> Traffic:
        """Load `url`, wait `wait_s` and return what it requested (for pages not Streamlit's)."""
        self.call("Page.navigate", {"url": "about:blank"})
        self._traffic, self._urls = Traffic(), {}
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            time.sleep(POLL_S)
            self.evaluate("1")  # reading replies also records the events
        return self._traffic

    def screenshot(self) -> bytes:
        """The whole page. Streamlit scrolls its main column inside a window-high container,
        so a capture of the window (or "beyond the viewport": the document is no taller)
        shows only the first screen: the window is made as tall as that column's content,
        given time for the sidebar's re-layout transition, captured, then restored."""
        width, height, content = self.evaluate(_HEIGHTS_JS)
        grown = min(max(content, height), MAX_SCREENSHOT_HEIGHT)
        if grown > height:
            self.resize(width, grown)
            time.sleep(RELAYOUT_S)
        try:
            shot = self.call("Page.captureScreenshot", {"format": "png"})
        finally:
            if grown > height:
                self.resize(width, height)
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        try:
            self._ws.close()
        finally:
            self._signal_group(signal.SIGTERM)
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._signal_group(signal.SIGKILL)  # helpers that ignored SIGTERM
            shutil.rmtree(self._profile, ignore_errors=True)

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, sig)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
