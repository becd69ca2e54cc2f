"""marts.history_points: every point of every result series, with why it is left out of
change-point detection (a run-validity rule, or the GESD outlier guard). The logic lives in
analysis/change_point_tables.py (docs/ANALYSES.md, "History and change points")."""

from analysis.change_point_tables import history_points
from analysis.change_points import DetectorSettings


def model(dbt, session):
    points = dbt.ref("int_history_points").df()
    return history_points(points, DetectorSettings())
