"""A figure as a file a paper can use: SVG, PDF (vector) or PNG at a chosen size and scale.

Plotly's own exporter, kaleido, renders the figure in Debian's headless chromium (the one
scripts/setup.sh installs; kaleido downloads nothing). Starting that browser costs about 2 s,
an export with it running about 0.15 s, so one browser serves every export of the process
(the dashboard's downloads, the report's figures) and a lock keeps exports one at a time:
kaleido's server is a process-wide singleton. A page run never takes the lock, so an export
holds up other exports only. `stop_browser` ends it (at exit, and at the dashboard server's
shutdown: app/server.py).

The subtitle (workload and configuration, common.with_subtitle) is part of the figure's
layout, so every export carries it. The dashboard applies its layout rules (`finish`) before
exporting, as before drawing.
"""

from __future__ import annotations

import atexit
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import plotly.graph_objects as go

FORMATS = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}


@dataclass(frozen=True, slots=True)
class ExportSize:
    """Width and height in CSS pixels (1/96 inch); `scale` multiplies a PNG's pixels (a 1200 x
    600 figure at scale 3 is 3600 x 1800 px: 300 dpi at 12 x 6 inches). Vector formats ignore
    `scale`: they have no pixels."""

    width: int = 1200
    height: int = 600
    scale: float = 3.0

    MIN_PX: ClassVar[int] = 100
    MAX_PX: ClassVar[int] = 10_000
    MIN_SCALE: ClassVar[float] = 0.5
    MAX_SCALE: ClassVar[float] = 10.0

    def __post_init__(self) -> None:
        if not all(
            isinstance(v, int) and self.MIN_PX <= v <= self.MAX_PX
            for v in (self.width, self.height)
        ):
            raise ValueError(
                f"export size {self.width} x {self.height} px: width and height must be whole "
                f"numbers of pixels from {self.MIN_PX:,} to {self.MAX_PX:,}"
            )
        if not self.MIN_SCALE <= self.scale <= self.MAX_SCALE:
            raise ValueError(
                f"export scale {self.scale}: from {self.MIN_SCALE:g} to {self.MAX_SCALE:g}"
            )

    @property
    def png_pixels(self) -> tuple[int, int]:
        """A PNG's width and height in pixels: the size times the scale."""
        return round(self.width * self.scale), round(self.height * self.scale)


# A publication default: a two-column paper's full text width at 300 dpi.
PUBLICATION = ExportSize()

_lock = threading.Lock()
_server: dict[str, bool] = {}


def _ensure_server() -> None:
    """Start kaleido's browser once per process (under `_lock`)."""
    if _server.get("running"):
        return
    import kaleido  # imported late: only an export needs it, and it starts nothing on import

    # The page kaleido renders in loads plotly.js and MathJax from CDNs unless told otherwise:
    # the plotly.js the `plotly` package ships (the version it writes figures for), and no
    # MathJax (no chart uses LaTeX), so an export makes no request to another host.
    kaleido.start_sync_server(plotlyjs=_local_plotly_js(), mathjax=False, silence_warnings=True)
    _server["running"] = True
    atexit.register(stop_browser)


def start_browser() -> None:
    """Have the browser start now, in the background (kaleido starts it in its own thread):
    a caller that knows it will export (the report) lets the start overlap its other work,
    and its first export waits only for what is left of the start."""
    with _lock:
        _ensure_server()


def _local_plotly_js() -> str:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the plotly package's plotly.js, which exports draw with")
    return path.as_uri()


def stop_browser() -> None:
    """Stop the export browser if it runs, after the export under way (the dashboard server's
    shutdown calls it: uvicorn ends a SIGTERM'd process by raising the signal again, so
    `atexit` never runs there, and chromium's temporary profile would be left in /tmp)."""
    import kaleido

    with _lock:
        if _server.pop("running", False):
            kaleido.stop_sync_server(silence_warnings=True)


def figure_bytes(fig: go.Figure, fmt: str, size: ExportSize = PUBLICATION) -> bytes:
    """`fig` rendered as `fmt` (svg, png or pdf) at `size`."""
    if fmt not in FORMATS:
        raise ValueError(f"export format {fmt!r}: one of {', '.join(FORMATS)}")
    import kaleido

    opts = {"format": fmt, "width": size.width, "height": size.height}
    if fmt == "png":
        opts["scale"] = size.scale
    with _lock:
        _ensure_server()
        return kaleido.calc_fig_sync(fig, opts=opts)


def figures_bytes(figs: list[go.Figure], fmt: str, size: ExportSize = PUBLICATION) -> list[bytes]:
    """Every figure of `figs` as `fmt`, in order, with the one browser."""
    return [figure_bytes(fig, fmt, size) for fig in figs]
