"""What a fio file may keep as a result: impossible values out, and a reason when nothing is left.

fio 2.1.x overflows latency counters (`lat (msec): min=756523K, avg=756537530.85`: 8.8 days in
a 30 s job), a C printf of NaN is read by `float()` as NaN, and an unsigned wrap prints a
number past 2^63 that no BIGINT holds. None of these is a measurement. A row keeps what is
sound (IOPS, bandwidth) with the unsound measure NULL and the reason in `unsound_reason`; a
row whose throughput itself is unsound holds nothing sound and rejects the file with where.
All three readers (JSON, terse, normal) pass their rows through here, so the rule is one rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from operator import attrgetter
from typing import Any

from ingest.parsers.fio.records import FioJob, FioJobDirection, FioLatencyPercentile, RowLines
from ingest.records import LatencyKind, Parsed, ParseError, RunState, SourceFile

INT64_MAX = 2**63 - 1
# A single I/O cannot take longer than the job ran; the slack covers runtime printed in whole
# ms and an I/O issued during ramp_time that completes after it.
_RUNTIME_SLACK_MS = 1000
_THROUGHPUT = ("total_ios", "io_bytes", "bw_bytes_per_s", "iops", "runtime_ms")
_STATS = ("min", "max", "mean", "stddev")
# Column groups set to NULL together: a spread with one impossible member is not a spread.
_GROUPS: dict[str, tuple[str, ...]] = {
    **{
        kind: (*(f"{kind}_{s}_ns" for s in _STATS), f"{kind}_samples")
        for kind in ("slat", "clat", "lat")
    },
    "bw": (*(f"bw_{s}_kib_per_s" for s in _STATS), "bw_agg_pct", "bw_samples"),
    "iops": (*(f"iops_{s}" for s in _STATS), "iops_samples"),
}
_LATENCY_GROUPS = ("slat", "clat", "lat")


def unsound(value: Any, limit: float | None = None) -> str | None:
    """Why a measured value is no measurement (NaN, Infinity, negative, past 2^63, over
    `limit`), or None when it is sound or absent."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, float) and math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value < 0:
        return "negative"
    if value > INT64_MAX:
        return "past 2^63 (an overflowed counter)"
    if limit is not None and value > limit:
        return "longer than the job ran"
    return None


def _limit_ns(runtime_ms: Any) -> float | None:
    """The longest latency a direction that ran `runtime_ms` can hold, in ns."""
    if not isinstance(runtime_ms, int) or runtime_ms <= 0 or unsound(runtime_ms):
        return None
    return (runtime_ms + _RUNTIME_SLACK_MS) * 1e6


def _where(row: Any, jobs: dict[tuple[int, int], str]) -> str:
    name = jobs.get((row.run_index, row.job_index), "?")
    return f"run {row.run_index}, job {row.job_index} ({name!r}), {row.direction}"


def _checked_direction(
    row: FioJobDirection, where: str, path: str, line: int | None
) -> FioJobDirection:
    """The row with unsound spreads NULL and the reason; a ParseError when its throughput
    (the result itself) is unsound, at the row's line when the form has lines (terse, the
    report), else at the job and direction (JSON)."""
    for column in _THROUGHPUT:
        value = getattr(row, column)
        if why := unsound(value):
            said = f"{column} = {value} is {why}: no sound result in this job"
            if line is None:
                raise ParseError(path, where, said)
            raise ParseError(path, f"line {line}", f"{where}: {said}")
    limit = _limit_ns(row.runtime_ms)
    changes: dict[str, Any] = {}
    reasons: list[str] = []
    for group, columns in _GROUPS.items():
        bound = limit if group in _LATENCY_GROUPS else None
        for column in columns:
            value = getattr(row, column)
            column_bound = bound if column.endswith("_ns") else None
            if why := unsound(value, column_bound):
                shown = f"{value / 1e9:.6g} s" if why == "longer than the job ran" else value
                reasons.append(
                    f"{group} {column.removeprefix(group + '_')} = {shown} is {why}"
                    + (f" ({row.runtime_ms} ms)" if why == "longer than the job ran" else "")
                )
                changes.update(dict.fromkeys(columns))
                break
    if not reasons:
        return row
    return replace(row, **changes, unsound_reason="; ".join(reasons) + ": set to NULL")


