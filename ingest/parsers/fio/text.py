"""Reading the free text around fio's results: where a file's first words are, what fio's
error lines say, whether fio was interrupted, and fio's timestamps."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ingest.records import RunState

# fio's error line for a job (`td_verror`): `fio: pid=21475, err=13/file:filesetup.c:805,
# func=open(/x), error=Permission denied`. In client mode it follows the server's `<host> `
# prefix and may be glued to an ETA line (`Jobs: 0 (f=0)<vm> fio: pid=...`).
_ERROR_LINE = re.compile(r"fio: pid=(?P<pid>\d+), err=(?P<err>-?\d+)/(?P<rest>.*?)\s*$")
# What fio says after the code, in the error line and in a job header's `err=13 (...)`: the
# source location, then the failed call and the error text.
_ERROR_WHERE = re.compile(r"^(?P<where>file:[^,]*),\s*(?P<cause>.*)$")
_STARTED = re.compile(r"^(?:<[^>\n]+> )?Starting (\d+) (?:process|thread)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class FioError:
    """One error fio reported for a job, where the file says it."""

    line: int
    code: int
    pid: int | None
    text: str  # `file:filesetup.c:805, func=open(/x), error=Permission denied` as printed

    @property
    def cause(self) -> str:
        """`func=open(/x), error=Permission denied (line 4, file:filesetup.c:805)`."""
        match = _ERROR_WHERE.match(self.text)
        if match is None:
            return f"{self.text} (line {self.line})"
        return f"{match['cause']} (line {self.line}, {match['where']})"


def error_in(line: str, number: int) -> FioError | None:
    """The error fio reports on `line` (line `number` of the file), if it is an error line."""
    match = _ERROR_LINE.search(line)
    if match is None:
        return None
    return FioError(number, int(match["err"]), int(match["pid"]), match["rest"])


# `_ERROR_LINE` over a whole text at once: the first error of each line, to its end.
_ERROR_LINES = re.compile(
    r"fio: pid=(?P<pid>\d+), err=(?P<err>-?\d+)/(?P<rest>[^\n]*?)[^\S\n]*$", re.MULTILINE
)


def error_lines(text: str, spans: Iterable[tuple[int, int]] | None = None) -> list[FioError]:
    """fio's `fio: pid=N, err=E/...` lines, in file order; only those in `spans` (ascending
    (start, end) offsets, each ending at a line's end) when given. One regex pass over the text
    and newlines counted between matches only: a regex call per line was a third of the load of
    an HCIBench status-interval file (190,000 lines, none of them an error line)."""
    errors, line, pos = [], 1, 0
    for begin, end in [(0, len(text))] if spans is None else spans:
        for match in _ERROR_LINES.finditer(text, begin, end):
            line += text.count("\n", pos, match.start())
            pos = match.start()
            errors.append(FioError(line, int(match["err"]), int(match["pid"]), match["rest"]))
    return errors


def error_for(code: int, errors: Iterable[FioError], used: set[int]) -> FioError | None:
    """The error line that explains a job's error `code` in a form that names no pid (JSON,
    terse): the first one with that code not yet given to another job, else the first one."""
    same = [e for e in errors if e.code == code]
    fresh = [e for e in same if e.line not in used]
    chosen = (fresh or same or [None])[0]
    if chosen is not None:
        used.add(chosen.line)
    return chosen


def first_text_line(text: str) -> str:
    """`line N` of the first non-blank line, for errors about the file as a whole."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return f"line {number}"
    return "byte 0"


def _error_text_lines(text: str) -> list[tuple[int, str]]:
    return [
        (number, ln.strip())
        for number, ln in enumerate(text.splitlines(), 1)
        if ln.startswith("fio:") or "error" in ln.lower()
    ]


def no_result_reason(text: str) -> str:
    """Why a file holds no fio result, quoting fio's own error lines when it wrote some."""
    errors = [line for _, line in _error_text_lines(text)]
    if errors:
        shown = "; ".join(errors[:3])
        return f"no fio results, only fio error text: {shown[:300]}"
    if started := _STARTED.search(text):
        return (
            f"fio started {started[1]} job(s) but the file ends before any job's report: the "
            "run did not finish or the output was cut"
        )
    return "no fio results found (no JSON document, terse record or job report)"


def no_result_location(text: str) -> str:
    """Where the line `no_result_reason` speaks of is: fio's first error line, else the line
    where fio started its jobs, else the first line of the file."""
    errors = _error_text_lines(text)
    if errors:
        return f"line {errors[0][0]}"
    if started := _STARTED.search(text):
        return f"line {text.count(chr(10), 0, started.start()) + 1}"
    return first_text_line(text)


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
    error: int,
    finished: bool = True,
    surrounding_text: str | None = None,
    cause: FioError | None = None,
) -> tuple[RunState, str | None]:
    """(state, reason) of one job: fio's error code first (with fio's own words and their
    line when the file holds them), then a run without its final report, then a run fio was
    told to stop (its `terminating on signal` line)."""
    if error:
        said = f": {cause.cause}" if cause is not None else ""
        return RunState.error, f"fio reported error {error} for this job{said}"
    if not finished:
        return RunState.unfinished, "no final report (eta == 0): the run did not finish"
    interrupted = signal_line(surrounding_text or "")
    if interrupted:
        return RunState.unfinished, "fio was interrupted: " + interrupted
    return RunState.ok, None
