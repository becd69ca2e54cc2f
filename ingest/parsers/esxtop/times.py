"""Sample times: the stamp layouts esxtop, Excel and locale copies write, and the PDH bias."""

from __future__ import annotations

import datetime as dt
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
    """One row per sample, in UTC, and what the stamps say about the capture's clock."""
    notes: list[str] = []
    bias = _BIAS.search(pdh_header)
    if bias is None:
        notes.append(f"no time-zone bias in {pdh_header!r}: sample times taken as UTC")
    bias_min = int(bias.group(1)) if bias else 0
    local, fmt, resolution_s, has_dates = _parse_stamps(progress, path)
    if not has_dates:
        local = _on_epoch_days(local)
        notes.append(
            f"sample times are time-only ({progress.stamps[0]!r}): placed on 1970-01-01; "
            "the capture date is unknown"
        )
    if resolution_s > 1:
        notes.append(f"sample times have no seconds ({fmt!r}, e.g. an Excel re-save)")
    shift = dt.timedelta(minutes=bias_min)
    times = [
        EsxtopSampleTime(i, (t + shift).replace(tzinfo=dt.UTC), line, stamp)
        for i, (t, line, stamp) in enumerate(
            zip(local, progress.sample_lines, progress.stamps, strict=True)
        )
    ]
    return times, TimeFacts(has_dates, resolution_s, bias_min, notes)


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


def _on_epoch_days(times: list[dt.datetime]) -> list[dt.datetime]:
    """Time-only stamps on 1970-01-01, one day later each time the clock goes backwards."""
    day = 0
    out: list[dt.datetime] = []
    previous: dt.time | None = None
    for t in times:
        if previous is not None and t.time() < previous:
            day += 1
        previous = t.time()
        out.append(dt.datetime.combine(_EPOCH_DAY + dt.timedelta(days=day), t.time()))
    return out


def interval_s(sampled: list[dt.datetime]) -> float | None:
    """Mean step, span / (n - 1): stable when stamps lost their seconds (Excel) or jitter."""
    if len(sampled) < 2 or sampled[-1] == sampled[0]:
        return None  # one sample, or all within one minute of an Excel re-save
    return round((sampled[-1] - sampled[0]).total_seconds() / (len(sampled) - 1), 3)
