"""analysis.change_point_tables: the history marts' frames from int_history_points rows, on a
generated series (the columns dbt's Python models return)."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from analysis.change_point_tables import (
    change_points,
    event_change,
    guarded_points,
    history_points,
)
from analysis.change_points import DetectorSettings

SETTINGS = DetectorSettings()
START = dt.datetime(2026, 1, 5, 9, tzinfo=dt.UTC)


def _points(values: np.ndarray, measure: str, higher_is_better: bool) -> pd.DataFrame:
    """A series whose event label vsan_version moves from 8.0u2 to 8.0u3 at run 25 (where the
    fixture's step is) and that lacks it before run 2."""
    runs = len(values)
    versions = [None] * 2 + ['{"vsan_version":"8.0u2"}'] * 23 + ['{"vsan_version":"8.0u3"}'] * 15
    return pd.DataFrame(
        {
            "series_key": "s1",
            "result_id": [f"r{i:02d}" for i in range(runs)],
            "measure": measure,
            "testbed_id": "t1",
            "testbed": "lab",
            "series_labels_json": '{"read_pct":"70"}',
            "event_labels_json": versions[:runs],
            # two runs a day: repeats on one day are points of their own
            "started_at": [START + dt.timedelta(hours=12 * i) for i in range(runs)],
            "series_position": range(runs),
            "higher_is_better": higher_is_better,
            "value": values,
            "validity_exclusion": [None] * runs,
        }
    )


@pytest.fixture
def history() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    iops = 1000.0 * (1 + 0.03 * rng.standard_normal(40))
    iops[25:] *= 0.9
    iops[10] *= 1.3
    latency = 2.0 * (1 + 0.03 * rng.standard_normal(40))
    latency[25:] /= 0.9
    points = pd.concat(
        [_points(iops, "iops", True), _points(latency, "avg_latency_ms", False)],
        ignore_index=True,
    )
    points.loc[
        (points["measure"] == "iops") & (points["result_id"] == "r03"), "validity_exclusion"
    ] = "partial"
    return points


def test_points_say_why_they_are_left_out(history: pd.DataFrame):
    guarded = guarded_points(history, SETTINGS)
    iops = guarded[guarded["measure"] == "iops"].set_index("result_id")
    assert iops.loc["r03", "exclusion"] == "partial"
    assert iops.loc["r10", "exclusion"] == "outlier_gesd"
    assert not iops.loc["r10", "is_detected_on"]
    assert iops["exclusion"].notna().sum() == 2
    assert len(guarded) == len(history)


def test_change_points_row_per_measure_at_the_first_result_after(history: pd.DataFrame):
    table = change_points(guarded_points(history, SETTINGS), SETTINGS).to_pandas()
    assert sorted(table["measure"]) == ["avg_latency_ms", "iops"]
    assert set(table["result_id"]) == {"r25"}
    assert set(table["previous_result_id"]) == {"r24"}
    rows = table.set_index("measure")
    assert rows.loc["iops", "started_at"] == pd.Timestamp(START + dt.timedelta(hours=12 * 25))
    assert rows.loc["iops", "change_pct"] < 0
    assert rows.loc["avg_latency_ms", "change_pct"] > 0
    # both are for the worse: fewer IOPS, higher latency
    assert rows["is_regression"].all()
    iops_values = history[history["measure"] == "iops"]["value"].to_numpy()
    kept_before = [v for i, v in enumerate(iops_values[:25]) if i not in (3, 10)]
    assert rows.loc["iops", "mean_before"] == pytest.approx(np.mean(kept_before))
    assert rows.loc["iops", "runs_before"] == 23
    assert rows.loc["iops", "mean_after"] == pytest.approx(iops_values[25:].mean())
    assert rows.loc["iops", "series_excluded_count"] == 2
    assert set(table["review_state"]) == {"open"}
    assert set(table["detector"]) == {"otava.e_divisive_means"}
    assert '"max_pvalue": 5e-05' in rows.loc["iops", "detector_params_json"]


def test_no_change_gives_an_empty_table_with_the_columns(history: pd.DataFrame):
    flat = history.assign(value=1000.0 + np.arange(len(history)) % 3)
    table = change_points(guarded_points(flat, SETTINGS), SETTINGS)
    assert table.num_rows == 0
    assert "review_state" in table.schema.names


def test_history_points_keep_their_types_with_nothing_excluded_or_no_points(history):
    """A column of NULLs alone must stay text (pandas would hand DuckDB an INTEGER column, and
    the mart's check constraint would then fail on a type, not a value)."""
    steady = history.assign(value=1000.0 + np.arange(len(history)) % 3, validity_exclusion=None)
    for points in (steady, steady.iloc[0:0]):
        table = history_points(points, SETTINGS)
        assert table.schema.field("exclusion").type == pa.string()
        assert table.schema.field("validity_exclusion").type == pa.string()
        assert table.schema.field("started_at").type == pa.timestamp("us", tz="UTC")
        assert table.column("exclusion").null_count == len(points)


def test_an_event_is_on_the_point_where_the_label_changed_and_on_the_change_after_it(
    history: pd.DataFrame,
):
    guarded = guarded_points(history, SETTINGS)
    iops = guarded[guarded["measure"] == "iops"].set_index("result_id")["event_change"]
    assert iops.dropna().to_dict() == {
        "r02": "vsan_version: (none) -> 8.0u2",
        "r25": "vsan_version: 8.0u2 -> 8.0u3",
    }
    table = change_points(guarded, SETTINGS).to_pandas()
    assert set(table["event_change"]) == {"vsan_version: 8.0u2 -> 8.0u3"}
    assert history_points(history, SETTINGS).schema.field("event_change").type == pa.string()


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ('{"vsan_version":"8.0u2"}', '{"vsan_version":"8.0u2"}', None),
        (None, None, None),
        ('{"vsan_version":"8.0u2"}', None, "vsan_version: 8.0u2 -> (none)"),
        (
            '{"driver":"1.2","vsan_version":"8.0u2"}',
            '{"driver":"1.3","vsan_version":"8.0u3"}',
            "driver: 1.2 -> 1.3; vsan_version: 8.0u2 -> 8.0u3",
        ),
    ],
)
def test_event_change_names_each_label_that_changed(before, after, expected):
    assert event_change(before, after) == expected


def test_settings_come_from_dbt_vars_as_text():
    """dbt renders the vars into the model's meta as text; a missing one keeps its default."""
    settings = DetectorSettings.from_values({"max_pvalue": "0.001", "window_len": "30"})
    assert (settings.max_pvalue, settings.window_len) == (0.001, 30)
    assert settings.gesd_alpha == DetectorSettings().gesd_alpha
    assert DetectorSettings.from_json(settings.as_json()) == settings
