"""Every SQL statement of the dashboard: one function per question, `marts` only.

Each function takes the warehouse path (so two warehouses never share a cache entry) and the
filter values, binds them as parameters, opens and closes its own read-only connection, and
returns a polars frame of named mart columns. A mart that does not exist yet gives an empty
frame: a page must then say "no data" instead of failing.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from app.lib import db, series
from app.lib.filters import Filters, where
from app.lib.series import MAX_POINTS, SERIES_MARTS

__all__ = ["MAX_POINTS", "SERIES_MARTS", "UNLABELLED"]

TTL_S = 300
MAX_ENTRIES = 64
# Results loaded without a `testbed` label still need a name in selectors and legends.
UNLABELLED = "(no testbed label)"
# The marts the sidebar's choices come from: the user's results and published figures.
_OPTION_MARTS = ("fct_workload_results", "published_results")
cached = st.cache_data(ttl=TTL_S, max_entries=MAX_ENTRIES, show_spinner=False)


@cached
def marts_columns(db_path: str) -> dict[str, list[str]]:
    """Which marts exist, with their columns (information_schema)."""
    return db.marts_columns(db_path)


def _name_unlabelled(df: pl.DataFrame) -> pl.DataFrame:
    if "testbed" in df.columns:
        return df.with_columns(pl.col("testbed").fill_null(UNLABELLED))
    return df


def _rows(db_path: str, table: str, filters: Filters, order_by: str = "") -> pl.DataFrame:
    """The rows of a mart that pass the filters on the columns it has; empty if it is missing.

    `table` and `order_by` are this module's constants, never user input.
    """
    columns = marts_columns(db_path).get(table)
    if not columns:
        return pl.DataFrame()
    condition = where(filters, columns)
    sql = "select * from marts." + table + " where " + condition.sql
    sql += " order by " + order_by if order_by else ""
    return _name_unlabelled(db.read(db_path, sql, condition.params))


def _of_result(db_path: str, table: str, result_id: str) -> pl.DataFrame | None:
    """One result's rows of a per-result mart; None when the mart does not exist."""
    if "result_id" not in marts_columns(db_path).get(table, []):
        return None
    return db.read(db_path, "select * from marts." + table + " where result_id = ?", [result_id])


@cached
def filter_options(db_path: str) -> dict[str, list[str]]:
    """Distinct label values for the sidebar, from the user's results and published figures."""
    tables = marts_columns(db_path)
    # One statement on one connection: a query per column cost a second. Names come from
    # information_schema and the Filters fields, never from user input.
    parts = [
        f"select '{column}' as name, cast({column} as varchar) as v from marts.{table}"
        f" where {column} is not null"
        for table in _OPTION_MARTS
        for column in Filters.__slots__
        if column in tables.get(table, [])
    ]
    options: dict[str, list[str]] = {name: [] for name in Filters.__slots__}
    if parts:
        sql = "select distinct name, v from (" + " union all ".join(parts) + ") order by v"
        for name, value in db.read(db_path, sql).iter_rows():
            options[name].append(value)
    return options


# Row orders of the marts read whole: what selectors and tables show first.
RESULTS_ORDER = "testbed, profile, working_set, read_pct, started_at"
TRANSPORT_ORDER = "testbed, working_set, read_pct, block_size_bytes, random_pct, outstanding_io"


@cached
def workload_results(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "fct_workload_results", filters, RESULTS_ORDER)


@cached
def published_results(
    db_path: str, testbeds: tuple[str, ...], metrics: tuple[str, ...]
) -> pl.DataFrame:
    """Published figures of some testbeds (all when `testbeds` is empty) and metrics."""
    if "published_results" not in marts_columns(db_path):
        return pl.DataFrame()
    return db.read(
        db_path,
        "select * from marts.published_results"
        " where (len($testbed) = 0 or list_contains($testbed, testbed))"
        " and (len($metric) = 0 or list_contains($metric, metric))"
        " order by source_document, testbed, metric",
        {"testbed": list(testbeds), "metric": list(metrics)},
    )


@cached
def ra_points(db_path: str, filters: Filters) -> pl.DataFrame:
    """`ra_comparison_points`: the measured points that pass the filters, every published one
    (the reference is chosen on the page, whatever the sidebar says)."""
    columns = marts_columns(db_path).get("ra_comparison_points")
    if not columns:
        return pl.DataFrame()
    measured = where(filters, columns)
    sql = "select * from marts.ra_comparison_points where origin = 'published' or (%s)"
    return _name_unlabelled(db.read(db_path, sql % measured.sql, measured.params))


@cached
def profile_latency_deltas(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "profile_latency_deltas", filters)


@cached
def config_deltas(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "config_deltas", filters.testbed_only())


@cached
def transport_comparison(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "transport_comparison", filters, TRANSPORT_ORDER + ", transport")


@cached
def transport_cpu_efficiency(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "transport_cpu_efficiency", filters.testbed_only())


