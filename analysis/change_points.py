"""Change points of one series of results: the outlier guard, then E-Divisive means.

A series is one configuration's values of one measure, ordered by run start (docs/ANALYSES.md,
"History and change points"). Two steps, each a pure function of the values:

1. **Guard** (`guard_outliers`): a generalized ESD test (Rosner 1983) on each value's deviation
   from the median of its neighbours (the `neighbour_window_runs` runs centred on it, itself
   left out). One run far from its neighbours is an outlier; a step is not (three or more runs
   at a new level carry their neighbours' median with them). A guarded run is left out of
   detection, and the mart says so.
2. **Detection** (`detect_changes`): Apache Otava's E-Divisive means with its t-test merge
   (`otava.analysis.compute_change_points`, Fleming et al. 2023, "Hunter"), on the runs the
   guard kept. Each change gets the means of the segments either side (up to the neighbouring
   change points, as Otava's own statistics) with Student-t 95 % intervals, and `change_pct`.

Example: 20 runs cycling 100, 101, 99, one run at 70, then 20 runs cycling 92, 93, 91. Plain
`detect_changes` cuts the outlier out as a segment of its own (changes at runs 20 and 21, -30 %
and +31.5 %); `guard_outliers` takes out run 20 (and, in a series this regular, its neighbour
19), and `guarded_series_changes` then gives one change, at run 21, -7.95 %.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields

import numpy as np
from otava.analysis import compute_change_points
from scipy import stats

DETECTOR = "otava.e_divisive_means"


@dataclass(frozen=True, slots=True)
class DetectorSettings:
    """The detector's and the guard's parameters, printed into every change point's row.

    The defaults are the ones benchmarks/bench_change_points.py chose (its docstring and
    benchmarks/RESULTS.md give the figures they rest on); a build takes them from dbt vars
    `history_<name>` (dbt_project.yml)."""

    # Otava's merge keeps a change whose two-sided t-test p-value is below this; its split
    # step uses ten times it for the candidate ("weak") change points.
    max_pvalue: float = 0.00005
    # Otava's sliding window for the split step, in runs.
    window_len: int = 50
    # Otava's merge also drops a change smaller than this relative magnitude (0.02 = 2 %).
    min_magnitude: float = 0.0
    # The guard: GESD's significance level and the most outliers it may name, as a fraction
    # of the series (at least one).
    gesd_alpha: float = 0.05
    gesd_max_outlier_fraction: float = 0.1
    neighbour_window_runs: int = 5
    # Fewer kept runs than this: no detection (a segment needs two runs for an interval).
    min_points: int = 6

    def as_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> DetectorSettings:
        """Settings from `values` by field name (dbt's vars, which reach a Python model as
        text), each converted to its field's type; a field missing or None keeps its default."""
        given = {}
        for setting in fields(cls):
            value = values.get(setting.name)
            if value is not None:
                convert = int if setting.type == "int" else float
                given[setting.name] = convert(value)
        return cls(**given)

    @classmethod
    def from_json(cls, text: str) -> DetectorSettings:
        return cls.from_values(json.loads(text))


@dataclass(frozen=True, slots=True)
class Segment:
    """The runs between two change points (or a series end): their mean and its 95 % interval
    (Student t on the runs; NULL bounds for a single run)."""

    run_count: int
    mean: float
    ci95_low: float | None
    ci95_high: float | None


@dataclass(frozen=True, slots=True)
class DetectedChange:
    """A change point: `index` is the first value after the change, in the values given."""

    index: int
    p_value: float
    before: Segment
    after: Segment

    @property
    def change_pct(self) -> float | None:
        if self.before.mean == 0:
            return None
        return (self.after.mean / self.before.mean - 1.0) * 100.0


def neighbour_median(values: Sequence[float], width: int) -> np.ndarray:
    """Per value, the median of its neighbours: the `width` runs centred on it (fewer at the
    ends), itself left out. Left out so that a deviation is never zero by construction (a
    value that is its window's median would be), which would shrink GESD's spread."""
    array = np.asarray(values, dtype=float)
    half = width // 2
    return np.array(
        [
            np.median(np.delete(array[max(0, i - half) : i + half + 1], min(i, half)))
            for i in range(len(array))
        ]
    )


