"""Benchmark: loading HCIBench-style per-VM fio status-interval files.

Generates N per-VM files (default 100; the issue's full size is 1,000) of one
hour of 5-second cumulative JSON dumps each, in one HCIBench test-case folder,
then measures, each in a fresh process and `--repeat` times:

- json      the anchor: Python's `json.loads` of every document of every file, each found
            by plain string search (fio starts a document with `{` and ends it with `}`
            in column 0), nothing else
- orjson    the same pass with `orjson.loads`: what the fastest decoder alone costs
- product   `python -m ingest load` into a new warehouse (parse, intervals, insert)
- pandas    json + `pandas.json_normalize` of every dump, concatenated

and prints medians of wall and CPU seconds, the product/json ratio against issue 32's target
(at most 1.0x: met or missed), the orjson/json and pandas/product ratios, peak RSS and the
load average. The product parses in worker processes (`PERF_INGEST_PARSE_WORKERS`): its CPU
seconds are all of its processes' (every thread, the workers, imports included), so the CPU
ratio says what the load costs, the wall ratio how long it takes. (Until 2026-11-27 the
anchor found each document start with a regex, which took 2.3 of its 7.1 s: a weak anchor.)
Usage:

    python -m benchmarks.bench_fio [--files 1000] [--dumps 720] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from synth.fio_results import write_benchmark_vms

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "out"
TARGET = 1.0  # issue 32: the product's load at most 1.0x the plain json pass
CASE = "fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1700000000"


def _documents(text: str) -> Iterator[str]:
    """The text of each JSON document of a status-interval file: from a `{` in column 0 to
    the next `}` in column 0 (fio pretty-prints every dump so)."""
    start = 0 if text.startswith("{") else _line_brace(text, 0)
    while start != -1:
        end = text.find("\n}", start) + 2
        yield text[start:end]
        start = _line_brace(text, end)


def _line_brace(text: str, pos: int) -> int:
    found = text.find("\n{", pos)
    return found + 1 if found != -1 else -1


def _split(text: str, loads: Callable[[str], dict] = json.loads) -> list[dict]:
    return [loads(document) for document in _documents(text)]


def _cpu_seconds() -> float:
    """CPU seconds of this process (all threads) and of its ended children (the load's parse
    workers and their fork server, which the load stops and waits for)."""
    own, children = (
        resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def worker(mode: str, folder: Path) -> dict:
    files = sorted(folder.glob("*.json"))
    start, cpu_start = time.perf_counter(), _cpu_seconds()
    if mode == "json":
        count = sum(len(_split(f.read_text())) for f in files)
    elif mode == "orjson":
        import orjson

        count = sum(len(_split(f.read_text(), orjson.loads)) for f in files)
    elif mode == "pandas":
        import pandas as pd

        frames = [pd.json_normalize(_split(f.read_text()), record_path="jobs") for f in files]
        count = len(pd.concat(frames, ignore_index=True))
    else:
        from ingest.__main__ import main

        with tempfile.TemporaryDirectory() as tmp:
            main(["load", str(folder), "--db", f"{tmp}/bench.duckdb", "--quiet"])
        count = len(files)
    seconds, cpu_seconds = time.perf_counter() - start, _cpu_seconds() - cpu_start
    return {
        "mode": mode,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "child_rss_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "count": count,
        "load_avg": os.getloadavg()[0],
    }


def run(mode: str, folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_fio", "--worker", mode, str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--dumps", type=int, default=720)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--worker", nargs=2, metavar=("MODE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], Path(args.worker[1]))))
        return
    folder = OUT / f"fio_{args.files}x{args.dumps}" / CASE
    size = write_benchmark_vms(folder, args.files, args.dumps)
    shown = folder.relative_to(REPO)
    print(f"{args.files} files x {args.dumps} dumps, {size / 1e6:,.0f} MB in {shown}")
    results: dict[str, list[dict]] = {}
    for _ in range(args.repeat):
        for mode in ("json", "orjson", "product", "pandas"):
            results.setdefault(mode, []).append(run(mode, folder))
    wall = {m: statistics.median(r["seconds"] for r in rs) for m, rs in results.items()}
    cpu = {m: statistics.median(r["cpu_seconds"] for r in rs) for m, rs in results.items()}
    print(
        f"{'step':<10}{'median s':>10}{'CPU s':>8}{'MB/s':>8}{'peak RSS MiB':>14}"
        f"{'worker RSS':>12}  load avg"
    )
    for mode, rs in results.items():
        peak = max(r["rss_mib"] for r in rs)
        child = max(r["child_rss_mib"] for r in rs)
        rate = size / 1e6 / wall[mode]
        loads = ", ".join(f"{r['load_avg']:.1f}" for r in rs)
        print(
            f"{mode:<10}{wall[mode]:>10.2f}{cpu[mode]:>8.2f}{rate:>8.1f}{peak:>14.0f}"
            f"{child:>12.0f}  {loads}"
        )
    ratio = wall["product"] / wall["json"]
    verdict = "met" if ratio <= TARGET else "missed"
    print(
        f"product / plain json pass: {ratio:.2f}x (target <= {TARGET:.1f}x: {verdict}); "
        f"CPU {cpu['product'] / cpu['json']:.2f}x"
    )
    print(f"orjson / plain json pass: {wall['orjson'] / wall['json']:.2f}x")
    print(f"pandas / product: {wall['pandas'] / wall['product']:.2f}x")


if __name__ == "__main__":
    main()
