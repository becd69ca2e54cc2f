"""The History page's rows: the repeated configurations (series) a user can pick, one series'
points of one measure, its change points with the review decisions the store holds, the
before/after segments the chart bands, and what the chart's subtitle says about the detector.

A series is marts.history_points' `series_key` (the testbed and every comparison label but the
event labels, such as vsan_version, whose changes are events on the series: `event_change`);
only series with two or more runs are history."""

from __future__ import annotations

import json
from collections.abc import Callable, MutableMapping

import polars as pl

from analysis.change_points import DETECTOR, DetectorSettings
from app.lib.charts.common import axis_title
from app.lib.charts.history import DETECTED, Segment

# URL parameter -> widget key.
PARAMS = {"search": "history_search", "series": "history_series", "measure": "history_measure"}
# marts.change_points' measures, in the order the selector offers them.
MEASURES = ("iops", "throughput_mb_s", "avg_latency_ms", "p99_latency_ms", "iops_per_cpu_pct")
IDENTITY = ["series_key", "measure", "result_id"]
REVIEW_COLUMNS = ("review_state", "reviewed_by", "reviewed_at", "review_note")
HISTORY_HINT = (
    "A history is the same configuration run again over time. `python -m synth history "
    "FIO_JSON DIR` writes one from a real fio report (24 runs with a step after an "
    "upgrade); load it with `python -m ingest load DIR`, then `ingest build` and `ingest publish`."
)
REVIEW_ACTIONS = (("confirmed", "Confirm"), ("dismissed", "Dismiss"), ("open", "Reopen"))


def labels_text(labels_json: str | None) -> str:
    """A series' labels as `key=value` pairs in key order (`nodes=4, read_pct=70`)."""
    labels = json.loads(labels_json) if labels_json else {}
    return ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))


def series_choices(points: pl.DataFrame) -> pl.DataFrame:
    """One row per repeated configuration (two runs or more): series_key, testbed, its labels
    as text, its run count and `choice`, the selector's text for it (testbed · labels); most
    runs first."""
    if points.is_empty():
        return pl.DataFrame(schema={"series_key": pl.String, "choice": pl.String})
    series = (
        points.group_by("series_key")
        .agg(
            pl.col("testbed").first(),
            pl.col("series_labels_json").first(),
            pl.col("result_id").n_unique().alias("runs"),
        )
        .filter(pl.col("runs") >= 2)
    )
    labels = [labels_text(j) for j in series["series_labels_json"].to_list()]
    series = series.with_columns(pl.Series("labels", labels, dtype=pl.String))
    # no run count in it: the text is the URL's `series` value, which must not change as runs
    # are added
    choice = [f"{t} · {lab}" for t, lab in series.select("testbed", "labels").iter_rows()]
    return series.with_columns(pl.Series("choice", choice, dtype=pl.String)).sort(
        ["runs", "choice"], descending=[True, False]
    )


def matching(series: pl.DataFrame, search: str) -> pl.DataFrame:
    """The series whose selector text holds every word of `search` (any case)."""
    words = search.lower().split()
    if not words or series.is_empty():
        return series
    text = series["choice"].str.to_lowercase()
    keep = pl.Series([all(w in t for w in words) for t in text.to_list()], dtype=pl.Boolean)
    return series.filter(keep)


def measures_of(points: pl.DataFrame, series_key: str) -> list[str]:
    present = set(points.filter(pl.col("series_key") == series_key)["measure"].to_list())
    return [m for m in MEASURES if m in present]


def measure_label(measure: str) -> str:
    return axis_title(measure)


def one_series(points: pl.DataFrame, series_key: str, measure: str) -> pl.DataFrame:
    """One series' points of one measure in run order, with `point_kind`: DETECTED, or the
    reason the point was left out of detection (its `exclusion`)."""
    part = points.filter((pl.col("series_key") == series_key) & (pl.col("measure") == measure))
    return part.sort("series_position").with_columns(
        pl.col("exclusion").fill_null(DETECTED).alias("point_kind")
    )


def series_changes(changes: pl.DataFrame, series_key: str, measure: str) -> pl.DataFrame:
    if changes.is_empty():
        return changes
    mine = (pl.col("series_key") == series_key) & (pl.col("measure") == measure)
    return changes.filter(mine).sort("series_position")


