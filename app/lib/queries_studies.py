"""Queries of the studies and capacity pages that queries.py does not hold: one function per
question, every one through `queries._rows` (the sidebar filters hold on every mart, and the
page notice counts the unlabelled rows). Not cached here: `_rows` caches the read. Each
returns a polars frame of named mart columns, empty when the mart does not exist yet (the page
then says "no data")."""

from __future__ import annotations

import polars as pl

from app.lib import queries
from app.lib.filters import Filters

SWEEP_ORDER = "testbed, axis, sweep_id, point_index"


def sweep_points(where: str, filters: Filters) -> pl.DataFrame:
    """`sweep_points` in axis order, with their sweep's held-equal labels (`sweeps`).

    The filters choose the points; a point's sweep is looked up by its id, unfiltered: the
    `sweeps` mart cannot apply every filter (it has no profile column nor a result_id to
    trace one through), and a filtered lookup left every point without its labels, so all
    sweeps of an axis shared one name and one line."""
    points = queries._rows(where, "sweep_points", filters, SWEEP_ORDER)
    sweeps = queries._rows(where, "sweeps", Filters())
    if points.is_empty() or "held_equal_json" not in sweeps.columns:
        return points
    return points.join(sweeps.select("sweep_id", "held_equal_json"), on="sweep_id", how="left")


def capacity_by_object_type(where: str, filters: Filters) -> pl.DataFrame:
    """`fct_capacity_by_object_type`: one row per capacity observation x object type."""
    order = "testbed, captured_at, capacity_observation_id, used_bytes desc"
    return queries._rows(where, "fct_capacity_by_object_type", filters, order)


def study_results(where: str, filters: Filters, testbed: str) -> pl.DataFrame:
    """One testbed's workload results (fct_workload_results), one row per result."""
    results = queries.workload_results(where, filters)
    if results.is_empty():
        return results
    return results.filter(pl.col("testbed") == testbed)
