"""Queries of the History page: the result series (marts.history_points), their change points
(marts.change_points) and the review decisions on them.

The marts are read from the served version, through `queries._rows` (the sidebar filters and
the page notice's tally hold). The decisions are read from the review store itself
(warehouse/reviews.py), never through the snapshot and never cached: a decision another user
made a moment ago shows on the next run of the page."""

from __future__ import annotations

import polars as pl

import warehouse
from app.lib import queries
from app.lib.filters import Filters
from warehouse import reviews

POINT_ORDER = "series_key, measure, series_position"
CHANGE_ORDER = "series_key, measure, series_position"
DECISION_COLUMNS = {
    "series_key": pl.String,
    "measure": pl.String,
    "result_id": pl.String,
    "review_state": pl.String,
    "reviewed_by": pl.String,
    "reviewed_at": pl.Datetime("us", "UTC"),
    "review_note": pl.String,
}


def history_points(where: str, filters: Filters) -> pl.DataFrame:
    """marts.history_points: one row per result x measure of every series, in run order."""
    return queries._rows(where, "history_points", filters, POINT_ORDER)


def change_points(where: str, filters: Filters) -> pl.DataFrame:
    """marts.change_points: one row per change point of a series and measure."""
    return queries._rows(where, "change_points", filters, CHANGE_ORDER)


def _store() -> reviews.ReviewStore:
    return reviews.store_for(warehouse.from_settings())


def review_decisions() -> pl.DataFrame:
    """Each reviewed change's latest decision, from the store (one row per change)."""
    latest = reviews.latest(_store().decisions()).values()
    rows = [dict(zip(DECISION_COLUMNS, d.row(), strict=True)) for d in latest]
    return pl.DataFrame(rows, schema=DECISION_COLUMNS)


def record_review(
    series_key: str, measure: str, result_id: str, state: str, user: str, note: str
) -> None:
    """Store a user's decision on one change (visible to every reader when this returns)."""
    change = reviews.ChangeIdentity(series_key, measure, result_id)
    _store().record(reviews.decision(change, state, user, note))
