"""The history marts' tables from int_history_points (dbt_project/models/marts/history/*.py).

`history_points` adds the guard and the events to every point; `change_points` runs detection
per series and measure on the points nobody excluded. An event is a change of the series'
event labels (dbt var history_event_labels: vsan_version, ...; docs/ANALYSES.md) from one point
to the next: an upgrade happens between two runs of one configuration, and the change point
it causes says so. Both take and give plain DataFrames (columns in
docs/CONTRACT.md), so dbt's Python models stay one call each and the logic is tested here.
"""

from __future__ import annotations

import json

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
        ("event_labels_json", pa.string()),
        ("event_change", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("series_position", pa.int64()),
        ("higher_is_better", pa.bool_()),
        ("value", pa.float64()),
        ("validity_exclusion", pa.string()),
        ("exclusion", pa.string()),
        ("is_detected_on", pa.bool_()),
        ("detector_params_json", pa.string()),
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
        ("event_change", pa.string()),
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


def event_change(previous_json: object, current_json: object) -> str | None:
    """The event labels that differ between two consecutive points, `label: old -> new` joined
    by '; ' in label order (`(none)` for a label a point lacks); None when none differ."""
    # pandas holds a missing JSON text as None or NaN
    before = json.loads(previous_json) if isinstance(previous_json, str) else {}
    after = json.loads(current_json) if isinstance(current_json, str) else {}
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    text = "; ".join(f"{k}: {before.get(k, '(none)')} -> {after.get(k, '(none)')}" for k in changed)
    return text or None


def with_events(points: pd.DataFrame) -> pd.DataFrame:
    """`points` (in series order) with `event_change`: how its event labels differ from the
    previous point's of its series and measure (None for a series' first point)."""
    labels = points["event_labels_json"]
    previous = points.groupby(SERIES, sort=False)["event_labels_json"].shift(1)
    first = points.groupby(SERIES, sort=False).cumcount() == 0
    changes = [
        None if is_first else event_change(before, now)
        for is_first, before, now in zip(first, previous, labels, strict=True)
    ]
    return points.assign(event_change=pd.Series(changes, index=points.index, dtype=object))


def guarded_points(points: pd.DataFrame, settings: DetectorSettings) -> pd.DataFrame:
    """Every point with `exclusion`: its run-validity rule, else `outlier_gesd` when the guard
    takes it out of its series (the guard sees only the valid points), else NULL."""
    points = with_events(_ordered(points).reset_index(drop=True))
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
    return points.assign(
        exclusion=exclusion,
        is_detected_on=exclusion.isna(),
        detector_params_json=settings.as_json(),
    )


def history_points(points: pd.DataFrame, settings: DetectorSettings) -> pa.Table:
    """marts.history_points: `guarded_points` with the mart's column types."""
    guarded = guarded_points(points, settings)[HISTORY_POINTS_SCHEMA.names]
    return pa.Table.from_pandas(guarded, schema=HISTORY_POINTS_SCHEMA, preserve_index=False)


def _events_between(series: pd.DataFrame, previous_index: int, index: int) -> str | None:
    """The events of the runs after `previous_index` up to `index` (guarded runs between
    included): what changed on the cluster between the last run before a change point and the
    first after it."""
    events = series["event_change"].iloc[previous_index + 1 : index + 1].dropna().to_list()
    return "; ".join(events) or None


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
        "event_change": _events_between(series, found.previous_index, found.index),
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
