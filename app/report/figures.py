"""A report's figures: the dashboard's chart builders on the report's rows, each with its
workload/configuration subtitle, exported as SVG by one background thread (one browser:
charts.export) while the report goes on with its PDF (`Exports`).

A figure whose builder refuses its rows (a builder raises rather than merge two rows into one
mark) is left out with the reason, which the report prints in its place: a report never fails
on one chart. Plotly names each SVG's clip paths and traces with random ids; `stable_svg` and
the traces' `uid` replace them with the figure's number, so the same figure gives the same
bytes and two inline SVGs of one HTML page never share an id.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import plotly.graph_objects as go
import polars as pl

from app.lib import charts
from app.lib.charts import export
from app.report import tables

WIDTH_PX = 1000  # the PDF's text width at 96 px per inch is about 700 px: scaled down, crisp
DEFAULT_HEIGHT_PX = 520


@dataclass(frozen=True)
class Figure:
    """One numbered figure: its title, caption, subtitle (in the figure), its points as CSV
    and, once exported, its SVG markup."""

    key: str  # file stem of its CSV and SVG
    caption: str
    fig: go.Figure | None
    points_csv: str
    skipped: str = ""  # why the builder drew nothing (the figure is then left out)
    number: int = 0
    svg: str = ""


def make(
    key: str,
    caption: str,
    points: pl.DataFrame,
    draw: Callable[[pl.DataFrame], go.Figure],
    *,
    skip: tuple[str, ...] = (),
    extra: tuple[str, ...] = (),
) -> Figure:
    """`draw(points)` with the subtitle of what its rows share (`skip`: what the axes say)."""
    try:
        fig = draw(points)
        subtitle = charts.chart_context(points).subtitle(skip=skip, extra=extra)
        fig = charts.finish(charts.with_subtitle(fig, subtitle))
        # room for the subtitle above the panels' own titles
        top = fig.layout.margin.t if fig.layout.margin.t is not None else 100
        fig.update_layout(width=WIDTH_PX, margin={"t": max(top, 130 if subtitle else 90)})
    except (ValueError, KeyError, TypeError, AttributeError, pl.exceptions.PolarsError) as exc:
        return Figure(key, caption, None, tables.csv_text(points), skipped=str(exc))
    return Figure(key, caption, fig, tables.csv_text(points))


_UID = re.compile(r'id="defs-([0-9a-z]+)"')


def stable_svg(svg: str, number: int) -> str:
    """Plotly's random clip-path id replaced by the figure's number; the XML prolog dropped
    (the SVG sits inside HTML)."""
    found = _UID.search(svg)
    if found:
        svg = svg.replace(found.group(1), f"fig{number:03d}")
    return svg


def _svg(figure: Figure) -> str:
    """`figure` exported as SVG through the one browser of this process."""
    assert figure.fig is not None
    for i, trace in enumerate(figure.fig.data):
        trace.uid = f"f{figure.number:03d}t{i:03d}"  # else a random id in the SVG
    height = int(figure.fig.layout.height or DEFAULT_HEIGHT_PX)
    size = export.ExportSize(width=WIDTH_PX, height=max(height, 200))
    return stable_svg(export.figure_bytes(figure.fig, "svg", size).decode("utf-8"), figure.number)


class Exports:
    """The SVGs of a report's drawn figures, exported in order by one background thread while
    the caller goes on: the browser works on its own core while the PDF's page is parsed and
    styled, which needs no chart until its boxes are built (`svg` then waits for the one it
    needs). An export's error is raised by `svg` and `exported`, as a direct export's would be.
    Once started, a figure's `fig` belongs to the export thread."""

    def __init__(self, figures: list[Figure]) -> None:
        pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-svg")
        self._svgs = {f.number: pool.submit(_svg, f) for f in figures if f.fig is not None}
        pool.shutdown(wait=False)  # the thread ends after the last export

    def svg(self, number: int) -> str:
        """The SVG markup of figure `number`, once exported."""
        return self._svgs[number].result()

    def exported(self, figure: Figure) -> Figure:
        """`figure` with its SVG (a figure left out stays as it is)."""
        return figure if figure.fig is None else replace(figure, svg=self.svg(figure.number))
