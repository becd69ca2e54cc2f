"""marts.history_points: every point of every result series, with why it is left out of
change-point detection (a run-validity rule, or the GESD outlier guard) and the events on its
series. The logic lives in analysis/change_point_tables.py (docs/ANALYSES.md, "History and
change points"). The detector's settings are dbt vars `history_*` (dbt_project.yml), passed in
through this model's meta (_history__models.yml: a Python model cannot call var()); every row
carries them, so marts.change_points and the History page use the same."""

from analysis.change_point_tables import history_points
from analysis.change_points import DetectorSettings


def model(dbt, session):
    # a statement of its own: dbt finds the meta keys a model reads in its calls' top level
    given = dbt.config.meta_get("detector_settings")
    settings = DetectorSettings.from_values(given or {})
    points = dbt.ref("int_history_points").df()
    return history_points(points, settings)
