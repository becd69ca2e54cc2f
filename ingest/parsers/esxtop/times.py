"""Sample times: the stamp layouts esxtop, Excel and locale copies write, and the PDH bias."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass

from ingest.parsers.esxtop.records import EsxtopSampleTime, Progress
from ingest.records import ParseError

_EPOCH_DAY = dt.date(1970, 1, 1)
_BIAS = re.compile(r"\((-?\d+)\)\s*$")


@dataclass(frozen=True, slots=True)
class TimeFacts:
    has_dates: bool
    resolution_s: int
    bias_min: int
    notes: list[str]
    # False when the stamps step backwards (other than at a midnight of a time-only capture)
    # or repeat: the samples are kept in file order but their times cannot be trusted.
    times_reliable: bool = True
    times_note: str | None = None
    # sample_index of samples dropped because their time repeats an earlier sample's
    dropped: frozenset[int] = frozenset()


# Candidate stamp layouts: (strptime format, resolution in seconds, carries a date).
# esxtop writes the first; the others come from Excel re-saves and locale copies. Month-first
# is tried before day-first, as perfmon writes it; day-first wins only when month-first fails.
_STAMP_FORMATS: tuple[tuple[str, int, bool], ...] = (
    ("%m/%d/%Y %H:%M:%S", 1, True),
    ("%m/%d/%Y %H:%M:%S.%f", 1, True),
    ("%m/%d/%Y %H:%M", 60, True),
    ("%m/%d/%Y %I:%M:%S %p", 1, True),
    ("%m/%d/%Y %I:%M %p", 60, True),
    ("%d/%m/%Y %H:%M:%S", 1, True),
    ("%d/%m/%Y %H:%M", 60, True),
    ("%d.%m.%Y %H:%M:%S", 1, True),
    ("%d.%m.%Y %H:%M", 60, True),
    ("%Y-%m-%d %H:%M:%S", 1, True),
    ("%Y-%m-%dT%H:%M:%S", 1, True),
    ("%H:%M:%S", 1, False),
    ("%H:%M:%S.%f", 1, False),
    ("%H:%M", 60, False),
)


def sample_times(
    progress: Progress, pdh_header: str, path: str
) -> tuple[list[EsxtopSampleTime], TimeFacts]:
    """One row per kept sample, in UTC, and what the stamps say about the capture's clock."""
    notes: list[str] = []
    bias = _BIAS.search(pdh_header)
    if bias is None:
        notes.append(f"no time-zone bias in {pdh_header!r}: sample times taken as UTC")
    bias_min = int(bias.group(1)) if bias else 0
    local, fmt, resolution_s, has_dates = _parse_stamps(progress, path)
    if not has_dates:
        local = _on_epoch_days(local, resolution_s)
        notes.append(
            f"sample times are time-only ({progress.stamps[0]!r}): placed on 1970-01-01; "
            "the capture date is unknown"
        )
    if resolution_s > 1:
        notes.append(f"sample times have no seconds ({fmt!r}, e.g. an Excel re-save)")
    order = check_order(local, progress, resolution_s)
    notes.extend(order.notes)
    shift = dt.timedelta(minutes=bias_min)
    times = [
        EsxtopSampleTime(i, (t + shift).replace(tzinfo=dt.UTC), line, stamp)
        for i, (t, line, stamp) in enumerate(
            zip(local, progress.sample_lines, progress.stamps, strict=True)
        )
        if i not in order.dropped
    ]
    facts = TimeFacts(
        has_dates, resolution_s, bias_min, notes, order.reliable, order.note, order.dropped
    )
    return times, facts


@dataclass(frozen=True, slots=True)
class Order:
    reliable: bool
    note: str | None
    notes: list[str]
    dropped: frozenset[int]


