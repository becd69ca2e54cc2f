"""fio's terse (minimal) output, versions 2 to 5: one `;`-separated record per job, latencies
in usec, integer IOPS, no job options; in client mode each record may follow ETA text and the
servers' disk lines stand alone (`;sda;...`)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ingest.parsers._common import unterminated_last_line
from ingest.parsers.fio import records as fio_records
from ingest.parsers.fio.normal import job_definitions, workload_options
from ingest.parsers.fio.records import RowLines
from ingest.parsers.fio.text import FioError, error_for, error_lines, first_text_line, job_state
from ingest.parsers.fio.workload import Workload, group_keys, int_option, workload_of
from ingest.records import Parsed, ParseError, SourceFile

TERSE_LINE = re.compile(r"[3-5];fio-\d[^;\n]*;")
TERSE_V2 = re.compile(r"^2;[^;\n]*;\d+;\d+;", re.MULTILINE)
_CPU_FIELD = re.compile(r"^-?\d+(\.\d+)?%$")
# Fields after the directions: usr, sys, ctx, majf, minf, then IO depth (7), latency
# distribution in usec (10) and in msec (12), then disk util (v3+).
_AFTER_CPU = 5 + 7 + 10 + 12


@dataclass(slots=True)
class _Direction:
    io_kib: int
    bw_kib: int
    iops: int
    runtime: int
    slat_us: list[float]  # min, max, mean, stddev
    clat_us: list[float]
    lat_us: list[float]
    percentiles: dict[float, float]  # clat, usec
    bw: list[float]  # min, max, agg %, mean, stddev (KiB/s), as terse orders them
    bw_samples: int | None = None
    iops_stats: list[float | None] = field(default_factory=lambda: [None] * 5)


@dataclass(slots=True)
class _Record:
    line: int
    version: int
    fio_version: str | None
    jobname: str
    groupid: int
    error: int
    directions: dict[str, _Direction]
    cpu: tuple[float, float, int, int, int]  # usr %, sys %, ctx, majf, minf


def _percent(value: str) -> float:
    return float(value.rstrip("%"))


def _read_direction(fields: list[str], i: int, version: int) -> tuple[_Direction, int]:
    """One direction block starting at fields[i]; returns it and the next index."""
    us = [float(v) for v in fields[i + 4 : i + 12]]
    percentiles = {}
    for item in fields[i + 12 : i + 32]:
        pct, _, value = item.partition("%=")
        if float(pct) > 0:
            percentiles[float(pct)] = float(value)
    block = _Direction(
        io_kib=int(fields[i]),
        bw_kib=int(fields[i + 1]),
        iops=int(fields[i + 2]),
        runtime=int(fields[i + 3]),
        slat_us=us[0:4],
        clat_us=us[4:8],
        lat_us=[float(v) for v in fields[i + 32 : i + 36]],
        percentiles=percentiles,
        bw=[_percent(v) for v in fields[i + 36 : i + 41]],
    )
    i += 41
    if version == 5:
        block.bw_samples = int(fields[i])
        block.iops_stats = [float(v) for v in fields[i + 1 : i + 6]]
        i += 6
    return block, i


def _split_record(line: str) -> tuple[int, list[str]] | None:
    """(terse version, fields) of a record line, skipping client-mode text before it."""
    match = TERSE_LINE.search(line)
    if match:
        return int(line[match.start()]), line[match.start() :].split(";")
    if line.startswith("2;") and line.count(";") >= 100:
        return 2, line.split(";")
    return None


def _read_record(
    number: int, version: int, fields: list[str], disks: list[fio_records.FioDiskUtil]
) -> _Record:
    """One job record; its disk util fields (v3+) are added to `disks`."""
    offset = 5 if version != 2 else 4  # v2 has no fio version field
    i = offset
    directions: dict[str, _Direction] = {}
    for name in ["read", "write", "trim"] if version in (2, 4, 5) else ["read", "write"]:
        if _CPU_FIELD.match(fields[i]) and _CPU_FIELD.match(fields[i + 1]):
            break  # unified_rw_reporting prints one block only
        directions[name], i = _read_direction(fields, i, version)
    if len(directions) == 1:
        directions = {"mixed": directions["read"]}
    cpu = (
        _percent(fields[i]),
        _percent(fields[i + 1]),
        int(fields[i + 2]),
        int(fields[i + 3]),
        int(fields[i + 4]),
    )
    i += _AFTER_CPU
    if version >= 3 and i < len(fields):
        disks.extend(disk_rows(fields[i:], None))
    return _Record(
        line=number,
        version=version,
        fio_version=fields[1] if version != 2 else None,
        jobname=fields[offset - 3],
        groupid=int(fields[offset - 2]),
        error=int(fields[offset - 1]),
        directions=directions,
        cpu=cpu,
    )


def _read_records(
    text: str, source: SourceFile
) -> tuple[list[_Record], list[fio_records.FioDiskUtil], list[int], list[str]]:
    """The records, disk rows with the line of each, and notes; a last record without its
    line end was cut (fio ends every record), so any of its fields may be a prefix of fio's
    value: it is dropped."""
    records: list[_Record] = []
    disks: list[fio_records.FioDiskUtil] = []
    disk_lines: list[int] = []
    notes: list[str] = []
    cut = unterminated_last_line(text)
    cut_record = None
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith(";") and line.count(";") >= 9:  # client-mode disk util line
            disks.extend(disk_rows(line.split(";")[1:], None))
            disk_lines.extend([number] * (len(disks) - len(disk_lines)))
            continue
        split = _split_record(line)
        if split is None:
            continue
        version, fields = split
        if number == cut:
            notes.append(f"line {number}: the last terse record is cut (no line end): dropped")
            cut_record = number
            continue
        try:
            records.append(_read_record(number, version, fields, disks))
        except (IndexError, ValueError) as exc:
            raise ParseError(
                source.path, f"line {number}", f"terse v{version} record is malformed ({exc})"
            ) from None
        disk_lines.extend([number] * (len(disks) - len(disk_lines)))
    if not records:
        if cut_record is not None:  # the one record there was is cut: that line is the problem
            raise ParseError(source.path, f"line {cut_record}", notes[0])
        raise ParseError(source.path, _first_record_like_line(text), "no terse records found")
    return records, disks, disk_lines, notes


def _first_record_like_line(text: str) -> str:
    """`line N` of the first line that starts like a terse record but is none (a v2 line
    with fewer than 100 fields), else of the first line."""
    for number, line in enumerate(text.split("\n"), 1):
        if TERSE_LINE.search(line) or TERSE_V2.match(line):
            return f"line {number}"
    return first_text_line(text)


def parse_terse(text: str, source: SourceFile) -> tuple[Parsed, RowLines]:
    """The rows of a terse file, and the line of each job's record (where its directions'
    values are, for an error about them)."""
    records, disks, disk_lines, cut_notes = _read_records(text, source)
    client_mode = "All clients" in [r.jobname for r in records]
    definitions = job_definitions(text)
    errors, used = error_lines(text), set()
    parsed = Parsed()
    jobs = [
        _job_row(
            index,
            r,
            client_mode,
            definitions.get((r.jobname, r.groupid)),
            error_for(r.error, errors, used) if r.error else None,
        )
        for index, r in enumerate(records)
    ]
    keys = group_keys((0, job.groupid, _keyed_workload(job)) for job in jobs)
    versions = sorted({r.fio_version or "" for r in records})
    parsed.add(
        "fio_runs",
        [
            fio_records.FioRun(
                run_index=0,
                fio_version=versions[-1] or None,
                output_format="terse",
                terse_version=records[-1].version,
                is_client_mode=client_mode,
                status_dump_count=1,
                is_finished=True,
                ended_at=None,
                local_time_text=None,
                global_options_json=None,
                leading_text=None,
            )
        ],
    )
    parsed.add("fio_jobs", [replace(job, workload_key=keys[(0, job.groupid)]) for job in jobs])
    parsed.add(
        "fio_job_directions", [row for i, r in enumerate(records) for row in _direction_rows(i, r)]
    )
    parsed.add(
        "fio_latency_percentiles",
        [row for i, r in enumerate(records) for row in _percentile_rows(i, r)],
    )
    parsed.add("fio_disk_util", disks)
    parsed.notes.extend([*cut_notes, *_notes(jobs)])
    lines = {(0, i, name): r.line for i, r in enumerate(records) for name in [*r.directions, ""]}
    lines.update({(-1, n, "disk"): line for n, line in enumerate(disk_lines)})
    return parsed, lines


def _keyed_workload(job: fio_records.FioJob) -> Workload:
    """What keys a terse job's group: its options when the report lists them, else only the
    measured read share (as terse files have always been keyed, so result ids stay)."""
    if job.options_json:
        return Workload(**{k: getattr(job, k) for k in Workload.__slots__})
    return Workload(read_pct=job.read_pct)


def _notes(jobs: list[fio_records.FioJob]) -> list[str]:
    notes = ["terse output: IOPS are integers, total I/O counts are derived from IOPS x runtime"]
    if without := [j.jobname for j in jobs if not j.options_json]:
        notes.append(
            f"job options (queue depth, pattern) are not in the file for {len(without)} of "
            f"{len(jobs)} job(s)"
        )
    if derived := [j for j in jobs if j.is_block_size_derived]:
        sizes = sorted({j.block_size_bytes for j in derived})
        notes.append(
            f"block size derived from bytes per I/O for {len(derived)} job(s): {sizes} bytes"
        )
    return notes


def _job_row(
    index: int,
    record: _Record,
    client_mode: bool,
    options: dict[str, str] | None,
    cause: FioError | None,
) -> fio_records.FioJob:
    """A job row; its workload_key is filled in once every job's group is known. Options come
    from the report's definition line when the file has one; a failed job's cause from fio's
    error line."""
    runtime_ms = max(d.runtime for d in record.directions.values())
    read_kib = record.directions.get("read", record.directions.get("mixed")).io_kib
    write = record.directions.get("write")
    write_kib = write.io_kib if write else 0
    read_pct = round(100 * read_kib / (read_kib + write_kib)) if read_kib + write_kib else None
    state, reason = job_state(record.error, cause=cause)
    if options:
        workload = replace(
            workload_of(workload_options(options)), numjobs=int_option(options.get("numjobs"))
        )
        block_size = None
    else:
        block_size = derived_block_size(list(record.directions.values()))
        workload = Workload(read_pct=read_pct, block_size_bytes=block_size)
    return fio_records.FioJob(
        run_index=0,
        job_index=index,
        jobname=record.jobname,
        groupid=record.groupid,
        is_all_clients_aggregate=client_mode and record.jobname == "All clients",
        state=state,
        state_reason=reason,
        error_code=record.error,
        job_runtime_ms=runtime_ms,
        **fio_records.NO_HOST_OR_TIMES,
        **fio_records.cpu_columns(record.cpu),
        **asdict(workload),
        options_json=options or None,
        workload_key="",
        percentile_kind="clat",
        is_block_size_derived=block_size is not None,
    )


def derived_block_size(directions: list[_Direction]) -> int | None:
    """The block size from bytes per I/O, when exactly one power of two fits.

    Terse gives KiB moved (truncated), runtime in ms and IOPS as fio's integer division
    `1000 * ios / runtime`, so the I/O count lies in [iops, iops + 1) x runtime / 1000 and
    bytes per I/O in a small interval; a single power of two (512 B and up) in it is the block
    size. Mixed sizes (bssplit) or too few I/Os to tell give None."""
    ran = [d for d in directions if d.runtime > 0 and d.io_kib > 0]
    if not ran:
        return None
    bytes_low = sum(d.io_kib * 1024 for d in ran)
    bytes_high = bytes_low + 1024 * len(ran)
    ios_low = sum(d.iops * d.runtime / 1000 for d in ran)
    ios_high = sum((d.iops + 1) * d.runtime / 1000 for d in ran)
    if ios_low <= 0:
        return None
    fits = [2**n for n in range(9, 31) if bytes_low / ios_high <= 2**n <= bytes_high / ios_low]
    return fits[0] if len(fits) == 1 else None


def _us_to_ns(values: list[float]) -> tuple[Any, ...]:
    """Terse (min, max, mean, stddev) in usec as latency stats in ns; terse has no counts."""
    return (*(v * 1000 for v in values), None)


def _direction_rows(job_index: int, record: _Record) -> list[fio_records.FioJobDirection]:
    rows = []
    for name, d in record.directions.items():
        bw_min, bw_max, bw_agg, bw_mean, bw_dev = d.bw
        rows.append(
            fio_records.FioJobDirection(
                run_index=0,
                job_index=job_index,
                direction=name,
                total_ios=round(d.iops * d.runtime / 1000),
                is_total_ios_derived=True,
                short_ios=None,
                drop_ios=None,
                io_bytes=d.io_kib * 1024,
                bw_bytes_per_s=float(d.bw_kib * 1024),
                iops=float(d.iops),
                runtime_ms=d.runtime,
                **fio_records.spread_columns(
                    _us_to_ns(d.slat_us),
                    _us_to_ns(d.clat_us),
                    _us_to_ns(d.lat_us),
                    (bw_min, bw_max, bw_mean, bw_dev, bw_agg, d.bw_samples),
                    tuple(d.iops_stats),
                ),
            )
        )
    return rows


def _percentile_rows(job_index: int, record: _Record) -> list[fio_records.FioLatencyPercentile]:
    """The clat percentiles of each direction that did I/O: fio prints `1.000000%=0` for a
    direction that did none (a read-only job's write block, a job that failed), which is no
    latency (the JSON form leaves them out)."""
    return [
        fio_records.FioLatencyPercentile(0, job_index, name, "clat", p, v * 1000)
        for name, d in record.directions.items()
        if d.io_kib or d.iops
        for p, v in d.percentiles.items()
    ]


def disk_rows(fields: list[str], hostname: str | None) -> list[fio_records.FioDiskUtil]:
    """Disk util groups of 9 fields: name, read/write ios, merges, ticks, in_queue, util %."""
    rows = []
    for i in range(0, len(fields) - 8, 9):
        chunk = fields[i : i + 9]
        if not chunk[0] or not chunk[8].endswith("%"):
            continue
        counts = [int(v) for v in chunk[1:8]]
        rows.append(fio_records.FioDiskUtil(0, hostname, chunk[0], *counts, _percent(chunk[8])))
    return rows
