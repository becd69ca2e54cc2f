"""The queries of the provenance pages: run explorer provenance, published vs measured, compare.

Same rules as `queries`: one function per question, `marts` only, polars frames, an empty
frame (or None) when a mart does not exist yet; filtered reads go through `queries._rows`.
"""

from __future__ import annotations

import polars as pl

from app.lib import db
from app.lib.filters import Filters
from app.lib.queries import _rows, cached, marts_columns


def _of_result(where: str, table: str, result_id: str, order_by: str) -> pl.DataFrame | None:
    """One result's rows of a mart with `result_id`; None when the mart does not exist.
    `table` and `order_by` are this module's constants."""
    if "result_id" not in marts_columns(where).get(table, []):
        return None
    sql = f"select * from marts.{table} where result_id = ? order by {order_by}"
    return db.read(where, sql, [result_id])


@cached
def result_by_id(where: str, result_id: str) -> pl.DataFrame:
    """One workload result whatever the sidebar says (a link names it); empty if unknown."""
    rows = _of_result(where, "fct_workload_results", result_id, "result_id")
    return pl.DataFrame() if rows is None else rows


def published_vs_measured(where: str, filters: Filters) -> pl.DataFrame:
    """Every published figure against what the marts computed, that passes the filters (on
    its testbed and, through `figure_id`, the published figure's labels)."""
    return _rows(
        where, "published_vs_measured", filters, "source_document, table_or_figure, figure_id"
    )


def published_figures(where: str, filters: Filters) -> pl.DataFrame:
    """The published figures (labels, derivation, chart_read, note) that pass the filters."""
    return _rows(where, "published_results", filters, "source_document, figure_id")


@cached
def testbeds_with_data(where: str) -> list[str]:
    """The testbeds the warehouse holds data of (marts.dim_testbeds: results, host captures or
    capacity snapshots), whatever the sidebar says: which documents are about this warehouse."""
    if "is_unknown" not in marts_columns(where).get("dim_testbeds", []):
        return []
    sql = "select distinct testbed from marts.dim_testbeds where not is_unknown order by 1"
    rows = db.read(where, sql)
    return rows["testbed"].to_list()


@cached
def result_rows_in(where: str, tables: tuple[str, ...], result_id: str) -> dict[str, pl.DataFrame]:
    """One result's rows in each of some marts with `result_id` (checked against
    information_schema), on one connection; marts without rows are left out."""
    known = marts_columns(where)
    found: dict[str, pl.DataFrame] = {}
    with db.read_only(where) as con:
        for table in tables:
            if "result_id" in known.get(table, []):
                sql = f"select * from marts.{table} where result_id = ?"
                rows = con.execute(sql, [result_id]).pl()
                if not rows.is_empty():
                    found[table] = rows
    return found


@cached
def steady_states(where: str, result_ids: tuple[str, ...]) -> pl.DataFrame:
    """The steady-state rows of some results; empty when the mart does not exist."""
    if "fct_result_steady_state" not in marts_columns(where):
        return pl.DataFrame()
    sql = "select * from marts.fct_result_steady_state where list_contains($ids, result_id)"
    return db.read(where, sql, {"ids": list(result_ids)})


@cached
def config_deltas_between(where: str, a: str, b: str) -> pl.DataFrame:
    """The config_deltas rows pairing results `a` and `b` (either direction)."""
    if "config_deltas" not in marts_columns(where):
        return pl.DataFrame()
    sql = (
        "select * from marts.config_deltas where (from_result_id = $a and to_result_id = $b)"
        " or (from_result_id = $b and to_result_id = $a)"
    )
    return db.read(where, sql, {"a": a, "b": b})
