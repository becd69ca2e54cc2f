"""fio's normal (human-readable) report, read as a last resort: the unit changes per line
(nsec/usec/msec, KiB/MiB/GiB, `k`/`M` suffixes); with `--status-interval` each job block
repeats and the last one is the result. Several fio runs may follow each other in one file.

A job that failed before any I/O has no block at all: fio prints only its definition line and
its error line (`fio: pid=..., err=13/file:filesetup.c:805, func=open(...), error=...`). Such
a job is stored in state `error` with fio's words, like the JSON form stores it. In client mode
the server's lines carry a `<host> ` prefix, and the `All clients` aggregate block follows the
disk stats."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ingest.parsers._common import line_error, parse_size_bytes
from ingest.parsers.fio.records import (
    NO_BANDWIDTH,
    NO_HOST_OR_TIMES,
    NO_IOPS,
    FioDiskUtil,
    FioJob,
    FioJobDirection,
    FioLatencyPercentile,
    FioRun,
    RowLines,
    cpu_columns,
    spread_columns,
)
from ingest.parsers.fio.text import (
    FioError,
    error_for,
    error_in,
    job_state,
    no_result_location,
    no_result_reason,
)
from ingest.parsers.fio.workload import Workload, group_keys, int_option, workload_of
from ingest.records import Parsed, ParseError, RunState, SourceFile

# `name: (groupid=0, jobs=1): err= 0: pid=4242: <time>`; a failed job's header says why in
# parentheses: `err=13 (file:filesetup.c:805, func=open(/x), error=Permission denied): pid=`.
_JOB_HEADER = re.compile(
    r"^(?P<name>\S.*?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
    r"(?: \((?P<why>.*)\))?(?:: pid=(?P<pid>\d+))?"
)
_JOB_DEFINITION = re.compile(r"^(?P<name>\S.*?): \(g=(?P<g>\d+)\): (?P<opts>rw=.*)$")
# Client mode: what a server printed comes prefixed with its name (`<vm> Starting 1 process`).
_HOST_PREFIX = re.compile(r"^<[^>\n]+> ")
_CLIENT_BANNER = re.compile(r"^hostname=.*, fio=fio-", re.MULTILINE)
_ALL_CLIENTS = "All clients"
# A report is there when a job block is, or when a defined job only has fio's error line.
_HEADER_ANYWHERE = re.compile(r"\(groupid=\d+, jobs=\d+\): err=")
_DEFINITION_ANYWHERE = re.compile(r"^(?:<[^>\n]+> )?\S.*?: \(g=\d+\): rw=", re.MULTILINE)
_VERSION_LINE = re.compile(r"^fio-(\d+\.\d+\S*)\s*$")
_DIR_LINE = re.compile(
    r"^\s+(?P<dir>(?i:read|write|trim|mixed))\s*:\s*IOPS=(?P<iops>[\d.]+[kKMG]?), "
    r"BW=(?P<bw>[\d.]+)(?P<bwu>[KMGT]?i?B)/s"
    r".*?\((?P<io>[\d.]+)(?P<iou>[KMGTP]?i?B)/(?P<rt>\d+)msec\)"
)
_OLD_DIR_LINE = re.compile(
    r"^\s+(?P<dir>(?i:read|write|trim|mixed))\s*:\s*io=(?P<io>[\d.]+)(?P<iou>[KMGT]?B), "
    r"bw=(?P<bw>[\d.]+)(?P<bwu>[KMGT]?B)/s,"
    r"\s*iops=(?P<iops>[\d.]+[kKM]?)\s*, runt=\s*(?P<rt>\d+)msec"
)
_LAT_LINE = re.compile(
    r"^\s+(?P<kind>slat|clat|lat)\s+\((?P<unit>nsec|usec|msec)\):\s*min=\s*(?P<min>[\d.]+[kKM]?),\s*"
    r"max=\s*(?P<max>[\d.]+[kKM]?),\s*avg=\s*(?P<avg>[\d.]+),\s*stdev=\s*(?P<sd>[\d.]+)"
)
_PCT_HEADER = re.compile(r"^\s+(?P<kind>clat|lat|slat) percentiles \((?P<unit>nsec|usec|msec)\):")
_PCT_VALUE = re.compile(r"(?P<p>[\d.]+)th=\[\s*(?P<v>\d+)\]")
_BW_LINE = re.compile(
    r"^\s+bw \(\s*(?P<unit>[KMG]i?B)\s*/s\):\s*min=\s*(?P<min>[\d.]+),\s*max=\s*(?P<max>[\d.]+),\s*"
    r"per=(?P<per>[\d.]+)%,\s*avg=\s*(?P<avg>[\d.]+),\s*stdev=\s*(?P<sd>[\d.]+)(?:,\s*samples=\s*(?P<n>\d+))?"
)
_IOPS_LINE = re.compile(
    r"^\s+iops\s*:\s*min=\s*(?P<min>[\d.]+),\s*max=\s*(?P<max>[\d.]+),\s*avg=\s*(?P<avg>[\d.]+),\s*"
    r"stdev=\s*(?P<sd>[\d.]+)(?:,\s*samples=\s*(?P<n>\d+))?"
)
_CPU_LINE = re.compile(
    r"^\s+cpu\s*:\s*usr=(?P<usr>[\d.]+)%,\s*sys=(?P<sys>[\d.]+)%,\s*ctx=(?P<ctx>\d+),\s*majf=(?P<majf>\d+),\s*minf=(?P<minf>\d+)"
)
_ISSUED = re.compile(
    r"^\s+issued rwts?:\s*total=(?P<total>[\d,]+)\s+short=(?P<short>[\d,]+)\s+"
    r"drop(?:ped)?=(?P<drop>[\d,]+)"
)
# fio 2.1/2.2: `issued    : total=r=262144/w=0/d=0, short=r=0/w=0/d=0, drop=r=0/w=0/d=0`;
# fio 2.0: `issued r/w/d: total=262144/0/0, short=0/0/0`.
_OLD_ISSUED = re.compile(
    r"^\s+issued(?: r/w(?:/d)?)?\s*:\s*total=(?P<total>[rwd=\d/]+),\s*short=(?P<short>[rwd=\d/]+)"
    r"(?:,\s*drop=(?P<drop>[rwd=\d/]+))?"
)
# Where fio ends the job blocks of a group: a block not followed by its group's line was cut.
_RUN_STATUS = re.compile(r"^Run status group (?P<g>\d+) \(all jobs\):")
_DISK_LINE = re.compile(
    r"^\s+(?P<name>[^\s:]+): ios=(?P<rios>\d+)/(?P<wios>\d+), merge=(?P<rm>\d+)/(?P<wm>\d+), "
    r"ticks=(?P<rt>\d+)/(?P<wt>\d+), in_queue=(?P<q>\d+), util=(?P<util>[\d.]+)%"
)


_UNIT_NS = {"nsec": 1.0, "usec": 1e3, "msec": 1e6}
# Sizes as fio prints them in the report: `KiB` is 1024 (fio's output uses true IEC units,
# unlike its option parser), `KB` 1000; fio 2.0 printed `KB` for KiB.
_BYTES = {
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "PiB": 1024**5,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
}
_OLD_BYTES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
# One direction's block-size range on a job definition line: fio 3.x `(R) 4096B-4096B`,
# `(W) 512KiB-512KiB`; fio 2.x `4K-4K` in read/write/trim order (`bs=4K-4K/4K-4K/4K-4K`,
# fio 2.0 without trim).
_BS_RANGE = re.compile(
    r"(?:\((?P<dir>[RWT])\) )?(?P<lo>\d+(?:\.\d+)?[KMGTP]?i?B?)-(?P<hi>\d+(?:\.\d+)?[KMGTP]?i?B?)"
)


def _suffixed(value: str) -> float:
    """`310k`, `11404k`, `1.2M`: fio's SI-like suffixes on counts and latencies."""
    factor = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}.get(value[-1], 1)
    return float(value[:-1] if factor != 1 else value) * factor


