"""Benchmark: change-point detection (analysis/change_points.py) on generated series.

Not a test: it prints figures, and the parameters chosen from them. The series are made here,
from a seeded NumPy generator (`--seed`), each of `--runs` values (60), as a run history of
one configuration would be: a level of 100 times (1 + cv x standard normal noise), independent
from run to run.

- noise:          5 % coefficient of variation, no change. A series with any change point is
                  "flagged" (a false alarm). Target: at most 2 % of series flagged.
- step:           3 % noise, the level times 0.92 (-8 %) from a true change index drawn
                  uniformly from 10..50. "Found" = a change point within 2 runs of the true
                  index. Target: at least 90 % of series.
- step + outlier: the same series with one run (drawn uniformly, not within 2 runs of the
                  change) times 0.7 or 1.3 (sign drawn): a 30 % outlier. Target: at least 85 %.

Each set is run through the product's detector with the guard (GESD on the deviations from the
neighbours' median, then Otava's E-Divisive means on the runs kept) and without it ("plain"), for
each `max_pvalue` and `gesd_alpha` of the grid. The chosen parameters, the defaults of
`DetectorSettings`, are the most sensitive (largest max_pvalue) with the guard that meet every
target with the noise figure one binomial standard error below its target (0.8 % at 300
series), so that another seed is unlikely to break it.

    python -m benchmarks.bench_change_points                 # 300 series per set
    python -m benchmarks.bench_change_points --series 30     # a quick look
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from analysis.change_points import (
    DetectorSettings,
    detect_changes,
    guard_outliers,
    guarded_series_changes,
)

STEP = -0.08
OUTLIER = 0.30
NOISE_CV = 0.05
STEP_CV = 0.03
TOLERANCE_RUNS = 2
TARGETS = {"noise": 0.02, "step": 0.90, "step + outlier": 0.85}
MAX_PVALUES = (0.001, 0.0005, 0.0002, 0.0001, 0.00005)
GESD_ALPHAS = (0.05, 0.01)


@dataclass(frozen=True)
class Series:
    values: np.ndarray
    change_index: int | None


def noise_series(rng: np.random.Generator, runs: int) -> Series:
    return Series(100.0 * (1.0 + NOISE_CV * rng.standard_normal(runs)), None)


def step_series(rng: np.random.Generator, runs: int, outlier: bool) -> Series:
    values = 100.0 * (1.0 + STEP_CV * rng.standard_normal(runs))
    change = int(rng.integers(10, runs - 9))
    values[change:] *= 1.0 + STEP
    if outlier:
        away = [i for i in range(runs) if abs(i - change) > TOLERANCE_RUNS]
        values[rng.choice(away)] *= 1.0 + OUTLIER * rng.choice([-1.0, 1.0])
    return Series(values, change)


def guarded_indexes(values: np.ndarray, settings: DetectorSettings) -> list[int]:
    excluded = guard_outliers(values, settings)
    return [c.index for c in guarded_series_changes(values, excluded, settings)]


def plain_indexes(values: np.ndarray, settings: DetectorSettings) -> list[int]:
    return [c.index for c in detect_changes(values, settings)]


def share(
    series: list[Series],
    detector: Callable[[np.ndarray, DetectorSettings], list[int]],
    settings: DetectorSettings,
) -> float:
    """Noise: the share flagged; a step: the share found within the tolerance."""
    hits = 0
    for one in series:
        indexes = detector(one.values, settings)
        if one.change_index is None:
            hits += bool(indexes)
        else:
            hits += any(abs(i - one.change_index) <= TOLERANCE_RUNS for i in indexes)
    return hits / len(series)


def meets(figures: dict[str, float], series: int, margin: bool = False) -> bool:
    """Every target met; with `margin`, the noise figure one binomial standard error below."""
    noise_limit = TARGETS["noise"]
    if margin:
        noise_limit -= (TARGETS["noise"] * (1 - TARGETS["noise"]) / series) ** 0.5
    return (
        figures["noise"] <= noise_limit
        and figures["step"] >= TARGETS["step"]
        and figures["step + outlier"] >= TARGETS["step + outlier"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=300, help="series per set (300)")
    parser.add_argument("--runs", type=int, default=60, help="runs per series (60)")
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    sets = {
        "noise": [noise_series(rng, args.runs) for _ in range(args.series)],
        "step": [step_series(rng, args.runs, outlier=False) for _ in range(args.series)],
        "step + outlier": [step_series(rng, args.runs, outlier=True) for _ in range(args.series)],
    }
    print(
        f"{args.series} series per set, {args.runs} runs each, seed {args.seed}; "
        f"noise {NOISE_CV:.0%} CV; step {STEP:+.0%} at {STEP_CV:.0%} noise, found within "
        f"{TOLERANCE_RUNS} runs; outlier {OUTLIER:.0%}"
    )
    print("targets: noise flagged <= 2 %, step found >= 90 %, step + outlier found >= 85 %")
    header = f"{'detector':<9}{'max_pvalue':>11}{'gesd_alpha':>11}"
    print(header + "".join(f"{name:>16}" for name in sets) + f"{'s':>7}  meets")
    chosen: DetectorSettings | None = None
    base = DetectorSettings()
    for max_pvalue in MAX_PVALUES:
        for detector_name, detector, alphas in (
            ("plain", plain_indexes, (None,)),
            ("guarded", guarded_indexes, GESD_ALPHAS),
        ):
            for alpha in alphas:
                settings = dataclasses.replace(
                    base, max_pvalue=max_pvalue, gesd_alpha=alpha or base.gesd_alpha
                )
                started = time.perf_counter()
                figures = {name: share(s, detector, settings) for name, s in sets.items()}
                seconds = time.perf_counter() - started
                ok = meets(figures, args.series)
                alpha_text = "-" if alpha is None else f"{alpha:g}"
                print(
                    f"{detector_name:<9}{max_pvalue:>11g}{alpha_text:>11}"
                    + "".join(f"{figures[name]:>15.1%} " for name in sets)
                    + f"{seconds:>6.1f}  {'yes' if ok else 'no'}"
                )
                margin_ok = meets(figures, args.series, margin=True)
                if margin_ok and detector_name == "guarded" and chosen is None:
                    chosen = settings
    if chosen is None:
        print("chosen: none of the grid meets every target with the margin")
        return 1
    print(f"chosen (most sensitive, guarded, every target with the margin): {chosen.as_json()}")
    if chosen != base:
        print(f"note: DetectorSettings() defaults differ: {base.as_json()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
