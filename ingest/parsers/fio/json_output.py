"""fio's JSON and json+ output: one report, `--status-interval` streams, normal+JSON files and
client/server (`client_stats`) output, with any text fio printed before it."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import asdict, dataclass
from typing import Any

from ingest.parsers._common import parse_size_bytes
from ingest.parsers.fio.intervals import interval_rows, wall_runtime_ms
from ingest.parsers.fio.json_directions import (
    DIRECTIONS,
    direction_row,
    directions_of,
    disk_util_rows,
)
from ingest.parsers.fio.json_documents import Document, options_blocks, split_documents
from ingest.parsers.fio.records import FioJob, FioJobDirection, FioRun, cpu_columns
from ingest.parsers.fio.text import (
    FioError,
    epoch,
    error_for,
    error_lines,
    job_state,
    no_result_location,
    no_result_reason,
    version_tuple,
)
from ingest.parsers.fio.workload import (
    Workload,
    group_keys,
    int_option,
    measured_read_pct,
    workload_of,
)
from ingest.records import Parsed, ParseError, SourceFile

_KEYED_AS_DEFAULTS = {"rw": "read"}
_NORMAL_JOB_HEADER = re.compile(r"\((?:groupid=\d+, jobs=\d+|g=\d+)\)")


@dataclass(slots=True)
class _Stream:
    """The documents of a file and the one that holds the result."""

    text: str
    documents: list[Document]
    final_index: int | None  # the final report; None when the run did not finish
    result: Document
    leading: str | None  # text before the first document (warnings, errors, banners)
    global_options: dict[str, Any] | None
    job_options: list[dict[str, Any]]  # the `job options` objects of the result, in order

    @property
    def finished(self) -> bool:
        return self.final_index is not None

    @property
    def version(self) -> str | None:
        return self.result.value.get("fio version")

    @property
    def ended_at(self) -> dt.datetime | None:
        doc = self.result.value
        return epoch((doc.get("timestamp_ms") or 0) / 1000 or doc.get("timestamp"))


def _stream(text: str, documents: list[Document]) -> _Stream:
    # Status dumps (--status-interval) are cumulative; the final report is the LAST document
    # whose jobs say eta == 0. Not the first (what HCIBench keeps): fio 3.33 writes a status
    # dump with eta == 0 just before its final report, and that dump misses the run's last
    # I/Os (11,646 of 12,001 in a 6 s run).
    final_index = next((i for i in reversed(range(len(documents))) if documents[i].is_final), None)
    result = documents[final_index if final_index is not None else -1]
    blocks = options_blocks(text[result.start : result.end])
    global_options = next((o for name, o in blocks if name == "global options"), None)
    if global_options is None and isinstance(result.value.get("global options"), dict):
        global_options = result.value["global options"]
    stream = _Stream(
        text=text,
        documents=documents,
        final_index=final_index,
        result=result,
        leading=text[: documents[0].start].strip() or None,
        global_options=global_options,
        job_options=[o for name, o in blocks if name == "job options"],
    )
    if final_index is None and _is_short_run_final(stream):
        stream.final_index = len(documents) - 1
    return stream


def _is_short_run_final(stream: _Stream) -> bool:
    """The last document says eta == INT_MAX and every job in it met its own completion
    criteria: the final report of a run shorter than about 1 s (Debian's fio 3.33 writes no
    eta == 0 there). A status dump is never final: a later document follows it, or its jobs
    have not yet run their runtime / size."""
    if not stream.result.is_eta_unknown:
        return False
    version = version_tuple(stream.version)
    return all(
        met_own_completion(entry, flat, version)
        for entry, (flat, _) in zip(stream.result.entries, _entry_options(stream), strict=True)
    )


def parse_json_stream(text: str, source: SourceFile) -> Parsed:
    documents, truncated = split_documents(text, source)
    if not documents:
        raise ParseError(source.path, no_result_location(text), no_result_reason(text))
    stream = _stream(text, documents)
    parsed = Parsed()
    if truncated:
        parsed.notes.append(truncated)
    if stream.finished and not stream.result.is_final:
        parsed.notes.append(
            "the last JSON document says eta unknown (INT_MAX) but every job ran its runtime "
            "or size: taken as fio's final report (a run shorter than about 1 s)"
        )
    if not stream.finished:
        parsed.notes.append(
            f"no final report among {len(documents)} JSON document(s): the run did not finish; "
            "jobs are stored as unfinished"
        )
    parsed.add("fio_runs", [_run_row(stream)])
    _add_jobs(stream, parsed)
    parsed.add("fio_disk_util", disk_util_rows(stream.result.value))
    if len(documents) > 1:
        parsed.add(
            "fio_intervals",
            interval_rows(documents, stream.final_index, version_tuple(stream.version)),
        )
    return parsed


def _output_format(stream: _Stream) -> str:
    """`json` or `json+` (latency bins), `normal+` in front when a normal report is there too."""
    output_format = (
        "json+" if "bins" in stream.text[stream.result.start : stream.result.end] else "json"
    )
    around = (stream.leading or "") + stream.text[stream.documents[-1].end :]
    return ("normal+" if _NORMAL_JOB_HEADER.search(around) else "") + output_format


def _run_row(stream: _Stream) -> FioRun:
    return FioRun(
        run_index=0,
        fio_version=stream.version,
        output_format=_output_format(stream),
        terse_version=None,
        is_client_mode=stream.result.is_client_mode,
        status_dump_count=len(stream.documents),
        is_finished=stream.finished,
        ended_at=stream.ended_at,
        local_time_text=stream.result.value.get("time"),
        global_options_json=stream.global_options,
        leading_text=stream.leading[:4000] if stream.leading else None,
    )


def _entry_options(stream: _Stream) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(options as single values, options as written) of each job entry: the global options
    overlaid with the entry's own. Options read from the text keep repeated keys as lists;
    the last value is the one fio used."""
    out = []
    cursor = 0
    for entry in stream.result.entries:
        options = dict(stream.global_options or {})
        if "job options" in entry:
            own = (
                stream.job_options[cursor]
                if cursor < len(stream.job_options)
                else entry["job options"]
            )
            cursor += 1
            options.update(own)
        flat = {k: (v[-1] if isinstance(v, list) else v) for k, v in options.items()}
        out.append((flat, options))
    return out


