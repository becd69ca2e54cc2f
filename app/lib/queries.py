"""Every SQL statement of the dashboard: one function per question, `marts` only.

Each function takes the warehouse path (so two warehouses never share a cache entry) and the
filter values, binds them as parameters, and opens and closes its own read-only connection
(db.read_df). A table that does not exist yet gives an empty frame: the marts are built by dbt,
some are added later, and a page must then say "no data" instead of failing.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app.lib import db
from app.lib.filters import Filters

TTL_S = 300
# Results loaded without a `testbed` label still need a name in selectors and legends.
UNLABELLED = "(no testbed label)"
MAX_ENTRIES = 64

# Filters in SQL for the marts whose contract guarantees all five label columns.
_LABEL_FILTER = """
    (len($testbed) = 0 or list_contains($testbed, testbed))
    and (len($profile) = 0 or profile is null or list_contains($profile, profile))
    and (len($transport) = 0 or transport is null or list_contains($transport, transport))
    and (len($working_set) = 0 or working_set is null
         or list_contains($working_set, working_set))
    and (len($vsan_version) = 0 or vsan_version is null
         or list_contains($vsan_version, vsan_version))
"""


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def marts_columns(db_path: str) -> dict[str, list[str]]:
    """Which marts exist, with their columns (information_schema)."""
    return db.marts_columns(db_path)


def _name_unlabelled(df: pd.DataFrame) -> pd.DataFrame:
    if "testbed" in df.columns:
        df["testbed"] = df["testbed"].astype("object").where(df["testbed"].notna(), UNLABELLED)
    return df


def has_table(db_path: str, table: str) -> bool:
    return table in marts_columns(db_path)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def filter_options(db_path: str) -> dict[str, list[str]]:
    """Distinct label values for the sidebar, from the user's results and published figures."""
    tables = marts_columns(db_path)
    options: dict[str, set[str]] = {name: set() for name in Filters.__slots__}
    for table in ("fct_workload_results", "published_results"):
        for column in options:
            if column not in tables.get(table, []):
                continue
            # Table and column names come from information_schema and the fixed lists above,
            # never from user input; values stay parameters elsewhere.
            df = db.read_df(
                db_path,
                "select distinct cast("
                + column
                + " as varchar) as v from marts."
                + table
                + " where "
                + column
                + " is not null",
            )
            options[column].update(df["v"].tolist())
    return {name: sorted(values) for name, values in options.items()}


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def workload_results(db_path: str, filters: Filters) -> pd.DataFrame:
    if not has_table(db_path, "fct_workload_results"):
        return pd.DataFrame()
    return _name_unlabelled(
        db.read_df(
            db_path,
            "select * from marts.fct_workload_results where"
            + _LABEL_FILTER
            + " order by testbed, profile, working_set, read_pct, started_at",
            filters.as_params(),
        )
    )


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def workload_result(db_path: str, result_id: str) -> pd.DataFrame:
    if not has_table(db_path, "fct_workload_results"):
        return pd.DataFrame()
    return _name_unlabelled(
        db.read_df(
            db_path, "select * from marts.fct_workload_results where result_id = ?", [result_id]
        )
    )


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def published_results(db_path: str, testbeds: tuple[str, ...], metrics: tuple[str, ...]):
    """Published figures of some testbeds (all when `testbeds` is empty) and metrics."""
    if not has_table(db_path, "published_results"):
        return pd.DataFrame()
    return db.read_df(
        db_path,
        "select * from marts.published_results"
        " where (len($testbed) = 0 or list_contains($testbed, testbed))"
        " and (len($metric) = 0 or list_contains($metric, metric))"
        " order by source_document, testbed, metric",
        {"testbed": list(testbeds), "metric": list(metrics)},
    )


def _by_testbed(db_path: str, table: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    if not has_table(db_path, table):
        return pd.DataFrame()
    if "testbed" not in marts_columns(db_path)[table]:
        return db.read_df(db_path, "select * from marts." + table)
    return _name_unlabelled(
        db.read_df(
            db_path,
            "select * from marts."
            + table
            + " where len($testbed) = 0 or list_contains($testbed, testbed)",
            {"testbed": list(testbeds)},
        )
    )


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def profile_latency_deltas(db_path: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    return _by_testbed(db_path, "profile_latency_deltas", testbeds)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def config_deltas(db_path: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    return _by_testbed(db_path, "config_deltas", testbeds)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def transport_cpu_efficiency(db_path: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    return _by_testbed(db_path, "transport_cpu_efficiency", testbeds)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def dedupe_ratios(db_path: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    df = _by_testbed(db_path, "dedupe_ratios", testbeds)
    return df.sort_values(["testbed", "captured_at"]) if not df.empty else df


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def per_node_iops(db_path: str, testbeds: tuple[str, ...]) -> pd.DataFrame:
    return _by_testbed(db_path, "per_node_iops", testbeds)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def result_detail(db_path: str, table: str, result_id: str) -> pd.DataFrame:
    """Rows of one result in a per-result mart (per-VM, percentiles, histograms, time series).

    `table` must be a marts table with a `result_id` column; it is checked against
    information_schema so a caller cannot smuggle SQL in through it.
    """
    if "result_id" not in marts_columns(db_path).get(table, []):
        return pd.DataFrame()
    return db.read_df(db_path, "select * from marts." + table + " where result_id = ?", [result_id])


@st.cache_data(ttl=60, max_entries=4, show_spinner=False)
def data_quality_results(db_path: str) -> pd.DataFrame:
    if not has_table(db_path, "data_quality_results"):
        return pd.DataFrame()
    return db.read_df(
        db_path, "select * from marts.data_quality_results order by run_at desc, suite"
    )
