"""marts.change_points: the change points of every result series and measure, by Apache
Otava's E-Divisive means on the points history_points keeps. The logic lives in
analysis/change_point_tables.py (docs/ANALYSES.md, "History and change points"); each change's
review state is its latest decision on the History page (warehouse/reviews.py), joined here
by the change's identity. The detector's settings are history_points' (dbt vars history_*)."""

import pyarrow as pa

from analysis.change_point_tables import change_points
from analysis.change_points import DetectorSettings

IDENTITY = ["series_key", "measure", "result_id"]
REVIEW_COLUMNS = [
    ("reviewed_by", pa.string()),
    ("reviewed_at", pa.timestamp("us", tz="UTC")),
    ("review_note", pa.string()),
]


def built_settings(points) -> DetectorSettings:
    """The settings history_points was built with (the dbt vars, in each of its rows)."""
    if points.empty:
        return DetectorSettings()
    return DetectorSettings.from_json(points["detector_params_json"].iloc[0])


def with_reviews(found: pa.Table, reviews) -> pa.Table:
    """`found` with each change's latest decision: `review_state` ('open' when nobody decided)
    and who, when and why."""
    frame = found.to_pandas().drop(columns=["review_state"])
    joined = frame.merge(reviews, on=IDENTITY, how="left")
    joined["review_state"] = joined["review_state"].fillna("open")
    schema = pa.schema([*found.schema, *REVIEW_COLUMNS])
    return pa.Table.from_pandas(joined[schema.names], schema=schema, preserve_index=False)


def model(dbt, session):
    points = dbt.ref("history_points").df()
    reviews = dbt.ref("int_change_point_reviews_latest").df()
    return with_reviews(change_points(points, built_settings(points)), reviews)
