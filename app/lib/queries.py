"""Every SQL statement of the dashboard: one function per question, `marts` only.

Each function takes the warehouse path (so two warehouses never share a cache entry) and the
filter values, binds them as parameters, and opens and closes its own read-only connection
(db.read_df). A table that does not exist yet gives an empty frame: the marts are built by dbt,
some are added later, and a page must then say "no data" instead of failing.
"""

from __future__ import annotations

import duckdb
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
    # Table and column names come from information_schema and the fixed lists above, never
    # from user input. One statement on one connection: a query per column cost a second.
    parts = [
        "select '"
        + column
        + "' as name, cast("
        + column
        + " as varchar) as v from marts."
        + table
        + " where "
        + column
        + " is not null"
        for table in ("fct_workload_results", "published_results")
        for column in options
        if column in tables.get(table, [])
    ]
    if parts:
        df = db.read_df(db_path, "select distinct name, v from (" + " union all ".join(parts) + ")")
        for name, value in zip(df["name"], df["v"], strict=True):
            options[name].add(value)
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


# --- Run explorer: one result's detail marts ------------------------------------------------

# Points per trace a chart gets at most: a 10-million-sample warehouse must not ship millions
# of points to the browser. Longer series are averaged into equal time buckets in SQL.
MAX_POINTS = 2000
TIME_COLUMNS = ("sampled_at", "interval_start_at", "interval_end_at", "started_at", "captured_at")
# X axes that are not timestamps: seconds since the run started (fio / Vdbench intervals).
ELAPSED_COLUMNS = ("elapsed_s",)
# Columns that split a detail table into one trace each (host, VM, direction, tool...).
SERIES_COLUMNS = (
    "host",
    "host_name",
    "vm",
    "vm_name",
    "direction",
    "io_direction",
    "latency_kind",
    "source_tool",
)


def _columns(db_path: str, table: str) -> list[str]:
    return marts_columns(db_path).get(table, [])


def series_layout(columns: list[str]) -> tuple[str | None, list[str]]:
    """The x column (a time or elapsed seconds) and the trace-splitting columns of a table."""
    time_col = next((c for c in (*TIME_COLUMNS, *ELAPSED_COLUMNS) if c in columns), None)
    return time_col, [c for c in SERIES_COLUMNS if c in columns]


def _result_window(table: str, columns: list[str]) -> tuple[str, str, list[str]] | None:
    """SQL for one result's rows of a time-series mart (parameter `$result_id`), its x column
    and trace columns; None when the mart lacks what a series needs.

    By `result_id` where the mart has it; otherwise (host samples) the rows of the result's
    testbed between its `started_at` and `ended_at`.
    """
    time_col, series = series_layout(columns)
    if time_col is None:
        return None
    if "result_id" in columns:
        return "select * from marts." + table + " where result_id = $result_id", time_col, series
    if time_col not in TIME_COLUMNS:
        return None
    same_testbed = " and s.testbed_id = r.testbed_id" if "testbed_id" in columns else ""
    window = (
        "select s.* from marts."
        + table
        + " as s join marts.fct_workload_results as r on r.result_id = $result_id"
        + same_testbed
        + " where s."
        + time_col
        + " between r.started_at and r.ended_at"
    )
    return window, time_col, series


def _series(
    con: duckdb.DuckDBPyConnection,
    table: str,
    columns: list[str],
    result_id: str,
    max_points: int,
) -> pd.DataFrame:
    """One result's series of `table`, bucketed (see result_time_series); empty if none."""
    found = _result_window(table, columns)
    if found is None:
        return pd.DataFrame()
    window, time_col, series = found
    # Identifiers come from information_schema (marts_columns), never from the user.
    numeric = {row[0] for row in con.execute(_NUMERIC_COLUMNS, [table]).fetchall()}
    values = [
        c for c in columns if c in numeric and not c.endswith(("_id", "_index")) and c != time_col
    ]
    params = {"result_id": result_id}
    return _bucket_rows(con, window, params, time_col, series, values, max_points)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def result_time_series(
    db_path: str, table: str, result_id: str, max_points: int = MAX_POINTS
) -> pd.DataFrame:
    """One result's rows of a time-series mart, averaged into at most `max_points` buckets
    per trace (host, VM, direction). Counts and bounds keep their meaning: `min`/`max` columns
    take the bucket's min/max, everything else numeric its mean.
    """
    columns = _columns(db_path, table)
    if not columns:
        return pd.DataFrame()
    with db.read_only(db_path) as con:
        return _series(con, table, columns, result_id, max_points)


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def host_cpu_series(db_path: str, result_id: str, max_points: int = MAX_POINTS) -> pd.DataFrame:
    """Host CPU samples (esxtop, vSAN performance service) over one result's run window."""
    return result_time_series(db_path, "fct_host_cpu_samples", result_id, max_points)