def _printed_size_bytes(text: str) -> int | None:
    """A size as fio prints it: always powers of 1024 (`4K`, `512KiB`, `1M`, `4096B`). fio's
    option grammar would read `KiB` as 1000 (see `parse_size_bytes`), so the `i` goes first."""
    return parse_size_bytes(text.replace("i", ""), kb_base=1024)


def block_sizes(printed: str) -> dict[str, tuple[str, str]]:
    """(min, max) block size as printed, per direction letter R/W/T, from a `bs=` value."""
    return {
        match["dir"] or "RWT"[min(order, 2)]: (match["lo"], match["hi"])
        for order, match in enumerate(_BS_RANGE.finditer(printed))
    }


def _directions_of(rw: str | None) -> str:
    """The direction letters a job's `rw` issues: a mixed job reads and writes."""
    mode = (rw or "read").split(":")[0]
    if "trim" in mode:
        return "TW" if mode == "trimwrite" else "T"
    if mode in ("read", "randread"):
        return "R"
    if mode in ("write", "randwrite"):
        return "W"
    return "RW"


def _single_block_size(options: dict[str, str]) -> str | None:
    """The one block size the job's directions use, as printed (`512KiB`, `4K`); None when
    it used several (bsrange, a different size per direction) or the value is not a range."""
    ranges = block_sizes(options["bs"])
    printed = [t for letter in _directions_of(options.get("rw")) for t in ranges.get(letter, ())]
    sizes = {_printed_size_bytes(t) for t in printed}
    return printed[0] if len(sizes) == 1 and None not in sizes else None


