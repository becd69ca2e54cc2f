"""A chart as a file a paper can use (app/lib/charts/export.py, ui.export_controls).

GIVEN a bar chart of two measured IOPS figures with its title, subtitle and axis titles, made
ready for the screen by charts.finish as ui.plot does
WHEN it is exported the way an export button makes its file (ui.export_file), in a real
kaleido + chromium
THEN the SVG holds the title, subtitle and axis titles as text and bars in the ratio of the
values; a PNG is width x scale by height x scale pixels; sizes outside the bounds are
refused with a message naming them; the page offers SVG, PNG, PDF and CSV at the publication
size without making any file until a button is clicked.
"""

from __future__ import annotations

import contextlib
import os
import re
import struct
from pathlib import Path

import plotly.graph_objects as go
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from app.lib import charts, ui
from app.lib.charts.common import TEMPLATE, with_subtitle
from app.lib.charts.export import PUBLICATION, ExportSize, stop_browser

# Micron vSAN 6.7 RA, 4K random: 380,000 IOPS at 100 % read and 310,000 at 70 % read.
IOPS = [380_000, 310_000]
SUBTITLE = "testbed micron-sata-vsan67 · 4K · random · OIO 16 · 16 VMs · 4 nodes"


def bar_chart() -> go.Figure:
    fig = go.Figure(
        go.Bar(x=["100% read", "70% read"], y=IOPS, name="density"),
        layout={"template": TEMPLATE, "title": "IOPS by read mix"},
    )
    fig.update_layout(xaxis_title="Read mix (% reads)", yaxis_title="IOPS (IO/s)")
    fig.update_yaxes(range=[0, 400_000])
    return charts.finish(with_subtitle(fig, SUBTITLE))


def bar_heights(svg: str) -> list[float]:
    """The drawn height of each bar: plotly.js draws a bar as `M x0,y0 V y1 H x1 V y0 Z`."""
    paths = re.findall(r'<g class="point"><path d="M([\d.]+),([\d.]+)V([\d.]+)H', svg)
    return [abs(float(top) - float(bottom)) for _, bottom, top in paths]


def png_dimensions(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk (right after the 8-byte signature)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_the_svg_holds_the_titles_as_text_and_the_plotted_values() -> None:
    svg = ui.export_file(bar_chart(), "svg", PUBLICATION)().decode("utf-8")
    texts = set(re.findall(r">([^<>]+)</text>", svg))
    assert {"IOPS by read mix", SUBTITLE, "Read mix (% reads)", "IOPS (IO/s)"} <= texts
    assert {"100% read", "70% read"} <= texts  # the bars' categories
    heights = bar_heights(svg)
    assert len(heights) == 2
    assert heights[0] / heights[1] == pytest.approx(IOPS[0] / IOPS[1], rel=0.01)
    assert re.search(r'<svg[^>]* width="1200" height="600"', svg)


@pytest.mark.parametrize(
    "size", [ExportSize(1200, 600, 3), ExportSize(800, 500, 2.5)], ids=["publication", "custom"]
)
def test_a_png_is_its_size_times_its_scale(size: ExportSize) -> None:
    png = ui.export_file(bar_chart(), "png", size)()
    assert png_dimensions(png) == size.png_pixels
    assert png_dimensions(png) == (round(size.width * size.scale), round(size.height * size.scale))


def test_a_pdf_is_a_pdf() -> None:
    assert ui.export_file(bar_chart(), "pdf", PUBLICATION)()[:5] == b"%PDF-"


@pytest.mark.parametrize(
    ("width", "height", "scale", "message"),
    [
        pytest.param(50, 600, 3.0, "50 x 600 px", id="too-narrow"),
        pytest.param(1200, 20_000, 3.0, "1200 x 20000 px", id="too-tall"),
        pytest.param(1200.5, 600, 3.0, "whole numbers", id="fractional"),
        pytest.param(1200, 600, 0.1, "export scale 0.1", id="scale-too-small"),
        pytest.param(1200, 600, 40.0, "from 0.5 to 10", id="scale-too-large"),
    ],
)
def test_bad_sizes_are_refused_with_a_message(width, height, scale, message) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        ExportSize(width, height, scale)


def test_an_unknown_format_is_refused() -> None:
    from app.lib.charts.export import figure_bytes

    with pytest.raises(ValueError, match="one of svg, png, pdf"):
        figure_bytes(bar_chart(), "jpeg")


def test_the_export_starts_taller_when_the_chart_is() -> None:
    assert ui.export_size(go.Figure()) == PUBLICATION
    assert ui.export_size(go.Figure(layout={"height": 900})).height == 900


def _page() -> None:
    import plotly.graph_objects as go
    import polars as pl

    from app.lib import ui

    fig = go.Figure(go.Bar(x=["100% read", "70% read"], y=[380_000.0, 310_000.0000001]))
    points = pl.DataFrame({"read_pct": [100.0, 70.0], "iops": [380_000.0, 310_000.0000001]})
    ui.plot(fig, "ra-iops", key="ra", points=points)


def test_a_chart_offers_svg_png_pdf_and_csv_at_the_publication_size() -> None:
    at = AppTest.from_function(_page, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    # Closed, the popover holds nothing; a reader opening it builds the controls.
    assert len(at.get("download_button")) == 0 and len(at.number_input) == 0
    at.session_state[ui.EXPORT_KEY_PREFIX + "ra_popover"] = True
    at.run()
    sizes = {n.label: n.value for n in at.number_input}
    assert sizes == {"Width (px)": 1200, "Height (px)": 600, "PNG scale": 3.0}
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["SVG", "PNG", "PDF", "CSV"]
    # Nothing made yet: each button holds a deferred file, made when it is clicked.
    assert all(b.proto.HasField("deferred_file_id") for b in buttons)


def test_the_csv_has_the_points_without_float_noise() -> None:
    points = pl.DataFrame({"read_pct": [100.0, 70.0], "iops": [380_000.0, 310_000.0000001]})
    assert ui.csv_bytes(points).decode() == "read_pct,iops\n100.0,380000.0\n70.0,310000.0\n"


def _export_browsers() -> list[str]:
    """Command lines of this process's children that run chromium (kaleido's wrapper)."""
    # Every thread's children: kaleido starts the browser from its own thread.
    tasks = Path(f"/proc/{os.getpid()}/task").glob("*/children")
    children = [pid for task in tasks for pid in task.read_text().split()]
    lines = []
    for pid in children:
        with contextlib.suppress(FileNotFoundError):
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
    return [line for line in lines if "chromium" in line]


def test_stopping_the_export_browser_leaves_no_process_and_no_profile() -> None:
    # GIVEN an export made (the browser runs, with its temporary profile)
    ui.export_file(bar_chart(), "svg", PUBLICATION)()
    running = _export_browsers()
    assert len(running) == 1, running
    profile = Path(re.search(r"--user-data-dir=(\S+)", running[0]).group(1))
    assert profile.is_dir()
    # WHEN the server shuts down (app/server.py's lifespan calls stop_browser)
    stop_browser()
    # THEN the browser is gone and so is its profile; a later export starts it again
    assert _export_browsers() == []
    assert not profile.exists()
    assert ui.export_file(bar_chart(), "png", ExportSize(200, 100, 1))()[:4] == b"\x89PNG"
