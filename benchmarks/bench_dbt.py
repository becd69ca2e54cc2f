"""Benchmark: `dbt build` time as the warehouse grows.

Starts from a warehouse loaded with the real samples (so every raw table has
the loader's schema), then scales it with SQL: synthetic esxtop captures
(1, 10 and 30 million samples by default) and 10,000 fio workload results
cloned from real rows with `select * replace (...)`. For each size it times a
full `dbt build` and an incremental one (after adding one more capture and
ten results), in a subprocess, with its peak RSS.

    python -m benchmarks.bench_dbt [--millions 1 10 30] [--results 10000]

Targets (issue 11): full build on 30 million samples under 30 s, growing no
faster than linearly; no step above 4 GiB RSS.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "benchmarks" / "out" / "dbt"
SHARED = Path(os.environ.get("PERF_SHARED_DIR", REPO.parent / "shared"))
COUNTERS_PER_CAPTURE = 2000
SAMPLES_PER_CAPTURE = 500  # 42 minutes at 5 s: 1 million samples per capture


def _base(path: Path) -> None:
    """A warehouse holding the real samples (creates every raw table)."""
    if path.exists():
        return
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ingest",
            "load",
            str(SHARED / "samples"),
            "--db",
            str(path),
            "--quiet",
        ],
        cwd=REPO,
        check=False,
        capture_output=True,
    )


def _add_captures(con: duckdb.DuckDBPyConnection, captures: int) -> None:
    """`captures` esxtop captures of 2,000 counters x 500 samples each."""
    for _ in range(captures):
        (sfid,) = con.execute("select max(source_file_id) + 1 from raw.source_files").fetchone()
        con.execute(
            """
            insert into raw.source_files
            select * replace (
                ? as source_file_id, 'bench/esxtop-' || ? || '.csv' as path,
                'esxtop-' || ? || '.csv' as name, md5(? :: varchar) as sha256,
                '{"testbed": "bench-lab", "result_per": "file"}' as labels_json
            )
            from raw.source_files where format = 'esxtop' limit 1
            """,
            [sfid, sfid, sfid, sfid],
        )
        con.execute(
            """
            insert into raw.esxtop_captures
            select * replace (
                ? as sample_count, ? as column_count,
                timestamptz '2024-01-01 00:00:00+00' + to_seconds(? * 7200) as first_sampled_at,
                timestamptz '2024-01-01 02:00:00+00' + to_seconds(? * 7200) as last_sampled_at,
                5.0 as interval_s, ? as _source_file_id
            )
            from raw.esxtop_captures limit 1
            """,
            [SAMPLES_PER_CAPTURE, COUNTERS_PER_CAPTURE + 1, sfid, sfid, sfid],
        )
        con.execute(
            """
            insert into raw.esxtop_counters
            select i :: integer, (i + 1) :: integer, 'esx-bench-' || (? % 4),
                case when i = 0 then 'Physical Cpu' else 'Group Cpu' end,
                case when i = 0 then '_Total' else 'vm' || i end,
                case when i = 0 then '% Util Time' else '% Used' end,
                'header', false, ?
            from range(?) t(i)
            """,
            [sfid, sfid, COUNTERS_PER_CAPTURE],
        )
        con.execute(
            """
            insert into raw.esxtop_sample_times
            select s, timestamptz '2024-01-01 00:00:00+00' + to_seconds(? * 7200 + s * 5),
                s + 2, 'text', ?
            from range(?) t(s)
            """,
            [sfid, sfid, SAMPLES_PER_CAPTURE],
        )
        con.execute(
            """
            insert into raw.esxtop_samples
            select s :: integer, c :: integer, (hash(s, c) % 10000) / 100.0, ?
            from range(?) t(s), range(?) u(c)
            """,
            [sfid, SAMPLES_PER_CAPTURE, COUNTERS_PER_CAPTURE],
        )


def _add_results(con: duckdb.DuckDBPyConnection, results: int) -> None:
    """`results` single-file fio results cloned from a real one."""
    (template,) = con.execute(
        "select _source_file_id from raw.fio_jobs where state = 'ok' "
        "group by 1 having count(*) = 1 limit 1"
    ).fetchone()
    (start,) = con.execute("select max(source_file_id) + 1 from raw.source_files").fetchone()
    con.execute(
        """
        insert into raw.source_files
        select source_files.* replace (
            ? + i as source_file_id, 'bench/fio-' || (? + i) || '.json' as path,
            md5((? + i) :: varchar) as sha256,
            '{"testbed": "bench-lab", "nodes": 4, "result_per": "file"}' as labels_json
        )
        from raw.source_files, range(?) t(i) where source_file_id = ?
        """,
        [start, start, start, results, template],
    )
    for table in ("fio_runs", "fio_jobs", "fio_job_directions", "fio_latency_percentiles"):
        con.execute(
            f"""
            insert into raw.{table}
            select {table}.* replace (? + i as _source_file_id)
            from raw.{table}, range(?) t(i) where _source_file_id = ?
            """,
            [start, results, template],
        )


def _dbt_build(db: Path) -> tuple[float, float]:
    env = {**os.environ, "PERF_DUCKDB_PATH": str(db), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    start = time.perf_counter()
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "dbt"),
            "build",
            "--project-dir",
            "dbt_project",
            "--profiles-dir",
            "dbt_project",
            "--quiet",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-2000:])
        raise SystemExit(f"dbt build failed on {db}")
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, rss_mib


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--millions", type=float, nargs="+", default=[1, 10, 30])
    parser.add_argument("--results", type=int, default=10_000)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    base = OUT / "base.duckdb"
    _base(base)
    rows = []
    for millions in args.millions:
        db = OUT / f"wh_{millions:g}m.duckdb"
        shutil.copy(base, db)
        captures = max(1, round(millions * 1e6 / (COUNTERS_PER_CAPTURE * SAMPLES_PER_CAPTURE)))
        with duckdb.connect(str(db)) as con:
            _add_captures(con, captures)
            _add_results(con, args.results)
            (samples,) = con.execute("select count(*) from raw.esxtop_samples").fetchone()
        full_s, full_rss = _dbt_build(db)
        with duckdb.connect(str(db)) as con:
            _add_captures(con, 1)
            _add_results(con, 10)
        incr_s, incr_rss = _dbt_build(db)
        rows.append((samples, full_s, incr_s, max(full_rss, incr_rss)))
        db.unlink()
    print(f"{'esxtop samples':>15}{'full build s':>14}{'incremental s':>15}{'peak RSS MiB':>14}")
    for samples, full_s, incr_s, rss in rows:
        print(f"{samples:>15,}{full_s:>14.1f}{incr_s:>15.1f}{rss:>14.0f}")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = (last[1] / first[1]) / (last[0] / first[0])
        print(
            f"time growth / data growth, smallest to largest: {growth:.2f} (<= 1: linear or better)"
        )


if __name__ == "__main__":
    main()
