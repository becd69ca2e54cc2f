"""Benchmark: the time to write the Micron vSAN 6.7 RA report (HTML and PDF) on the reference
dataset, as `python -m ingest report` does it, and where the time goes.

Not a test: it prints a table. It needs the warehouse of the README's main job
(`bash scripts/main.sh --no-serve`: the reference dataset, built, validated and published);
`--db` or PERF_DUCKDB_PATH names another. Each repeat is a fresh process running the command
(browser start and imports included), then, as the anchor, a fresh process making the same
report by the serial pipeline it replaced (every chart exported, then the PDF of the page with
the SVGs inline: the same PDF, byte for byte). One more process prints the command's phases:
reading the marts, building the figures and tables (the browser starting meanwhile), the PDF
(the charts exporting meanwhile), the last charts, the HTML; the anchor's are printed too.

    python -m benchmarks.bench_report                    # 3 repeats
    python -m benchmarks.bench_report --repeat 1 --testbed lenovo-sr650-vsan65 --document ""

Target: at most 15 s on a 2-core machine; most of it is weasyprint's layout and drawing.
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

# One report in one process, timed step by step. `overlapped` does what `report.build` does
# (browser started first, charts exported in a background thread while weasyprint parses and
# styles its page, the charts as images); `serial` is the anchor, the pipeline before that
# (browser started by the first export, every chart exported, then the PDF of the page with
# its SVGs inline). Both make the same PDF, byte for byte.
PHASES = """
import sys, threading, time
t0 = time.perf_counter()
import warehouse
from app import report
from app.lib.charts import export
from app.report import content, data, figures, pdf, render
db, testbed, document, mode = sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4]
marks = [("imports", time.perf_counter())]
done = []  # when each chart's SVG was ready, in the export thread
svg_of = figures._svg
figures._svg = lambda figure: (svg_of(figure), done.append(time.perf_counter()))[0]
with warehouse.from_settings(None, db=db).reader().cursor() as con:
    found = data.collect(con, testbed, document)
marks.append(("read marts", time.perf_counter()))
if mode == "overlapped":
    export.start_browser()
sections = content.sections(found)
exports = figures.Exports([b for s in sections for b in s.blocks if isinstance(b, figures.Figure)])
marks.append(("figures and tables", time.perf_counter()))
page = lambda s, **kw: render.html(content.cover(found, []), s, draft=False, generated_at="-",
                                   meta_date="2026-01-01T00:00:00Z", **kw)
waited = []  # how long weasyprint waited for each chart it asked for


def svg_for_pdf(number):
    asked = time.perf_counter()
    svg = exports.svg(number)
    waited.append(time.perf_counter() - asked)
    return svg


if mode == "overlapped":
    pdf.pdf_bytes(page(sections, linked_charts=True), svg_for_pdf)
    marks.append(("PDF, charts exporting", time.perf_counter()))
    sections = report._exported(sections, exports)
    marks.append(("last charts", time.perf_counter()))
    page(sections)
    marks.append(("HTML", time.perf_counter()))
else:
    sections = report._exported(sections, exports)
    marks.append(("SVG export", time.perf_counter()))
    html = page(sections)
    marks.append(("HTML", time.perf_counter()))
    pdf.pdf_bytes(html)
    marks.append(("PDF, charts inline", time.perf_counter()))
end = marks[-1][1]
start = t0
for name, at in marks:
    print(f"  {name:<22} {at - start:6.2f} s wall")
    start = at
if done:
    print(f"  charts: {len(done)} SVGs, the first ready at {done[0] - t0:.2f} s, the last at "
          f"{done[-1] - t0:.2f} s (from the imports' start)")
if waited:
    print(f"  the PDF waited {sum(waited):.2f} s in all for the charts it asked for")
import resource
own = resource.getrusage(resource.RUSAGE_SELF)
print(f"  total {end - t0:.2f} s wall; CPU of this process {own.ru_utime + own.ru_stime:.1f} s")
export.stop_browser()
"""


def _children_cpu() -> float:
    """CPU seconds of this process's finished children (and theirs: the browsers)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _phases(args: argparse.Namespace, mode: str) -> tuple[float, float, str]:
    """One report by `mode` in a fresh process: its wall time, CPU time and phases."""
    start, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [sys.executable, "-c", PHASES, args.db, args.testbed, args.document, mode],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"{mode} report failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return time.perf_counter() - start, _children_cpu() - cpu, done.stdout.rstrip()


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
    walls, cpus, anchors, anchor_cpus = [], [], [], []
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):  # the product and its anchor in turns: the same load
            start, cpu = time.perf_counter(), _children_cpu()
            done = subprocess.run(
                [*command, "--out", out], cwd=REPO, capture_output=True, text=True
            )
            walls.append(time.perf_counter() - start)
            cpus.append(_children_cpu() - cpu)
            if done.returncode != 0:
                sys.exit(f"report failed (exit {done.returncode}): {done.stderr[-2000:]}")
            anchor_wall, anchor_cpu, anchor_phases = _phases(args, "serial")
            anchors.append(anchor_wall)
            anchor_cpus.append(anchor_cpu)
        pdf = Path(out) / f"{args.testbed}-report.pdf"
        html = Path(out) / f"{args.testbed}-report.html"
        product, anchor = statistics.median(walls), statistics.median(anchors)
        print(f"report of {args.testbed}" + (f" with {args.document}" if args.document else ""))
        print(f"wall time, HTML and PDF ({args.repeat} fresh processes): median "
              f"{product:.1f} s, min {min(walls):.1f} s, max {max(walls):.1f} s"
              " (target <= 15 s)")  # fmt: skip
        print(f"anchor, the serial pipeline (export every chart, then the PDF with the SVGs "
              f"inline), in turns with it: median {anchor:.1f} s; the product takes "
              f"{product / anchor:.2f}x")  # fmt: skip
        # On a busy machine the wall time measures the others too; the CPU time (the command,
        # its browser and their children) is the work, done on two cores side by side.
        print(f"CPU time, the command and its browser: median {statistics.median(cpus):.1f} s "
              f"(the anchor's: {statistics.median(anchor_cpus):.1f} s)")  # fmt: skip
        print(f"PDF: {_pages(pdf)} pages, {pdf.stat().st_size / 1e6:.2f} MB; "
              f"HTML: {html.stat().st_size / 1e6:.2f} MB")  # fmt: skip
    _, _, phases = _phases(args, "overlapped")
    print("phases, as the command does it (one process):")
    print(phases)
    print("phases of the anchor (its last run):")
    print(anchor_phases)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
