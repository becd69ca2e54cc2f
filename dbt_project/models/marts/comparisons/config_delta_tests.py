"""The p-value of each config delta's IOPS difference and its q-value within the testbed's family.

A testbed's config deltas are one family of tests (profiles x read mixes x block sizes x ...):
with 174 deltas judged one by one at 5 %, about 9 would be called significant by chance alone.
So each difference gets its two-sided p-value from Welch's t (the difference over its standard
error, Welch-Satterthwaite degrees of freedom: the same quantities as its 95 % interval in
config_delta_pairs), and the p-values of one testbed are adjusted together by Benjamini and
Hochberg (1995): `scipy.stats.false_discovery_control`, method "bh". config_deltas decides
`is_significant` on the q-value (docs/ANALYSES.md, "Many comparisons at once").

A dbt Python model (SQL has no Student's t distribution); the arithmetic is in the two pure
functions below, which tests/dbt/test_config_delta_tests.py checks against hand-worked values.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from scipy import stats


def welch_p_values(delta: np.ndarray, se: np.ndarray, df: np.ndarray) -> np.ndarray:
    """Two-sided p-value of each difference `delta` with standard error `se` and `df` degrees
    of freedom; NaN where there is no spread (se missing or 0, df missing or below 1)."""
    delta, se, df = (np.asarray(a, dtype=float) for a in (delta, se, df))
    judged = np.isfinite(delta) & np.isfinite(se) & (se > 0) & np.isfinite(df) & (df >= 1)
    p = np.full(delta.shape, np.nan)
    t = np.abs(delta[judged] / se[judged])
    p[judged] = 2.0 * stats.t.sf(t, df[judged])
    return p


def family_q_values(p: np.ndarray, family: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg q-values of `p` within each `family` (the tests that have a p-value),
    and each test's family size; NaN and 0 where the test has no p-value."""
    p = np.asarray(p, dtype=float)
    family = np.asarray(family, dtype=object)
    q = np.full(p.shape, np.nan)
    size = np.zeros(p.shape, dtype=np.int64)
    judged = np.isfinite(p)
    for member in set(family[judged]):
        rows = judged & (family == member)
        q[rows] = stats.false_discovery_control(p[rows], method="bh")
        size[rows] = int(rows.sum())
    return q, size


def model(dbt, session):  # dbt calls it so
    dbt.config(materialized="table")
    deltas = (
        dbt.ref("config_delta_pairs")
        .project("config_delta_id, testbed_id, iops_delta, iops_delta_se, iops_delta_df")
        .order("config_delta_id")
        .to_arrow_table()
    )
    p = welch_p_values(
        deltas["iops_delta"].to_numpy(zero_copy_only=False),
        deltas["iops_delta_se"].to_numpy(zero_copy_only=False),
        deltas["iops_delta_df"].to_numpy(zero_copy_only=False),
    )
    q, size = family_q_values(p, np.asarray(deltas["testbed_id"].to_pylist(), dtype=object))
    return pa.table(
        {
            "config_delta_id": deltas["config_delta_id"],
            "iops_delta_p_value": pa.array(p, mask=~np.isfinite(p)),
            "iops_delta_q_value": pa.array(q, mask=~np.isfinite(q)),
            "family_size": pa.array(size, mask=size == 0),
        }
    )
