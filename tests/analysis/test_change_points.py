"""analysis.change_points on generated series: the outlier guard, E-Divisive means through
Apache Otava (installed --no-deps by scripts/setup.sh), and the means either side.

The series are made here from seeded NumPy noise around a level of 100; nothing is read back
from the code under test to decide what is expected."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.change_points import (
    DetectorSettings,
    detect_changes,
    gesd_outliers,
    guard_outliers,
    guarded_series_changes,
    neighbour_median,
)

SETTINGS = DetectorSettings()


def _series(seed: int, runs: int = 60, cv: float = 0.03) -> np.ndarray:
    return 100.0 * (1.0 + cv * np.random.default_rng(seed).standard_normal(runs))


def _step(seed: int, at: int, factor: float) -> np.ndarray:
    values = _series(seed)
    values[at:] *= factor
    return values


def test_otava_installed_without_its_pins_computes_its_own_known_answer():
    """Otava's own test series (tests/analysis_test.py, test_single_series): one change at 10,
    with the numpy and scipy requirements.txt pins, not the ones apache-otava asks for."""
    from otava.analysis import compute_change_points

    series = [1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96]
    series += [0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49]
    found, _weak = compute_change_points(series, window_len=10, max_pvalue=0.0001)
    assert [c.index for c in found] == [10]


@pytest.mark.parametrize(("seed", "at"), [(1, 20), (2, 35), (3, 47)])
def test_a_clear_step_is_found_at_its_first_run(seed: int, at: int):
    values = _step(seed, at, 0.85)
    changes = detect_changes(values, SETTINGS)
    assert [c.index for c in changes] == [at]
    change = changes[0]
    assert change.before.run_count == at
    assert change.after.run_count == len(values) - at
    assert change.before.mean == pytest.approx(values[:at].mean())
    assert change.after.mean == pytest.approx(values[at:].mean())
    assert change.change_pct == pytest.approx((values[at:].mean() / values[:at].mean() - 1) * 100)
    assert -20 < change.change_pct < -10
    assert change.before.ci95_low < change.before.mean < change.before.ci95_high
    assert change.after.ci95_high < change.before.ci95_low


@pytest.mark.parametrize("seed", range(10))
def test_pure_noise_is_not_flagged(seed: int):
    values = _series(100 + seed, cv=0.05)
    excluded = guard_outliers(values, SETTINGS)
    assert guarded_series_changes(values, excluded, SETTINGS) == []


def test_gesd_names_the_planted_outliers_and_no_others():
    values = _series(7)
    values[12] *= 1.3
    values[40] *= 0.7
    assert gesd_outliers(values, alpha=0.05, max_outliers=6) == [12, 40]


def test_neighbour_median_follows_a_step_and_ignores_a_lone_run():
    values = [100.0] * 10 + [90.0] * 10
    values[4] = 60.0
    medians = neighbour_median(values, 5)
    assert medians[4] == 100.0
    assert medians[3] == 100.0
    assert list(medians[11:]) == [90.0] * 9
    # the ends: fewer neighbours, still not the value itself
    assert neighbour_median([1.0, 2.0, 4.0, 8.0], 5)[0] == 3.0


def test_an_outlier_is_guarded_and_the_step_behind_it_found():
    """A 30 % low run a few runs before a -8 % step: the guard takes that run out (and says
    which), and detection finds the step at its first run."""
    values = _step(11, 30, 0.92)
    values[26] *= 0.7
    excluded = guard_outliers(values, SETTINGS)
    assert excluded[26]
    assert not any(excluded[28:33])
    changes = guarded_series_changes(values, excluded, SETTINGS)
    assert [c.index for c in changes] == [30]
    assert changes[0].previous_index == 29
    assert -11 < changes[0].change.change_pct < -5


def test_too_short_a_series_is_not_analysed():
    values = [100.0, 100.0, 100.0, 50.0, 50.0]
    assert detect_changes(values, SETTINGS) == []