def gesd_outliers(values: Sequence[float], alpha: float, max_outliers: int) -> list[int]:
    """Indexes of the outliers of a generalized ESD test (Rosner 1983; NIST e-Handbook 1.3.5.17).

    Up to `max_outliers` times, the value farthest from the mean of those left is taken out, with
    its statistic R_i = |x - mean| / sd; the outliers are the first k taken out, for the largest k
    with R_k above its critical value lambda_k."""
    remaining = list(enumerate(float(v) for v in values))
    n = len(remaining)
    removed: list[int] = []
    outlier_count = 0
    for i in range(1, min(max_outliers, n - 2) + 1):
        array = np.array([v for _, v in remaining])
        sd = array.std(ddof=1)
        if sd == 0:
            break
        deviations = np.abs(array - array.mean())
        farthest = int(deviations.argmax())
        statistic = deviations[farthest] / sd
        p = 1.0 - alpha / (2.0 * (n - i + 1))
        t = stats.t.ppf(p, n - i - 1)
        critical = (n - i) * t / math.sqrt((n - i - 1 + t**2) * (n - i + 1))
        removed.append(remaining.pop(farthest)[0])
        if statistic > critical:
            outlier_count = i
    return sorted(removed[:outlier_count])


def guard_outliers(values: Sequence[float], settings: DetectorSettings) -> list[bool]:
    """Per value: whether the guard takes it out (GESD on deviations from the neighbours'
    median)."""
    if len(values) < 3:
        return [False] * len(values)
    deviations = np.asarray(values, dtype=float) - neighbour_median(
        values, settings.neighbour_window_runs
    )
    max_outliers = max(1, int(len(values) * settings.gesd_max_outlier_fraction))
    outliers = set(gesd_outliers(deviations, settings.gesd_alpha, max_outliers))
    return [i in outliers for i in range(len(values))]


def segment(values: Sequence[float]) -> Segment:
    array = np.asarray(values, dtype=float)
    mean = float(array.mean())
    if len(array) < 2:
        return Segment(len(array), mean, None, None)
    half_width = stats.t.ppf(0.975, len(array) - 1) * array.std(ddof=1) / math.sqrt(len(array))
    return Segment(len(array), mean, mean - half_width, mean + half_width)


def detect_changes(values: Sequence[float], settings: DetectorSettings) -> list[DetectedChange]:
    """The change points of `values` (already guarded), by Otava's E-Divisive means."""
    if len(values) < settings.min_points:
        return []
    found, _weak = compute_change_points(
        list(map(float, values)),
        window_len=settings.window_len,
        max_pvalue=settings.max_pvalue,
        min_magnitude=settings.min_magnitude,
    )
    indexes = [int(point.index) for point in found]
    bounds = [0, *indexes, len(values)]
    return [
        DetectedChange(
            index=index,
            p_value=float(point.stats.pvalue),
            before=segment(values[bounds[k] : index]),
            after=segment(values[index : bounds[k + 2]]),
        )
        for k, (index, point) in enumerate(zip(indexes, found, strict=True))
    ]


@dataclass(frozen=True, slots=True)
class SeriesChange:
    """A change found in a guarded series: `index` and `previous_index` are positions in the
    whole series (guarded runs included), of the first run after the change and the last
    kept run before it."""

    index: int
    previous_index: int
    change: DetectedChange


def guarded_series_changes(
    values: Sequence[float], excluded: Sequence[bool], settings: DetectorSettings
) -> list[SeriesChange]:
    """Detection on the runs not `excluded`, positions mapped back to the whole series."""
    kept = [i for i, out in enumerate(excluded) if not out]
    changes = detect_changes([values[i] for i in kept], settings)
    return [SeriesChange(kept[c.index], kept[c.index - 1], c) for c in changes]