def _definition_options(opts: str) -> dict[str, str]:
    """`rw=randrw, bs=(R) 4096B-4096B, (W) ..., ioengine=psync, iodepth=1` (3.x) or
    `rw=randread, bs=4K-4K/4K-4K/4K-4K, ioengine=libaio, iodepth=32` (2.x); `bs` becomes the
    one size the job used (`4096B`, `4K`), or stays as printed when it used several."""
    options: dict[str, str] = {}
    for match in re.finditer(r"(\w+)=((?:\([RWT]\) [^,]+(?:, )?)+|[^,]+)", opts):
        options[match[1]] = match[2].strip().rstrip(",")
    if "bs" in options:
        options["bs"] = _single_block_size(options) or options["bs"]
    return options


def job_definitions(text: str) -> dict[tuple[str, int], dict[str, str]]:
    """The options of every job definition line (`name: (g=0): rw=...`), by (name, group):
    what a terse file that also holds the report (`--output-format=normal,terse`, a console
    transcript) knows about its jobs."""
    return {
        (m["name"], int(m["g"])): _definition_options(m["opts"])
        for line in text.split("\n")
        if (m := _JOB_DEFINITION.match(line))
    }


def workload_options(definition: dict[str, str]) -> dict[str, str]:
    """The definition with its block size in bytes, the way `workload_of` reads options; a
    job without one block size gets none (unknown, not fio's default)."""
    if "bs" not in definition:
        return definition
    size = _printed_size_bytes(definition["bs"]) if "-" not in definition["bs"] else None
    return definition | {"bs": str(size) if size is not None else "several"}


def is_normal_report(text: str) -> bool:
    """The text holds a normal report: a job block, or a defined job with fio's error line."""
    if _HEADER_ANYWHERE.search(text):
        return True
    return bool(_DEFINITION_ANYWHERE.search(text)) and any(
        error_in(line, 0) for line in text.split("\n")
    )


