"""HCIBench's workload parameter files: fio job files (`fio.cfg`, or under the paramfile's
name) and Vdbench parameter files (`vdbench.cfg`), one `hcibench_params` row each.

HCIBench's generator writes what it meant in a comment header (`; read_pct: 70`,
`; block_size: 4` in KiB) above the options; the header wins where the two differ.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ingest.parsers._common import (
    fio_read_random_pct,
    hcibench_case_name,
    line_error,
    parse_size_bytes,
)
from ingest.parsers.hcibench.case_name import parse_case_name
from ingest.parsers.hcibench.records import HcibenchParams
from ingest.parsers.hcibench.values import (
    header_number,
    int_or_none,
    is_number,
    none_text,
    numbered_lines,
)
from ingest.records import Parsed, ParseError, SourceFile


def _params_row(source: SourceFile, **fields: Any) -> HcibenchParams:
    """A parameter-file row; `fio.cfg` copies take the paramfile name from the case."""
    case = hcibench_case_name(source)
    named = parse_case_name(source.name) or (parse_case_name(case) if case else None)
    return HcibenchParams(case_name=case, param_name=named.param_name if named else None, **fields)


# ------------------------------------------------------------------------------ fio


@dataclass(slots=True)
class _FioJobFile:
    header: dict[str, Any]  # `; key: value` comment lines
    global_options: dict[str, str]
    jobs: list[dict[str, str]]  # one per [job] section: HCIBench writes one per disk

    def option(self, key: str, *aliases: str) -> str | None:
        """What fio would use for the first job: its own value, else the global one."""
        for k in (key, *aliases):
            for options in (*self.jobs[:1], self.global_options):
                if k in options:
                    return options[k]
        return None

    def given_last(self, key: str, other: str) -> bool:
        """Whether fio reads `key` after `other` for the first job (the later one wins)."""
        order = [k for options in (self.global_options, *self.jobs[:1]) for k in options]
        if key not in order or other not in order:
            return False
        return len(order) - order[::-1].index(key) > len(order) - order[::-1].index(other)


def _read_fio_job_file(text: str, source: SourceFile) -> _FioJobFile:
    header: dict[str, Any] = {}
    sections: list[tuple[str, dict[str, str]]] = []
    for line_no, line in numbered_lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith((";", "#")):
            key, sep, value = stripped.lstrip(";#").partition(":")
            if sep and key.strip():
                header[key.strip()] = value.strip()
            continue
        section = re.fullmatch(r"\[(?P<name>[^\]]+)\]", stripped)
        if section:
            sections.append((section["name"], {}))
            continue
        if not sections:
            raise line_error(source, line_no, "fio option outside any [section]")
        key, _, value = stripped.partition("=")
        if not re.fullmatch(r"[A-Za-z_][\w-]*", key.strip()):
            raise line_error(source, line_no, f"not an fio option line: {stripped[:40]!r}")
        sections[-1][1][key.strip()] = value.strip()
    if not sections:
        raise ParseError(source.path, "end of file", "no [global] or [job] section")
    return _FioJobFile(
        header=header,
        global_options=next((opts for name, opts in sections if name == "global"), {}),
        jobs=[opts for name, opts in sections if name != "global"],
    )


def _optional_float(text: str | None) -> float | None:
    # Strict on purpose: a malformed value (`rwmixread=5x0`) rejects the file.
    return float(text) if text else None


def _fio_mix(job_file: _FioJobFile) -> tuple[float | None, float | None]:
    """(read %, random %): the header's, else what fio makes of the options."""
    read_pct = header_number(job_file.header, "read_pct")
    random_pct = header_number(job_file.header, "random_pct")
    rw = job_file.option("readwrite", "rw")
    from_options = fio_read_random_pct(
        rw,
        _optional_float(job_file.option("rwmixread")) if read_pct is None else None,
        _optional_float(job_file.option("rwmixwrite")) if read_pct is None else None,
        _optional_float(job_file.option("percentage_random")) if random_pct is None else None,
        rwmixwrite_given_last=job_file.given_last("rwmixwrite", "rwmixread"),
    )
    as_float = [None if v is None else float(v) for v in from_options]
    return (
        read_pct if read_pct is not None else as_float[0],
        random_pct if random_pct is not None else as_float[1],
    )


def _fio_block_size(job_file: _FioJobFile, parsed: Parsed) -> int | None:
    """HCIBench's header gives the block size in KiB; a bare number in the job file is what
    the generator copied (fio itself would read it as bytes), so the header wins."""
    bs_text = job_file.option("blocksize", "bs")
    header_bs = job_file.header.get("block_size")
    if bs_text and bs_text.isdigit() and header_bs:
        parsed.notes.append(
            f"blocksize={bs_text} has no unit (fio reads bytes); using the "
            f"header block_size {header_bs} KiB"
        )
    if header_bs and is_number(header_bs):
        return int(float(header_bs) * 1024)
    return parse_size_bytes(bs_text) if bs_text else None


