"""marts.change_points: the change points of every result series and measure, by Apache
Otava's E-Divisive means on the points history_points keeps. The logic lives in
analysis/change_point_tables.py (docs/ANALYSES.md, "History and change points")."""

from analysis.change_point_tables import change_points
from analysis.change_points import DetectorSettings


def model(dbt, session):
    points = dbt.ref("history_points").df()
    return change_points(points, DetectorSettings())
