"""A run definition being read, and the `vdbench_runs` row it becomes (reports and flatfiles)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ingest.parsers.vdbench.records import VdbenchInterval, VdbenchRun
from ingest.records import RunState

TAG = re.compile(r"<[^>]*>")  # the HTML reports wrap lines in tags; the text is the same
TOD = r"\d\d:\d\d:\d\d\.\d{3}"
AVG_LABEL = re.compile(r"^avg_(\d+)-(\d+)$")
# Vdbench's automatic format runs precede the measured ones: kept, but not measurements. A raw
# run's is `SD_format`; a file-system run's `format_for_<rd>` (`RD_entry.FSD_FORMAT_RUN`).
_FORMAT_RUNS = ("SD_format", "FSD_format")
_FS_FORMAT_PREFIX = "format_for_"


def is_format_run(rd_name: str) -> bool:
    return rd_name in _FORMAT_RUNS or rd_name.startswith(_FS_FORMAT_PREFIX)


def tod_ms(tod: str) -> int:
    """Milliseconds after local midnight of `HH:MM:SS.mmm`."""
    hours, minutes, rest = tod.split(":")
    seconds, millis = rest.split(".")
    return ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis)


def rd_facts(rd_text: str) -> dict[str, Any]:
    """`RD=run1; I/O rate: Uncontrolled MAX; elapsed=300 warmup=60; For loops: None`, or a
    file-system run's `RD=rd1; elapsed=60; fwdrate=max. For loops: None` (its rate is the
    `fwdrate`)."""
    name = rd_text[3:].split(";", 1)[0].strip()
    facts: dict[str, Any] = {
        "rd_name": name,
        "io_rate_text": None,
        "elapsed_s": None,
        "warmup_s": None,
        "for_loops": None,
    }
    rate = re.search(r"I/O rate: ([^;]*)", rd_text) or re.search(
        r"fwdrate=([^;\s]*?)\.?(?:[;\s]|$)", rd_text
    )
    if rate:
        facts["io_rate_text"] = rate.group(1).strip()
    elapsed = re.search(r"elapsed=(\d+)", rd_text)
    if elapsed:
        facts["elapsed_s"] = int(elapsed.group(1))
    warmup = re.search(r"warmup=(\d+)", rd_text)
    if warmup:
        facts["warmup_s"] = int(warmup.group(1))
    loops = re.search(r"For loops: (.*)$", rd_text)
    if loops:
        facts["for_loops"] = loops.group(1).strip()
    return facts


@dataclass(slots=True)
class OpenRun:
    """A run being read: its `Starting RD=` facts (none in a flatfile), intervals and avg_ line."""

    index: int
    rd_name: str
    rd_text: str | None = None
    started_tod: str | None = None
    intervals: list[VdbenchInterval] = field(default_factory=list)
    avg: dict[str, Any] | None = None
    avg_label: str | None = None
    ended_tod: str | None = None
    extra: dict[str, Any] | None = None  # flatfile columns this parser does not name

    def add_interval(self, interval: VdbenchInterval) -> None:
        # A flatfile has no `Starting RD=` line: its run starts with its first interval.
        if self.started_tod is None:
            self.started_tod = interval.tod
        self.intervals.append(interval)

    def finished(self) -> VdbenchRun:
        facts = rd_facts(self.rd_text) if self.rd_text else {"rd_name": self.rd_name}
        first = last = None
        if self.avg_label:
            label = AVG_LABEL.match(self.avg_label)
            assert label is not None  # checked when the avg_ line was read
            first, last = int(label.group(1)), int(label.group(2))
        return VdbenchRun(
            run_index=self.index,
            rd_name=facts["rd_name"],
            rd_text=self.rd_text,
            io_rate_text=facts.get("io_rate_text"),
            elapsed_s=facts.get("elapsed_s"),
            warmup_s=facts.get("warmup_s"),
            for_loops=facts.get("for_loops"),
            is_format_run=is_format_run(facts["rd_name"]),
            started_tod=self.started_tod,
            state=RunState.ok if self.avg is not None else RunState.unfinished,
            state_reason=None if self.avg is not None else self._unfinished_reason(),
            avg_label=self.avg_label,
            first_interval=first,
            last_interval=last,
            ended_tod=self.ended_tod,
            interval_count=len(self.intervals),
            extra_json=self.extra,
            **(self.avg or {}),
        )

    def _unfinished_reason(self) -> str:
        last = self.intervals[-1] if self.intervals else None
        if last is None:
            return "no avg_ line and no interval line: the run stopped before its first interval"
        return (
            f"no avg_ line after {len(self.intervals)} interval line(s) (the last, "
            f"{last.interval_index}, at {last.tod}): the run was cut short; its intervals are kept"
        )
