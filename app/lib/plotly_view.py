"""Plotly figures drawn with plotly.js's cartesian bundle: what a page's charts cost a browser.

`st.plotly_chart` ships the full plotly.js (4.7 MB: maps, 3-D, WebGL traces). A fresh browser
spends about 0.6 s longer compiling that before a page's first chart is drawn than the
1.5 MB cartesian bundle, which has every trace type the dashboard draws (bar, box, heatmap,
scatter...). So `show` draws a figure with a small custom component (plotly_view.js) that
loads the bundle the app serves itself (app/static/, same plotly.js version as the Python
`plotly` package writes figures for). A figure with a trace the bundle lacks (WebGL
`scattergl`, kept for series too large for SVG: charts/layout.py) goes to `st.plotly_chart`.

Either way the caller gets the points a person clicked or box/lasso-selected (with their
`customdata`), so a chart can lead to the runs behind its points (app/lib/provenance.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import streamlit as st

COMPONENT_NAME = "perf_plotly_chart"
BUNDLE = Path(__file__).resolve().parents[1] / "static" / "plotly-cartesian.min.js"
# The trace types of plotly.js's cartesian bundle (its package README).
BUNDLE_TRACES = frozenset(
    {
        "bar",
        "box",
        "contour",
        "heatmap",
        "histogram",
        "histogram2d",
        "histogram2dcontour",
        "image",
        "pie",
        "scatter",
        "scatterternary",
        "violin",
    }
)
SELECTION_MODES = ("points", "box", "lasso")

_component = st.components.v2.component(
    COMPONENT_NAME,
    js=Path(__file__).with_suffix(".js").read_text(encoding="utf-8"),
    css=".perf-plot { width: 100%; } .perf-plot-error { color: #d62728; }",
    isolate_styles=False,  # plotly.js puts its own styles in the page's <head>
)


def drawable_by_bundle(fig: go.Figure) -> bool:
    """Every trace of `fig` is of a type the cartesian bundle draws."""
    return all(trace.type in BUNDLE_TRACES for trace in fig.data)


def _ignore() -> None:
    """A selection only reruns the page (its state is read where the chart is drawn)."""


def show(
    fig: go.Figure, config: dict[str, Any], *, key: str | None = None, selectable: bool = False
) -> list[dict[str, Any]]:
    """Draw `fig`; return the points selected in it (empty unless `selectable`), each a dict
    with `curve_number`, `point_index`, `x`, `y` and `customdata`."""
    if not drawable_by_bundle(fig):
        return _show_full_plotly(fig, config, key=key, selectable=selectable)
    data = {"figure": fig.to_json(validate=False), "config": config, "selectable": selectable}
    if not selectable:
        _component(data=data, key=key)
        return []
    result = _component(
        data=data, key=key, default={"selection": None}, on_selection_change=_ignore
    )
    selection = getattr(result, "selection", None) or {}
    return list(selection.get("points") or [])


def _show_full_plotly(
    fig: go.Figure, config: dict[str, Any], *, key: str | None, selectable: bool
) -> list[dict[str, Any]]:
    if not selectable:
        st.plotly_chart(fig, config=config, key=key)
        return []
    event = st.plotly_chart(
        fig, config=config, key=key, on_select="rerun", selection_mode=SELECTION_MODES
    )
    points = event.selection.points if event and event.selection else []
    return [dict(point) for point in points]
