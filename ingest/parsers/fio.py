"""fio output in every form users keep: JSON, json+, terse, and normal text.

Forms read (see ../shared/docs/FORMATS.md section 1):

- JSON from fio 2.x (latencies in usec under `slat`/`clat`/`lat`, `io_bytes` in
  KiB before fio-2.21, integer IOPS, duplicate `"0.00"` percentile keys) and
  fio 3.x (`*_ns` in ns); json+ (latency histogram `bins` kept);
- several JSON documents in one file: `--status-interval` dumps (cumulative;
  the final one has `eta == 0`, a file without it is an unfinished run) and
  `--output-format=normal,json`; text before the JSON (warnings, errors,
  `fio: terminating on signal 2`, client banners and ETA lines) is kept;
- client/server output: `client_stats` entries keep their host; the
  "All clients" aggregate is stored but flagged, never summed with them;
- terse/minimal versions 2, 3, 4 and 5 (usec, integer IOPS), including the
  client-mode ETA text glued in front of the first record;
- the normal human-readable report, as a last resort: the unit changes per
  line (nsec/usec/msec, KiB/MiB/GiB, `k`/`M` suffixes); with
  `--status-interval` each job block repeats and the last one is the result.

Tables (one row per ...), all keyed by `run_index` (fio invocations in the
file, normally one) and `job_index` (entry of fio's `jobs[]`/`client_stats[]`):

- `fio_runs`        run: fio_version, output_format, terse_version,
                    is_client_mode, status_dump_count, is_finished, ended_at,
                    local_time_text, global_options_json, leading_text
- `fio_jobs`        job entry: jobname, groupid, hostname, port,
                    is_all_clients_aggregate, state (ok/error/unfinished),
                    state_reason, error_code, eta_s, elapsed_s,
                    job_runtime_ms (fio's own: summed over a group's threads),
                    started_at, ended_at, usr_cpu_pct,
                    sys_cpu_pct (percent of one CPU), ctx, majf, minf, rw,
                    read_pct, random_pct, block_size_bytes, iodepth, numjobs,
                    ioengine, options_json, workload_key, percentile_kind
- `fio_job_directions`  job x direction (read/write/trim/mixed/sync):
                    total_ios (is_total_ios_derived when fio 2.1 lacked it),
                    short_ios, drop_ios, io_bytes, bw_bytes_per_s, iops,
                    runtime_ms, {slat,clat,lat}_{min,max,mean,stddev}_ns and
                    _samples, bw_{min,max,mean,stddev}_kib_per_s, bw_agg_pct,
                    bw_samples, iops_{min,max,mean,stddev}, iops_samples
- `fio_latency_percentiles`  job x direction x kind (slat/clat/lat) x percentile:
                    latency_ns
- `fio_latency_bins`  job x direction x kind x bucket (json+): bin_ns, io_count
- `fio_intervals`   job x status dump x direction, differenced from the
                    cumulative dumps: elapsed_end_ms, interval_ms, ios,
                    io_bytes, iops, bw_bytes_per_s, lat_mean_ns
- `fio_disk_util`   run x disk (x host in client mode): ios, merges, ticks, util
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from ingest.records import Parsed, ParseError, RunState, SourceFile

FORMAT = "fio"
PARSER_VERSION = "2"

# fio prints INT_MAX as the ETA of every status dump but the final one.
_ETA_RUNNING = 2147483647
_DIRECTIONS = ("read", "write", "trim", "mixed")
_PERCENTILE_KINDS = (
    ("slat", "slat_ns", "slat"),
    ("clat", "clat_ns", "clat"),
    ("lat", "lat_ns", "lat"),
)


# --------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class FioRun:
    run_index: int
    fio_version: str | None
    output_format: str
    terse_version: int | None
    is_client_mode: bool
    status_dump_count: int
    is_finished: bool
    ended_at: dt.datetime | None
    local_time_text: str | None
    global_options_json: dict | None
    leading_text: str | None


@dataclass(frozen=True, slots=True)
class FioJob:
    run_index: int
    job_index: int
    jobname: str
    groupid: int
    hostname: str | None
    port: int | None
    is_all_clients_aggregate: bool
    state: RunState
    state_reason: str | None
    error_code: int
    eta_s: int | None
    elapsed_s: int | None
    job_runtime_ms: int | None
    started_at: dt.datetime | None
    ended_at: dt.datetime | None
    usr_cpu_pct: float | None
    sys_cpu_pct: float | None
    ctx: int | None
    majf: int | None
    minf: int | None
    rw: str | None
    read_pct: int | None
    random_pct: int | None
    block_size_bytes: int | None
    iodepth: int | None
    numjobs: int | None
    ioengine: str | None
    options_json: dict | None
    workload_key: str
    percentile_kind: str | None


@dataclass(frozen=True, slots=True)
class FioJobDirection:
    run_index: int
    job_index: int
    direction: str
    total_ios: int
    is_total_ios_derived: bool
    short_ios: int | None
    drop_ios: int | None
    io_bytes: int
    bw_bytes_per_s: float
    iops: float
    runtime_ms: int | None
    slat_min_ns: float | None
    slat_max_ns: float | None
    slat_mean_ns: float | None
    slat_stddev_ns: float | None
    slat_samples: int | None
    clat_min_ns: float | None
    clat_max_ns: float | None
    clat_mean_ns: float | None
    clat_stddev_ns: float | None
    clat_samples: int | None
    lat_min_ns: float | None
    lat_max_ns: float | None
    lat_mean_ns: float | None
    lat_stddev_ns: float | None
    lat_samples: int | None
    bw_min_kib_per_s: float | None
    bw_max_kib_per_s: float | None
    bw_mean_kib_per_s: float | None
    bw_stddev_kib_per_s: float | None
    bw_agg_pct: float | None
    bw_samples: int | None
    iops_min: float | None
    iops_max: float | None
    iops_mean: float | None
    iops_stddev: float | None
    iops_samples: int | None


@dataclass(frozen=True, slots=True)
class FioLatencyPercentile:
    run_index: int
    job_index: int
    direction: str
    latency_kind: str
    percentile: float
    latency_ns: float


@dataclass(frozen=True, slots=True)
class FioLatencyBin:
    run_index: int
    job_index: int
    direction: str
    latency_kind: str
    bin_ns: int
    io_count: int


@dataclass(frozen=True, slots=True)
class FioInterval:
    run_index: int
    job_index: int
    dump_index: int
    direction: str
    elapsed_end_ms: int
    interval_ms: int
    ios: int
    io_bytes: int
    iops: float | None
    bw_bytes_per_s: float | None
    lat_mean_ns: float | None


@dataclass(frozen=True, slots=True)
class FioDiskUtil:
    run_index: int
    hostname: str | None
    disk_name: str
    read_ios: int | None
    write_ios: int | None
    read_merges: int | None
    write_merges: int | None
    read_ticks: int | None
    write_ticks: int | None
    in_queue_ticks: int | None
    util_pct: float | None


TABLES = {
    "fio_runs": FioRun,
    "fio_jobs": FioJob,
    "fio_job_directions": FioJobDirection,
    "fio_latency_percentiles": FioLatencyPercentile,
    "fio_latency_bins": FioLatencyBin,
    "fio_intervals": FioInterval,
    "fio_disk_util": FioDiskUtil,
}


# ------------------------------------------------------------------- detection

_JSON_MARK = re.compile(rb'"(fio version|client_stats)"\s*:')
_TERSE_LINE = re.compile(r"[3-5];fio-\d[^;\n]*;")
_TERSE_V2 = re.compile(r"^2;[^;\n]*;\d+;\d+;", re.MULTILINE)
_NORMAL_MARKS = re.compile(
    rb"^(fio-\d+\.\d+\S*\s*$|Starting \d+ (process|thread)|.*\(groupid=\d+, jobs=\d+\): err=|"
    rb"fio: )",
    re.MULTILINE,
)


def detect(head: bytes, name: str) -> bool:
    if _JSON_MARK.search(head):
        return True
    text = head.decode("utf-8", errors="replace")
    if _TERSE_LINE.search(text) or any(line.count(";") >= 100 for line in _TERSE_V2.findall(text)):
        return True
    if (
        _TERSE_V2.search(text)
        and max((ln.count(";") for ln in text.splitlines()), default=0) >= 100
    ):
        return True
    return bool(_NORMAL_MARKS.search(head))


# ----------------------------------------------------------------- entry point


def parse(data: bytes, source: SourceFile) -> Parsed:
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n")
    if not text.strip():
        raise ParseError(source.path, "byte 0", "empty file: fio wrote no output")
    try:
        if _JSON_MARK.search(data):
            return _parse_json_stream(text, source)
        if _TERSE_LINE.search(text) or _TERSE_V2.search(text):
            return _parse_terse(text, source)
        if re.search(r"\(groupid=\d+, jobs=\d+\): err=", text):
            return _parse_normal(text, source)
    except (TypeError, ValueError, AttributeError, OverflowError) as exc:
        # A value of the wrong shape where fio writes a number ("5.095.00", a string in a
        # JSON percentile map): a corrupt file, not a parser bug.
        location = _bad_value_line(text, exc)
        raise ParseError(source.path, location, f"value of the wrong type: {exc}") from None
    raise ParseError(source.path, _first_text_line(text), _no_result_reason(text))


def _bad_value_line(text: str, exc: Exception) -> str:
    """`line N` of the first line holding the value a conversion choked on (quoted in `exc`)."""
    quoted = re.search(r"'([^']{1,200})'", str(exc))
    at = text.find(quoted.group(1)) if quoted else -1
    return f"line {text.count(chr(10), 0, at) + 1}" if at >= 0 else "line 1"


def _first_text_line(text: str) -> str:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            return f"line {number}"
    return "byte 0"


def _no_result_reason(text: str) -> str:
    errors = [
        ln.strip() for ln in text.splitlines() if ln.startswith("fio:") or "error" in ln.lower()
    ]
    if errors:
        shown = "; ".join(errors[:3])
        return f"no fio results, only fio error text: {shown[:300]}"
    return "no fio results found (no JSON document, terse record or job report)"


def _line_col(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


# ------------------------------------------------------------------ primitives

_SIZE_SUFFIX = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}


def parse_size_bytes(value: str | None) -> int | None:
    """A fio size option (`4k`, `4KiB`, `1m`, `4096`, `4k,64k` -> read part) in bytes.

    fio reads `k` as 1024 unless kb_base=1000; `4KB` is also 1024 in fio's
    default (kb_base=1024) mode. A bare number is bytes, so HCIBench's
    `blocksize=4` really is 4 bytes to fio.
    """
    if value is None:
        return None
    text = str(value).strip().split(",")[0].split(":")[0].lower()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?", text)
    if not match:
        return None
    return int(float(match[1]) * _SIZE_SUFFIX[match[2]])


def _int_option(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


_READ_ONLY = {"read", "randread"}
_WRITE_ONLY = {"write", "randwrite", "trim", "randtrim", "trimwrite"}
_MIXED = {"rw", "readwrite", "randrw"}
_RANDOM = {"randread", "randwrite", "randrw", "randtrim"}


def workload_of(options: dict[str, Any], measured_read_pct: int | None = None) -> dict[str, Any]:
    """rw, read %, random %, block size and queue depth from fio options.

    Options missing from a file that lists options mean fio's defaults (rw=read,
    bs=4k, iodepth=1). A file that lists no options at all (fio 2.1 JSON,
    terse) says nothing about the workload: the read % is then what the job
    measured and the rest is unknown."""
    if not options:
        return {
            "rw": None,
            "read_pct": measured_read_pct,
            "random_pct": None,
            "block_size_bytes": None,
            "iodepth": None,
            "numjobs": None,
            "ioengine": None,
        }
    rw = str(options.get("rw") or options.get("readwrite") or "read").split(":")[0]
    read_pct: int | None
    if rw in _READ_ONLY:
        read_pct = 100
    elif rw in _WRITE_ONLY:
        read_pct = 0
    elif rw in _MIXED:
        mix = _int_option(options.get("rwmixread"))
        if mix is None and _int_option(options.get("rwmixwrite")) is not None:
            mix = 100 - _int_option(options["rwmixwrite"])
        read_pct = 50 if mix is None else mix
    else:
        read_pct = None
    random_pct = 100 if rw in _RANDOM else 0
    if rw in _RANDOM and _int_option(options.get("percentage_random")) is not None:
        random_pct = _int_option(options["percentage_random"])
    bs = options.get("bs") or options.get("blocksize")
    return {
        "rw": rw,
        "read_pct": read_pct,
        "random_pct": random_pct,
        "block_size_bytes": parse_size_bytes(bs) if bs is not None else 4096,
        "iodepth": _int_option(options.get("iodepth")) or 1,
        "numjobs": _int_option(options.get("numjobs")) or 1,
        "ioengine": options.get("ioengine"),
    }


def _workload_signature(workload: dict[str, Any]) -> str:
    return (
        f"{workload['rw']}/r{workload['read_pct']}/bs{workload['block_size_bytes']}"
        f"/qd{workload['iodepth']}"
    )


def _group_keys(jobs: list[tuple[int, int, dict[str, Any]]]) -> dict[tuple[int, int], str]:
    """workload_key per (run, group): a stonewall group is one test; its key
    names the workloads it ran so folder-wise grouping never merges tests."""
    signatures: dict[tuple[int, int], set[str]] = {}
    for run_index, groupid, workload in jobs:
        signatures.setdefault((run_index, groupid), set()).add(_workload_signature(workload))
    return {
        key: f"run{key[0]}/group{key[1]}/" + "+".join(sorted(sigs))
        for key, sigs in signatures.items()
    }


def _epoch(seconds: float | None) -> dt.datetime | None:
    if seconds is None or seconds <= 0:
        return None
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)


# ------------------------------------------------------------------------ JSON


@dataclass(slots=True)
class _Document:
    start: int
    end: int
    value: dict[str, Any]


def _split_documents(text: str, source: SourceFile) -> tuple[list[_Document], str | None]:
    """Every JSON document that starts at the beginning of a line, and a note
    when the last one is cut off. fio pretty-prints its documents with `{` and
    `}` in column 0, so a `{` elsewhere (ETA text, errors) is not a start."""
    decoder = json.JSONDecoder()
    documents: list[_Document] = []
    truncated: str | None = None
    start = 0 if text.startswith("{") else _next_line_brace(text, 0)
    while start >= 0:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            if documents:
                truncated = (
                    f"last JSON document is cut off at {_line_col(text, exc.pos)} ({exc.msg})"
                )
                break
            raise ParseError(
                source.path, _line_col(text, exc.pos), f"malformed or truncated JSON: {exc.msg}"
            ) from None
        consumed = end
        if isinstance(value, dict) and ("jobs" in value or "client_stats" in value):
            documents.append(_Document(start, end, value))
        start = _next_line_brace(text, consumed)
    return documents, truncated


def _next_line_brace(text: str, pos: int) -> int:
    """Where the next line starting with `{` begins, or -1."""
    found = text.find("\n{", pos)
    return found + 1 if found != -1 else -1


_OPTIONS_BLOCK = re.compile(r'"(global options|job options)"\s*:\s*\{(?P<body>[^{}]*)\}')
_OPTION_PAIR = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"')


def _options_blocks(segment: str) -> list[dict[str, Any]]:
    """Option objects of a document with duplicate keys kept: fio repeats
    `filename` per file and merges client-mode options per server. A key seen
    with different values maps to the list of values, in order."""
    blocks = []
    for block in _OPTIONS_BLOCK.finditer(segment):
        options: dict[str, Any] = {}
        for key, value in _OPTION_PAIR.findall(block["body"]):
            key, value = json.loads(f'"{key}"'), json.loads(f'"{value}"')
            if key not in options:
                options[key] = value
            elif options[key] != value:
                previous = options[key] if isinstance(options[key], list) else [options[key]]
                if value not in previous:
                    options[key] = [*previous, value]
        blocks.append((block[1], options))
    return blocks


def _stat(obj: dict[str, Any] | None, scale: float) -> tuple:
    if not obj:
        return (None, None, None, None, None)

    def scaled(key: str) -> float | None:
        value = obj.get(key)
        return None if value is None else float(value) * scale

    return (scaled("min"), scaled("max"), scaled("mean"), scaled("stddev"), obj.get("N"))


def _version_tuple(version: str | None) -> tuple[int, int]:
    match = re.search(r"fio-(\d+)\.(\d+)", version or "")
    return (int(match[1]), int(match[2])) if match else (3, 99)


def _direction_row(
    run: int, job: int, name: str, d: dict[str, Any], version: tuple[int, int]
) -> FioJobDirection:
    ns_keys = "lat_ns" in d or "clat_ns" in d
    scale = 1.0 if ns_keys else 1000.0  # fio 2.x JSON latencies are usec
    suffix = "_ns" if ns_keys else ""
    io_bytes = d.get("io_bytes", 0) or 0
    if "io_kbytes" not in d and version < (2, 21):
        io_bytes *= 1024  # "Since the dawn of time, this has outputted kilobytes"
    bw_bytes = d.get("bw_bytes")
    if bw_bytes is None:
        bw_bytes = (d.get("bw") or 0) * 1024  # bw is KiB/s in every version
    iops = float(d.get("iops") or 0)
    runtime = d.get("runtime")
    total = d.get("total_ios")
    derived = total is None
    if derived:
        total = round(iops * (runtime or 0) / 1000)
    slat = _stat(d.get("slat" + suffix), scale)
    clat = _stat(d.get("clat" + suffix), scale)
    lat = _stat(d.get("lat" + suffix), scale)
    return FioJobDirection(
        run,
        job,
        name,
        int(total),
        derived,
        d.get("short_ios"),
        d.get("drop_ios"),
        int(io_bytes),
        float(bw_bytes),
        iops,
        runtime,
        *slat,
        *clat,
        *lat,
        d.get("bw_min"),
        d.get("bw_max"),
        d.get("bw_mean"),
        d.get("bw_dev"),
        d.get("bw_agg"),
        d.get("bw_samples"),
        d.get("iops_min"),
        d.get("iops_max"),
        d.get("iops_mean"),
        d.get("iops_stddev"),
        d.get("iops_samples"),
    )


def _percentile_rows(
    run: int, job: int, name: str, d: dict[str, Any], lat_pct_on: bool, parsed: Parsed
) -> str | None:
    """Percentiles and json+ bins of one direction; returns the latency kind
    the main percentile list measures. fio 3.0-3.17 store total-latency
    percentiles under clat_ns when lat_percentiles=1 (FORMATS.md 1.2)."""
    main_kind = None
    ns_keys = "lat_ns" in d or "clat_ns" in d
    scale = 1.0 if ns_keys else 1000.0
    has_lat_object = bool((d.get("lat_ns") or {}).get("percentile"))
    for kind, ns_key, us_key in _PERCENTILE_KINDS:
        obj = d.get(ns_key if ns_keys else us_key) or {}
        stored_kind = kind
        if kind == "clat" and lat_pct_on and not has_lat_object:
            stored_kind = "lat"
        percentiles = obj.get("percentile") or {}
        rows = [
            FioLatencyPercentile(run, job, name, stored_kind, float(p), float(v) * scale)
            for p, v in percentiles.items()
            if float(p) > 0  # fio 2.x pads the list with "0.00": 0
        ]
        if rows:
            parsed.add("fio_latency_percentiles", rows)
            if main_kind is None or stored_kind == "lat":
                main_kind = stored_kind
        bins = obj.get("bins") or {}
        if bins:
            parsed.add(
                "fio_latency_bins",
                [
                    FioLatencyBin(run, job, name, stored_kind, int(b), int(c))
                    for b, c in bins.items()
                ],
            )
    return main_kind


def _state(
    entry: dict[str, Any], finished: bool, leading: str | None
) -> tuple[RunState, str | None]:
    if entry.get("error"):
        return RunState.error, f"fio reported error {entry['error']} for this job"
    if not finished:
        return RunState.unfinished, "no final report (eta == 0): the run did not finish"
    if leading and "terminating on signal" in leading:
        return RunState.unfinished, "fio was interrupted: " + _signal_line(leading)
    return RunState.ok, None


def _signal_line(leading: str) -> str:
    for line in leading.splitlines():
        if "terminating on signal" in line:
            return line.strip()
    return ""


def _entries(doc: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    if "client_stats" in doc:
        return list(doc["client_stats"]), True
    return list(doc.get("jobs") or []), False


def _parse_json_stream(text: str, source: SourceFile) -> Parsed:
    documents, truncated = _split_documents(text, source)
    if not documents:
        raise ParseError(source.path, _first_text_line(text), _no_result_reason(text))
    leading = text[: documents[0].start].strip() or None
    # Status dumps (--status-interval) are cumulative; the final report is the
    # first document whose jobs say eta == 0 (what HCIBench keeps).
    final_index = next(
        (
            i
            for i, d in enumerate(documents)
            if _entries(d.value)[0] and all(e.get("eta", 0) == 0 for e in _entries(d.value)[0])
        ),
        None,
    )
    finished = final_index is not None
    result_doc = documents[final_index if finished else -1]
    doc = result_doc.value
    entries, client_mode = _entries(doc)
    version = doc.get("fio version")
    vtuple = _version_tuple(version)
    segment = text[result_doc.start : result_doc.end]
    option_blocks = _options_blocks(segment)
    global_options = next((o for name, o in option_blocks if name == "global options"), None)
    if global_options is None and isinstance(doc.get("global options"), dict):
        global_options = doc["global options"]
    job_option_blocks = [o for name, o in option_blocks if name == "job options"]

    parsed = Parsed()
    if truncated:
        parsed.notes.append(truncated)
    if not finished:
        parsed.notes.append(
            f"no final report among {len(documents)} JSON document(s): the run did not finish; "
            "jobs are stored as unfinished"
        )
    ended_at = _epoch((doc.get("timestamp_ms") or 0) / 1000 or doc.get("timestamp"))
    output_format = "json+" if "bins" in segment else "json"
    trailing = text[documents[-1].end :]
    if re.search(r"\((?:groupid=\d+, jobs=\d+|g=\d+)\)", (leading or "") + trailing):
        output_format = "normal+" + output_format
    parsed.add(
        "fio_runs",
        [
            FioRun(
                0,
                version,
                output_format,
                None,
                client_mode,
                len(documents),
                finished,
                ended_at,
                doc.get("time"),
                global_options,
                leading[:4000] if leading else None,
            )
        ],
    )

    lat_pct_on = str((global_options or {}).get("lat_percentiles", "0")) == "1"
    jobs: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
    option_cursor = 0
    for index, entry in enumerate(entries):
        options = dict(global_options or {})
        if "job options" in entry:
            block = (
                job_option_blocks[option_cursor]
                if option_cursor < len(job_option_blocks)
                else entry["job options"]
            )
            option_cursor += 1
            options.update(block)
        flat = {k: (v[-1] if isinstance(v, list) else v) for k, v in options.items()}
        jobs.append((index, entry, flat | {"_options": options}))
    keys = _group_keys(
        [(0, e.get("groupid", 0), workload_of(o, _measured_read_pct(e))) for _, e, o in jobs]
    )

    directions: list[FioJobDirection] = []
    job_rows: list[FioJob] = []
    for index, entry, options in jobs:
        raw_options = options.pop("_options")
        workload = workload_of(options, _measured_read_pct(entry))
        job_lat_pct = lat_pct_on or str(options.get("lat_percentiles", "0")) == "1"
        kind = None
        for name in (*_DIRECTIONS, "sync"):
            d = entry.get(name)
            if not isinstance(d, dict):
                continue
            if name in ("trim", "sync") and not (d.get("total_ios") or d.get("io_bytes")):
                continue
            directions.append(_direction_row(0, index, name, d, vtuple))
            kind = _percentile_rows(0, index, name, d, job_lat_pct, parsed) or kind
        state, reason = _state(entry, finished, leading)
        runtime_ms = _wall_runtime_ms(entry)
        started = None
        if entry.get("job_start"):
            started = _epoch(entry["job_start"] / 1000)
        elif ended_at and runtime_ms:
            started = ended_at - dt.timedelta(milliseconds=runtime_ms)
        jobname = entry.get("jobname", "")
        job_rows.append(
            FioJob(
                0,
                index,
                jobname,
                int(entry.get("groupid", 0)),
                entry.get("hostname"),
                entry.get("port"),
                client_mode and jobname == "All clients",
                state,
                reason,
                int(entry.get("error", 0) or 0),
                entry.get("eta"),
                entry.get("elapsed"),
                entry.get("job_runtime"),
                started,
                ended_at,
                entry.get("usr_cpu"),
                entry.get("sys_cpu"),
                entry.get("ctx"),
                entry.get("majf"),
                entry.get("minf"),
                workload["rw"],
                workload["read_pct"],
                workload["random_pct"],
                workload["block_size_bytes"],
                workload["iodepth"],
                workload["numjobs"],
                workload["ioengine"],
                raw_options or None,
                keys[(0, int(entry.get("groupid", 0)))],
                kind,
            )
        )
    parsed.add("fio_jobs", job_rows)
    parsed.add("fio_job_directions", directions)
    parsed.add("fio_disk_util", _json_disk_util(doc))
    if len(documents) > 1:
        parsed.add("fio_intervals", _intervals(documents, final_index, vtuple))
    return parsed


def _wall_runtime_ms(entry: dict[str, Any]) -> int | None:
    """How long the job ran, in ms of wall-clock time.

    Not `job_runtime`: with group_reporting fio sums it over the group's
    threads (numjobs=4 for 5 s gives 20000), while each direction's
    `runtime` is the longest thread's. Falls back to `job_runtime`, then to
    the whole-second `elapsed`, for jobs that did no I/O."""
    runtimes = [
        entry[name].get("runtime") or 0 for name in _DIRECTIONS if isinstance(entry.get(name), dict)
    ]
    if runtimes and max(runtimes) > 0:
        return int(max(runtimes))
    if entry.get("job_runtime"):
        return int(entry["job_runtime"])
    if entry.get("elapsed"):
        return int(entry["elapsed"]) * 1000
    return None


def _measured_read_pct(entry: dict[str, Any]) -> int | None:
    ios = [
        (entry.get(n) or {}).get("total_ios", (entry.get(n) or {}).get("io_bytes", 0)) or 0
        for n in ("read", "write")
    ]
    return round(100 * ios[0] / sum(ios)) if sum(ios) else None


def _json_disk_util(doc: dict[str, Any]) -> list[FioDiskUtil]:
    rows = []
    for disk in doc.get("disk_util") or []:
        util = disk.get("util")
        rows.append(
            FioDiskUtil(
                0,
                disk.get("hostname"),
                str(disk.get("name", "")),
                disk.get("read_ios"),
                disk.get("write_ios"),
                disk.get("read_merges"),
                disk.get("write_merges"),
                disk.get("read_ticks"),
                disk.get("write_ticks"),
                disk.get("in_queue"),
                float(util) if util is not None else None,
            )
        )
    return rows


def _cumulative(
    entry: dict[str, Any], name: str, kib_io_bytes: bool
) -> tuple[int, int, float, int]:
    """(ios, bytes, latency sum in ns, latency sample count) so far.

    Lean on purpose: called for every direction of every job of every status
    dump (hundreds of thousands of times for a folder of HCIBench VMs)."""
    d = entry.get(name) or {}
    ns = "lat_ns" in d or "clat_ns" in d
    lat = d.get("lat_ns" if ns else "lat") or d.get("clat_ns" if ns else "clat") or {}
    ios = d.get("total_ios")
    if ios is None:
        ios = round(float(d.get("iops") or 0) * (d.get("runtime") or 0) / 1000)
    nbytes = (d.get("io_bytes") or 0) * (1024 if kib_io_bytes and "io_kbytes" not in d else 1)
    count = lat.get("N") or ios
    mean_ns = float(lat.get("mean") or 0.0) * (1.0 if ns else 1000.0)
    return int(ios), int(nbytes), mean_ns * count, int(count)


def _intervals(
    documents: list[_Document], final_index: int | None, vtuple: tuple[int, int]
) -> list[FioInterval]:
    """Per-interval IO from cumulative dumps: each dump minus the one before.

    Time comes from the direction runtimes (ms), see `_wall_runtime_ms`."""
    last = final_index if final_index is not None else len(documents) - 1
    rows: list[FioInterval] = []
    previous: dict[tuple[int, str], tuple[int, int, int, float, int]] = {}
    for dump_index, document in enumerate(documents[: last + 1]):
        entries, _ = _entries(document.value)
        for job_index, entry in enumerate(entries):
            t_ms = _wall_runtime_ms(entry) or 0
            for name in _DIRECTIONS:
                if not isinstance(entry.get(name), dict):
                    continue
                ios, nbytes, lat_sum, lat_n = _cumulative(entry, name, vtuple < (2, 21))
                p_t, p_ios, p_bytes, p_sum, p_n = previous.get((job_index, name), (0, 0, 0, 0.0, 0))
                previous[(job_index, name)] = (t_ms, ios, nbytes, lat_sum, lat_n)
                if name == "trim" and ios == 0:
                    continue
                span = t_ms - p_t
                d_ios, d_bytes, d_n = ios - p_ios, nbytes - p_bytes, lat_n - p_n
                rows.append(
                    FioInterval(
                        0,
                        job_index,
                        dump_index,
                        name,
                        int(t_ms),
                        int(span),
                        d_ios,
                        d_bytes,
                        d_ios * 1000 / span if span > 0 else None,
                        d_bytes * 1000 / span if span > 0 else None,
                        (lat_sum - p_sum) / d_n if d_n > 0 else None,
                    )
                )
    return rows


# ----------------------------------------------------------------------- terse

_TERSE_CPU = re.compile(r"^-?\d+(\.\d+)?%$")


def _terse_float(value: str) -> float:
    return float(value.rstrip("%"))


def _terse_direction(fields: list[str], i: int, version: int) -> tuple[dict[str, Any], int]:
    """One direction block starting at fields[i]; returns it and the next index."""
    kib, bw, iops, runtime = (
        int(fields[i]),
        int(fields[i + 1]),
        int(fields[i + 2]),
        int(fields[i + 3]),
    )
    i += 4
    us = [float(v) for v in fields[i : i + 8]]
    i += 8
    percentiles = {}
    for item in fields[i : i + 20]:
        pct, _, value = item.partition("%=")
        if float(pct) > 0:
            percentiles[float(pct)] = float(value)
    i += 20
    lat = [float(v) for v in fields[i : i + 4]]
    i += 4
    bw_stats = [_terse_float(v) for v in fields[i : i + 5]]
    i += 5
    block = {
        "io_kib": kib,
        "bw_kib": bw,
        "iops": iops,
        "runtime": runtime,
        "slat": us[0:4],
        "clat": us[4:8],
        "lat": lat,
        "percentiles": percentiles,
        "bw": bw_stats,
        "bw_samples": None,
        "iops_stats": [None] * 5,
    }
    if version == 5:
        block["bw_samples"] = int(fields[i])
        i += 1
        block["iops_stats"] = [float(v) for v in fields[i : i + 5]]
        i += 5
    return block, i


def _terse_record(line: str) -> tuple[int, list[str]] | None:
    match = _TERSE_LINE.search(line)
    if match:
        return int(line[match.start()]), line[match.start() :].split(";")
    if line.startswith("2;") and line.count(";") >= 100:
        return 2, line.split(";")
    return None


def _parse_terse(text: str, source: SourceFile) -> Parsed:
    parsed = Parsed()
    jobs: list[FioJob] = []
    directions: list[FioJobDirection] = []
    disks: list[FioDiskUtil] = []
    versions: set[str] = set()
    terse_version = None
    records = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith(";") and line.count(";") >= 9:  # client-mode disk util line
            disks.extend(_terse_disks(line.split(";")[1:], None))
            continue
        record = _terse_record(line)
        if record:
            records.append((number, *record))
    if not records:
        raise ParseError(source.path, _first_text_line(text), "no terse records found")
    names = [fields[2] if version != 2 else fields[1] for _, version, fields in records]
    client_mode = "All clients" in names
    workloads = []
    for job_index, (number, version, fields) in enumerate(records):
        terse_version = version
        try:
            offset = 5 if version != 2 else 4
            fio_version = fields[1] if version != 2 else None
            versions.add(fio_version or "")
            jobname, groupid, error = (
                fields[offset - 3],
                int(fields[offset - 2]),
                int(fields[offset - 1]),
            )
            i = offset
            blocks = {}
            order = ["read", "write", "trim"] if version in (2, 4, 5) else ["read", "write"]
            for name in order:
                if _TERSE_CPU.match(fields[i]) and _TERSE_CPU.match(fields[i + 1]):
                    break  # unified_rw_reporting prints one block only
                blocks[name], i = _terse_direction(fields, i, version)
            if len(blocks) == 1:
                blocks = {"mixed": blocks["read"]}
            usr, sys_ = _terse_float(fields[i]), _terse_float(fields[i + 1])
            ctx, majf, minf = int(fields[i + 2]), int(fields[i + 3]), int(fields[i + 4])
            i += 5 + 7 + 10 + 12
            if version >= 3 and i < len(fields):
                disks.extend(_terse_disks(fields[i:], None))
        except (IndexError, ValueError) as exc:
            raise ParseError(
                source.path, f"line {number}", f"terse v{version} record is malformed ({exc})"
            ) from None
        job_runtime = max(b["runtime"] for b in blocks.values())
        read_kib = blocks.get("read", blocks.get("mixed"))["io_kib"]
        write_kib = blocks.get("write", {}).get("io_kib", 0)
        read_pct = round(100 * read_kib / (read_kib + write_kib)) if read_kib + write_kib else None
        workloads.append(
            (
                0,
                groupid,
                {"rw": None, "read_pct": read_pct, "block_size_bytes": None, "iodepth": None},
            )
        )
        state, reason = (
            (RunState.error, f"fio reported error {error} for this job")
            if error
            else (RunState.ok, None)
        )
        jobs.append(
            FioJob(
                0,
                job_index,
                jobname,
                groupid,
                None,
                None,
                client_mode and jobname == "All clients",
                state,
                reason,
                error,
                None,
                None,
                job_runtime,
                None,
                None,
                usr,
                sys_,
                ctx,
                majf,
                minf,
                None,
                read_pct,
                None,
                None,
                None,
                None,
                None,
                None,
                "",
                "clat",
            )
        )
        for name, b in blocks.items():
            total = round(b["iops"] * b["runtime"] / 1000)
            directions.append(
                FioJobDirection(
                    0,
                    job_index,
                    name,
                    total,
                    True,
                    None,
                    None,
                    b["io_kib"] * 1024,
                    float(b["bw_kib"] * 1024),
                    float(b["iops"]),
                    b["runtime"],
                    *(v * 1000 for v in b["slat"]),
                    None,
                    *(v * 1000 for v in b["clat"]),
                    None,
                    *(v * 1000 for v in b["lat"]),
                    None,
                    b["bw"][0],
                    b["bw"][1],
                    b["bw"][3],
                    b["bw"][4],
                    b["bw"][2],
                    b["bw_samples"],
                    *b["iops_stats"],
                )
            )
            parsed.add(
                "fio_latency_percentiles",
                [
                    FioLatencyPercentile(0, job_index, name, "clat", p, v * 1000)
                    for p, v in b["percentiles"].items()
                ],
            )
    keys = _group_keys(workloads)
    jobs = [_with_key(job, keys[(0, job.groupid)]) for job in jobs]
    parsed.add(
        "fio_runs",
        [
            FioRun(
                0,
                sorted(versions)[-1] or None,
                "terse",
                terse_version,
                client_mode,
                1,
                True,
                None,
                None,
                None,
                None,
            )
        ],
    )
    parsed.add("fio_jobs", jobs)
    parsed.add("fio_job_directions", directions)
    parsed.add("fio_disk_util", disks)
    parsed.notes.append(
        "terse output: IOPS are integers, total I/O counts are derived from IOPS x runtime, "
        "and job options (block size, queue depth) are not in the file"
    )
    return parsed


def _with_key(job: FioJob, key: str) -> FioJob:
    from dataclasses import replace

    return replace(job, workload_key=key)


def _terse_disks(fields: list[str], hostname: str | None) -> list[FioDiskUtil]:
    rows = []
    for i in range(0, len(fields) - 8, 9):
        chunk = fields[i : i + 9]
        if not chunk[0] or not chunk[8].endswith("%"):
            continue
        rows.append(
            FioDiskUtil(
                0,
                hostname,
                chunk[0],
                int(chunk[1]),
                int(chunk[2]),
                int(chunk[3]),
                int(chunk[4]),
                int(chunk[5]),
                int(chunk[6]),
                int(chunk[7]),
                _terse_float(chunk[8]),
            )
        )
    return rows


# ---------------------------------------------------------------------- normal

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
_OLD_BYTES = {
    "B": 1,
    "KB": 1024,
    "MB": 1024**2,
    "GB": 1024**3,
    "TB": 1024**4,
}  # fio 2.0 "KB" meant KiB


def _suffixed(value: str) -> float:
    """`310k`, `11404k`, `1.2M`: fio's SI-like suffixes on counts and latencies."""
    factor = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}.get(value[-1], 1)
    return float(value[:-1] if factor != 1 else value) * factor


