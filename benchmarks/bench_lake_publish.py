"""Benchmark: the cost of `ingest publish` in both modes as esxtop samples grow.

File mode publishes by validating the main file and copying it whole onto the serving
snapshot; team mode validates one lake snapshot and records a publication row. For each size
the same warehouse is built both ways (the samples plus synthetic esxtop captures from
`benchmarks.bench_dbt`, then the dbt models) and the two steps of each publish are timed
in-process (great-expectations imported and its context built beforehand, once):

    python -m benchmarks.bench_lake_publish [--millions 1 10]

Prints seconds for validation and for copy / record, and the bytes the publish copied (team
mode: none; its size on disk is the lake's data folder, which a publish does not touch).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
from rich.console import Console

import warehouse
from benchmarks.bench_dbt import COUNTERS_PER_CAPTURE, SAMPLES_PER_CAPTURE, _add_captures, _base
from harness.pg_cluster import throwaway_cluster
from warehouse import LakeWarehouse, Warehouse, ducklake

if TYPE_CHECKING:
    from expectations.cli import Validation

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "out" / "lake_publish"
MODELS_ONLY = ("--exclude", "resource_type:test", "resource_type:unit_test")


@dataclass(frozen=True)
class Publish:
    mode: str
    samples: int
    validate_s: float
    publish_s: float  # file: checkpoint + copy + rename; lake: the publication commit
    bytes_copied: int
    constraint_failures: int
    checks: int  # outcomes validated (suites on missing tables count as skipped)
    skipped: int


def _ingest(env: dict[str, str], *args: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ingest", *args], cwd=REPO, env=env, capture_output=True, text=True
    )
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-2000:])
        raise SystemExit(f"ingest {args[0]} failed")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    work = OUT / "dbt"
    env.update(DBT_TARGET_PATH=str(work / "target"), DBT_LOG_PATH=str(work / "logs"))
    return {**env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **extra}


def _file_warehouse(millions: float) -> tuple[Path, int]:
    """The samples plus `millions` million esxtop samples, built: (path, samples)."""
    base = OUT / "base.duckdb"
    _base(base)
    db = OUT / f"wh_{millions:g}m.duckdb"
    shutil.copy(base, db)
    captures = max(1, round(millions * 1e6 / (COUNTERS_PER_CAPTURE * SAMPLES_PER_CAPTURE)))
    with duckdb.connect(str(db)) as con:
        _add_captures(con, captures)
        (samples,) = con.execute("select count(*) from raw.esxtop_samples").fetchone()
    _ingest(_env(PERF_DUCKDB_PATH=str(db)), "build", *MODELS_ONLY)
    return db, samples


def _copy_raw_into(tgt: LakeWarehouse, db: Path) -> None:
    """The file's raw tables into the lake (what `ingest migrate` does; timed apart)."""
    con = ducklake.connect(tgt)
    try:
        con.execute(f"attach '{db}' as single (read_only)")
        con.execute("create schema if not exists lake.raw")
        tables = con.execute(
            "select table_name from duckdb_tables() "
            "where database_name = 'single' and schema_name = 'raw'"
        ).fetchall()
        for (table,) in tables:
            con.execute(f"create table lake.raw.{table} as select * from single.raw.{table}")
    finally:
        con.close()


def _counts(run: Validation) -> tuple[int, int, int]:
    skipped = sum(o.success is None for o in run.outcomes)
    return run.failed_constraints, len(run.outcomes), skipped


def _publish(mode: str, wh: Warehouse, samples: int, console: Console) -> Publish:
    """What the gate does, timed in two parts: validate and record, then publish (a file:
    checkpoint + copy + rename, whose bytes are counted; a lake: the publication commit)."""
    from expectations.cli import validate_and_record

    start = time.perf_counter()
    run = validate_and_record(wh, console, failures_only=True)
    validated = time.perf_counter()
    wh.publish(run.validated_snapshot, run.results_snapshot)
    done = time.perf_counter()
    # A file's serving snapshot is a copy (its bytes count, and it goes again); a lake's is
    # a name of a snapshot ("snapshot N"), nothing copied.
    snapshot = Path(wh.served() or "")
    copied = snapshot.stat().st_size if snapshot.is_file() else 0
    if copied:
        snapshot.unlink()
    return Publish(mode, samples, validated - start, done - validated, copied, *_counts(run))


def _folder_bytes(folder: str | None) -> int:
    return sum(p.stat().st_size for p in Path(folder or ".").rglob("*") if p.is_file())


def measure(millions: float, cluster_conninfo: str, console: Console) -> list[Publish]:
    db, samples = _file_warehouse(millions)
    file_run = _publish("file", warehouse.FileWarehouse(db), samples, console)
    tgt = warehouse.from_settings(
        ducklake.LAKE_PREFIX + cluster_conninfo, data_path=str(OUT / f"lake_{millions:g}m")
    )
    _copy_raw_into(tgt, db)
    env = _env(PERF_WAREHOUSE=tgt.uri, PERF_LAKE_DATA_PATH=tgt.data_path or "")
    _ingest(env, "build", *MODELS_ONLY)
    lake_run = _publish("lake", tgt, samples, console)
    print(
        f"{millions:g} M: file {db.stat().st_size:,} bytes; lake data folder "
        f"{_folder_bytes(tgt.data_path):,} bytes"
    )
    db.unlink()
    shutil.rmtree(tgt.data_path or "", ignore_errors=True)
    return [file_run, lake_run]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--millions", type=float, nargs="+", default=[1, 10])
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    from expectations.context import context

    context()  # GX's import and context: seconds, paid once by every process, not timed
    console = Console(quiet=True)
    rows: list[Publish] = []
    with throwaway_cluster() as cluster:
        for millions in args.millions:
            rows += measure(millions, cluster.new_database(), console)
    head = f"{'mode':>5}{'esxtop samples':>16}{'validate s':>12}{'copy/record s':>15}"
    print(f"{head}{'total s':>9}{'bytes copied':>15}{'failures':>10}{'checks':>8}{'skipped':>9}")
    for r in rows:
        total = r.validate_s + r.publish_s
        print(
            f"{r.mode:>5}{r.samples:>16,}{r.validate_s:>12.2f}{r.publish_s:>15.2f}"
            f"{total:>9.2f}{r.bytes_copied:>15,}{r.constraint_failures:>10}{r.checks:>8}"
            f"{r.skipped:>9}"
        )


if __name__ == "__main__":
    main()