@dataclass(slots=True)
class _NormalJob:
    run_index: int
    name: str
    groupid: int
    error: int
    definition: dict[str, str]
    line: int  # of the block's header, or of the definition of a job without a block
    pid: int | None = None
    cause: FioError | None = None  # what fio said about the job's error, and where
    dirs: dict[str, dict[str, Any]] = field(default_factory=dict)
    dir_lines: dict[str, int] = field(default_factory=dict)  # direction -> its `read:` line
    cpu: tuple | None = None
    issued: tuple | None = None
    # fio printed its group's `Run status group` line after this block: the block is whole.
    complete: bool = False


@dataclass(slots=True)
class _Reader:
    """What has been read of a report so far, line by line."""

    run_index: int = -1
    line_no: int = 0
    definitions: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    # (run, job name) -> (line, group) of its definition line
    defined_at: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    versions: dict[int, str] = field(default_factory=dict)
    jobs: dict[tuple[int, str, int], _NormalJob] = field(default_factory=dict)
    errors: list[tuple[int, FioError]] = field(default_factory=list)  # (run, error line)
    groups_done: set[tuple[int, int]] = field(default_factory=set)  # (run, group) reported
    is_client: bool = False
    repeats: int = 0  # job blocks --status-interval printed again
    disks: list[FioDiskUtil] = field(default_factory=list)
    disk_lines: list[int] = field(default_factory=list)  # the line of each disk row
    current: _NormalJob | None = None
    direction: dict[str, Any] | None = None
    pct_kind: tuple[str, float] | None = None
    saw_definition_since_version: bool = True

    def read_run_line(self, line: str) -> bool:
        """Job definitions, the version line and job headers, which start runs and jobs."""
        if m := _JOB_DEFINITION.match(line):
            # A definition after a version line starts the next fio run in the file.
            if self.saw_definition_since_version is False or self.run_index < 0:
                self.run_index += 1
                self.saw_definition_since_version = True
            self.definitions[(self.run_index, m["name"])] = _definition_options(m["opts"])
            self.defined_at[(self.run_index, m["name"])] = (self.line_no, int(m["g"]))
        elif m := _VERSION_LINE.match(line):
            self.run_index = max(self.run_index, 0)
            self.versions[self.run_index] = "fio-" + m[1]
            self.saw_definition_since_version = False
        elif m := _RUN_STATUS.match(line):
            self.groups_done.add((self.run_index, int(m["g"])))
            for job in self.jobs.values():
                if job.run_index == self.run_index and job.groupid == int(m["g"]):
                    job.complete = True
        elif m := _JOB_HEADER.match(line):
            self.read_job_header(m)
        elif error := error_in(line, self.line_no):
            self.errors.append((max(self.run_index, 0), error))
        else:
            return False
        return True

    def read_job_header(self, m: re.Match[str]) -> None:
        self.run_index = max(self.run_index, 0)
        key = (self.run_index, m["name"], int(m["g"]))
        if key in self.jobs:
            self.repeats += 1  # --status-interval repeats the block: keep the newest
        definition = self.definitions.get((self.run_index, m["name"]), {})
        pid = int(m["pid"]) if m["pid"] else None
        cause = FioError(self.line_no, int(m["err"]), pid, m["why"]) if m["why"] else None
        self.current = _NormalJob(
            self.run_index, m["name"], int(m["g"]), int(m["err"]), definition, self.line_no, pid
        )
        self.current.cause = cause
        self.jobs[key] = self.current
        self.direction, self.pct_kind = None, None

    def read_direction_line(self, line: str) -> bool:
        """The lines of one direction's block: totals, latencies, percentiles, bw, iops."""
        direction = self.direction
        if m := _DIR_LINE.match(line):
            self.direction = self.current.dirs.setdefault(m["dir"].lower(), {})
            self.current.dir_lines[m["dir"].lower()] = self.line_no
            self.direction.update(
                iops=_suffixed(m["iops"]),
                bw_bytes=float(m["bw"]) * _BYTES[m["bwu"]],
                io_bytes=int(float(m["io"]) * _BYTES[m["iou"]]),
                runtime=int(m["rt"]),
            )
            self.pct_kind = None
        elif m := _OLD_DIR_LINE.match(line):
            self.direction = self.current.dirs.setdefault(m["dir"].lower(), {})
            self.current.dir_lines[m["dir"].lower()] = self.line_no
            self.direction.update(
                iops=_suffixed(m["iops"]),
                bw_bytes=float(m["bw"]) * _OLD_BYTES[m["bwu"]],
                io_bytes=int(float(m["io"]) * _OLD_BYTES[m["iou"]]),
                runtime=int(m["rt"]),
            )
        elif (m := _LAT_LINE.match(line)) and direction is not None:
            scale = _UNIT_NS[m["unit"]]
            direction[m["kind"]] = tuple(
                _suffixed(m[k]) * scale for k in ("min", "max", "avg", "sd")
            )
        elif (m := _PCT_HEADER.match(line)) and direction is not None:
            self.pct_kind = (m["kind"], _UNIT_NS[m["unit"]])
        elif self.pct_kind and line.lstrip().startswith("|"):
            kind, scale = self.pct_kind
            for p in _PCT_VALUE.finditer(line):
                direction.setdefault("pcts", []).append(
                    (kind, float(p["p"]), float(p["v"]) * scale)
                )
        elif (m := _BW_LINE.match(line)) and direction is not None:
            # fio 2.x prints `bw (KB  /s)` for KiB/s; 3.x `bw (  KiB/s)`.
            to_kib = (_BYTES if "i" in m["unit"] else _OLD_BYTES)[m["unit"]] / 1024
            stats = (float(m[k]) * to_kib for k in ("min", "max", "avg", "sd"))
            direction["bw_stats"] = (*stats, float(m["per"]), int(m["n"]) if m["n"] else None)
            self.pct_kind = None
        elif (m := _IOPS_LINE.match(line)) and direction is not None:
            stats = (float(m[k]) for k in ("min", "max", "avg", "sd"))
            direction["iops_stats"] = (*stats, int(m["n"]) if m["n"] else None)
        else:
            return False
        return True

    def read_job_totals_line(self, line: str) -> None:
        """A job's cpu and issued-I/O lines, and the run's disk stats."""
        if m := _CPU_LINE.match(line):
            self.current.cpu = (
                float(m["usr"]),
                float(m["sys"]),
                int(m["ctx"]),
                int(m["majf"]),
                int(m["minf"]),
            )
            self.pct_kind = None
        elif m := _ISSUED.match(line):
            self.current.issued = tuple(
                [int(v) if v else 0 for v in m[g].split(",")] for g in ("total", "short", "drop")
            )
        elif m := _OLD_ISSUED.match(line):
            self.current.issued = tuple(
                [int(v) for v in re.sub(r"[rwd]=", "", m[g] or "").split("/") if v]
                for g in ("total", "short", "drop")
            )
        else:
            self.read_disk_line(line)

    def read_disk_line(self, line: str) -> None:
        """One disk's `Disk stats` line."""
        if m := _DISK_LINE.match(line):
            counts = (int(m[k]) for k in ("rios", "wios", "rm", "wm", "rt", "wt", "q"))
            self.disks.append(
                FioDiskUtil(max(self.run_index, 0), None, m["name"], *counts, float(m["util"]))
            )
            self.disk_lines.append(self.line_no)


