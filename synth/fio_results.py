"""Split one published result (cluster IOPS or MB/s, mean latency) into per-VM fio JSON files.

A study prints one number per test; the raw data a tool would have left is one fio output per
VM (or per load-generating host). This module chooses the per-VM shares with a seeded jitter
and writes them with `synth.fio_json.status_interval_output`, so that what the
warehouse computes from the files is the published result:

- IOPS: each direction's fio `iops` is `total_ios * 1000 / runtime_ms`; the per-VM `total_ios`
  are a largest-remainder split of `round(iops * runtime_s)`, so their `iops` add up to the
  cluster IOPS (to fio's 6 printed decimals per VM).
- Mean latency: fio's `lat_ns.mean` per VM and direction is jittered, then scaled by one factor
  so the I/O-weighted mean over every VM and direction (how `int_fio_results_aggregated`
  computes `avg_latency_ms`) is the published latency.
- Throughput: a result published as MB/s (10^6 B) is turned into a total I/O count of
  `MB/s * 10^6 * runtime_s / block size`.

Format source: fio 3.x `--output-format=json --status-interval` (FORMATS.md 2.2), written by
`fio_json.py`; the files are read back by `ingest/parsers/fio.py`.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path

from synth.fio_json import (
    DirectionTarget,
    JobSpec,
    dump_times_ms,
    rate_profile,
    status_interval_output,
)

_READ_ONLY = frozenset({"read", "randread"})
_WRITE_ONLY = frozenset({"write", "randwrite"})


@dataclass(frozen=True, slots=True)
class ResultTarget:
    """One published test result and the fio job that would have produced it."""

    rw: str  # fio rw= (randread, randwrite, rw, randrw, read, write)
    block_size_bytes: int
    iodepth: int  # per job
    numjobs: int
    vm_count: int  # one fio JSON file per VM (or per load-generator host)
    total_iops: float  # cluster IOPS, all directions
    latency_ms: float  # I/O-weighted mean latency over all I/O
    rwmixread: int | None = None
    # Writes are slower than reads in a mixed run; the ratio is a generator choice.
    write_to_read_latency: float = 1.6
    runtime_s: int = 60
    # fio --status-interval, as HCIBench runs it: 5 s, 12 intervals in a 60 s run (enough
    # for a steady-state window and a batch-means CI, fct_result_steady_state)
    status_interval_s: int = 5
    ended_at_epoch_s: int = 0
    seed: int = 0


def ios_for_throughput(mb_per_s: float, block_size_bytes: int, runtime_s: int) -> int:
    """Total I/O count giving `mb_per_s` (MB = 10^6 bytes) over the run."""
    return round(mb_per_s * 1_000_000 * runtime_s / block_size_bytes)


def split_evenly(total: int, weights: list[float]) -> list[int]:
    """Largest-remainder split of `total` in proportion to `weights` (sums exactly)."""
    scale = total / sum(weights)
    raw = [w * scale for w in weights]
    parts = [int(r) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: (parts[i] - raw[i], i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def vm_jobs(target: ResultTarget) -> list[JobSpec]:
    """One group-reported fio job per VM whose totals give the target."""
    rng = random.Random(target.seed)
    runtime_ms = target.runtime_s * 1000
    total_ios = round(target.total_iops * target.runtime_s)
    if target.rw in _READ_ONLY:
        read_total, write_total = total_ios, 0
    elif target.rw in _WRITE_ONLY:
        read_total, write_total = 0, total_ios
    else:
        read_total = round(total_ios * (target.rwmixread or 50) / 100)
        write_total = total_ios - read_total
    shares = [1 + rng.uniform(-0.03, 0.03) for _ in range(target.vm_count)]
    reads = split_evenly(read_total, shares) if read_total else [0] * target.vm_count
    writes = split_evenly(write_total, shares) if write_total else [0] * target.vm_count
    # Relative latencies per VM, then one scale factor makes the weighted mean exact.
    rel = [1 + rng.uniform(-0.05, 0.05) for _ in range(target.vm_count)]
    weighted = sum(
        r * x + r * target.write_to_read_latency * w
        for r, x, w in zip(rel, reads, writes, strict=True)
    )
    scale = target.latency_ms * 1_000_000 * total_ios / weighted
    jobs = []
    for i in range(target.vm_count):
        read_lat = rel[i] * scale
        jobs.append(
            JobSpec(
                jobname=f"job{i}",
                rw=target.rw,
                rwmixread=target.rwmixread,
                block_size_bytes=target.block_size_bytes,
                iodepth=target.iodepth,
                read=DirectionTarget(reads[i], read_lat),
                write=DirectionTarget(writes[i], read_lat * target.write_to_read_latency),
                runtime_ms=runtime_ms,
            )
        )
    return jobs


def write_result(folder: Path, target: ResultTarget, vm_names: list[str]) -> list[Path]:
    """Write `<vm>.json` per VM into `folder`; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    # The cluster's rate moves as one (shared back end): one profile per test, each VM adds
    # a little noise of its own in status_interval_output.
    rng = random.Random(f"rates-{target.seed}")
    ends = dump_times_ms(target.runtime_s * 1000, target.status_interval_s, rng)
    shared = rate_profile(ends, rng)
    for index, (name, job) in enumerate(zip(vm_names, vm_jobs(target), strict=True)):
        text = status_interval_output(
            [job],
            ended_at_epoch_s=target.ended_at_epoch_s,
            interval_s=target.status_interval_s,
            global_options={"numjobs": str(target.numjobs), "group_reporting": "1"},
            seed=target.seed * 1000 + index,
            shared_rates=shared,
        )
        path = folder / f"{name}.json"
        path.write_text(text)
        written.append(path)
    return written


