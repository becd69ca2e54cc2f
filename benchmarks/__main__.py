"""All benchmarks in one command; writes benchmarks/RESULTS.md.

    python -m benchmarks            # the full sizes the issues ask for (takes a while)
    python -m benchmarks --quick    # small sizes, to check the harness works

Each benchmark generates its own scaled data (synthetic, from the real
formats) under benchmarks/out/ (git-ignored), runs each measurement several
times in fresh processes and prints medians, ratios and peak RSS; this
command runs them one after the other and records their tables with the date
and the machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

FULL = {
    # One run: its 1,000 files (4.9 GB) take minutes a pass, pandas' eight times that.
    "fio: HCIBench per-VM status-interval files": [
        "benchmarks.bench_fio",
        "--files",
        "1000",
        "--repeat",
        "1",
    ],
    "esxtop: 20,000 columns x 720 rows": [
        "benchmarks.bench_esxtop",
        "--columns",
        "20000",
        "--rows",
        "720",
        "--repeat",
        "3",
    ],
    "esxtop: 100,000 columns": [
        "benchmarks.bench_esxtop",
        "--columns",
        "100000",
        "--rows",
        "620",
        "--repeat",
        "1",
        # At 100,000 columns the target is memory (< 2 GiB RSS) beside pyarrow's read; pandas
        # and DuckDB's read_csv (weak anchors, printed at 20,000) would take most of an hour.
        "--skip-pandas",
        "--skip-duckdb",
        "--timeout",
        "1800",
    ],
    "dbt build: 1, 10, 30 million esxtop samples, 10,000 results": ["benchmarks.bench_dbt"],
    "ingest build after a small change (1 and 100 more fio files)": ["benchmarks.bench_build"],
    "dashboard: page server time at 10 million esxtop samples": ["benchmarks.bench_dashboard"],
    "SQL console: ten concurrent runaway queries": ["benchmarks.bench_sql_console"],
    "dashboard server: 1,000 idle, half-sent and unread WebSocket connections": [
        "benchmarks.bench_server_connections"
    ],
    "ingest load: the reference dataset, first load and re-load": ["benchmarks.bench_load"],
    "team mode: one and two lake loaders against the file mode, one core per loader": [
        "benchmarks.bench_lake_load",
        "--no-b1",
        "--parse-workers",
        "0",
    ],
    "team mode: the same, each loader with its parse workers": [
        "benchmarks.bench_lake_load",
        "--no-b1",
    ],
    "ingest load: peak memory over 1,000 files and a 100-member archive": [
        "benchmarks.bench_load_memory"
    ],
    "report: the Micron vSAN 6.7 RA report, HTML and PDF": ["benchmarks.bench_report"],
    "change points: 300 generated series per set": ["benchmarks.bench_change_points"],
}
QUICK = {
    "fio (quick)": ["benchmarks.bench_fio", "--files", "10", "--dumps", "120", "--repeat", "1"],
    "esxtop (quick)": [
        "benchmarks.bench_esxtop",
        "--columns",
        "2000",
        "--rows",
        "60",
        "--repeat",
        "1",
    ],
    "dbt build (quick)": ["benchmarks.bench_dbt", "--millions", "1", "--results", "100"],
    "change points (quick)": ["benchmarks.bench_change_points", "--series", "30"],
}


def _machine() -> str:
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    python = platform.python_version()
    return f"{platform.node()}: {os.cpu_count()} cores, {mem_gib:.0f} GiB, Python {python}"


def _without_machine_paths(text: str) -> str:
    """A benchmark's output with this checkout's location taken out (paths relative to the
    repository, the shared samples as `../shared`): RESULTS.md is committed and compared
    between machines."""
    shared = Path(os.environ.get("PERF_SHARED_DIR", REPO.parent / "shared")).resolve()
    for place, shown in ((shared, "../shared"), (REPO, ".")):
        text = text.replace(f"{place}/", f"{shown}/" if shown != "." else "")
        text = text.replace(str(place), shown)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    sections = []
    for title, command in plan.items():
        module = command[0]
        if not (REPO / (module.replace(".", "/") + ".py")).exists():
            sections.append(f"## {title}\n\nnot run: `{module}` is not there yet.\n")
            continue
        print(f"== {title}", flush=True)
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", *command], cwd=REPO, capture_output=True, text=True
        )
        minutes = (time.perf_counter() - start) / 60
        output = _without_machine_paths(proc.stdout.strip() or proc.stderr.strip()[-3000:])
        print(output, flush=True)
        status = "" if proc.returncode == 0 else f" (exit {proc.returncode})"
        sections.append(
            f"## {title}\n\n`python -m {' '.join(command)}`{status}, {minutes:.1f} min\n\n"
            f"```\n{output}\n```\n"
        )
    header = (
        "# Benchmark results\n\n"
        f"{dt.date.today().isoformat()}, {_machine()}. Written by `python -m benchmarks"
        f"{' --quick' if args.quick else ''}`; targets are in each section's command "
        "docstring and in the issues.\n\n"
    )
    args.output.write_text(header + "\n".join(sections))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