def parse_normal(text: str, source: SourceFile) -> tuple[Parsed, RowLines]:
    """The rows of a normal report, and the line of each direction's `read:`/`write:` line."""
    reader = _Reader()
    for number, raw_line in enumerate(text.split("\n"), 1):
        reader.line_no = number
        line = _HOST_PREFIX.sub("", raw_line)
        reader.is_client = reader.is_client or line != raw_line
        try:
            if reader.read_run_line(line):
                continue
            if reader.current is None:
                reader.read_disk_line(line)  # a run whose jobs all failed still has these
            elif not reader.read_direction_line(line):
                reader.read_job_totals_line(line)
        except (TypeError, ValueError, OverflowError) as exc:
            # a number of the wrong shape (`avg=1.2.3`): this line, whatever else quotes it
            raise line_error(source, number, f"value of the wrong type: {exc}") from None
    reader.is_client = reader.is_client or bool(_CLIENT_BANNER.search(text))
    failed = _failed_without_block(reader)
    if not reader.jobs and not failed:
        raise ParseError(source.path, no_result_location(text), no_result_reason(text))
    return _rows(reader, failed, text, source)


def _failed_without_block(reader: _Reader) -> list[_NormalJob]:
    """Defined jobs fio printed no block for, in a run with error lines of no printed job:
    jobs that failed before any I/O (a file they could not open). fio names them by pid
    only, so one such job gets the error; several share the errors, and the reason says so."""
    failed = []
    for run in range(reader.run_index + 1):
        printed = {job.name for job in reader.jobs.values() if job.run_index == run}
        pids = {job.pid for job in reader.jobs.values() if job.run_index == run}
        errors = [e for r, e in reader.errors if r == run and e.pid not in pids]
        missing = [
            (name, line, group)
            for (r, name), (line, group) in reader.defined_at.items()
            if r == run and name not in printed
        ]
        for name, line, group in missing if errors else ():
            job = _NormalJob(
                run, name, group, errors[0].code, reader.definitions[(run, name)], line
            )
            job.cause = errors[0] if len(missing) == 1 else _shared_cause(errors, len(missing))
            failed.append(job)
    return failed