def _sound_percentiles(
    rows: Iterable[FioLatencyPercentile], limits: dict[tuple[int, int, str], float | None]
) -> tuple[list[FioLatencyPercentile], int]:
    kept, dropped = [], 0
    for row in rows:
        if unsound(row.latency_ns, limits.get((row.run_index, row.job_index, row.direction))):
            dropped += 1
        else:
            kept.append(row)
    return kept, dropped


def check_soundness(parsed: Parsed, source: SourceFile, lines: RowLines | None = None) -> None:
    """Set unsound measures to NULL with a reason, in place; reject a file whose throughput
    is unsound (at the line `lines` gives for the row). Notes say what was set aside."""
    names = {(j.run_index, j.job_index): j.jobname for j in parsed.tables.get("fio_jobs", [])}
    rows = []
    for row in parsed.tables.get("fio_job_directions", []):
        where = _where(row, names)
        line = (lines or {}).get((row.run_index, row.job_index, row.direction))
        checked = _checked_direction(row, where, source.path, line)
        if checked.unsound_reason:
            parsed.notes.append(f"{where}: {checked.unsound_reason}")
        rows.append(checked)
    if "fio_job_directions" in parsed.tables:
        parsed.tables["fio_job_directions"] = rows
    limits = {(r.run_index, r.job_index, r.direction): _limit_ns(r.runtime_ms) for r in rows}
    if "fio_latency_percentiles" in parsed.tables:
        kept, dropped = _sound_percentiles(parsed.tables["fio_latency_percentiles"], limits)
        parsed.tables["fio_latency_percentiles"] = kept
        if dropped:
            parsed.notes.append(
                f"{dropped} latency percentile(s) dropped: NaN, negative, past 2^63 or longer "
                "than the job ran"
            )


def result_gap(parsed: Parsed) -> str | None:
    """Why a parsed fio file holds no workload result, or None when it holds one: every job
    unfinished or in error, or no job with a direction row."""
    jobs: list[FioJob] = list(parsed.tables.get("fio_jobs", []))
    with_rows = {(d.run_index, d.job_index) for d in parsed.tables.get("fio_job_directions", [])}
    if any(j.state == RunState.ok and (j.run_index, j.job_index) in with_rows for j in jobs):
        return None
    if not jobs:
        return "no fio job in the file"
    not_ok = [j for j in jobs if j.state != RunState.ok]
    if not not_ok:
        return f"{len(jobs)} job(s) but no read/write/trim/mixed totals in any of them"
    states = sorted({j.state.value for j in not_ok})
    first = not_ok[0]
    return (
        f"no fio result: {len(not_ok)} of {len(jobs)} job(s) {'/'.join(states)}; "
        f"job {first.jobname!r}: {first.state_reason}"
    )


def reject_unsound_values(
    parsed: Parsed, source: SourceFile, lines: RowLines | None = None
) -> None:
    """A ParseError for NaN, Infinity or a number past 2^63 in any table the checks above do
    not repair (job cpu, intervals, bins, disk util): such a value is a corrupt file. The
    error names the row's line when the form has lines (terse, the report)."""
    for table, rows in parsed.tables.items():
        if table in ("fio_job_directions", "fio_latency_percentiles") or not isinstance(rows, list):
            continue
        if not _may_hold_unsound(rows):
            continue
        for index, row in enumerate(rows):
            for column in row.__slots__:
                value = getattr(row, column)
                if isinstance(value, int | float) and (why := unsound(value)) and why != "negative":
                    where = f"{table} row {index + 1}"
                    line = _row_line(table, index, row, lines or {})
                    if line is None:
                        raise ParseError(source.path, where, f"{column} = {value} is {why}")
                    raise ParseError(
                        source.path, f"line {line}", f"{where}: {column} = {value} is {why}"
                    )


