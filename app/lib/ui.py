"""Small Streamlit helpers every page shares (the page scripts stay flat and short)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from app.lib import charts, notices, plotly_view, queries
from app.lib.charts.common import fmt
from app.lib.charts.export import FORMATS, PUBLICATION, ExportSize, figure_bytes
from app.lib.db import ServingStatus
from app.lib.filters import Filters

# tests/lake and tests/reliability ask the serving notice of `ui`; it is decided in `notices`.
serving_notice = notices.serving_notice


def context() -> tuple[str, Filters]:
    """The warehouse the pages read (`where`: its printable name, a file path or a team-mode
    lake name) and the sidebar filters, as streamlit_app.py put them in session state."""
    return st.session_state["where"], st.session_state.get("filters", Filters())


# Significant digits a CSV keeps: more than any measurement has (fio prints at most 6),
# fewer than float noise needs (3844999.999998 is 3845000 after a unit conversion).
CSV_SIGNIFICANT_DIGITS = 10


def plot(
    fig: go.Figure,
    name: str,
    *,
    key: str | None = None,
    selectable: bool = False,
    points: pl.DataFrame | None = None,
) -> list[dict[str, Any]]:
    """Draw `fig` with the shared layout rules (`charts.finish`) and its export controls
    (`export_controls`: SVG, PNG and PDF at a chosen size, the CSV of `points`); returns the
    points selected in it when `selectable`. `points`: the rows the chart draws, one per
    mark. `name` names the files; `key` (default `name`) tells the chart's widgets apart."""
    finished = charts.finish(fig)
    selected = plotly_view.show(finished, charts.png_config(name), key=key, selectable=selectable)
    export_controls(finished, name, key=key or name, points=points)
    return selected


# Keys of the export controls' widgets: `<prefix><chart key>_<width|height|scale>`.
EXPORT_KEY_PREFIX = "export_"
EXPORT_FORMATS = (("svg", "SVG"), ("png", "PNG"), ("pdf", "PDF"))


def export_size(fig: go.Figure) -> ExportSize:
    """The size an export starts at: the publication size (PUBLICATION), taller when the chart
    is (a long legend made room for itself: charts.finish)."""
    height = max(PUBLICATION.height, int(fig.layout.height or 0))
    return ExportSize(PUBLICATION.width, min(height, ExportSize.MAX_PX), PUBLICATION.scale)


def export_file(fig: go.Figure, fmt: str, size: ExportSize) -> Callable[[], bytes]:
    """The file of one export button, made when the button is clicked (st.download_button runs
    it in a worker thread, outside every page run): the page never waits for an export."""
    return lambda: figure_bytes(fig, fmt, size)


@st.fragment
def export_controls(
    fig: go.Figure, name: str, *, key: str, points: pl.DataFrame | None = None
) -> None:
    """One compact "Export" popover under a chart: width, height and scale, then SVG, PNG and
    PDF of the figure as drawn (title, subtitle, legend) and the CSV of its `points`. A
    fragment: opening the popover or changing a size reruns it only, not the page; no file is
    made until its button is clicked (`export_file`)."""
    base = EXPORT_KEY_PREFIX + key
    # Lazy: closed, the popover is one button; its controls are built (a rerun of this
    # fragment only) once a reader opens it, so a chart page sends none of them up front.
    with st.popover(
        "Export", icon=":material/download:", key=base + "_popover", on_change="rerun"
    ) as box:
        if box.open:
            _export_menu(fig, name, base, points)


def _export_menu(fig: go.Figure, name: str, base: str, points: pl.DataFrame | None) -> None:
    start = export_size(fig)
    width_col, height_col, scale_col = st.columns(3)
    px = {"min_value": ExportSize.MIN_PX, "max_value": ExportSize.MAX_PX}
    width = width_col.number_input(
        "Width (px)", value=start.width, step=100, key=base + "_width", **px
    )
    height = height_col.number_input(
        "Height (px)", value=start.height, step=50, key=base + "_height", **px
    )
    scale = scale_col.number_input(
        "PNG scale",
        min_value=ExportSize.MIN_SCALE,
        max_value=ExportSize.MAX_SCALE,
        value=start.scale,
        step=0.5,
        key=base + "_scale",
    )
    size = ExportSize(int(width), int(height), float(scale))
    st.caption(
        f"PNG {size.png_pixels[0]:,} x {size.png_pixels[1]:,} px; SVG and PDF are vector "
        "(scale does not apply). Made on this machine: nothing is sent anywhere."
    )
    columns = st.columns(len(EXPORT_FORMATS) + 1)
    for column, (file_format, label) in zip(columns, EXPORT_FORMATS, strict=False):
        column.download_button(
            label,
            export_file(fig, file_format, size),
            file_name=f"{name}.{file_format}",
            mime=FORMATS[file_format],
            key=f"{base}_{file_format}",
            on_click="ignore",
        )
    if points is not None:
        columns[-1].download_button(
            "CSV",
            lambda: csv_bytes(points),
            file_name=f"{name}.csv",
            mime="text/csv",
            key=f"{base}_csv",
            on_click="ignore",
            help="The chart's points, one row per mark.",
        )