# The run explorer's sections: name -> mart. Rows are read as they are, except the series,
# which are bucketed to MAX_POINTS per trace.
RESULT_ROWS = {
    "outputs": "fct_result_outputs",
    "percentiles": "fct_result_latency_percentiles",
    "histogram": "fct_result_latency_histogram",
}
RESULT_SERIES = {"intervals": "fct_result_intervals", "host_cpu": "fct_host_cpu_samples"}


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def result_in_depth(
    db_path: str, result_id: str, max_points: int = MAX_POINTS
) -> dict[str, pd.DataFrame | None]:
    """Everything the run explorer shows of one result, on one connection (each connection
    costs ~40 ms, and the page has five sections). None for a section whose mart is missing.
    """
    tables = marts_columns(db_path)
    out: dict[str, pd.DataFrame | None] = {}
    with db.read_only(db_path) as con:
        for name, table in RESULT_ROWS.items():
            out[name] = (
                con.execute(
                    "select * from marts." + table + " where result_id = ?", [result_id]
                ).df()
                if "result_id" in tables.get(table, [])
                else None
            )
        for name, table in RESULT_SERIES.items():
            columns = tables.get(table)
            out[name] = _series(con, table, columns, result_id, max_points) if columns else None
    return out


_RUN_WINDOW = (
    "select epoch_us(started_at), epoch_us(ended_at) from marts.fct_workload_results"
    " where result_id = $result_id"
)
_NUMERIC_COLUMNS = (
    "select column_name from information_schema.columns where table_schema = 'marts'"
    " and table_name = ? and (data_type in ('DOUBLE', 'FLOAT', 'REAL', 'INTEGER',"
    " 'BIGINT', 'SMALLINT', 'HUGEINT', 'UBIGINT') or data_type like 'DECIMAL%')"
)


def _bucket_rows(
    con: duckdb.DuckDBPyConnection,
    window_sql: str,
    params: dict,
    time_col: str,
    series: list[str],
    values: list[str],
    max_points: int,
) -> pd.DataFrame:
    """Mean (min/max for bound columns) of `values` per trace and time bucket."""
    aggregates = [
        ("min(" if c.startswith("min_") or c.endswith("_min") else "max(" if c.startswith("max_")
         or c.endswith("_max") else "avg(") + c + ") as " + c
        for c in values
    ]  # fmt: skip
    keys = "".join(c + ", " for c in series)
    # Two statements on one connection: the window's bounds first (cheap: min/max), then integer
    # buckets of epoch microseconds. One statement that derived the bucket width from a CTE over
    # the same rows, with interval arithmetic per row, took 6 s on 10 M samples; this takes 0.5 s.
    # Timestamps bucket on epoch microseconds, elapsed seconds on themselves.
    is_time = time_col in TIME_COLUMNS
    axis = ("epoch_us(" if is_time else "cast(") + time_col + (")" if is_time else " as double)")
    bounds_sql = "with s as (" + window_sql + ") select min(" + axis + "), max(" + axis + ") from s"
    points_sql = (
        "with s as ("
        + window_sql
        + ") select "
        + keys
        + "least(greatest(floor(("
        + axis
        + " - $t0) / $width), 0), $last) as bucket, min("
        + time_col
        + ") as "
        + time_col
        + ", count(*) as samples_in_point"
        + "".join(", " + a for a in aggregates)
        + " from s group by all order by all"
    )
    # The result's run window bounds the buckets without scanning the samples; a sample just
    # outside it joins the first or last bucket. Without a window: the samples' own min/max.
    lo, hi = (
        con.execute(_RUN_WINDOW, params).fetchone() or (None, None) if is_time else (None, None)
    )
    if lo is None or hi is None or hi <= lo:
        lo, hi = con.execute(bounds_sql, params).fetchone()
    if lo is None:
        return pd.DataFrame()
    # Equal buckets, at most max_points of them (whole microseconds for timestamps).
    width = (
        max(1, -(-(hi - lo + 1) // max_points)) if is_time else max((hi - lo) / max_points, 1e-9)
    )
    df = con.execute(points_sql, {**params, "t0": lo, "width": width, "last": max_points - 1}).df()
    return df.drop(columns="bucket")


RECONSTRUCTED_ORIGINS = ["reconstructed", "reference", "published"]


@st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)
def reconstructed_testbeds(db_path: str) -> list[str]:
    """Testbeds with results rebuilt from published figures (the reference dataset).

    The origin is the mart's `data_origin` column where it has one, else the free-form
    `data_origin` label kept in `labels_json`. Pages whose marts carry neither (capacity,
    profile deltas) mark rows by testbed through this list.
    """
    columns = marts_columns(db_path).get("fct_workload_results", [])
    origins = []
    if "data_origin" in columns:
        origins.append("data_origin")
    if "labels_json" in columns:
        origins.append(
            "case when json_valid(labels_json) "
            "then json_extract_string(labels_json, '$.data_origin') end"
        )
    if not origins:
        return []
    df = _name_unlabelled(
        db.read_df(
            db_path,
            "select distinct testbed from marts.fct_workload_results"
            " where list_contains($origins, lower(coalesce(" + ", ".join(origins) + ")))",
            {"origins": RECONSTRUCTED_ORIGINS},
        )
    )
    return sorted(df["testbed"].astype(str).tolist())
