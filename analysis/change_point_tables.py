"""The history marts' tables from int_history_points (dbt_project/models/marts/history/*.py).

`history_points` adds the guard to every point; `change_points` runs detection per series and
measure on the points nobody excluded. Both take and give plain DataFrames (columns in
docs/CONTRACT.md), so dbt's Python models stay one call each and the logic is tested here.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from analysis.change_points import (
    DETECTOR,
    DetectorSettings,
    SeriesChange,
    guard_outliers,
    guarded_series_changes,
)

SERIES = ["series_key", "measure"]
OUTLIER_EXCLUSION = "outlier_gesd"
# GESD needs three values for a spread with a point left out
GESD_MIN_POINTS = 3

# Explicit column types: a column of NULLs alone (no run excluded) would otherwise reach DuckDB
# from pandas as INTEGER, and an empty frame with no types at all.
HISTORY_POINTS_SCHEMA = pa.schema(
    [
        ("series_key", pa.string()),
        ("result_id", pa.string()),
        ("measure", pa.string()),
        ("testbed_id", pa.string()),
        ("testbed", pa.string()),
        ("series_labels_json", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("series_position", pa.int64()),
        ("higher_is_better", pa.bool_()),
        ("value", pa.float64()),
        ("validity_exclusion", pa.string()),
        ("exclusion", pa.string()),
        ("is_detected_on", pa.bool_()),
    ]
)

CHANGE_POINTS_SCHEMA = pa.schema(
    [
        ("series_key", pa.string()),
        ("measure", pa.string()),
        ("result_id", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("testbed_id", pa.string()),
        ("testbed", pa.string()),
        ("series_labels_json", pa.string()),
        ("series_position", pa.int64()),
        ("previous_result_id", pa.string()),
        ("previous_started_at", pa.timestamp("us", tz="UTC")),
        ("runs_before", pa.int64()),
        ("mean_before", pa.float64()),
        ("mean_before_ci95_low", pa.float64()),
        ("mean_before_ci95_high", pa.float64()),
        ("runs_after", pa.int64()),
        ("mean_after", pa.float64()),
        ("mean_after_ci95_low", pa.float64()),
        ("mean_after_ci95_high", pa.float64()),
        ("change_pct", pa.float64()),
        ("higher_is_better", pa.bool_()),
        ("is_regression", pa.bool_()),
        ("p_value", pa.float64()),
        ("series_run_count", pa.int64()),
        ("series_excluded_count", pa.int64()),
        ("detector", pa.string()),
        ("detector_params_json", pa.string()),
        ("review_state", pa.string()),
    ]
)


def _ordered(points: pd.DataFrame) -> pd.DataFrame:
    return points.sort_values([*SERIES, "series_position"], kind="stable")


def _long_enough(points: pd.DataFrame, min_points: int) -> pd.DataFrame:
    """The points of series with at least `min_points` of them: a warehouse of one-off
    configurations has thousands of one-point series, not worth a Python loop each."""
    return points[points.groupby(SERIES)["result_id"].transform("size") >= min_points]


def _in_series_with(points: pd.DataFrame, subset: pd.DataFrame, min_points: int) -> pd.Series:
    """Per point: whether `subset` holds at least `min_points` points of its series."""
    counts = subset.groupby(SERIES).size().rename("count").reset_index()
    joined = points[SERIES].merge(counts, on=SERIES, how="left")
    return pd.Series(joined["count"].fillna(0).to_numpy() >= min_points, index=points.index)


def guarded_points(points: pd.DataFrame, settings: DetectorSettings) -> pd.DataFrame:
    """Every point with `exclusion`: its run-validity rule, else `outlier_gesd` when the guard
    takes it out of its series (the guard sees only the valid points), else NULL."""
    points = _ordered(points).reset_index(drop=True)
    exclusion = (
        points["validity_exclusion"]
        .astype(object)
        .where(points["validity_exclusion"].notna(), None)
    )
    valid = points[points["validity_exclusion"].isna()]
    for _, series in _long_enough(valid, GESD_MIN_POINTS).groupby(SERIES, sort=False):
        outliers = guard_outliers(series["value"].to_numpy(dtype=float), settings)
        flagged = series.index[outliers]
        exclusion.loc[flagged] = OUTLIER_EXCLUSION
    return points.assign(exclusion=exclusion, is_detected_on=exclusion.isna())


def history_points(points: pd.DataFrame, settings: DetectorSettings) -> pa.Table:
    """marts.history_points: `guarded_points` with the mart's column types."""
    guarded = guarded_points(points, settings)[HISTORY_POINTS_SCHEMA.names]
    return pa.Table.from_pandas(guarded, schema=HISTORY_POINTS_SCHEMA, preserve_index=False)


def _change_row(
    series: pd.DataFrame, found: SeriesChange, settings: DetectorSettings, excluded: int
) -> dict:
    first = series.iloc[found.index]
    previous = series.iloc[found.previous_index]
    change = found.change
    change_pct = change.change_pct
    higher_is_better = bool(first["higher_is_better"])
    return {
        "series_key": first["series_key"],
        "measure": first["measure"],
        "result_id": first["result_id"],
        "started_at": first["started_at"],
        "testbed_id": first["testbed_id"],
        "testbed": first["testbed"],
        "series_labels_json": first["series_labels_json"],
        "series_position": int(first["series_position"]),
        "previous_result_id": previous["result_id"],
        "previous_started_at": previous["started_at"],
        "runs_before": change.before.run_count,
        "mean_before": change.before.mean,
        "mean_before_ci95_low": change.before.ci95_low,
        "mean_before_ci95_high": change.before.ci95_high,
        "runs_after": change.after.run_count,
        "mean_after": change.after.mean,
        "mean_after_ci95_low": change.after.ci95_low,
        "mean_after_ci95_high": change.after.ci95_high,
        "change_pct": change_pct,
        "higher_is_better": higher_is_better,
        "is_regression": None if change_pct is None else (change_pct < 0) == higher_is_better,
        "p_value": change.p_value,
        "series_run_count": len(series),
        "series_excluded_count": excluded,
        "detector": DETECTOR,
        "detector_params_json": settings.as_json(),
        # confirmed/dismissed by a user later: the decisions live in their own table
        "review_state": "open",
    }


def change_points(points: pd.DataFrame, settings: DetectorSettings) -> pa.Table:
    """One row per change point found, per series and measure, on `guarded_points` output."""
    rows = []
    detected_on = points[points["exclusion"].isna()]
    analysed = points[_in_series_with(points, detected_on, settings.min_points)]
    for _, series in _ordered(analysed).groupby(SERIES, sort=False):
        series = series.reset_index(drop=True)
        excluded = series["exclusion"].notna().to_list()
        values = series["value"].to_numpy(dtype=float)
        for found in guarded_series_changes(values, excluded, settings):
            rows.append(_change_row(series, found, settings, sum(excluded)))
    return pa.Table.from_pylist(rows, schema=CHANGE_POINTS_SCHEMA)
