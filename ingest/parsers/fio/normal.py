"""fio's normal (human-readable) report, read as a last resort: the unit changes per line
(nsec/usec/msec, KiB/MiB/GiB, `k`/`M` suffixes); with `--status-interval` each job block
repeats and the last one is the result. Several fio runs may follow each other in one file."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ingest.parsers.fio.records import (
    NO_BANDWIDTH,
    NO_HOST_OR_TIMES,
    NO_IOPS,
    FioDiskUtil,
    FioJob,
    FioJobDirection,
    FioLatencyPercentile,
    FioRun,
    cpu_columns,
    spread_columns,
)
from ingest.parsers.fio.text import first_text_line, job_state, no_result_reason
from ingest.parsers.fio.workload import Workload, group_keys, int_option, workload_of
from ingest.records import Parsed, ParseError, SourceFile

_JOB_HEADER = re.compile(
    r"^(?P<name>\S.*?): \(groupid=(?P<g>\d+), jobs=(?P<jobs>\d+)\): err=\s*(?P<err>-?\d+)"
)
_JOB_DEFINITION = re.compile(r"^(?P<name>\S.*?): \(g=(?P<g>\d+)\): (?P<opts>rw=.*)$")
_VERSION_LINE = re.compile(r"^fio-(\d+\.\d+\S*)\s*$")
_DIR_LINE = re.compile(
    r"^\s+(?P<dir>read|write|trim|mixed)\s*:\s*IOPS=(?P<iops>[\d.]+[kKMG]?), "
    r"BW=(?P<bw>[\d.]+)(?P<bwu>[KMGT]?i?B)/s"
    r".*?\((?P<io>[\d.]+)(?P<iou>[KMGTP]?i?B)/(?P<rt>\d+)msec\)"
)
_OLD_DIR_LINE = re.compile(
    r"^\s+(?P<dir>read|write|trim)\s*:\s*io=(?P<io>[\d.]+)(?P<iou>[KMGT]?B), "
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
    r"^\s+bw \(\s*(?P<unit>[KMG]i?B)/s\):\s*min=\s*(?P<min>[\d.]+),\s*max=\s*(?P<max>[\d.]+),\s*"
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
# A block size on a job definition line: `(R) 4096B-4096B`, `(R) 512KiB-...`, fio 2: `4K-4K`.
_PRINTED_SIZE = re.compile(r"(?P<number>\d+(?:\.\d+)?)(?P<prefix>[KMGTP]?)(?:i?B)?")
_PRINTED_POWER = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}


def _suffixed(value: str) -> float:
    """`310k`, `11404k`, `1.2M`: fio's SI-like suffixes on counts and latencies."""
    factor = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}.get(value[-1], 1)
    return float(value[:-1] if factor != 1 else value) * factor


def _printed_size_bytes(text: str) -> int | None:
    match = _PRINTED_SIZE.match(text)
    if not match:
        return None
    return int(float(match["number"]) * 1024 ** _PRINTED_POWER[match["prefix"]])


def _definition_options(opts: str) -> dict[str, str]:
    """`rw=randrw, bs=(R) 4096B-4096B, (W) ..., ioengine=psync, iodepth=1`."""
    options: dict[str, str] = {}
    for match in re.finditer(r"(\w+)=((?:\([RWT]\) [^,]+(?:, )?)+|[^,]+)", opts):
        key, value = match[1], match[2].strip().rstrip(",")
        if key == "bs":
            first = re.search(r"\(R\) (\d+[KMG]?i?B?)", value)
            value = first[1] if first else value
        options[key] = value
    return options


def _workload_options(definition: dict[str, str]) -> dict[str, str]:
    """The definition with its printed block size in bytes: fio's option grammar would read
    the printed `512KiB` as 512000 (see `parse_size_bytes`), fio meant 524288."""
    printed = _printed_size_bytes(definition["bs"]) if "bs" in definition else None
    return definition | {"bs": str(printed)} if printed is not None else definition


@dataclass(slots=True)
class _NormalJob:
    run_index: int
    name: str
    groupid: int
    error: int
    definition: dict[str, str]
    dirs: dict[str, dict[str, Any]] = field(default_factory=dict)
    cpu: tuple | None = None
    issued: tuple | None = None


