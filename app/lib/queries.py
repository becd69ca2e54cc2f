"""Every SQL statement of the dashboard: one function per question, `marts` only.

Each function takes `where`, the warehouse's printable name (db.reading_path: a file path, or
in team mode a password-free `ducklake:postgres:...` name; two warehouses never share a cache
entry), and the filter values, binds them as parameters, opens and closes its own read-only
connection, and returns a polars frame of named mart columns. A mart that does not exist yet
gives an empty frame: a page must then say "no data" instead of failing.

Every filtered read goes through `_rows` (the sidebar filters, `filters.where`): it also
counts the rows without a value for a chosen filter and adds the counts to the page run's
tally (`filters.tally_unlabelled`), so a page can never show filtered data without the notice
saying what the filters hid or kept (app/lib/notices.py). Queries return data: the only
Streamlit here is the cache decorator.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import streamlit as st

from app.lib import db, series
from app.lib.filters import FILTER_LABELS, SPECS, Filters, counting_sql, tally_unlabelled
from app.lib.filters import where as filtered_by
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
def marts_columns(where: str) -> dict[str, list[str]]:
    """Which marts exist, with their columns (information_schema)."""
    return db.marts_columns(where)


def _name_unlabelled(df: pl.DataFrame) -> pl.DataFrame:
    if "testbed" in df.columns:
        return df.with_columns(pl.col("testbed").fill_null(UNLABELLED))
    return df


Exact = tuple[tuple[str, tuple], ...]  # (column, allowed values) pairs a query adds


def _bound(sql: str, params: dict[str, list]) -> dict[str, list]:
    """The parameters `sql` uses: DuckDB refuses unused ones, and a filter a mart cannot
    apply (no column, no key to look it up) leaves its parameter unused."""
    return {name: values for name, values in params.items() if "$" + name in sql}


@cached
def _filtered(
    where: str, table: str, filters: Filters, order_by: str = "", exact: Exact = ()
) -> tuple[pl.DataFrame, dict[str, int]]:
    """The rows of a mart that pass the filters (and `exact`), and per chosen filter how many
    rows of the mart have no value for it (among those shown when such rows are kept).

    `table`, `order_by` and the `exact` columns are this module's constants, never user input.
    """
    tables = marts_columns(where)
    if not tables.get(table):
        return pl.DataFrame(), {}
    condition = filtered_by(filters, table, tables)
    kept = filtered_by(replace(filters, keep_unlabelled=True), table, tables)
    extra = "".join(f" and list_contains($x_{c}, {c})" for c, _ in exact)
    params = {**condition.params, **{"x_" + c: list(v) for c, v in exact}}
    sql = "select * from marts." + table + " where " + condition.sql + extra
    sql += " order by " + order_by if order_by else ""
    with db.read_only(where) as con:
        frame = con.execute(sql, _bound(sql, params)).pl()
        counting = counting_sql(table, kept)
        counts: dict[str, int] = {}
        if counting is not None:
            counting += extra
            found = con.execute(counting, _bound(counting, {**kept.params, **params})).fetchone()
            counts = {name: n for name, n in zip(kept.lacking, found or (), strict=True) if n}
    return _name_unlabelled(frame), counts


def _rows(
    where: str, table: str, filters: Filters, order_by: str = "", exact: Exact = ()
) -> pl.DataFrame:
    """The rows of a mart that pass the sidebar filters: the one way a page reads filtered
    rows. Not cached itself (`_filtered` is), so every page run tallies its counts."""
    frame, counts = _filtered(where, table, filters, order_by, exact)
    tally_unlabelled(table, counts)
    return frame


def _of_result(where: str, table: str, result_id: str) -> pl.DataFrame | None:
    """One result's rows of a per-result mart; None when the mart does not exist."""
    if "result_id" not in marts_columns(where).get(table, []):
        return None
    return db.read(where, "select * from marts." + table + " where result_id = ?", [result_id])


# Filters whose values are numbers: the sidebar offers them as numbers, in numeric order.
_NUMERIC_OPTIONS = {"read_pct": float, "block_size_bytes": int, "outstanding_io": int}


@cached
def filter_options(where: str) -> dict[str, list]:
    """Distinct filter values for the sidebar, from the user's results and published figures."""
    tables = marts_columns(where)
    # One statement on one connection: a query per column cost a second. Names come from
    # information_schema and the fixed filter specs, never from user input.
    parts = [
        f"select '{spec.name}' as name, cast({spec.value_sql} as varchar) as v"
        f" from marts.{table} where {spec.column} is not null"
        for table in _OPTION_MARTS
        for spec in SPECS
        if spec.column in tables.get(table, [])
    ]
    options: dict[str, list] = {name: [] for name in FILTER_LABELS}
    if parts:
        sql = "select distinct name, v from (" + " union all ".join(parts) + ")"
        for name, value in db.read(where, sql).iter_rows():
            convert = _NUMERIC_OPTIONS.get(name)
            options[name].append(convert(float(value)) if convert else value)
    return {name: sorted(set(values)) for name, values in options.items()}