def _add_jobs(stream: _Stream, parsed: Parsed) -> None:
    entries = stream.result.entries
    options = _entry_options(stream)
    workloads = [
        workload_of(flat, measured_read_pct(e))
        for e, (flat, _) in zip(entries, options, strict=True)
    ]
    # An entry without options (fio 2.1 JSON) has always been keyed as fio's defaults, not as
    # its measured mix: kept, since result ids downstream are hashed from the key.
    keys = group_keys(
        (0, e.get("groupid", 0), workload_of(flat or _KEYED_AS_DEFAULTS))
        for e, (flat, _) in zip(entries, options, strict=True)
    )
    lat_pct_on = str((stream.global_options or {}).get("lat_percentiles", "0")) == "1"
    vtuple = version_tuple(stream.version)
    errors, used = _text_errors(stream), set()
    jobs: list[FioJob] = []
    directions: list[FioJobDirection] = []
    for index, entry in enumerate(entries):
        flat, raw = options[index]
        job_lat_pct = lat_pct_on or str(flat.get("lat_percentiles", "0")) == "1"
        rows, kind = directions_of(index, entry, vtuple, job_lat_pct, parsed)
        directions.extend(rows)
        key = keys[(0, int(entry.get("groupid", 0)))]
        error = int(entry.get("error", 0) or 0)
        cause = error_for(error, errors, used) if error else None
        jobs.append(_job_row(stream, index, entry, workloads[index], raw, key, kind, cause))
    parsed.add("fio_jobs", jobs)
    parsed.add("fio_job_directions", directions)


def _text_errors(stream: _Stream) -> list[FioError]:
    """fio's error lines in the text around the JSON documents (stderr kept with stdout). Only
    that text is searched: the documents' lines are JSON, and nearly all of a status-interval
    file (a search of the whole text was about 5 % of its load)."""
    return error_lines(stream.text, _outside_documents(stream.text, stream.documents))


def _outside_documents(text: str, documents: list[Document]) -> list[tuple[int, int]]:
    """The spans of text on no line of a document: before the first, between two, after the
    last. A document's lines run from its `{` in column 0 to the end of the line of its `}`."""
    spans, pos = [], 0
    for document in documents:
        spans.append((pos, document.start))
        line_end = text.find("\n", document.end)
        pos = len(text) if line_end == -1 else line_end
    spans.append((pos, len(text)))
    return spans