def _shared_cause(errors: list[FioError], jobs: int) -> FioError:
    """The error lines of several jobs that printed no block, as one cause."""
    said = "; ".join(f"{e.text} (line {e.line})" for e in errors[:3])
    return FioError(
        errors[0].line, errors[0].code, None, f"one of {jobs} jobs without a block: {said}"
    )


def _rows(
    reader: _Reader, failed: list[_NormalJob], text: str, source: SourceFile
) -> tuple[Parsed, RowLines]:
    jobs = [*reader.jobs.values(), *failed]
    workloads = [workload_of(workload_options(j.definition)) for j in jobs]
    keys = group_keys((j.run_index, j.groupid, w) for j, w in zip(jobs, workloads, strict=True))
    parsed = Parsed()
    run_count = max(reader.run_index + 1, 1)
    parsed.add(
        "fio_runs",
        [
            FioRun(
                i,
                reader.versions.get(i),
                "normal",
                None,
                reader.is_client,
                1,
                True,
                None,
                None,
                None,
                None,
            )
            for i in range(run_count)
        ],
    )
    used: set[int] = set()
    parsed.add(
        "fio_jobs",
        [
            _job_row(i, job, workloads[i], keys[(job.run_index, job.groupid)], text, reader, used)
            for i, job in enumerate(jobs)
        ],
    )
    parsed.add(
        "fio_job_directions",
        [row for i, job in enumerate(jobs) for row in _direction_rows(i, job, source)],
    )
    parsed.add(
        "fio_latency_percentiles",
        [
            FioLatencyPercentile(job.run_index, i, name, kind, p, v)
            for i, job in enumerate(jobs)
            for name, d in job.dirs.items()
            for kind, p, v in d.get("pcts", [])
        ],
    )
    parsed.add("fio_disk_util", reader.disks)
    parsed.notes.append("read from fio's human-readable report (prefer JSON output: it is exact)")
    if reader.repeats:
        parsed.notes.append(
            f"{reader.repeats} repeated job report(s) from --status-interval: "
            "the last report of each job is kept"
        )
    for job in failed:
        parsed.notes.append(
            f"job {job.name!r} (line {job.line}) printed no report: fio's error line says it "
            "failed before any I/O; stored with state error"
        )
    lines = {
        (job.run_index, i, name): number
        for i, job in enumerate(jobs)
        for name, number in [*job.dir_lines.items(), ("", job.line)]
    }
    lines.update({(-1, n, "disk"): line for n, line in enumerate(reader.disk_lines)})
    return parsed, lines