# Row orders of the marts read whole: what selectors and tables show first.
RESULTS_ORDER = "testbed, profile, working_set, read_pct, started_at"
TRANSPORT_ORDER = "testbed, working_set, read_pct, block_size_bytes, random_pct, outstanding_io"


# Not cached here: `_rows` caches the read and tallies the page notice's counts on every run.
def workload_results(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "fct_workload_results", filters, RESULTS_ORDER)


def published_results(where: str, filters: Filters, metrics: tuple[str, ...] = ()) -> pl.DataFrame:
    """Published figures that pass the filters, of some metrics (all when `metrics` is empty)."""
    exact = (("metric", metrics),) if metrics else ()
    return _rows(where, "published_results", filters, "source_document, testbed, metric", exact)


def ra_points(where: str, filters: Filters) -> pl.DataFrame:
    """`ra_comparison_points` that pass the filters, measured and published alike."""
    return _rows(where, "ra_comparison_points", filters)


def profile_latency_deltas(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "profile_latency_deltas", filters)


def config_deltas(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "config_deltas", filters)


def transport_comparison(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "transport_comparison", filters, TRANSPORT_ORDER + ", transport")


def transport_cpu_efficiency(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "transport_cpu_efficiency", filters)


def dedupe_ratios(where: str, filters: Filters) -> pl.DataFrame:
    # Unlabelled observations sort under their display name, as the legend shows them.
    order = "coalesce(testbed, '" + UNLABELLED + "'), captured_at"
    return _rows(where, "dedupe_ratios", filters, order)


def latest_dedupe_ratios(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "latest_dedupe_ratios", filters, "captured_at nulls last")


def scaling_points(where: str, filters: Filters) -> pl.DataFrame:
    return _rows(where, "scaling_points", filters)


@cached
def reconstructed_testbeds(where: str) -> list[str]:
    """Testbeds whose data is rebuilt from published figures (`testbed_data_origins`)."""
    origins, _ = _filtered(where, "testbed_data_origins", Filters())
    if origins.is_empty():
        return []
    return sorted(origins.filter(pl.col("is_reconstructed"))["testbed"].to_list())


@cached
def result_labels(where: str, result_id: str) -> dict[str, str | None]:
    """A result's run labels (`run.yaml` and `--label`): key -> value."""
    labels = _of_result(where, "fct_result_labels", result_id)
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
def data_quality_latest(where: str) -> pl.DataFrame:
    """The results of the latest great-expectations run stored in the warehouse `where`."""
    if "data_quality_results" not in marts_columns(where):
        return pl.DataFrame()
    return db.read(
        where,
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
    "source_files": "fct_result_source_files",
    "label_origins": "fct_result_label_origins",
    "steady_state": "fct_result_steady_state",
    "captures": "fct_result_captures",
}
RESULT_SERIES = {"intervals": "fct_result_intervals", "host_cpu": "fct_result_host_cpu_samples"}


@cached
def result_time_series(
    where: str, table: str, result_id: str, max_points: int = MAX_POINTS
) -> pl.DataFrame:
    """One result's rows of a series mart (series.SERIES_MARTS), at most `max_points` points
    per trace; empty when the mart does not exist."""
    if table not in marts_columns(where):
        return pl.DataFrame()
    with db.read_only(where) as con:
        return series.bucketed(con, SERIES_MARTS[table], result_id, max_points)


@cached
def host_cpu_series(where: str, result_id: str, max_points: int = MAX_POINTS) -> pl.DataFrame:
    """Host CPU samples (esxtop, vSAN performance service) over one result's run window."""
    return result_time_series(where, RESULT_SERIES["host_cpu"], result_id, max_points)


@cached
def result_in_depth(
    where: str, result_id: str, max_points: int = MAX_POINTS
) -> dict[str, pl.DataFrame | None]:
    """Everything the run explorer shows of one result, on one connection (each connection
    costs ~40 ms, and the page has six sections). None for a section whose mart is missing.
    """
    tables = marts_columns(where)
    out: dict[str, pl.DataFrame | None] = {}
    with db.read_only(where) as con:
        for name, table in RESULT_ROWS.items():
            sql = "select * from marts." + table + " where result_id = ?"
            present = "result_id" in tables.get(table, [])
            out[name] = con.execute(sql, [result_id]).pl() if present else None
        for name, table in RESULT_SERIES.items():
            present = table in tables
            mart = SERIES_MARTS[table]
            out[name] = series.bucketed(con, mart, result_id, max_points) if present else None
    return out