def _started_at(entry: dict[str, Any], ended_at: dt.datetime | None) -> dt.datetime | None:
    """fio 3.x's `job_start`, else the end minus the wall-clock runtime."""
    if entry.get("job_start"):
        return epoch(entry["job_start"] / 1000)
    runtime_ms = wall_runtime_ms(entry)
    if ended_at and runtime_ms:
        return ended_at - dt.timedelta(milliseconds=runtime_ms)
    return None


def _job_row(
    stream: _Stream,
    index: int,
    entry: dict[str, Any],
    workload: Workload,
    raw_options: dict[str, Any],
    workload_key: str,
    percentile_kind: str | None,
    cause: FioError | None,
) -> FioJob:
    jobname = entry.get("jobname", "")
    error = int(entry.get("error", 0) or 0)
    state, reason = job_state(error, stream.finished, stream.leading, cause)
    return FioJob(
        run_index=0,
        job_index=index,
        jobname=jobname,
        groupid=int(entry.get("groupid", 0)),
        hostname=entry.get("hostname"),
        port=entry.get("port"),
        is_all_clients_aggregate=stream.result.is_client_mode and jobname == "All clients",
        state=state,
        state_reason=reason,
        error_code=error,
        eta_s=entry.get("eta"),
        elapsed_s=entry.get("elapsed"),
        job_runtime_ms=entry.get("job_runtime"),
        started_at=_started_at(entry, stream.ended_at),
        ended_at=stream.ended_at,
        **cpu_columns(tuple(entry.get(k) for k in ("usr_cpu", "sys_cpu", "ctx", "majf", "minf"))),
        **asdict(workload),
        options_json=raw_options or None,
        workload_key=workload_key,
        percentile_kind=percentile_kind,
    )


_TIME = re.compile(r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]*)")
_TIME_UNIT_MS = {
    "": 1000.0, "s": 1000.0, "sec": 1000.0, "us": 0.001, "usec": 0.001, "ms": 1.0,
    "msec": 1.0, "m": 60_000.0, "min": 60_000.0, "h": 3_600_000.0, "hour": 3_600_000.0,
    "d": 86_400_000.0, "day": 86_400_000.0,
}  # fmt: skip


def time_option_ms(value: object) -> float | None:
    """A fio time option (`runtime=3`, `300ms`, `1m`) in ms: a bare number is seconds."""
    match = _TIME.fullmatch(str(value).strip().lower()) if value is not None else None
    if match is None or match["unit"] not in _TIME_UNIT_MS:
        return None
    return float(match["number"]) * _TIME_UNIT_MS[match["unit"]]


def met_own_completion(entry: dict[str, Any], options: dict[str, Any], version: tuple) -> bool:
    """Whether a job entry shows the job reached what its options ask it to do.

    A single document with eta == INT_MAX is either a final report (a short run) or the first
    status dump of a run killed after it; only the job's own criteria tell them apart. It has
    run its `runtime` (fio stops there, `time_based` or not: the wall-clock runtime, since
    `job_runtime` is summed over a group_reporting group), or, not `time_based`, it did the
    I/O its `io_size` (else `size`) asks for. fio leaves `--time_based` out of the options it
    prints, so a job looping over its size is told by its bytes: more than size x loops."""
    runtime_ms = time_option_ms(options.get("runtime"))
    if runtime_ms and (wall_runtime_ms(entry) or 0) >= runtime_ms:
        return True
    if _flag_set(options, "time_based"):
        return False
    workload = workload_of(options)
    kb_base = int_option(options.get("kb_base")) or 1024
    size = options.get("io_size") or options.get("io_limit") or options.get("size")
    target = parse_size_bytes(size, kb_base)
    if not target or not workload.block_size_bytes:
        return False
    group = (workload.numjobs or 1) if _flag_set(options, "group_reporting") else 1
    expected = target * (int_option(options.get("loops")) or 1) * group
    # read + write + trim; `mixed` alone with unified_rw_reporting
    names = [n for n in DIRECTIONS if n != "mixed" and isinstance(entry.get(n), dict)]
    done = sum(
        direction_row(0, 0, name, entry[name], version).io_bytes
        for name in names or [n for n in ("mixed",) if isinstance(entry.get(n), dict)]
    )
    # fio stops at the last whole block within the size
    return expected - workload.block_size_bytes < done <= expected


def _flag_set(options: dict[str, Any], name: str) -> bool:
    """A boolean fio option: `time_based` written bare (an empty value) or `=1` is set."""
    value = options.get(name)
    return value is not None and str(value).strip() != "0"
