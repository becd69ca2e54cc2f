"""Benchmark: the SQL console's memory and latency with ten runaway queries at once.

Not a test: it prints a table. This process plays the Streamlit server: ten threads call the
console API (`warehouse.console.run_query`) at the same time, half with a query DuckDB cannot
interrupt (levenshtein over 150,000-character strings), half with the query that built 2.4 GB
in the server before the console ran queries in child processes
(`select range(0, 1000000) from range(300)`). A sampler reads /proc every 20 ms for the
console's worker processes. Reported:

- server: this process's peak RSS (VmHWM, reset before the clicks) and its growth;
- children: the peak RSS of the largest worker, the peak of all workers' RSS added up at one
  instant, and the most workers alive at once;
- the outcome of each click (stopped at the limit, out of memory, busy), and the wall time;
- `select 1` after the runaways: each of five runs' latency.

    python -m benchmarks.bench_sql_console                 # 10 clicks, 5 s limit
    python -m benchmarks.bench_sql_console --clicks 4 --timeout 2

Target: the server grows by less than 50 MB; `select 1` answers in well under a second.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import duckdb

from warehouse import console as sql_console

CPU_RUNAWAY = "select levenshtein(repeat('a', 150000), repeat('b', 150000)) as d"
MEMORY_RUNAWAY = "select range(0, 1000000) as r from range(300)"


def _status_kib(pid: int | str, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _workers() -> dict[int, int]:
    """Console worker pid -> current RSS (KiB), for this process's children."""
    me, found = str(Path("/proc/self").resolve().name), {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if stat.rsplit(")", 1)[1].split()[1] != me:
                continue
            if b"warehouse.console_worker" not in (entry / "cmdline").read_bytes():
                continue
            found[int(entry.name)] = _status_kib(entry.name, "VmRSS")
        except (OSError, IndexError):
            continue  # ended while we looked
    return found


class Sampler(threading.Thread):
    """Peak RSS of the console workers, each and all together, every 20 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.peak_one_kib = self.peak_sum_kib = self.peak_count = 0

    def run(self) -> None:
        while not self.stop.is_set():
            rss = _workers()
            self.peak_one_kib = max(self.peak_one_kib, *rss.values(), 0)
            self.peak_sum_kib = max(self.peak_sum_kib, sum(rss.values()))
            self.peak_count = max(self.peak_count, len(rss))
            time.sleep(0.02)


def _outcome(message: str) -> str:
    for key, label in (
        ("limit and was stopped", "stopped at the time limit"),
        ("memory", "refused: out of memory"),
        ("busy", "refused: busy"),
    ):
        if key in message:
            return label
    return "other: " + message[:80]


def _click(db: Path, sql: str, timeout_s: float, outcomes: list[str]) -> None:
    try:
        sql_console.run_query(db, sql, timeout_s=timeout_s)
        outcomes.append("answered")
    except sql_console.QueryRejected as exc:
        outcomes.append(_outcome(str(exc)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-console-") as tmp:
        db = Path(tmp) / "w.duckdb"
        con = duckdb.connect(str(db))
        con.execute("create schema marts; create table marts.t as select 1 as a")
        con.close()
        sql_console.run_query(db, "select 1")  # import and start the workers, as a server has
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM: peak from here on
        base_kib = _status_kib("self", "VmRSS")
        sampler = Sampler()
        sampler.start()
        outcomes: list[str] = []
        queries = [CPU_RUNAWAY if i % 2 == 0 else MEMORY_RUNAWAY for i in range(args.clicks)]
        threads = [
            threading.Thread(target=_click, args=(db, sql, args.timeout, outcomes))
            for sql in queries
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - started
        latencies = []
        for _ in range(5):
            t0 = time.monotonic()
            sql_console.run_query(db, "select 1")
            latencies.append(time.monotonic() - t0)
        sampler.stop.set()
        sampler.join()
        peak_kib = _status_kib("self", "VmHWM")
        sql_console.shutdown()
    mib = 1024
    print(
        f"{args.clicks} concurrent runaway clicks, {args.timeout:g} s limit, "
        f"{sql_console.MAX_CHILDREN} query slots, {sql_console.SPARES} spare workers"
    )
    print(f"server RSS before the clicks   {base_kib / mib:8.1f} MiB")
    print(
        f"server peak RSS during/after   {peak_kib / mib:8.1f} MiB "
        f"(+{(peak_kib - base_kib) / mib:.1f} MiB)"
    )
    print(
        f"largest worker peak RSS        {sampler.peak_one_kib / mib:8.1f} MiB "
        f"(address-space cap: start-up size + {sql_console.CHILD_MEMORY_BYTES / 2**20:g} MiB)"
    )
    print(
        f"all workers at once, peak RSS  {sampler.peak_sum_kib / mib:8.1f} MiB "
        f"({sampler.peak_count} workers alive at most, spares included)"
    )
    print(f"clicks done in                 {wall:8.2f} s")
    for label, n in sorted(Counter(outcomes).items()):
        print(f"  {n:2d} x {label}")
    print(
        "select 1 after the runaways    "
        + ", ".join(f"{s:.3f}" for s in latencies)
        + f" s (median {statistics.median(latencies):.3f} s)"
    )
    print(f"console workers left after shutdown: {len(_workers())}")


if __name__ == "__main__":
    main()
