"""Benchmark: `ingest load` of the reference dataset (many small files) into a warehouse file.

The reference dataset (`python -m ingest reference DIR`: the five source studies, about 2,090
files and 71 MB) is written once under benchmarks/out/reference (or `--reference DIR`). Each
repeat runs, in fresh `python -m ingest load --quiet` processes, one after the other:

- first load  every file into a new, empty warehouse file
- re-load     the same folder again into that warehouse: everything is already loaded

and the benchmark prints the median files/s of each (files on disk under the folder, the
count the issue measured) beside the target, the CPU seconds of the load (user + sys of the
process and of its parse workers, which it stops and waits for: what the load costs, less
sensitive to other work on the machine than wall time) and the load
average of the machine while it ran. Target (issue 32): a first load at least 300 files/s.
Usage:

    python -m benchmarks.bench_load [--repeat 3] [--reference DIR] [--parse-workers N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks import REPO
from synth.dataset import write_reference_dataset

OUT = Path(__file__).resolve().parent / "out"
TARGET_FILES_PER_S = 300.0


@dataclass(frozen=True, slots=True)
class Timed:
    """One load process: wall seconds, CPU seconds and the 1-minute load average after it."""

    wall_s: float
    cpu_s: float
    load_avg: float


def files_on_disk(folder: Path) -> int:
    return sum(1 for path in folder.rglob("*") if path.is_file())


def reference_folder(folder: Path | None) -> Path:
    """The given folder, else benchmarks/out/reference, written when it is not there yet."""
    if folder is not None:
        return folder
    folder = OUT / "reference"
    if not (folder / "run.yaml").is_file():
        write_reference_dataset(folder)
    return folder


def timed_load(folder: Path, db: Path, parse_workers: int | None = None) -> Timed:
    """`python -m ingest load FOLDER --quiet` into `db`; fails on any exit status but 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    env.update(PERF_DUCKDB_PATH=str(db), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    if parse_workers is not None:
        env["PERF_INGEST_PARSE_WORKERS"] = str(parse_workers)
    argv = [sys.executable, "-m", "ingest", "load", str(folder), "--quiet"]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"ingest load {folder} exited {proc.returncode}")
    return Timed(wall, usage.ru_utime + usage.ru_stime, os.getloadavg()[0])


def _line(name: str, files: int, runs: list[Timed]) -> str:
    wall = statistics.median(r.wall_s for r in runs)
    cpu = statistics.median(r.cpu_s for r in runs)
    rate = files / wall
    verdict = "meets" if rate >= TARGET_FILES_PER_S else "below"
    loads = ", ".join(f"{r.load_avg:.1f}" for r in runs)
    return (
        f"{name:<12} {wall:6.1f} s  {rate:6.0f} files/s  ({verdict} the target "
        f">= {TARGET_FILES_PER_S:.0f})  CPU {cpu:5.1f} s = {files / cpu:4.0f} files per CPU s  "
        f"load avg {loads}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference", type=Path, help="an existing reference dataset folder")
    parser.add_argument(
        "--parse-workers",
        type=int,
        help="PERF_INGEST_PARSE_WORKERS for the loads (default: the loader's; 0: in one process)",
    )
    args = parser.parse_args()

    folder = reference_folder(args.reference)
    files = files_on_disk(folder)
    size_mb = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6
    print(f"reference dataset: {files:,} files, {size_mb:.0f} MB; {os.cpu_count()} cores")
    first: list[Timed] = []
    again: list[Timed] = []
    for _ in range(args.repeat):  # interleaved: both see the same machine load
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "bench.duckdb"
            first.append(timed_load(folder, db, args.parse_workers))
            again.append(timed_load(folder, db, args.parse_workers))
    print(_line("first load", files, first))
    print(_line("re-load", files, again))


if __name__ == "__main__":
    main()
