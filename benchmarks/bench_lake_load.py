"""Benchmark: `ingest load` into a DuckLake (team mode) by several loaders at once.

Generates 4 x N per-VM fio status-interval files (default N = 1,000, `--dumps` 5-second dumps
each) and measures, each run a fresh warehouse and real `python -m ingest load` processes:

- file        one loader, all 4N files, into a DuckDB warehouse file (the single-file mode)
- lake x1     one loader, all 4N files, into a new lake
- lake x4     four loaders at once, N files each, into a new lake
- lake x4 b1  the same with one file per commit (PERF_INGEST_BATCH_FILES=1): what batching buys

and prints files/s, the ratios to the file mode and the snapshots each lake run created (each
run also checks that every file is stored once). PostgreSQL is a throw-away cluster
(harness/pg_cluster.py). Usage:

    python -m benchmarks.bench_lake_load [--files 1000] [--dumps 12] [--loaders 4] [--no-b1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import warehouse
from harness.pg_cluster import PgCluster, throwaway_cluster
from synth.fio_results import write_benchmark_vms
from warehouse import ducklake

OUT = Path(__file__).resolve().parent / "out"
REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Run:
    name: str
    files: int
    seconds: float
    snapshots: int | None  # lake runs: snapshots the loads created

    @property
    def files_per_s(self) -> float:
        return self.files / self.seconds


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    return {**env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **extra}


def _loaders(groups: list[list[Path]], env: dict[str, str]) -> float:
    """Start one `ingest load` per group at the same moment; seconds until the last ends."""
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "ingest", "load", "--quiet", *map(str, group)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for group in groups
    ]
    outputs = [proc.communicate()[0] for proc in procs]
    seconds = time.perf_counter() - start
    for proc, out in zip(procs, outputs, strict=True):
        if proc.returncode != 0:
            raise SystemExit(f"a loader exited {proc.returncode}:\n{out[-2000:]}")
    return seconds


def file_run(files: list[Path], work: Path) -> Run:
    db = work / "bench.duckdb"
    seconds = _loaders([files], _env(PERF_DUCKDB_PATH=str(db)))
    return Run("file (1 loader)", len(files), seconds, None)


def lake_run(
    name: str, groups: list[list[Path]], cluster: PgCluster, work: Path, **extra: str
) -> Run:
    tgt = warehouse.from_settings(
        ducklake.LAKE_PREFIX + cluster.new_database(), data_path=str(work / "lake-data")
    )
    env = _env(PERF_WAREHOUSE=tgt.uri, PERF_LAKE_DATA_PATH=tgt.data_path or "", **extra)
    seconds = _loaders(groups, env)
    con = ducklake.connect(tgt, read_only=True)
    try:
        (stored, distinct) = con.execute(
            "select count(*), count(distinct path) from raw.source_files"
        ).fetchone()
        (snapshots,) = con.execute(
            "select count(*) from lake.snapshots() where author = 'ingest load'"
        ).fetchone()
    finally:
        con.close()
    total = sum(map(len, groups))
    if stored != total or distinct != total:
        raise SystemExit(f"{name}: {stored} rows in raw.source_files for {total} files")
    return Run(name, total, seconds, snapshots)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="files per loader")
    parser.add_argument("--loaders", type=int, default=4)
    parser.add_argument("--dumps", type=int, default=12, help="status dumps per file")
    parser.add_argument("--no-b1", action="store_true", help="skip the one-file-per-commit run")
    args = parser.parse_args()

    folder = OUT / f"lake_load_{args.dumps}dumps"
    total = args.files * args.loaders
    size = write_benchmark_vms(folder, total, args.dumps)
    files = [folder / f"vdb-datastore-0-{i + 1}.json" for i in range(total)]
    groups = [files[i :: args.loaders] for i in range(args.loaders)]
    print(f"{total:,} fio files, {size / 1e6:.1f} MB, {args.loaders} loaders x {args.files:,}")

    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp, throwaway_cluster() as cluster:
        plan = [
            lambda w: file_run(files, w),
            lambda w: lake_run("lake (1 loader)", [files], cluster, w),
            lambda w: lake_run(f"lake ({args.loaders} loaders)", groups, cluster, w),
        ]
        if not args.no_b1:
            plan.append(
                lambda w: lake_run(
                    f"lake ({args.loaders} loaders, 1 file/commit)",
                    groups,
                    cluster,
                    w,
                    PERF_INGEST_BATCH_FILES="1",
                )
            )
        for i, measure in enumerate(plan):
            work = Path(tmp) / str(i)
            work.mkdir()
            runs.append(measure(work))
            shutil.rmtree(work)
            print(_line(runs[-1], runs[0]), flush=True)


def _line(run: Run, base: Run) -> str:
    snaps = "" if run.snapshots is None else f", {run.snapshots:,} snapshots"
    return (
        f"{run.name:<36} {run.seconds:8.1f} s  {run.files_per_s:8.1f} files/s  "
        f"x{run.files_per_s / base.files_per_s:.2f} of the file mode{snaps}"
    )


if __name__ == "__main__":
    main()
