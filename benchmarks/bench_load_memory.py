"""Benchmark: peak memory of one `python -m ingest load`, by number of files and members.

Memory must be bounded by the largest file, not by the run (see `ingest.walk`): this runs
one load per case, each in a fresh process, and prints the kernel's peak RSS of that load
(`resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`, read in a small parent process that runs
only that one load):

- empty     an empty folder (the baseline: Python, DuckDB, Arrow, the parsers imported)
- files     N small per-VM fio status-interval files (default 1,000) in one folder
- archive   one .tar.gz of M larger per-VM fio files (default 100)

The files are written with `synth.fio_results.write_benchmark_vms` under benchmarks/out/.
Usage:

    python -m benchmarks.bench_load_memory [--files 1000] [--members 100]
"""

from __future__ import annotations

import argparse
import os
import sys
import tarfile
import tempfile
from pathlib import Path

from benchmarks import run_python
from synth.fio_results import write_benchmark_vms

OUT = Path(__file__).resolve().parent / "out" / "load_memory"
CASE = "fio-8vmdk-100ws-4k-70rdpct-100randompct-4threads-1700000000"
# One process that runs the command given as its arguments and prints the child's peak RSS
# (KiB on Linux) and exit status: RUSAGE_CHILDREN then covers that one load only.
_RUN_AND_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
)


def peak_rss_mb(argv: list[str], env: dict[str, str], timeout_s: float = 900) -> tuple[float, int]:
    """Peak RSS (MiB) and exit status of one run of `argv`, in a fresh parent process."""
    done = run_python(_RUN_AND_MEASURE, argv, timeout_s, env)
    done.check_returncode()
    kib, returncode = done.stdout.split()
    return int(kib) / 1024, int(returncode)


def load_peak_rss_mb(path: Path, db: Path) -> tuple[float, int]:
    """Peak RSS (MiB) and exit status of `python -m ingest load PATH --quiet` into `db`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    env.update(PERF_DUCKDB_PATH=str(db), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    return peak_rss_mb([sys.executable, "-m", "ingest", "load", str(path), "--quiet"], env)


def _archive(members: int, dumps: int) -> tuple[Path, int, int]:
    """A .tar.gz of `members` per-VM files; its path, inflated size and largest member."""
    folder = OUT / f"members-{members}x{dumps}" / CASE
    write_benchmark_vms(folder, members, dumps)
    sizes = [p.stat().st_size for p in folder.iterdir()]
    archive = OUT / f"archive-{members}x{dumps}.tar.gz"
    if not archive.exists():
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(folder, arcname=CASE)
    return archive, sum(sizes), max(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--members", type=int, default=100)
    parser.add_argument("--file-dumps", type=int, default=12, help="status dumps per small file")
    parser.add_argument("--member-dumps", type=int, default=360, help="status dumps per member")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    empty = OUT / "empty"
    empty.mkdir(exist_ok=True)
    files = OUT / f"files-{args.files}x{args.file_dumps}" / CASE
    files_bytes = write_benchmark_vms(files, args.files, args.file_dumps)
    largest_file = max(p.stat().st_size for p in files.iterdir())
    archive, members_bytes, largest_member = _archive(args.members, args.member_dumps)
    cases = [
        ("empty folder (baseline)", empty, 0, 0),
        (f"{args.files:,} files", files, files_bytes, largest_file),
        (f"archive of {args.members} members", archive, members_bytes, largest_member),
    ]
    print(f"{'case':<28} {'input MiB':>10} {'largest MiB':>12} {'peak RSS MiB':>13} {'exit':>5}")
    for name, path, size, largest in cases:
        with tempfile.TemporaryDirectory() as tmp:
            rss, returncode = load_peak_rss_mb(path, Path(tmp) / "w.duckdb")
        mib, largest_mib = size / 2**20, largest / 2**20
        print(f"{name:<28} {mib:>10.1f} {largest_mib:>12.2f} {rss:>13.0f} {returncode:>5}")


if __name__ == "__main__":
    main()
