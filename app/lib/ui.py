"""Small Streamlit helpers every page shares (the page scripts stay flat and short)."""

from __future__ import annotations

import json

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.lib import charts, queries
from app.lib.filters import Filters

RECONSTRUCTED_MARK = "reconstructed"
# Values a future `data_origin` column may use for rows rebuilt from published figures.
RECONSTRUCTED_ORIGINS = set(queries.RECONSTRUCTED_ORIGINS)


def context() -> tuple[str, Filters]:
    """The warehouse path and the sidebar filters that streamlit_app.py put in session state."""
    return st.session_state["db_path"], st.session_state.get("filters", Filters())


def plot(fig: go.Figure, name: str, *, key: str | None = None) -> None:
    st.plotly_chart(fig, config=charts.png_config(name), key=key)


def reconstructed_testbeds(df: pd.DataFrame) -> list[str]:
    """Testbeds whose rows were reconstructed from published figures (the reference dataset).

    A row counts when its `data_origin` (column, or label in `labels_json`) says so, or its
    testbed has `reconstructed` in the name.
    """
    if df.empty or "testbed" not in df:
        return []
    mask = df["testbed"].astype("string").str.contains(RECONSTRUCTED_MARK, case=False)
    origin = data_origin(df)
    mask = mask | origin.str.lower().isin(RECONSTRUCTED_ORIGINS)
    if "db_path" in st.session_state:
        # Marts without the origin (capacity, deltas) are matched by the testbeds' results.
        known = queries.reconstructed_testbeds(st.session_state["db_path"])
        mask = mask | df["testbed"].astype("string").isin(known)
    return sorted(df.loc[mask.fillna(False).astype(bool), "testbed"].dropna().unique().tolist())


def _origin_label(labels_json: object) -> str | None:
    if not isinstance(labels_json, str) or "data_origin" not in labels_json:
        return None
    try:
        labels = json.loads(labels_json)
    except json.JSONDecodeError:
        return None
    value = labels.get("data_origin") if isinstance(labels, dict) else None
    return None if value is None else str(value)


def data_origin(df: pd.DataFrame) -> pd.Series:
    """Each row's data origin: the mart's `data_origin` column, else the free-form
    `data_origin` label in `labels_json` (the reference dataset's top-level run.yaml sets it)."""
    origin = pd.Series(pd.NA, index=df.index, dtype="string")
    if "data_origin" in df:
        origin = df["data_origin"].astype("string")
    if "labels_json" in df:
        from_labels = df["labels_json"].map(_origin_label).astype("string")
        origin = origin.fillna(from_labels)
    return origin


def reconstructed_note(df: pd.DataFrame) -> None:
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
    if value is None or pd.isna(value):
        return "n/a"
    return f"{value:{spec}}{suffix}"


def no_data(what: str, hint: str = "") -> None:
    st.info(f"No {what} in the warehouse for the current filters. {hint}".strip())


def download_csv(df: pd.DataFrame, name: str, *, key: str | None = None) -> None:
    st.download_button(
        "Download CSV",
        df.to_csv(index=False).encode("utf-8"),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=key or f"csv_{name}",
        on_click="ignore",
        icon=":material/download:",
    )