# Where each direction's count sits in `issued rwts: total=r,w,t`.
_ISSUED_SLOT = {"read": 0, "write": 1, "trim": 2, "mixed": 0}


def _direction_rows(job_index: int, job: _NormalJob, source: SourceFile) -> list[FioJobDirection]:
    issued = job.issued or ([], [], [])
    rows = []
    for name, d in job.dirs.items():
        slot = _ISSUED_SLOT[name]
        total, short, dropped = (counts[slot] if slot < len(counts) else None for counts in issued)
        derived = total is None
        if derived:
            try:
                total = round(d["iops"] * d["runtime"] / 1000)
            except (OverflowError, ValueError):  # IOPS printed past what a double holds
                raise line_error(
                    source, job.dir_lines[name], f"{name} IOPS {d['iops']} is no number"
                ) from None
        slat, clat, lat = ((*d.get(kind, (None,) * 4), None) for kind in ("slat", "clat", "lat"))
        rows.append(
            FioJobDirection(
                run_index=job.run_index,
                job_index=job_index,
                direction=name,
                total_ios=int(total),
                is_total_ios_derived=derived,
                short_ios=short,
                drop_ios=dropped,
                io_bytes=d["io_bytes"],
                bw_bytes_per_s=d["bw_bytes"],
                iops=d["iops"],
                runtime_ms=d["runtime"],
                **spread_columns(
                    slat, clat, lat, d.get("bw_stats", NO_BANDWIDTH), d.get("iops_stats", NO_IOPS)
                ),
            )
        )
    return rows


def _job_row(
    index: int,
    job: _NormalJob,
    workload: Workload,
    workload_key: str,
    text: str,
    reader: _Reader,
    used: set[int],
) -> FioJob:
    kinds = {kind for d in job.dirs.values() for kind, _, _ in d.get("pcts", [])}
    aggregate = reader.is_client and job.name == _ALL_CLIENTS
    state, reason = job_state(
        job.error, surrounding_text=text, cause=_cause(job, reader, used) if job.error else None
    )
    # fio prints the `All clients` block after the disk stats: its group line came before it.
    whole = job.complete or (aggregate and (job.run_index, job.groupid) in reader.groups_done)
    if state == RunState.ok and not whole:
        # Any byte of a cut block still parses; only fio's group line says the block is whole.
        state, reason = (
            RunState.unfinished,
            (
                "the report ends inside this job's block (no `Run status group "
                f"{job.groupid}` line after it): the output was cut before fio finished"
            ),
        )
    # What the definition line says, None when it does not (not fio's default 1).
    numjobs = int_option(job.definition.get("numjobs"))
    return FioJob(
        run_index=job.run_index,
        job_index=index,
        jobname=job.name,
        groupid=job.groupid,
        is_all_clients_aggregate=aggregate,
        state=state,
        state_reason=reason,
        error_code=job.error,
        job_runtime_ms=max((d["runtime"] for d in job.dirs.values()), default=None),
        **NO_HOST_OR_TIMES,
        **cpu_columns(job.cpu),
        **asdict(replace(workload, numjobs=numjobs)),
        options_json=job.definition or None,
        workload_key=workload_key,
        percentile_kind="lat" if "lat" in kinds else ("clat" if kinds else None),
    )


def _cause(job: _NormalJob, reader: _Reader, used: set[int]) -> FioError | None:
    """What fio said about a job's error: its header's parentheses, else the error line with
    its pid, else one with its code."""
    if job.cause is not None:
        return job.cause
    run_errors = [e for r, e in reader.errors if r == job.run_index]
    own = [e for e in run_errors if job.pid is not None and e.pid == job.pid]
    if own:
        used.add(own[0].line)
        return own[0]
    return error_for(job.error, run_errors, used)
