"""The p- and q-values of config deltas (dbt_project/models/intermediate/comparisons/
config_delta_tests.py): Welch's two-sided p-value and Benjamini-Hochberg within each
testbed's family, checked against values worked out by hand and Student's t tables."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

MODEL = (
    Path(__file__).resolve().parents[2]
    / "dbt_project/models/marts/comparisons/config_delta_tests.py"
)


def _model():
    spec = importlib.util.spec_from_file_location("config_delta_tests", MODEL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tests = _model()


def test_welch_p_value_matches_the_t_table() -> None:
    # t = 2.101 at 18 df is the 0.975 quantile (the interval's own factor): p = 0.05;
    # t = 2.878 at 18 df is the 0.995 quantile: p = 0.01
    p = tests.welch_p_values(
        np.array([210.1, -287.8]), np.array([100.0, 100.0]), np.array([18, 18])
    )
    assert p == pytest.approx([0.05, 0.01], abs=2e-4)


def test_no_spread_has_no_p_value() -> None:
    # no standard error, a zero one (identical repeats), below 1 degree of freedom
    p = tests.welch_p_values(
        np.array([10.0, 10.0, 10.0, 10.0]),
        np.array([np.nan, 0.0, 5.0, 5.0]),
        np.array([5.0, 5.0, 0.0, np.nan]),
    )
    assert np.isnan(p).all()


def test_benjamini_hochberg_within_each_family() -> None:
    # family a: p 0.01, 0.04, 0.03 (m = 3): sorted 0.01, 0.03, 0.04 -> 0.03, 0.045, 0.04
    # -> step-up minimum from the top: 0.03, 0.04, 0.04; family b alone: q = p
    p = np.array([0.01, 0.04, 0.03, 0.04, np.nan])
    q, size = tests.family_q_values(p, np.array(["a", "a", "a", "b", "b"], dtype=object))
    assert q[:4] == pytest.approx([0.03, 0.04, 0.04, 0.04])
    assert np.isnan(q[4])
    assert size.tolist() == [3, 3, 3, 1, 0]


def test_one_family_of_twenty_nulls_keeps_its_smallest_p_from_being_called_significant() -> None:
    # p = 0.01 alone would pass at 5 %; among 20 tests whose others are large, q = 0.2
    p = np.array([0.01] + [0.5 + i / 100 for i in range(19)])
    q, _ = tests.family_q_values(p, np.array(["t"] * 20, dtype=object))
    assert q[0] == pytest.approx(0.2)
    assert (q >= p).all()