def parse_fio_params(text: str, source: SourceFile, parsed: Parsed) -> None:
    job_file = _read_fio_job_file(text, source)
    header, option = job_file.header, job_file.option
    read_pct, random_pct = _fio_mix(job_file)
    threads = header_number(header, "nb_threads")
    iodepth = option("iodepth")
    size = option("size")
    working_set = header_number(header, "working_set")
    if working_set is None and size and size.endswith("%"):
        working_set = float(size[:-1])
    disks = header_number(header, "nb_disks")
    row = _params_row(
        source,
        tool="fio",
        disks_per_vm=int(disks) if disks is not None else len(job_file.jobs),
        working_set_pct=working_set,
        block_size_bytes=_fio_block_size(job_file, parsed),
        block_size_text=option("blocksize", "bs"),
        read_pct=read_pct,
        random_pct=random_pct,
        threads_per_disk=int(threads)
        if threads is not None
        else (int(iodepth) if iodepth else None),
        testing_time_s=int_or_none(option("runtime")) or int_or_none(header.get("testing_time")),
        warmup_s=int_or_none(option("ramp_time")) or int_or_none(header.get("warmup_time")),
        interval_s=int_or_none(header.get("interval_time")),
        io_rate_text=option("rate_iops") or none_text(header.get("io_rate")),
        compratio=None,
        dedupratio=None,
        dedupunit_text=None,
        fio_readwrite=option("readwrite", "rw"),
        fio_ioengine=option("ioengine"),
        header_json=header,
        options_json=job_file.global_options,
        devices_json=[opts.get("filename", "") for opts in job_file.jobs],
    )
    parsed.add("hcibench_params", [row])


# -------------------------------------------------------------------------- Vdbench


def _split_params(text: str) -> dict[str, str]:
    """`sd=sd1,lun=/dev/sda,range=(0,100),threads=8`, commas inside parentheses kept."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current += char
    parts.append(current)
    out: dict[str, str] = {}
    for part in parts:
        key, _, value = part.partition("=")
        out[key.strip()] = value.strip()
    return out


@dataclass(slots=True)
class _VdbenchParamFile:
    comments: list[str]
    general: dict[str, Any]  # `key=value` lines outside sd/wd/rd (hd/fsd/fwd as lists)
    sds: list[dict[str, str]]
    wds: list[dict[str, str]]
    rds: list[dict[str, str]]


def _read_vdbench_param_file(text: str, source: SourceFile) -> _VdbenchParamFile:
    param_file = _VdbenchParamFile([], {}, [], [], [])
    definitions = {"sd": param_file.sds, "wd": param_file.wds, "rd": param_file.rds}
    for line_no, line in numbered_lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("*", "#")):
            param_file.comments.append(stripped.lstrip("*#").strip())
            continue
        if "=" not in stripped:
            raise line_error(source, line_no, f"not a Vdbench parameter line: {stripped[:40]!r}")
        key = stripped.partition("=")[0].strip().lower()
        if key in definitions:
            definitions[key].append(_split_params(stripped))
        elif key in ("hd", "fsd", "fwd"):
            param_file.general.setdefault(key, []).append(stripped)
        else:
            param_file.general[key] = stripped.partition("=")[2].strip()
    if not param_file.sds or not param_file.wds or not param_file.rds:
        raise ParseError(
            source.path, "end of file", "Vdbench parameter file needs sd=, wd= and rd= lines"
        )
    return param_file


def _general_number(general: dict[str, Any], key: str) -> float | None:
    value = str(general.get(key, "x"))
    return float(value) if is_number(value) else None


def parse_vdbench_params(text: str, source: SourceFile, parsed: Parsed) -> None:
    param_file = _read_vdbench_param_file(text, source)
    wd, rd, sd = param_file.wds[0], param_file.rds[0], param_file.sds[0]
    working_set = None
    range_match = re.fullmatch(r"\(\s*[\d.]+\s*,\s*([\d.]+)\s*\)", sd.get("range", ""))
    if range_match:
        working_set = float(range_match.group(1))
    xfersize = wd.get("xfersize") or wd.get("xf")
    seek = wd.get("seekpct") or wd.get("seek")
    random_pct = {"random": 100.0, "seq": 0.0, "sequential": 0.0, "eof": 0.0}.get(
        (seek or "").lower(), float(seek) if seek and is_number(seek) else None
    )
    rdpct = wd.get("rdpct")
    row = _params_row(
        source,
        tool="vdbench",
        disks_per_vm=len(param_file.sds),
        working_set_pct=working_set,
        # Vdbench reads `4k` as 4096 and a bare number as bytes, as fio does by default.
        block_size_bytes=parse_size_bytes(xfersize) if xfersize else None,
        block_size_text=xfersize,
        read_pct=float(rdpct) if rdpct and is_number(rdpct) else None,
        random_pct=random_pct,
        threads_per_disk=int_or_none(sd.get("threads")),
        testing_time_s=int_or_none(rd.get("elapsed")),
        warmup_s=int_or_none(rd.get("warmup")),
        interval_s=int_or_none(rd.get("interval")),
        io_rate_text=rd.get("iorate"),
        compratio=_general_number(param_file.general, "compratio"),
        dedupratio=_general_number(param_file.general, "dedupratio"),
        dedupunit_text=param_file.general.get("dedupunit"),
        fio_readwrite=None,
        fio_ioengine=None,
        header_json=param_file.comments,
        options_json=param_file.general,
        devices_json=[s.get("lun", "") for s in param_file.sds],
    )
    parsed.add("hcibench_params", [row])