@cached
def dedupe_ratios(db_path: str, filters: Filters) -> pl.DataFrame:
    # Unlabelled observations sort under their display name, as the legend shows them.
    order = "coalesce(testbed, '" + UNLABELLED + "'), captured_at"
    return _rows(db_path, "dedupe_ratios", filters.testbed_only(), order)


@cached
def latest_dedupe_ratios(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "latest_dedupe_ratios", filters.testbed_only(), "captured_at nulls last")


@cached
def scaling_points(db_path: str, filters: Filters) -> pl.DataFrame:
    return _rows(db_path, "scaling_points", filters)


@cached
def reconstructed_testbeds(db_path: str) -> list[str]:
    """Testbeds whose data is rebuilt from published figures (`testbed_data_origins`)."""
    origins = _rows(db_path, "testbed_data_origins", Filters())
    if origins.is_empty():
        return []
    return sorted(origins.filter(pl.col("is_reconstructed"))["testbed"].to_list())


@cached
def result_labels(db_path: str, result_id: str) -> dict[str, str | None]:
    """A result's run labels (`run.yaml` and `--label`): key -> value."""
    labels = _of_result(db_path, "fct_result_labels", result_id)
    if labels is None:
        return {}
    return dict(labels.select("label_key", "label_value").iter_rows())


# The columns of data_quality.validation_results, as the side file holds them.
_VALIDATION_SCHEMA = {
    "suite": pl.String,
    "table_name": pl.String,
    "expectation": pl.String,
    "severity": pl.String,
    "success": pl.Boolean,
    "observed": pl.String,
    "unexpected_count": pl.Int64,
    "notes": pl.String,
}


def validation_outcomes(report: db.ValidationReport) -> pl.DataFrame:
    """The latest validation run from the side file `<db stem>.validation.json`, passed or
    failed (the serving snapshot holds only runs of versions that passed). Not cached: the
    file is small and replaced by every run."""
    frame = pl.DataFrame(list(report.outcomes), schema=_VALIDATION_SCHEMA)
    run_at = pl.lit(report.run_at).alias("run_at")
    return frame.select(run_at, pl.all()).sort("suite", maintain_order=True)


@cached
def data_quality_latest(db_path: str) -> pl.DataFrame:
    """The results of the latest great-expectations run stored in the file `db_path`."""
    if "data_quality_results" not in marts_columns(db_path):
        return pl.DataFrame()
    return db.read(
        db_path,
        "select * from marts.data_quality_results"
        " where run_at = (select max(run_at) from marts.data_quality_results) order by suite",
    )


# --- Run explorer: one result's detail marts ------------------------------------------------

# The run explorer's sections: name -> mart. Rows are read as they are, except the series,
# which are bucketed to MAX_POINTS per trace.
RESULT_ROWS = {
    "per_node": "per_node_iops",
    "outputs": "fct_result_outputs",
    "percentiles": "fct_result_latency_percentiles",
    "histogram": "fct_result_latency_histogram",
}
RESULT_SERIES = {"intervals": "fct_result_intervals", "host_cpu": "fct_result_host_cpu_samples"}


@cached
def result_time_series(
    db_path: str, table: str, result_id: str, max_points: int = MAX_POINTS
) -> pl.DataFrame:
    """One result's rows of a series mart (series.SERIES_MARTS), at most `max_points` points
    per trace; empty when the mart does not exist."""
    if table not in marts_columns(db_path):
        return pl.DataFrame()
    with db.read_only(db_path) as con:
        return series.bucketed(con, SERIES_MARTS[table], result_id, max_points)


@cached
def host_cpu_series(db_path: str, result_id: str, max_points: int = MAX_POINTS) -> pl.DataFrame:
    """Host CPU samples (esxtop, vSAN performance service) over one result's run window."""
    return result_time_series(db_path, RESULT_SERIES["host_cpu"], result_id, max_points)


@cached
def result_in_depth(
    db_path: str, result_id: str, max_points: int = MAX_POINTS
) -> dict[str, pl.DataFrame | None]:
    """Everything the run explorer shows of one result, on one connection (each connection
    costs ~40 ms, and the page has six sections). None for a section whose mart is missing.
    """
    tables = marts_columns(db_path)
    out: dict[str, pl.DataFrame | None] = {}
    with db.read_only(db_path) as con:
        for name, table in RESULT_ROWS.items():
            sql = "select * from marts." + table + " where result_id = ?"
            present = "result_id" in tables.get(table, [])
            out[name] = con.execute(sql, [result_id]).pl() if present else None
        for name, table in RESULT_SERIES.items():
            present = table in tables
            mart = SERIES_MARTS[table]
            out[name] = series.bucketed(con, mart, result_id, max_points) if present else None
    return out


@cached
def result_detail(db_path: str, table: str, result_id: str) -> pl.DataFrame:
    """Rows of one result in a per-result mart that has no section of its own.

    `table` must be a marts table with a `result_id` column; it is checked against
    information_schema so a caller cannot smuggle SQL in through it.
    """
    rows = _of_result(db_path, table, result_id)
    return pl.DataFrame() if rows is None else rows