def check_order(local: list[dt.datetime], progress: Progress, resolution_s: int) -> Order:
    """Backward steps and repeated times, in file order.

    A step backwards (left after the midnight rule of time-only stamps) keeps its sample where
    the file has it and marks the capture's times unreliable. A time equal to an earlier
    sample's (to the second) is the same sample written twice (a re-save, a copy pasted
    twice): the first is kept and the later ones dropped, so no sample is counted twice. Stamps
    without seconds (Excel) share a minute by design: their repeats are kept.
    """
    seen: set[dt.datetime] = set()
    dropped: list[int] = []
    for i, t in enumerate(local):
        if t in seen and resolution_s == 1:
            dropped.append(i)
        seen.add(t)
    # steps between the kept samples: a repeat written after later rows is no step back
    gone = set(dropped)
    kept = [i for i in range(len(local)) if i not in gone]
    backwards = [(a, b) for a, b in itertools.pairwise(kept) if local[b] < local[a]]
    reasons = []
    lines, stamps = progress.sample_lines, progress.stamps
    if backwards:
        a, b = backwards[0]
        reasons.append(
            f"{len(backwards)} backward steps, the first at line {lines[b]} "
            f"({stamps[b]!r} after {stamps[a]!r}): samples kept in file order, no day added"
        )
    if dropped:
        i = dropped[0]
        reasons.append(
            f"{len(dropped)} samples repeat an earlier sample's time, the first at line "
            f"{lines[i]} ({stamps[i]!r}): dropped, the first of each kept"
        )
    if not reasons:
        return Order(True, None, [], frozenset())
    note = "; ".join(reasons)
    summary = f"sample times unreliable: {note}; the capture's time window is doubtful"
    return Order(False, note, [summary], frozenset(dropped))


def _parse_stamps(progress: Progress, path: str) -> tuple[list[dt.datetime], str, int, bool]:
    """Parse every stamp with the first layout that reads them all."""
    stamps = progress.stamps
    furthest = (-1, "")
    for fmt, resolution_s, has_dates in _STAMP_FORMATS:
        parsed: list[dt.datetime] = []
        for stamp in stamps:
            try:
                parsed.append(dt.datetime.strptime(stamp, fmt))
            except ValueError:
                break
        if len(parsed) == len(stamps):
            return parsed, fmt, resolution_s, has_dates
        if parsed and len(parsed) > furthest[0]:
            furthest = (len(parsed), fmt)
    bad = max(furthest[0], 0)
    reason = f"unreadable sample time {stamps[bad]!r}"
    if stamps[bad].startswith("(PDH-CSV"):
        reason = "a second header: concatenated captures are not supported, split the file"
    raise ParseError(path, f"line {progress.sample_lines[bad]}, column 1", reason)


_DAY_S = 86_400
_LATE = dt.time(23, 0)
_EARLY = dt.time(1, 0)


def _on_epoch_days(times: list[dt.datetime], resolution_s: int) -> list[dt.datetime]:
    """Time-only stamps on 1970-01-01, one day later at each step that crosses midnight.

    Only a step from 23:00 or later to before 01:00 whose gap across midnight is within two
    capture intervals (plus the stamps' resolution) crosses a midnight. Any other backward step
    adds no day (a re-saved file whose rows were reordered would otherwise become a timeline
    of weeks); `check_order` then marks the times unreliable.
    """
    clock = [t.hour * 3600 + t.minute * 60 + t.second for t in times]
    steps = sorted(b - a for a, b in itertools.pairwise(clock) if b > a)
    step = steps[len(steps) // 2] if steps else None
    day = 0
    out: list[dt.datetime] = []
    for i, t in enumerate(times):
        if i and _crosses_midnight(times[i - 1].time(), t.time(), step, resolution_s):
            day += 1
        out.append(dt.datetime.combine(_EPOCH_DAY + dt.timedelta(days=day), t.time()))
    return out


def _crosses_midnight(before: dt.time, after: dt.time, step: int | None, res: int) -> bool:
    if not (before >= _LATE and after < _EARLY):
        return False
    gap = _DAY_S - (before.hour * 3600 + before.minute * 60 + before.second)
    gap += after.hour * 3600 + after.minute * 60 + after.second
    return step is None or gap <= 2 * step + res


def interval_s(sampled: list[dt.datetime]) -> float | None:
    """Mean step, span / (n - 1): stable when stamps lost their seconds (Excel) or jitter."""
    if len(sampled) < 2 or sampled[-1] == sampled[0]:
        return None  # one sample, or all within one minute of an Excel re-save
    return round((sampled[-1] - sampled[0]).total_seconds() / (len(sampled) - 1), 3)
