"""Benchmark: loading a wide esxtop capture, against pyarrow's and DuckDB's CSV readers.

Not a test: it prints figures. Each measurement runs in its own Python process, which reports
its wall time, its CPU time (all threads; steadier than wall time on a shared machine) and its
peak RSS (`resource.getrusage(RUSAGE_SELF).ru_maxrss`), so one step's memory never hides
another's. The steps run interleaved (`--repeat` rounds of every step in turn), so the machine's
load falls on all of them alike; the figures are medians over the rounds, printed with the
machine's 1-minute load average at the start and after each round.

- pyarrow, pyarrow-1t: `pyarrow.csv.read_csv` of the file into a table of one column per
  counter, on its thread pool and on one thread (the strongest honest anchor: a native reader
  of the same bytes; at 20,000 columns its per-block work makes one thread the faster on a
  busy 2-core machine, so both run and the product is held to the faster). The block size
  must hold the header line (1.6 MB at 20,000 counters, 8 MB at 100,000); 64 MiB was the
  fastest of 16, 32 and 64 MiB.
- duckdb:   DuckDB `read_csv` + `count(*)` of the file, delimiter, quote and header given
  (slow on tens of thousands of columns: a weak anchor, printed for comparison)
- parse:    `esxtop.parse` of the file's bytes (read included), pandas refused as in a load
- product:  the real loader (`ingest.triage` + `ingest.writer`, as `python -m ingest load PATH
  --db FILE` runs it) into a fresh DuckDB file: detect, hash, parse, then
  `insert into raw.esxtop_samples by name select * from _batch`, pandas refused (as the
  command does: `ingest.without_pandas`)
- pandas:   `pandas.read_csv` + `melt` to long form

    python -m benchmarks.bench_esxtop                      # 20,000 columns x 720 rows
    python -m benchmarks.bench_esxtop --columns 100000 --rows 620 --timeout 1800   # ~400 MB

Targets (2-core machine, issue 32): product at most 1.0x pyarrow's read (within 1.5x DuckDB's),
at least 5x faster than pandas, peak memory under 2 GiB for a 400 MB capture, stored size
under 0.35x the CSV.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import textwrap
from pathlib import Path

from benchmarks import REPO, run_python

OUT = REPO / "benchmarks" / "out"

# Imports are done before the clock starts in every step, as a loader that runs for many files
# pays them once. pyarrow imports pandas the first time it builds an array: done here too.
_PRELUDE = """
import json, resource, sys, time
import pyarrow
pyarrow.array([0])
def report(**figures):
    usage = resource.getrusage(resource.RUSAGE_SELF)
    figures["cpu_seconds"] = usage.ru_utime + usage.ru_stime  # all threads, imports included
    figures["peak_rss_mb"] = usage.ru_maxrss / 1024
    print(json.dumps(figures))
"""

PYARROW = """
import pyarrow.csv as pacsv
path, block_mib, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "threads"
options = pacsv.ReadOptions(block_size=block_mib << 20, use_threads=threads)
started = time.perf_counter()
table = pacsv.read_csv(path, read_options=options)
report(seconds=time.perf_counter() - started, rows=table.num_rows, columns=table.num_columns)
"""

DUCKDB = """
import duckdb
path = sys.argv[1]
started = time.perf_counter()
con = duckdb.connect()
(rows,) = con.execute(
    "select count(*) from read_csv(?, delim = ',', quote = '\\"', header = true, "
    "max_line_size = 100000000)",
    [path],
).fetchone()
report(seconds=time.perf_counter() - started, rows=rows)
"""

PARSE = """
from pathlib import Path
from ingest.parsers import esxtop
from ingest.sources import source_for
from ingest.without_pandas import pandas_refused

path = sys.argv[1]
started = time.perf_counter()
with pandas_refused():
    data = Path(path).read_bytes()
    parsed = esxtop.parse(data, source_for(path, data))
capture = parsed.tables["esxtop_captures"][0]
report(seconds=time.perf_counter() - started, cells=capture.cell_count)
"""

# The real loader, as `python -m ingest load PATH --db FILE` runs it: detect, hash, parse, and
# `insert into raw.esxtop_samples by name select * from _batch`, with pandas refused.
PRODUCT = """
import os
from pathlib import Path
from ingest.label_resolver import LabelResolver
from ingest.triage import collect, load_member
from ingest.without_pandas import pandas_refused
from ingest.writer import RawWriter
from warehouse import FileWarehouse

path, db = Path(sys.argv[1]), Path(sys.argv[2])
for leftover in (db, Path(str(db) + ".wal")):
    leftover.unlink(missing_ok=True)
started = time.perf_counter()
with pandas_refused():
    writer = RawWriter(FileWarehouse(db))
    (member,) = collect([path])
    outcome = load_member(writer, member, LabelResolver({}), {member.path})
    writer.close()