@dataclass(slots=True)
class _NormalJob:
    run_index: int
    name: str
    groupid: int
    error: int
    definition: dict[str, str]
    dirs: dict[str, dict[str, Any]]
    pcts: list[tuple[str, str, float, float]]
    cpu: tuple | None = None
    issued: tuple | None = None
    line: int = 0


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


def _parse_normal(text: str, source: SourceFile) -> Parsed:
    lines = text.split("\n")
    run_index = -1
    definitions: dict[tuple[int, str], dict[str, str]] = {}
    versions: dict[int, str] = {}
    jobs: dict[tuple[int, str, int], _NormalJob] = {}
    repeats = 0
    disks: list[FioDiskUtil] = []
    current: _NormalJob | None = None
    direction: dict[str, Any] | None = None
    pct_kind: tuple[str, float] | None = None
    saw_definition_since_version = True
    for number, line in enumerate(lines, 1):
        if m := _JOB_DEFINITION.match(line):
            if saw_definition_since_version is False or run_index < 0:
                run_index += 1
                saw_definition_since_version = True
            definitions[(run_index, m["name"])] = _definition_options(m["opts"])
            continue
        if m := _VERSION_LINE.match(line):
            if run_index < 0:
                run_index = 0
            versions[run_index] = "fio-" + m[1]
            saw_definition_since_version = False
            continue
        if m := _JOB_HEADER.match(line):
            run_index = max(run_index, 0)
            key = (run_index, m["name"], int(m["g"]))
            if key in jobs:
                repeats += 1  # --status-interval repeats the block: keep the newest
            current = _NormalJob(
                run_index,
                m["name"],
                int(m["g"]),
                int(m["err"]),
                definitions.get((run_index, m["name"]), {}),
                {},
                [],
                line=number,
            )
            jobs[key] = current
            direction, pct_kind = None, None
            continue
        if current is None:
            continue
        if m := _DIR_LINE.match(line):
            direction = current.dirs.setdefault(m["dir"], {})
            direction.update(
                iops=_suffixed(m["iops"]),
                bw_bytes=float(m["bw"]) * _BYTES[m["bwu"]],
                io_bytes=int(float(m["io"]) * _BYTES[m["iou"]]),
                runtime=int(m["rt"]),
            )
            pct_kind = None
        elif m := _OLD_DIR_LINE.match(line):
            direction = current.dirs.setdefault(m["dir"], {})
            direction.update(
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
            pct_kind = (m["kind"], _UNIT_NS[m["unit"]])
        elif pct_kind and line.lstrip().startswith("|"):
            for p in _PCT_VALUE.finditer(line):
                direction.setdefault("pcts", []).append(
                    (pct_kind[0], float(p["p"]), float(p["v"]) * pct_kind[1])
                )
        elif (m := _BW_LINE.match(line)) and direction is not None:
            to_kib = _BYTES[m["unit"]] / 1024
            direction["bw_stats"] = (
                float(m["min"]) * to_kib,
                float(m["max"]) * to_kib,
                float(m["avg"]) * to_kib,
                float(m["sd"]) * to_kib,
                float(m["per"]),
                int(m["n"]) if m["n"] else None,
            )
            pct_kind = None
        elif (m := _IOPS_LINE.match(line)) and direction is not None:
            direction["iops_stats"] = (
                float(m["min"]),
                float(m["max"]),
                float(m["avg"]),
                float(m["sd"]),
                int(m["n"]) if m["n"] else None,
            )
        elif m := _CPU_LINE.match(line):
            current.cpu = (
                float(m["usr"]),
                float(m["sys"]),
                int(m["ctx"]),
                int(m["majf"]),
                int(m["minf"]),
            )
            pct_kind = None
        elif m := _ISSUED.match(line):
            current.issued = tuple(
                [int(v) if v else 0 for v in m[g].split(",")] for g in ("total", "short", "drop")
            )
        elif m := _DISK_LINE.match(line):
            disks.append(
                FioDiskUtil(
                    max(run_index, 0),
                    None,
                    m["name"],
                    int(m["rios"]),
                    int(m["wios"]),
                    int(m["rm"]),
                    int(m["wm"]),
                    int(m["rt"]),
                    int(m["wt"]),
                    int(m["q"]),
                    float(m["util"]),
                )
            )
    if not jobs:
        raise ParseError(source.path, _first_text_line(text), _no_result_reason(text))
    return _normal_rows(list(jobs.values()), versions, disks, repeats, run_index + 1, text)


def _normal_rows(
    jobs: list[_NormalJob],
    versions: dict[int, str],
    disks: list[FioDiskUtil],
    repeats: int,
    run_count: int,
    text: str,
) -> Parsed:
    parsed = Parsed()
    workloads = [(j.run_index, j.groupid, workload_of(j.definition)) for j in jobs]
    keys = _group_keys(workloads)
    job_rows, dir_rows, pct_rows = [], [], []
    interrupted = "terminating on signal" in text
    for job_index, job in enumerate(jobs):
        workload = workload_of(job.definition)
        issued = job.issued or ([], [], [])
        for position, (name, d) in enumerate(job.dirs.items()):
            slot = {"read": 0, "write": 1, "trim": 2, "mixed": 0}[name]
            total = issued[0][slot] if slot < len(issued[0]) else None
            derived = total is None
            if derived:
                total = round(d["iops"] * d["runtime"] / 1000)
            slat = d.get("slat", (None,) * 4)
            clat = d.get("clat", (None,) * 4)
            lat = d.get("lat", (None,) * 4)
            bw = d.get("bw_stats", (None,) * 6)
            iops_stats = d.get("iops_stats", (None,) * 5)
            dir_rows.append(
                FioJobDirection(
                    job.run_index,
                    job_index,
                    name,
                    int(total),
                    derived,
                    issued[1][slot] if slot < len(issued[1]) else None,
                    issued[2][slot] if slot < len(issued[2]) else None,
                    d["io_bytes"],
                    d["bw_bytes"],
                    d["iops"],
                    d["runtime"],
                    *slat,
                    None,
                    *clat,
                    None,
                    *lat,
                    None,
                    bw[0],
                    bw[1],
                    bw[2],
                    bw[3],
                    bw[4],
                    bw[5],
                    *iops_stats,
                )
            )
            for kind, p, v in d.get("pcts", []):
                pct_rows.append(FioLatencyPercentile(job.run_index, job_index, name, kind, p, v))
            del position
        kinds = {kind for d in job.dirs.values() for kind, _, _ in d.get("pcts", [])}
        state, reason = RunState.ok, None
        if job.error:
            state, reason = RunState.error, f"fio reported error {job.error} for this job"
        elif interrupted:
            state, reason = RunState.unfinished, "fio was interrupted: " + _signal_line(text)
        cpu = job.cpu or (None,) * 5
        runtime = max((d["runtime"] for d in job.dirs.values()), default=None)
        job_rows.append(
            FioJob(
                job.run_index,
                job_index,
                job.name,
                job.groupid,
                None,
                None,
                False,
                state,
                reason,
                job.error,
                None,
                None,
                runtime,
                None,
                None,
                *cpu,
                workload["rw"],
                workload["read_pct"],
                workload["random_pct"],
                workload["block_size_bytes"],
                workload["iodepth"],
                _int_option(job.definition.get("numjobs")),
                workload["ioengine"],
                job.definition or None,
                keys[(job.run_index, job.groupid)],
                "lat" if "lat" in kinds else ("clat" if kinds else None),
            )
        )
    parsed.add(
        "fio_runs",
        [
            FioRun(i, versions.get(i), "normal", None, False, 1, True, None, None, None, None)
            for i in range(max(run_count, 1))
        ],
    )
    parsed.add("fio_jobs", job_rows)
    parsed.add("fio_job_directions", dir_rows)
    parsed.add("fio_latency_percentiles", pct_rows)
    parsed.add("fio_disk_util", disks)
    parsed.notes.append("read from fio's human-readable report (prefer JSON output: it is exact)")
    if repeats:
        parsed.notes.append(
            f"{repeats} repeated job report(s) from --status-interval: "
            "the last report of each job is kept"
        )
    return parsed
