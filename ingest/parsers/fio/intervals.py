"""Per-interval I/O from `--status-interval` dumps, and how long a job ran.

fio's status dumps are cumulative: each interval is a dump minus the one before it.
"""

from __future__ import annotations

from typing import Any

from ingest.parsers.fio.json_directions import DIRECTIONS
from ingest.parsers.fio.json_documents import Document
from ingest.parsers.fio.records import FioInterval
from ingest.records import LatencyKind

# What one direction of one job had done by a dump: (ms, ios, bytes, latency sum ns, samples,
# whether the latency is fio's total `lat`, else its completion `clat`).
_Progress = tuple[int, int, int, float, int, bool]
_NOTHING_YET: _Progress = (0, 0, 0, 0.0, 0, True)


def _directions(entry: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The directions a job entry reports, by name."""
    return [(name, entry[name]) for name in DIRECTIONS if isinstance(entry.get(name), dict)]


def _direction_runtimes(directions: list[tuple[str, dict[str, Any]]]) -> list[int]:
    """Each reported direction's `runtime` (ms; 0 before the job did any I/O)."""
    return [d.get("runtime") or 0 for _, d in directions]


def wall_runtime_ms(entry: dict[str, Any]) -> int | None:
    """How long the job ran, in ms of wall-clock time.

    Not `job_runtime`: with group_reporting fio sums it over the group's
    threads (numjobs=4 for 5 s gives 20000), while each direction's
    `runtime` is the longest thread's. Falls back to `job_runtime`, then to
    the whole-second `elapsed`, for jobs that did no I/O."""
    runtimes = _direction_runtimes(_directions(entry))
    if runtimes and max(runtimes) > 0:
        return int(max(runtimes))
    if entry.get("job_runtime"):
        return int(entry["job_runtime"])
    if entry.get("elapsed"):
        return int(entry["elapsed"]) * 1000
    return None


def _io_clock_ms(entry: dict[str, Any], directions: list[tuple[str, dict[str, Any]]]) -> int:
    """The job's clock in a status dump: how long it has done I/O so far. Not the whole-second
    `elapsed` fallback of `wall_runtime_ms`: a job that has not started yet (`startdelay`, a
    later stonewall group) would get the process's elapsed time, its clock would then jump back
    to its real runtime once it starts, and the I/O of that interval had no length (995 IOPS
    summed where the dumps say 3998)."""
    # nor `job_runtime`: before a delayed job starts, fio 3.33 prints 1003 there (the time it
    # waited), then 880 one second later
    runtimes = _direction_runtimes(directions)
    return int(max(runtimes)) if runtimes else int(entry.get("job_runtime") or 0)


def _cumulative(d: dict[str, Any], kib_io_bytes: bool) -> tuple[int, int, float, int, bool]:
    """(ios, bytes, latency sum in ns, latency sample count, is total latency) a direction `d`
    had done so far: fio's total latency `lat`, else its completion latency `clat`.

    Lean on purpose: called for every direction of every job of every status
    dump (hundreds of thousands of times for a folder of HCIBench VMs)."""
    ns = "lat_ns" in d or "clat_ns" in d
    total = d.get("lat_ns" if ns else "lat")
    lat = total or d.get("clat_ns" if ns else "clat") or {}
    ios = d.get("total_ios")
    if ios is None:
        ios = round(float(d.get("iops") or 0) * (d.get("runtime") or 0) / 1000)
    nbytes = (d.get("io_bytes") or 0) * (1024 if kib_io_bytes and "io_kbytes" not in d else 1)
    count = lat.get("N") or ios
    mean_ns = float(lat.get("mean") or 0.0) * (1.0 if ns else 1000.0)
    return int(ios), int(nbytes), mean_ns * count, int(count), bool(total)


def _interval(
    job_index: int, dump_index: int, name: str, now: _Progress, before: _Progress
) -> FioInterval:
    span = now[0] - before[0]
    ios, nbytes, samples = now[1] - before[1], now[2] - before[2], now[4] - before[4]
    measured = samples > 0
    # positional: a keyword call costs a third more, for 144,000 rows of a folder of HCIBench VMs
    return FioInterval(
        0,
        job_index,
        dump_index,
        name,
        int(now[0]),
        int(span),
        ios,
        nbytes,
        ios * 1000 / span if span > 0 else None,
        nbytes * 1000 / span if span > 0 else None,
        (now[3] - before[3]) / samples if measured else None,
        (LatencyKind.total if now[5] else LatencyKind.completion) if measured else None,
    )


def interval_rows(
    documents: list[Document], final_index: int | None, version: tuple[int, int]
) -> list[FioInterval]:
    """Per-interval IO of every job and direction, up to the final report (or the last dump
    of an unfinished run). Time comes from the direction runtimes, see `wall_runtime_ms`."""
    last = final_index if final_index is not None else len(documents) - 1
    kib_io_bytes = version < (2, 21)
    rows: list[FioInterval] = []
    previous: dict[tuple[int, str], _Progress] = {}
    for dump_index, document in enumerate(documents[: last + 1]):
        for job_index, entry in enumerate(document.entries):
            directions = _directions(entry)
            t_ms = _io_clock_ms(entry, directions)
            for name, d in directions:
                now = (t_ms, *_cumulative(d, kib_io_bytes))
                before = previous.get((job_index, name), _NOTHING_YET)
                previous[(job_index, name)] = now
                if name == "trim" and now[1] == 0:
                    continue
                rows.append(_interval(job_index, dump_index, name, now, before))
    return rows