@dataclass(slots=True)
class _Reader:
    """What has been read of a report so far, line by line."""

    run_index: int = -1
    definitions: dict[tuple[int, str], dict[str, str]] = field(default_factory=dict)
    versions: dict[int, str] = field(default_factory=dict)
    jobs: dict[tuple[int, str, int], _NormalJob] = field(default_factory=dict)
    repeats: int = 0  # job blocks --status-interval printed again
    disks: list[FioDiskUtil] = field(default_factory=list)
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
        elif m := _VERSION_LINE.match(line):
            self.run_index = max(self.run_index, 0)
            self.versions[self.run_index] = "fio-" + m[1]
            self.saw_definition_since_version = False
        elif m := _JOB_HEADER.match(line):
            self.run_index = max(self.run_index, 0)
            key = (self.run_index, m["name"], int(m["g"]))
            if key in self.jobs:
                self.repeats += 1  # --status-interval repeats the block: keep the newest
            definition = self.definitions.get((self.run_index, m["name"]), {})
            self.current = _NormalJob(
                self.run_index, m["name"], int(m["g"]), int(m["err"]), definition
            )
            self.jobs[key] = self.current
            self.direction, self.pct_kind = None, None
        else:
            return False
        return True

    def read_direction_line(self, line: str) -> bool:
        """The lines of one direction's block: totals, latencies, percentiles, bw, iops."""
        direction = self.direction
        if m := _DIR_LINE.match(line):
            self.direction = self.current.dirs.setdefault(m["dir"], {})
            self.direction.update(
                iops=_suffixed(m["iops"]),
                bw_bytes=float(m["bw"]) * _BYTES[m["bwu"]],
                io_bytes=int(float(m["io"]) * _BYTES[m["iou"]]),
                runtime=int(m["rt"]),
            )
            self.pct_kind = None
        elif m := _OLD_DIR_LINE.match(line):
            self.direction = self.current.dirs.setdefault(m["dir"], {})
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
            to_kib = _BYTES[m["unit"]] / 1024
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
        elif m := _DISK_LINE.match(line):
            counts = (int(m[k]) for k in ("rios", "wios", "rm", "wm", "rt", "wt", "q"))
            self.disks.append(
                FioDiskUtil(max(self.run_index, 0), None, m["name"], *counts, float(m["util"]))
            )


def parse_normal(text: str, source: SourceFile) -> Parsed:
    reader = _Reader()
    for line in text.split("\n"):
        if reader.read_run_line(line) or reader.current is None:
            continue
        if not reader.read_direction_line(line):
            reader.read_job_totals_line(line)
    if not reader.jobs:
        raise ParseError(source.path, first_text_line(text), no_result_reason(text))
    return _rows(reader, text)


def _rows(reader: _Reader, text: str) -> Parsed:
    jobs = list(reader.jobs.values())
    workloads = [workload_of(_workload_options(j.definition)) for j in jobs]
    keys = group_keys((j.run_index, j.groupid, w) for j, w in zip(jobs, workloads, strict=True))
    parsed = Parsed()
    run_count = max(reader.run_index + 1, 1)
    parsed.add(
        "fio_runs",
        [
            FioRun(
                i, reader.versions.get(i), "normal", None, False, 1, True, None, None, None, None
            )
            for i in range(run_count)
        ],
    )
    parsed.add(
        "fio_jobs",
        [
            _job_row(i, job, workloads[i], keys[(job.run_index, job.groupid)], text)
            for i, job in enumerate(jobs)
        ],
    )
    parsed.add(
        "fio_job_directions", [row for i, job in enumerate(jobs) for row in _direction_rows(i, job)]
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
    return parsed


# Where each direction's count sits in `issued rwts: total=r,w,t`.
_ISSUED_SLOT = {"read": 0, "write": 1, "trim": 2, "mixed": 0}


def _direction_rows(job_index: int, job: _NormalJob) -> list[FioJobDirection]:
    issued = job.issued or ([], [], [])
    rows = []
    for name, d in job.dirs.items():
        slot = _ISSUED_SLOT[name]
        total, short, dropped = (counts[slot] if slot < len(counts) else None for counts in issued)
        derived = total is None
        if derived:
            total = round(d["iops"] * d["runtime"] / 1000)
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
    index: int, job: _NormalJob, workload: Workload, workload_key: str, text: str
) -> FioJob:
    kinds = {kind for d in job.dirs.values() for kind, _, _ in d.get("pcts", [])}
    state, reason = job_state(job.error, surrounding_text=text)
    # What the definition line says, None when it does not (not fio's default 1).
    numjobs = int_option(job.definition.get("numjobs"))
    return FioJob(
        run_index=job.run_index,
        job_index=index,
        jobname=job.name,
        groupid=job.groupid,
        is_all_clients_aggregate=False,
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