_NUMBERS = frozenset({int, float, bool})


def _may_hold_unsound(rows: list[Any]) -> bool:
    """Whether `rows` may hold a value `reject_unsound_values` refuses: a screen a column at a
    time at C speed (a sum is NaN or infinite when a value is; the largest value passes 2^63
    when any does), so the search row by row for the first such value runs only when one may
    be there. `unsound` on every value was 8 % of a status-interval load (1,440 interval rows
    of 12 values per file). When unsure (an unusual type, a sum too large) it says yes."""
    if not rows or len(set(map(type, rows))) > 1:
        return bool(rows)
    for column in rows[0].__slots__:
        values = list(map(attrgetter(column), rows))
        kinds = set(map(type, values))
        if any(issubclass(k, int | float) and k not in _NUMBERS for k in kinds):
            return True  # an int or float subclass (IntEnum, numpy): the exact check decides
        if not kinds & _NUMBERS:
            continue
        numbers = values if kinds <= _NUMBERS else [v for v in values if type(v) in _NUMBERS]
        try:
            if not math.isfinite(sum(numbers)) or max(numbers) > INT64_MAX:
                return True
        except OverflowError:
            return True
    return False


def _row_line(table: str, index: int, row: Any, lines: RowLines) -> int | None:
    if table == "fio_disk_util":
        return lines.get((-1, index, "disk"))
    if not hasattr(row, "job_index"):
        return None
    key = (row.run_index, row.job_index)
    return lines.get((*key, getattr(row, "direction", ""))) or lines.get((*key, ""))


def drop_repeated_mixed(parsed: Parsed) -> None:
    """With `unified_rw_reporting=both` (fio >= 3.26) a job reports read, write AND `mixed`,
    which is their sum again: summing a job's directions would count every I/O twice. The
    read/write rows are kept (they say more) and the `mixed` ones dropped, with a note."""
    directions = parsed.tables.get("fio_job_directions", [])
    split = {(d.run_index, d.job_index) for d in directions if d.direction in ("read", "write")}
    repeated = {(d.run_index, d.job_index) for d in directions if d.direction == "mixed"} & split
    if not repeated:
        return
    for table in (
        "fio_job_directions",
        "fio_latency_percentiles",
        "fio_latency_bins",
        "fio_intervals",
    ):
        rows = parsed.tables.get(table)
        if isinstance(rows, list):
            parsed.tables[table] = [
                r
                for r in rows
                if not (r.direction == "mixed" and (r.run_index, r.job_index) in repeated)
            ]
    parsed.notes.append(
        f"{len(repeated)} job(s) report read, write and their `mixed` sum "
        "(unified_rw_reporting=both): the `mixed` rows are dropped so no I/O is counted twice"
    )


def with_average_latency(parsed: Parsed) -> None:
    """Give each direction row its average latency and the kind of it, in place, once the
    unsound spreads are NULL: fio's total `lat` mean when sound, else its completion `clat`
    mean (a form or fio version that printed no `lat`, an overflowed `lat`); none for a
    direction that did no I/O (fio prints zeros there)."""
    rows = parsed.tables.get("fio_job_directions")
    if not isinstance(rows, list):
        return
    parsed.tables["fio_job_directions"] = [_with_average(row) for row in rows]


def _with_average(row: FioJobDirection) -> FioJobDirection:
    if not row.total_ios:
        return row
    if row.lat_mean_ns is not None:
        return replace(row, avg_latency_mean_ns=row.lat_mean_ns, avg_latency_kind=LatencyKind.total)
    if row.clat_mean_ns is not None:
        return replace(
            row, avg_latency_mean_ns=row.clat_mean_ns, avg_latency_kind=LatencyKind.completion
        )
    return row