class RunSchedule:
    """Hands out one (end epoch, seed) per test in writing order: each test gets its own
    `slot_s` window after `start`, so host samples of one run never fall in another's window."""

    def __init__(self, start: dt.datetime, slot_s: int, first_seed: int) -> None:
        self._start = int(start.timestamp())
        self._slot_s = slot_s
        self._runs = 0
        self._first_seed = first_seed

    def next(self) -> tuple[int, int]:
        self._runs += 1
        return self._start + self._runs * self._slot_s, self._first_seed + self._runs


def labels_yaml(labels: dict) -> str:
    """`run.yaml` text of flat labels, one nested mapping level and flow lists (the only shapes
    the studies use; written by hand so the bytes do not depend on a YAML emitter)."""
    lines = []
    for key, value in labels.items():
        if isinstance(value, dict):
            lines.append(f"{key}:")
            lines += [f"  {k}: {v}" for k, v in value.items()]
        elif isinstance(value, list):
            lines.append(f"{key}: [{', '.join(value)}]")
        else:
            lines.append(f"{key}: {value}")
    return "\n".join(lines) + "\n"


def write_test(folder: Path, labels: dict, target: ResultTarget, vm_names: list[str]) -> list[Path]:
    """One test folder: its `run.yaml` labels and one fio JSON per VM."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.yaml").write_text(labels_yaml(labels))
    return [folder / "run.yaml", *write_result(folder, target, vm_names)]


def write_benchmark_vms(folder: Path, files: int, dumps: int, interval_s: int = 5) -> int:
    """`files` per-VM outputs of `dumps` cumulative status dumps each (HCIBench's 5 s interval:
    720 dumps = one hour) in one test-case folder, for the loader benchmark; a file already
    there is kept. Returns the folder's total size in bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    total = 0
    runtime_ms = dumps * interval_s * 1000
    for i in range(files):
        path = folder / f"vdb-datastore-0-{i + 1}.json"
        if not path.exists():
            spec = JobSpec(
                jobname="job0",
                rw="randrw",
                rwmixread=70,
                block_size_bytes=4096,
                iodepth=4,
                read=DirectionTarget(7000 * runtime_ms // 1000 + i, 800_000.0 + i),
                write=DirectionTarget(3000 * runtime_ms // 1000 + i, 1_900_000.0 + i),
                runtime_ms=runtime_ms,
            )
            text = status_interval_output(
                [spec], ended_at_epoch_s=1_700_003_600, interval_s=interval_s, seed=i
            )
            path.write_text(text)
        total += path.stat().st_size
    return total
