"""fct_result_steady_state on real fio 3.33 `--status-interval=1` output (Debian's fio, run
here in a tmp folder): the steady-state window and the batch-means CI against what the dumps
say, read by hand (the JSON documents differenced, as fio's status dumps are cumulative)."""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from typing import NamedTuple

import duckdb
import pytest

from ingest.__main__ import main as ingest_main
from synth import fio_json
from tests.dbt.conftest import _dbt_build

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("fio") is None, reason="needs Debian's fio"),
]

# t(b - 1, 0.975) for the batch counts a few seconds of 1 s intervals give
T975 = {1: 12.706, 2: 4.303, 3: 3.182}
RATE_IOPS = 2000
COMMON = [
    "--status-interval=1",
    "--output-format=json",
    "--size=4m",
    "--rw=randread",
    "--bs=4k",
    "--ioengine=psync",
    "--time_based",
]


def _fio(folder: Path, name: str, *job_args: str) -> Path:
    out = folder / f"{name}.json"
    data = folder.parent / "data"
    data.mkdir(exist_ok=True)
    subprocess.run(
        ["fio", f"--output={out}", f"--filename={data / 'f'}", *COMMON, *job_args],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return out


def _dumps(path: Path) -> list[dict]:
    # synth's reader, not the ingest's parser: this test checks the ingest by hand
    return [document for _, document in fio_json.documents(path.read_text())]


class Interval(NamedTuple):
    seconds: float  # the longest of the jobs' intervals
    iops: float  # summed over the jobs
    end_s: float  # the longest-running job's runtime at the dump


def _intervals_by_hand(path: Path, count: int) -> list[Interval]:
    """The first `count` intervals: every job's read I/O and runtime differenced dump to
    dump, IOPS summed over the jobs. `count` must be where the
    ingest ends the series: at the first document whose jobs all say eta == 0 (its rule
    for the final report; Debian's fio 3.33 also writes such a status dump just before
    the real final report) or at the last document."""
    dumps = _dumps(path)
    first_final = next(i for i, d in enumerate(dumps) if all(j["eta"] == 0 for j in d["jobs"]))
    assert count in (first_final + 1, len(dumps))
    previous: dict[str, tuple[int, int]] = {}
    series = []
    for dump in dumps[:count]:
        iops, seconds = 0.0, 0.0
        for job in dump["jobs"]:
            ms, ios = job["read"]["runtime"], job["read"]["total_ios"]
            ms0, ios0 = previous.get(job["jobname"], (0, 0))
            previous[job["jobname"]] = (ms, ios)
            if ms > ms0:
                iops += (ios - ios0) * 1000 / (ms - ms0)
                seconds = max(seconds, (ms - ms0) / 1000)
        end_s = max(job["read"]["runtime"] for job in dump["jobs"]) / 1000
        series.append(Interval(seconds, iops, end_s))
    return series


def _steady(window: list[Interval]) -> bool:
    """fio's two criteria on a window, the defaults: every value within 10 % of the mean,
    the least-squares slope within 1 % of the mean per interval."""
    values = [i.iops for i in window]
    n, mean = len(values), sum(values) / len(values)
    x_mean = (n - 1) / 2
    slope = sum((i - x_mean) * (v - mean) for i, v in enumerate(values)) / sum(
        (i - x_mean) ** 2 for i in range(n)
    )
    return max(abs(v - mean) for v in values) <= 0.10 * mean and abs(slope) <= 0.01 * mean


def _batch_means_ci(window: list[Interval]) -> tuple[float, float, float]:
    """The mart's rule by hand: floor(sqrt(n)) batches of floor(n / b), earliest dropped,
    time-weighted batch means, mean +- t * s / sqrt(b)."""
    n = len(window)
    b = min(math.isqrt(n), 10)
    m = n // b
    kept = window[n - b * m :]
    means = []
    for k in range(b):
        batch = kept[k * m : (k + 1) * m]
        means.append(sum(i.seconds * i.iops for i in batch) / sum(i.seconds for i in batch))
    mean = sum(means) / b
    sd = math.sqrt(sum((x - mean) ** 2 for x in means) / (b - 1))
    half = T975[b - 1] * sd / math.sqrt(b)
    return mean, mean - half, mean + half


@pytest.fixture(scope="module")
def steady_warehouse(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("steady_state")
    outputs = work / "outputs"
    outputs.mkdir()
    steady = _fio(outputs, "steady", "--name=ss", "--runtime=6", f"--rate_iops={RATE_IOPS}")
    # 1000 IOPS for 10 s, and a second job's 3000 for the first 4 s: the series steps down
    # (a job starting late, `startdelay`, is not used: the ingest's clock for a job that has
    # not started yet is its `elapsed`, which loses the I/O of the interval it starts in)
    step = _fio(
        outputs,
        "step",
        "--name=a",
        "--runtime=10",
        "--rate_iops=1000",
        "--name=b",
        "--runtime=4",
        "--rate_iops=3000",
    )
    db = work / "warehouse.duckdb"
    assert ingest_main(["load", str(outputs), "--db", str(db), "--quiet"]) == 0
    # only what the mart needs, and fct_workload_results to find each result by its key (a
    # sibling of the mart, not an ancestor); cautious: no tests of marts this build does not make
    _, failures = _dbt_build(
        db,
        work,
        ["+fct_result_steady_state", "fct_workload_results", "--indirect-selection", "cautious"],
    )
    assert not failures, failures

    # not read_only: dbt-duckdb keeps its own handle open in this process (conftest)
    con = duckdb.connect(str(db))

    def row(path: Path) -> dict:
        cursor = con.execute(
            "select s.* from marts.fct_result_steady_state s "
            "join marts.fct_workload_results r using (result_id) "
            "where r.result_key like ?",
            [f"%{path.name}%"],
        )
        names = [d[0] for d in cursor.description]
        (values,) = cursor.fetchall()
        return dict(zip(names, values, strict=True))

    try:
        return {"steady": (steady, row(steady)), "step": (step, row(step))}
    finally:
        con.close()


def _window(row: dict, series: list[Interval]) -> list[Interval]:
    """The intervals the mart's means and CI are over, by their times on the marts' clock
    (seconds since the end of the first interval)."""
    first_end = series[0].end_s
    return [
        i
        for i in series
        if i.end_s - i.seconds - first_end >= row["ci_window_start_s"] - 0.002
        and i.end_s - first_end <= row["ci_window_end_s"] + 0.002
    ]


def _assert_batch_means(row: dict, window: list[Interval]) -> None:
    n = len(window)
    assert n == row["ci_window_interval_count"]
    b = math.isqrt(n)
    assert (row["ci_method"], row["batch_count"], row["batch_size"]) == ("batch_means", b, n // b)
    mean, low, high = _batch_means_ci(window)
    assert row["iops_mean"] == pytest.approx(mean, rel=1e-9)
    assert (row["iops_ci95_low"], row["iops_ci95_high"]) == pytest.approx((low, high), rel=1e-9)
    # the CI holds the window's own time-weighted mean IOPS
    plain = sum(i.seconds * i.iops for i in window) / sum(i.seconds for i in window)
    assert row["iops_ci95_low"] < plain < row["iops_ci95_high"]


def test_rate_limited_run_gets_a_window_and_the_batch_means_ci_of_its_dumps(
    steady_warehouse,
) -> None:
    path, row = steady_warehouse["steady"]
    series = _intervals_by_hand(path, row["interval_count"])
    assert len(series) >= 5
    windows = [series[k : k + 5] for k in range(len(series) - 4)]
    # steady exactly when some 5 intervals meet both criteria (read off the dumps); a busy
    # machine can make fio's rate limiter swing more than 10 %
    assert row["is_steady_state"] is any(_steady(w) for w in windows)
    window = _window(row, series)
    if row["is_steady_state"]:
        assert row["steady_state_criterion"] == "iops_and_iops_slope"
        assert len(window) == row["steady_state_interval_count"] >= 5
        assert all(_steady(window[k : k + 5]) for k in range(len(window) - 4))
        assert row["steady_state_end_s"] == row["ci_window_end_s"]
    else:
        assert row["steady_state_criterion"] == "not_met"
        assert window == series[1:]
    _assert_batch_means(row, window)
    # fio held the rate on average: 2000 IOPS, 4 KiB each
    assert row["iops_mean"] == pytest.approx(RATE_IOPS, rel=0.15)
    assert row["throughput_mb_s_mean"] == pytest.approx(row["iops_mean"] * 4096 / 1e6, rel=1e-3)


def test_a_step_in_the_rate_starts_the_steady_window_after_the_step(steady_warehouse) -> None:
    path, row = steady_warehouse["step"]
    series = _intervals_by_hand(path, row["interval_count"])
    assert len(series) >= 8
    # 4000 IOPS while job b runs, then 1000: no 5-interval window spanning the step is
    # within 10 % of its mean, so a steady window starts at the step or after it
    step = next(k for k, i in enumerate(series) if i.iops < 2500)
    assert step >= 2
    windows = [series[k : k + 5] for k in range(len(series) - 4)]
    assert not any(_steady(w) for w in windows[max(0, step - 4) : step])
    assert row["is_steady_state"] is any(_steady(w) for w in windows)
    window = _window(row, series)
    _assert_batch_means(row, window)
    if not row["is_steady_state"]:  # a busy machine made fio's rate limiter swing
        assert window == series[1:]
        return
    step_start_s = series[step].end_s - series[step].seconds - series[0].end_s
    assert row["steady_state_start_s"] >= step_start_s - 0.002
    assert len(window) == row["steady_state_interval_count"] >= 5
    assert all(i.iops < 2500 for i in window)
    assert 850 < row["iops_mean"] < 1150
    # the time-weighted mean over the whole series (step included) is far above the CI
    whole = sum(i.seconds * i.iops for i in series) / sum(i.seconds for i in series)
    assert whole > 1.3 * row["iops_ci95_high"]
