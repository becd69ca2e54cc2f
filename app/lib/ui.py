"""Small Streamlit helpers every page shares (the page scripts stay flat and short)."""

from __future__ import annotations

import math

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from app.lib import charts, queries
from app.lib.filters import Filters


def context() -> tuple[str, Filters]:
    """The warehouse path and the sidebar filters that streamlit_app.py put in session state."""
    return st.session_state["db_path"], st.session_state.get("filters", Filters())


def plot(fig: go.Figure, name: str, *, key: str | None = None) -> None:
    st.plotly_chart(fig, config=charts.png_config(name), key=key)


def reconstructed_testbeds(df: pl.DataFrame) -> list[str]:
    """The testbeds of `df`'s rows whose data is reconstructed from published figures (the
    reference dataset), as the `testbed_data_origins` mart says."""
    if df.is_empty() or "testbed" not in df.columns or "db_path" not in st.session_state:
        return []
    known = set(queries.reconstructed_testbeds(st.session_state["db_path"]))
    return sorted(known.intersection(df["testbed"].drop_nulls().to_list()))


def reconstructed_note(df: pl.DataFrame) -> None:
    testbeds = reconstructed_testbeds(df)
    if testbeds:
        st.info(
            "Reconstructed data: results of "
            + ", ".join(testbeds)
            + " come from the reference dataset, rebuilt from published figures rather than "
            "measured on a cluster. They reproduce the documents' numbers, not per-VM detail.",
            icon=":material/info:",
        )


def fmt(value: object, spec: str = ",.2f", suffix: str = "") -> str:
    """A metric value, or "n/a" when the warehouse does not know it (NULL/NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:{spec}}{suffix}"


def no_data(what: str, hint: str = "") -> None:
    st.info(f"No {what} in the warehouse for the current filters. {hint}".strip())


def download_csv(df: pl.DataFrame, name: str, *, key: str | None = None) -> None:
    st.download_button(
        "Download CSV",
        df.write_csv().encode("utf-8"),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=key or f"csv_{name}",
        on_click="ignore",
        icon=":material/download:",
    )
