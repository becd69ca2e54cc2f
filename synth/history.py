"""Write a run history in a real format: one real fio JSON output (or one HCIBench fio test
case), re-dated over weeks.

A cluster is re-validated over time: the same configuration run again and again, and after an
"upgrade" its results move. This writes such a history from one real fio 3.x JSON report (a
`--output-format=json` file, e.g. ../shared/samples/fio/generated-locally/...json), copied
once per run with:

- its `timestamp`, `timestamp_ms` and `time` re-dated: two runs a day (09:00 and 15:00 UTC:
  repeats on one day are points of their own), every `days_apart` days;
- its IOPS and bandwidth (`iops*`, `bw*`, `io_bytes`, `io_kbytes`, `total_ios` of every job
  and direction) scaled by the run's factor: seeded noise (1 + noise_cv x N(0, 1)), times
  `step_factor` from run `change_at` on (the upgrade), times `outlier_factor` for the one
  `outlier_at` run; latencies are left as they are;
- its folder: runs before the change in `before-upgrade/`, the rest in `after-upgrade/`, each
  with a run.yaml of the same `labels` (one configuration, one series) plus the upgrade label
  (`vsan_version`: 8.0u2 before, 8.0u3 after) and, after, the bookkeeping label `note`
  naming the upgrade. `vsan_version` is an event label of the history (dbt var
  history_event_labels): the upgrade is an event on the one series, and the change point
  right after it says so.

An HCIBench history (`write_hcibench_history`) copies one HCIBench 2.5 fio test case, its
`<paramfile>-<epoch>/` folder and its `-res.txt` beside it (e.g.
tests/fixtures/hcibench/results/hcib25-fio/), once per run in the same way: the epoch in the
case's name is the run's start (HCIBench's test start, which the loader reads); every status
dump of every worker VM's `.json` is shifted by one offset so that the earliest starts then,
and scaled by the run's factor like a fio report; the `-res.txt` job blocks are computed again
from the scaled dumps as HCIBench does (synth.hcibench_case.fio_summary_blocks), its datastore
line and resource usage kept as they were.

Every copy differs in its bytes (its date and numbers), so the loader keeps each. The runs,
with their dates and factors, come back as `HistoryRun` records: what a test asserts against.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from synth.fio_json import documents
from synth.hcibench_case import SUMMARY_RULE, fio_summary_blocks

# Per direction: the fields that grow with the I/O done (fio 3.x JSON, stat.c).
_SCALED_FIELDS = (
    "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "total_ios", "short_ios",
    "bw_min", "bw_max", "bw_mean", "iops_min", "iops_max", "iops_mean",
)  # fmt: skip
_INTEGER_FIELDS = {"io_bytes", "io_kbytes", "bw_bytes", "bw", "total_ios", "short_ios"}
_DIRECTIONS = ("read", "write", "trim")
_RUN_HOURS = (9, 15)


@dataclass(frozen=True, slots=True)
class HistorySpec:
    """The history to write: `change_at` is the index of the first run after the upgrade."""

    runs: int = 24
    change_at: int = 14
    step_factor: float = 0.92
    noise_cv: float = 0.03
    outlier_at: int | None = 6
    outlier_factor: float = 0.7
    first_day: dt.date = dt.date(2026, 9, 1)
    days_apart: int = 3
    seed: int = 31
    labels: dict = field(default_factory=lambda: {"testbed": "history-lab", "nodes": 4})
    # the label the upgrade changes, its value before and after
    upgrade_label: str = "vsan_version"
    upgrade_from: str = "8.0u2"
    upgrade_to: str = "8.0u3"
    upgrade_note: str = "after the vSAN 8.0 U3 upgrade"

    def run_labels(self, after: bool) -> dict:
        """The labels of a run before or after the upgrade (its folder's run.yaml)."""
        upgrade = {self.upgrade_label: self.upgrade_to if after else self.upgrade_from}
        return {**self.labels, **upgrade, **({"note": self.upgrade_note} if after else {})}


@dataclass(frozen=True, slots=True)
class HistoryRun:
    index: int
    path: Path
    ended_at: dt.datetime
    factor: float
    is_after_change: bool
    is_outlier: bool


def run_end_times(spec: HistorySpec) -> list[dt.datetime]:
    """Two runs a day, every `days_apart` days, from `first_day`."""
    times = []
    for index in range(spec.runs):
        day = spec.first_day + dt.timedelta(days=spec.days_apart * (index // len(_RUN_HOURS)))
        hour = _RUN_HOURS[index % len(_RUN_HOURS)]
        times.append(dt.datetime(day.year, day.month, day.day, hour, tzinfo=dt.UTC))
    return times


def run_factors(spec: HistorySpec) -> list[float]:
    noise = 1.0 + spec.noise_cv * np.random.default_rng(spec.seed).standard_normal(spec.runs)
    return [
        float(noise[i])
        * (spec.step_factor if i >= spec.change_at else 1.0)
        * (spec.outlier_factor if i == spec.outlier_at else 1.0)
        for i in range(spec.runs)
    ]


def redated_report(report: dict, ended_at: dt.datetime, factor: float) -> dict:
    """A copy of a fio JSON report ending at `ended_at`, its I/O counts times `factor`."""
    copy = json.loads(json.dumps(report))
    seconds = int(ended_at.timestamp())
    copy["timestamp"] = seconds
    copy["timestamp_ms"] = seconds * 1000
    # fio writes ctime() of its local time; the history's clock is UTC
    copy["time"] = ended_at.strftime("%a %b %d %H:%M:%S %Y")
    for job in copy.get("jobs", []):
        for direction in _DIRECTIONS:
            stats = job.get(direction)
            if not isinstance(stats, dict):
                continue
            for name in _SCALED_FIELDS:
                if isinstance(stats.get(name), int | float):
                    scaled = stats[name] * factor
                    stats[name] = round(scaled) if name in _INTEGER_FIELDS else scaled
    return copy


def _upgrade_folders(out_dir: Path, spec: HistorySpec) -> dict[bool, Path]:
    """`before-upgrade/` and `after-upgrade/` under `out_dir`, each with its run.yaml."""
    folders = {False: out_dir / "before-upgrade", True: out_dir / "after-upgrade"}
    for after, folder in folders.items():
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "run.yaml").write_text(yaml.safe_dump(spec.run_labels(after)), encoding="utf-8")
    return folders


def _runs(spec: HistorySpec) -> list[tuple[int, dt.datetime, float, bool]]:
    """Per run: its index, time, factor and whether it is after the upgrade."""
    return [
        (index, at, factor, index >= spec.change_at)
        for index, (at, factor) in enumerate(
            zip(run_end_times(spec), run_factors(spec), strict=True)
        )
    ]


def write_fio_history(template: Path, out_dir: Path, spec: HistorySpec) -> list[HistoryRun]:
    """Write `spec.runs` re-dated copies of the fio JSON `template` under `out_dir`."""
    report = json.loads(template.read_text(encoding="utf-8"))
    folders = _upgrade_folders(out_dir, spec)
    runs = []
    for index, ended_at, factor, after in _runs(spec):
        path = folders[after] / f"run{index:03d}-{ended_at:%Y%m%dT%H%M}.json"
        path.write_text(json.dumps(redated_report(report, ended_at, factor), indent=2) + "\n")
        runs.append(HistoryRun(index, path, ended_at, factor, after, index == spec.outlier_at))
    return runs


def redated_status_dumps(text: str, offset_s: int, factor: float) -> str:
    """A worker VM's concatenated fio status dumps, each `offset_s` seconds later and its I/O
    counts times `factor` (fio's own layout: two-space indent, `key : value`)."""
    dumps = []
    for _, dump in documents(text):
        at = dt.datetime.fromtimestamp(dump["timestamp"] + offset_s, dt.UTC)
        dumps.append(
            json.dumps(redated_report(dump, at, factor), indent=2, separators=(",", " : "))
        )
    return "\n".join(dumps) + "\n"


def _earliest_dump(texts: list[str]) -> int:
    return min(dump["timestamp"] for text in texts for _, dump in documents(text))


def write_hcibench_history(summary: Path, out_dir: Path, spec: HistorySpec) -> list[HistoryRun]:
    """Write `spec.runs` re-dated copies of the HCIBench fio test case whose `-res.txt` is
    `summary` (its case folder beside it) under `out_dir`; each run's `path` is its
    `-res.txt`. The run's time is the case's start (the epoch in its name)."""
    case = summary.name.removesuffix("-res.txt")
    stem = case.rsplit("-", 1)[0]  # the parameter file's name, without the epoch
    folder = summary.with_name(case)
    outputs = {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.json"))}
    others = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name not in outputs}
    head, resource = summary.read_text(encoding="utf-8").split("Resource Usage:\n", 1)
    datastore = head.split(SUMMARY_RULE, 1)[0]
    earliest = _earliest_dump(list(outputs.values()))
    folders = _upgrade_folders(out_dir, spec)
    runs = []
    for index, started_at, factor, after in _runs(spec):
        name = f"{stem}-{int(started_at.timestamp())}"
        (folders[after] / name).mkdir()
        offset = int(started_at.timestamp()) - earliest
        scaled = {n: redated_status_dumps(t, offset, factor) for n, t in outputs.items()}
        for file_name, text in scaled.items():
            (folders[after] / name / file_name).write_text(text, encoding="utf-8")
        for file_name, data in others.items():
            (folders[after] / name / file_name).write_bytes(data)
        path = folders[after] / f"{name}-res.txt"
        path.write_text(
            f"{datastore}{SUMMARY_RULE}\n"
            + fio_summary_blocks(scaled)
            + "Resource Usage:\n"
            + resource,
            encoding="utf-8",
        )
        runs.append(HistoryRun(index, path, started_at, factor, after, index == spec.outlier_at))
    return runs