seconds = time.perf_counter() - started
(cells,) = __import__("duckdb").connect(str(db)).execute(
    "select count(*) from raw.esxtop_samples"
).fetchone()
report(seconds=seconds, status=outcome.status, cells=cells, stored_bytes=os.path.getsize(db))
"""

PANDAS = """
import pandas as pd
path = sys.argv[1]
started = time.perf_counter()
frame = pd.read_csv(path)
long = frame.melt(id_vars=frame.columns[0], var_name="header", value_name="value")
report(seconds=time.perf_counter() - started, cells=len(long))
"""


def summary(runs: list[dict]) -> dict:
    """Median time and CPU time over the rounds, the largest peak RSS; or why a run failed."""
    failed = [run for run in runs if "error" in run]
    if failed:
        return failed[0]
    middle = {
        key: statistics.median(run[key] for run in runs) for key in ("seconds", "cpu_seconds")
    }
    peak = max(run["peak_rss_mb"] for run in runs)
    return runs[0] | middle | {"peak_rss_mb": peak, "runs": len(runs)}


def _measure_once(script: str, args: list[str], timeout_s: float) -> dict:
    """Run one step in a fresh interpreter; its figures, or why it gave none."""
    code = textwrap.dedent(_PRELUDE) + textwrap.dedent(script)
    try:
        done = run_python(code, args, timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout_s:.0f} s"}
    if done.returncode != 0:
        return {"error": done.stderr.strip()[-600:] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def capture_file(columns: int, rows: int, hosts: int, out: Path) -> Path:
    path = out / f"esxtop_{columns}c_{rows}r_{hosts}h.csv"
    if not path.exists():
        from synth.esxtop_wide import generate

        made = generate(path, columns=columns, rows=rows, hosts=hosts)
        print(f"generated {path.name}: {made.size_bytes / 1e6:.0f} MB")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="esxtop load benchmark (prints figures)")
    parser.add_argument("--columns", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=720)
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per step")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every step, interleaved")
    parser.add_argument(
        "--block-mib", type=int, default=64, help="pyarrow's block size (must hold the header)"
    )
    parser.add_argument("--skip-pandas", action="store_true")
    parser.add_argument("--skip-duckdb", action="store_true", help="leave out the weak anchor")
    parser.add_argument("--out", type=Path, default=OUT, help="where captures are generated")
    args = parser.parse_args(argv)

    path = capture_file(args.columns, args.rows, args.hosts, args.out)
    csv_bytes = path.stat().st_size
    db = str(args.out / (path.stem + ".duckdb"))
    print(f"capture: {path.name}, {csv_bytes / 1e6:.1f} MB")
    block = str(args.block_mib)
    steps = {
        "pyarrow": (PYARROW, [str(path), block, "threads"]),
        "pyarrow-1t": (PYARROW, [str(path), block, "one"]),
    }
    if not args.skip_duckdb:
        steps["duckdb"] = (DUCKDB, [str(path)])
    steps["parse"] = (PARSE, [str(path)])
    steps["product"] = (PRODUCT, [str(path), db])
    if not args.skip_pandas:
        steps["pandas"] = (PANDAS, [str(path)])
    runs: dict[str, list[dict]] = {name: [] for name in steps}
    loads = [os.getloadavg()[0]]  # the machine's 1-minute load: at the start, after each round
    for _ in range(args.repeat):
        for name, (script, step_args) in steps.items():
            runs[name].append(_measure_once(script, step_args, args.timeout))
        loads.append(os.getloadavg()[0])
    results = {name: summary(step_runs) for name, step_runs in runs.items()}
    for name, figures in results.items():
        print(f"{name:9s} {json.dumps(figures)}", flush=True)
    product = results["product"]
    if "error" in product:
        return 1
    print(_load_line(results))
    shown = ", ".join(f"{load:.1f}" for load in loads)
    print(
        f"load average (1 min) at the start and after each round: {shown} ({os.cpu_count()} cores)"
    )
    print(f"peak RSS {product['peak_rss_mb']:.0f} MiB (target < 2048 for a 400 MB capture)")
    print(f"stored / CSV {product['stored_bytes'] / csv_bytes:.3f} (target < 0.35)")
    strongest = min(("pyarrow", "pyarrow-1t"), key=lambda n: results[n].get("seconds", 1e9))
    print(f"strongest anchor: {strongest} (the faster median of pyarrow's two modes)")
    for line in _ratio_lines(runs, results, strongest):
        print(line)
    return 0


def _load_line(results: dict[str, dict]) -> str:
    parse_s = results["parse"].get("seconds", float("nan"))
    full_s = results["product"]["seconds"]
    return f"product: parse {parse_s:.2f} s; full load (hash, parse, insert) {full_s:.2f} s"


# (anchor, target, how the ratio reads): the product's time over the anchor's, or the
# anchor's over the product's for pandas, which the product must beat by a margin. "pyarrow"
# stands for the faster of its two modes.
_TARGETS = (("pyarrow", 1.0, "at most"), ("duckdb", 1.5, "at most"), ("pandas", 5.0, "speed-up"))


def _ratio_lines(
    runs: dict[str, list[dict]], results: dict[str, dict], strongest: str
) -> list[str]:
    """The product against each anchor: the ratio of medians, each round's own ratio (the two
    ran side by side), the CPU time ratio, and whether the target is met."""
    product = results["product"]
    lines = []
    for anchor, target, kind in _TARGETS:
        name = strongest if anchor == "pyarrow" else anchor
        other = results.get(name, {})
        if "seconds" not in other:
            if name in results:
                lines.append(f"vs {name}: no figure ({other.get('error', 'failed')[:200]})")
            continue
        pairs = zip(runs["product"], runs[name], strict=True)
        if kind == "speed-up":
            ratio = other["seconds"] / product["seconds"]
            rounds = [o["seconds"] / p["seconds"] for p, o in pairs]
            met = ratio >= target
            shown = f"{ratio:.2f}x faster (target >= {target:.1f}x)"
        else:
            ratio = product["seconds"] / other["seconds"]
            rounds = [p["seconds"] / o["seconds"] for p, o in pairs]
            met = ratio <= target
            shown = f"{ratio:.2f}x its time (target <= {target:.1f}x)"
        cpu = product["cpu_seconds"] / other["cpu_seconds"]
        per_round = ", ".join(f"{r:.2f}" for r in rounds)
        lines.append(
            f"vs {name}: {shown}: {'met' if met else 'MISSED'}; rounds {per_round}; "
            f"CPU time {cpu:.2f}x"
        )
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
