"""Benchmark: the time to write the Micron vSAN 6.7 RA report (HTML and PDF) on the reference
dataset, as `python -m ingest report` does it, and where the time goes.

Not a test: it prints a table. It needs the warehouse of the README's main job
(`bash scripts/main.sh --no-serve`: the reference dataset, built, validated and published);
`--db` or PERF_DUCKDB_PATH names another. Each repeat is a fresh process running the command
(browser start and imports included); one more process prints the phases: reading the marts,
building the figures and tables, exporting the SVGs (one browser), the HTML, the PDF.

    python -m benchmarks.bench_report                    # 3 repeats
    python -m benchmarks.bench_report --repeat 1 --testbed lenovo-sr650-vsan65 --document ""

Target: at most 15 s on a 2-core machine, most of it in chart export.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTBED = "micron-sata-vsan67"
DOCUMENT = "micron_vsan67_sata_ra"

PHASES = """
import sys, time
t = [time.perf_counter()]
import warehouse
from app import report
from app.report import content, data, pdf, render
reader = warehouse.from_settings(None, db=sys.argv[1]).reader()
document = sys.argv[3] or None
t.append(time.perf_counter())
with reader.cursor() as con:
    found = data.collect(con, sys.argv[2], document)
t.append(time.perf_counter())
sections = content.sections(found)
t.append(time.perf_counter())
sections = report._exported(sections)
t.append(time.perf_counter())
html = render.html(content.cover(found, []), sections, draft=False, generated_at="-",
                   meta_date="2026-01-01T00:00:00Z")
t.append(time.perf_counter())
pdf.pdf_bytes(html)
t.append(time.perf_counter())
names = ["imports", "read marts", "figures and tables", "SVG export", "HTML", "PDF"]
for name, a, b in zip(names, t, t[1:]):
    print(f"{name:<20} {b - a:6.2f} s wall")
import resource
own = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"CPU: this process {own.ru_utime + own.ru_stime:.1f} s, its browser "
      f"{kids.ru_utime + kids.ru_stime:.1f} s (after it stopped)")
"""


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
    return int(next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=os.environ.get("PERF_DUCKDB_PATH", "data/warehouse.duckdb"))
    parser.add_argument("--testbed", default=TESTBED)
    parser.add_argument("--document", default=DOCUMENT, help='"" for none')
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    command = [sys.executable, "-m", "ingest", "report", "--db", args.db, "--testbed", args.testbed]
    if args.document:
        command += ["--published-figures-of", args.document]
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):
            start = time.perf_counter()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            done = subprocess.run(
                [*command, "--out", out], cwd=REPO, capture_output=True, text=True
            )
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            if done.returncode != 0:
                sys.exit(f"report failed (exit {done.returncode}): {done.stderr[-2000:]}")
        pdf = Path(out) / f"{args.testbed}-report.pdf"
        html = Path(out) / f"{args.testbed}-report.html"
        print(f"report of {args.testbed}" + (f" with {args.document}" if args.document else ""))
        print(f"wall time, HTML and PDF ({args.repeat} fresh processes): median "
              f"{statistics.median(walls):.1f} s, min {min(walls):.1f} s, max {max(walls):.1f} s"
              " (target <= 15 s)")  # fmt: skip
        # On a busy machine the wall time measures the others too; the CPU time (the command,
        # its browser and their children) is what an idle machine would wait, at most.
        print(f"CPU time, the command and its browser: median {statistics.median(cpus):.1f} s")
        print(f"PDF: {_pages(pdf)} pages, {pdf.stat().st_size / 1e6:.2f} MB; "
              f"HTML: {html.stat().st_size / 1e6:.2f} MB")  # fmt: skip
    phases = subprocess.run(
        [sys.executable, "-c", PHASES, args.db, args.testbed, args.document],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    print("phases (one process):")
    print(phases.stdout.rstrip() or phases.stderr[-2000:])
    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