# Keys of the expanders `expander` makes: tests open every one by this prefix.
EXPANDER_KEY_PREFIX = "rows_"


def expander(label: str, *, name: str) -> Any:
    """A collapsed expander whose contents are built and sent only once the reader opens it
    (`.open`; opening reruns the page). A collapsed table still costs the browser its Arrow
    decoding and grid set-up on every view: ~0.15 s of a chart page's 1.3 s settle time."""
    return st.expander(label, key=EXPANDER_KEY_PREFIX + name, on_change="rerun")


def table_frame(df: pl.DataFrame) -> pl.DataFrame:
    """The frame as a table shows it: NaN as missing (shown as MISSING, like NULL) and block
    sizes as 4K ... 1M."""
    df = df.with_columns(pl.col(pl.Float32, pl.Float64).fill_nan(None))
    sizes = [c for c in df.columns if c.endswith("block_size_bytes") and df[c].dtype.is_integer()]
    return df.with_columns(
        pl.col(c).map_elements(charts.bytes_label, return_dtype=pl.String) for c in sizes
    )


def table(df: pl.DataFrame, **kwargs: Any) -> Any:
    """st.dataframe with the shared display rules (`table_frame`, MISSING for NULL)."""
    config = {
        c: st.column_config.TextColumn(c.removesuffix("_bytes").replace("_", " "))
        for c in df.columns
        if c.endswith("block_size_bytes")
    }
    config.update(kwargs.pop("column_config", None) or {})
    kwargs.setdefault("hide_index", True)
    return st.dataframe(table_frame(df), placeholder=charts.MISSING, column_config=config, **kwargs)


def metric_row(row: dict[str, Any], metrics: list[tuple[str, ...]], help: str = "") -> None:
    """One st.metric per (label, column, format spec[, suffix]) of `row`, side by side; `help`
    goes on the last one (where the figures' source is explained)."""
    columns = st.columns(len(metrics))
    for i, (column, (label, key, spec, *suffix)) in enumerate(zip(columns, metrics, strict=True)):
        last = i == len(metrics) - 1
        value = fmt(row[key], spec, *suffix)
        column.metric(label, value, help=(help or None) if last else None)


def no_data(what: str, hint: str = "") -> None:
    notices.show(notices.no_data_notice(what, hint))


def reconstructed_note(df: pl.DataFrame) -> None:
    """The reconstructed-data note when some of `df`'s testbeds come from the reference
    dataset (the `testbed_data_origins` mart says which)."""
    if df.is_empty() or "testbed" not in df.columns or "where" not in st.session_state:
        return
    known = queries.reconstructed_testbeds(st.session_state["where"])
    notices.show(notices.reconstructed_notice(df["testbed"].to_list(), known))


def latency_kind_note(df: pl.DataFrame) -> None:
    """Say so when an average latency among `df`'s results is not total latency
    (`avg_latency_kind`; absent for a mart that does not carry it)."""
    if "avg_latency_kind" in df.columns:
        notices.show(notices.latency_kind_notice(df["avg_latency_kind"].to_list()))


def has_data(df: pl.DataFrame, what: str, hint: str = "") -> bool:
    """Whether a page section has rows to draw: "no data" when it has none, else the
    reconstructed-data note when some of its testbeds come from the reference dataset."""
    if df.is_empty():
        no_data(what, hint)
        return False
    reconstructed_note(df)
    return True


def csv_bytes(df: pl.DataFrame) -> bytes:
    """The frame as CSV, floats at CSV_SIGNIFICANT_DIGITS (no 3844999.999998)."""
    rounded = pl.col(pl.Float32, pl.Float64).round_sig_figs(CSV_SIGNIFICANT_DIGITS)
    return df.with_columns(rounded).write_csv().encode("utf-8")


def download_csv(df: pl.DataFrame, name: str, *, key: str | None = None) -> None:
    st.download_button(
        "Download CSV",
        csv_bytes(df),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=key or f"csv_{name}",
        on_click="ignore",
        icon=":material/download:",
    )


# --- the served version: a new one clears the query cache --------------------------------


@st.cache_resource
def _served_stamp() -> dict[str, int | None]:
    """One per server process, shared by every session."""
    return {}


def forget_old_snapshot(s: ServingStatus) -> None:
    """The query cache is keyed by path, and a publish replaces the file at the same path:
    clear the cache when the served version changes, or pages show the old one for minutes."""
    held = _served_stamp()
    # Until a first publish the dashboard reads the main file itself: its change time counts.
    stamp = s.snapshot_as_of_ns if s.snapshot is not None else s.main_changed_ns
    if held.get("stamp", stamp) != stamp:
        st.cache_data.clear()
    held["stamp"] = stamp