def with_decisions(changes: pl.DataFrame, decisions: pl.DataFrame) -> pl.DataFrame:
    """`changes` with the store's latest decision of each (the store is newer than the mart:
    a decision made since the last build shows here first); the mart's state otherwise."""
    if changes.is_empty():
        return changes
    missing = [c for c in REVIEW_COLUMNS if c not in changes.columns]  # a mart built before
    changes = changes.with_columns(pl.lit(None, decisions.schema[c]).alias(c) for c in missing)
    decisions = decisions.with_columns(pl.col(c).cast(changes.schema[c]) for c in REVIEW_COLUMNS)
    joined = changes.join(decisions, on=IDENTITY, how="left", suffix="_store")
    decided = pl.col("review_state_store").is_not_null()
    return joined.with_columns(
        pl.when(decided).then(pl.col(f"{c}_store")).otherwise(pl.col(c)).alias(c)
        for c in REVIEW_COLUMNS
    ).drop([c for c in joined.columns if c.endswith("_store")])


def segments(series: pl.DataFrame, changes: pl.DataFrame) -> list[Segment]:
    """The before/after segments of a series with change points: the segment before each
    change (its `mean_before`) and the one after the last (its `mean_after`)."""
    if changes.is_empty():
        return []
    detected = series.filter(pl.col("point_kind") == DETECTED)
    cuts = changes["series_position"].to_list()
    bounds = [-1, *cuts, int(series["series_position"].max()) + 1]
    rows = changes.to_dicts()
    out = []
    for i in range(len(bounds) - 1):
        between = pl.col("series_position").is_between(max(bounds[i], 0), bounds[i + 1] - 1)
        inside = detected.filter(between)
        if inside.is_empty():
            continue
        side = "before" if i < len(rows) else "after"
        row = rows[min(i, len(rows) - 1)]
        out.append(
            Segment(
                inside["started_at"].min(),
                inside["started_at"].max(),
                row[f"mean_{side}"],
                row[f"mean_{side}_ci95_low"],
                row[f"mean_{side}_ci95_high"],
            )
        )
    return out


def built_settings(series: pl.DataFrame) -> DetectorSettings:
    """The detector settings the build used (history_points.detector_params_json: the dbt
    vars history_*); the defaults for a mart built before the column existed."""
    if series.is_empty() or "detector_params_json" not in series.columns:
        return DetectorSettings()
    return DetectorSettings.from_json(series["detector_params_json"][0])


def detector_text(changes: pl.DataFrame, settings: DetectorSettings | None = None) -> str:
    """The detector and its parameters as the chart prints them: the mart's own row when the
    series has change points, else the settings the build used (`built_settings`)."""
    if not changes.is_empty():
        detector = changes["detector"][0]
        params = json.loads(changes["detector_params_json"][0])
    else:
        detector = DETECTOR
        params = json.loads((settings or DetectorSettings()).as_json())
    return f"{detector}: " + ", ".join(f"{k}={v}" for k, v in sorted(params.items()))


def subtitle(
    configuration: str, changes: pl.DataFrame, settings: DetectorSettings | None = None
) -> str:
    """The chart's subtitle: the configuration (testbed · labels), then the detector."""
    return f"{configuration}<br>{detector_text(changes, settings)}"


def too_few_runs(series: pl.DataFrame, settings: DetectorSettings | None = None) -> str | None:
    """What to say instead of detection when the series has fewer detected-on runs than the
    detector needs; None when it has enough."""
    need = (settings or DetectorSettings()).min_points
    have = series.filter(pl.col("point_kind") == DETECTED).height
    if have >= need:
        return None
    return (
        f"This series has {have} run(s) change-point detection can use; the detector needs "
        f"at least {need} (min_points). Its points are shown, but no change is looked for."
    )


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def change_caption(row: dict) -> str:
    """One change point in words: when, how much, how sure, and its review."""
    worse = "worse" if row["is_regression"] else "better"
    event = f" after {row['event_change']}" if row.get("event_change") else ""
    text = (
        f"{row['started_at']:%Y-%m-%d %H:%M} UTC{event}: {row['change_pct']:+.1f} % ({worse}), "
        f"mean {_number(row['mean_before'])} → {_number(row['mean_after'])}, "
        f"p = {row['p_value']:.2g}. "
        f"Review: **{row['review_state']}**"
    )
    if row.get("reviewed_at") is not None:
        who = row.get("reviewed_by") or "someone"
        text += f" by {who}, {row['reviewed_at']:%Y-%m-%d %H:%M} UTC"
    if row.get("review_note"):
        text += f": “{row['review_note']}”"
    return text


def review_clicked(
    state: MutableMapping,
    record: Callable[..., None],
    row: dict,
    review_state: str,
    note_key: str,
    user_key: str,
) -> None:
    """A review button's on_click: record the decision with the note and user name the page's
    text boxes hold, and empty the note box."""
    record(
        row["series_key"],
        row["measure"],
        row["result_id"],
        review_state,
        state.get(user_key) or "",
        state.get(note_key) or "",
    )
    state[note_key] = ""
