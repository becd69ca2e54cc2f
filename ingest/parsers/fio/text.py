"""Reading the free text around fio's results: where a file's first words are, what fio's
error lines say, whether fio was interrupted, and fio's timestamps."""

from __future__ import annotations

import datetime as dt
import re

from ingest.records import RunState


def first_text_line(text: str) -> str:
    """`line N` of the first non-blank line, for errors about the file as a whole."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return f"line {number}"
    return "byte 0"


def no_result_reason(text: str) -> str:
    """Why a file holds no fio result, quoting fio's own error lines when it wrote some."""
    errors = [
        ln.strip() for ln in text.splitlines() if ln.startswith("fio:") or "error" in ln.lower()
    ]
    if errors:
        shown = "; ".join(errors[:3])
        return f"no fio results, only fio error text: {shown[:300]}"
    if started := re.search(r"^Starting (\d+) (?:process|thread)", text, re.MULTILINE):
        return (
            f"fio started {started[1]} job(s) but the file ends before any job's report: the "
            "run did not finish or the output was cut"
        )
    return "no fio results found (no JSON document, terse record or job report)"


def line_col(text: str, pos: int) -> str:
    """`line L, column C` of character offset `pos`."""
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


def signal_line(text: str) -> str:
    """fio's `fio: terminating on signal N` line, or "" when fio was not interrupted."""
    for line in text.splitlines():
        if "terminating on signal" in line:
            return line.strip()
    return ""


def epoch(seconds: float | None) -> dt.datetime | None:
    """A UTC time from fio's epoch seconds; fio writes 0 when it has no time."""
    if seconds is None or seconds <= 0:
        return None
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)


def version_tuple(version: str | None) -> tuple[int, int]:
    """(major, minor) of `fio-3.36`; an unknown version is taken as a recent 3.x."""
    match = re.search(r"fio-(\d+)\.(\d+)", version or "")
    return (int(match[1]), int(match[2])) if match else (3, 99)


def job_state(
    error: int, finished: bool = True, surrounding_text: str | None = None
) -> tuple[RunState, str | None]:
    """(state, reason) of one job: fio's error code first, then a run without its final
    report, then a run fio was told to stop (its `terminating on signal` line)."""
    if error:
        return RunState.error, f"fio reported error {error} for this job"
    if not finished:
        return RunState.unfinished, "no final report (eta == 0): the run did not finish"
    interrupted = signal_line(surrounding_text or "")
    if interrupted:
        return RunState.unfinished, "fio was interrupted: " + interrupted
    return RunState.ok, None
