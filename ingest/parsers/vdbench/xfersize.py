"""The transfer size a Vdbench run was configured with, when its output holds it.

A block size is a size every I/O moved. Vdbench prints `bytes/io` (`xfer size` for file-system
runs): the mean of what the I/Os moved, 7,832 for `xfersize=(512,4,1k,1,...,4k,67,8k,10,...)`
and 4,093 for `xfersize=4k` on files whose sizes are no multiple of 4 KiB. That is no size, so it
stays `bytes_per_io`. The configured size is taken, in this order, from:

1. the raw flatfile's `xfersize` column ("data transfer size requested"), unless the run's
   bytes per I/O differ from it: Vdbench prints the first size of a distribution there (512
   above), and a run whose every I/O has one size moves exactly that many bytes per I/O;
2. the run line's `For loops: xfersize=8k` (a `forxfersize=` loop), printed per run;
3. `wd=`/`fwd=` and `rd=` parameter lines in the same text (a console log that also shows the
   parameter file, parmfile.html's `* Contents of parameter file:` section pasted with the
   output): the run's workloads' `xfersize=` (any prefix Vdbench accepts, `xf=`), the
   `wd=default`/`fwd=default` one, else Vdbench's default 4k; a distribution, a
   `(min,max,align)` range or workloads asking for different sizes give no single size;
4. the HCIBench test case the output belongs to (a VM's stdout in its case folder): HCIBench
   names the case after the parameter file it ran, block size included
   (`vdb-8vmdk-100ws-4k-...`), so the case name says what the VM's Vdbench was asked for.

Otherwise `xfersize_bytes` is None and `xfersize_unknown_reason` says why.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, replace

from ingest.parsers._common import parse_size_bytes
from ingest.parsers.hcibench.case_name import parse_case_name
from ingest.parsers.vdbench.records import VdbenchRun, XfersizeSource
from ingest.parsers.vdbench.runs import TAG

# Vdbench's default transfer size for a wd= or fwd= that names none (WD_entry, FwdEntry).
_DEFAULT_XFERSIZE = 4096
_PARAMETER_LINE = re.compile(r"^\s*(?P<kind>wd|fwd|rd)=(?P<name>[^,\s]+)(?P<rest>(?:,.*)?)$")
_FOR_LOOP_XFERSIZE = re.compile(r"(?:^|\s)xfersize=(?P<size>\S+)")


@dataclass(frozen=True, slots=True)
class _Configured:
    size: int | None
    source: XfersizeSource | None
    reason: str | None


def with_configured_xfersize(
    runs: list[VdbenchRun], text: str, case_name: str | None = None
) -> list[VdbenchRun]:
    """The runs with `xfersize_bytes`, `xfersize_source` and `xfersize_unknown_reason` set;
    `case_name`: the HCIBench test case of the output, if any."""
    parameters = _Parameters.read(text)
    case = parse_case_name(case_name) if case_name else None
    out = []
    for run in runs:
        found = _configured(run, parameters)
        if found.size is None and case is not None and run.bytes_per_io != 0:
            found = _Configured(case.block_size_bytes, XfersizeSource.hcibench_case, None)
        out.append(
            replace(
                run,
                xfersize_bytes=found.size,
                xfersize_source=found.source,
                xfersize_unknown_reason=found.reason,
            )
        )
    return out


def _configured(run: VdbenchRun, parameters: _Parameters) -> _Configured:
    printed = run.xfersize_bytes  # the flatfile column, as read
    if printed is not None:
        if run.bytes_per_io and run.bytes_per_io != printed:  # 0: the run moved nothing
            return _Configured(
                None,
                None,
                f"the flatfile's xfersize {printed:,} is not what the I/Os moved "
                f"({run.bytes_per_io:,} bytes per I/O): a transfer-size distribution, whose "
                "first size Vdbench prints",
            )
        return _Configured(printed, XfersizeSource.flatfile, None)
    loop = _FOR_LOOP_XFERSIZE.search(run.for_loops or "")
    if loop:
        size = parse_size_bytes(loop["size"], kb_base=1024)
        if size:
            return _Configured(size, XfersizeSource.for_loops, None)
    if parameters.rds:
        size, reason = parameters.xfersize_of(run.rd_name)
        if size is not None:
            return _Configured(size, XfersizeSource.parameter_file, None)
        if reason is not None:
            return _Configured(None, None, reason)
    mean = (
        f" (bytes_per_io {run.bytes_per_io:,} is the mean the I/Os moved, not a size)"
        if run.bytes_per_io
        else ""
    )
    return _Configured(None, None, f"the output does not print the configured xfersize{mean}")


def _split_parameters(rest: str) -> dict[str, str]:
    """`,xfersize=(4k,50,8k,50),rdpct=70` -> {"xfersize": "(4k,50,8k,50)", "rdpct": "70"}."""
    values: dict[str, str] = {}
    depth, key, current = 0, None, ""
    for char in rest.lstrip(",") + ",":
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            if "=" in current:
                key, _, value = current.partition("=")
                values[key.strip().lower()] = value.strip()
            current = ""
            continue
        current += char
    return values


def _keyword(values: dict[str, str], full: str) -> str | None:
    """The value of a keyword written as any prefix Vdbench accepts (`xf` for `xfersize`)."""
    for key, value in values.items():
        if len(key) >= 2 and full.startswith(key):
            return value
    return None


def _single_size(value: str) -> tuple[int | None, str | None]:
    """(size in bytes, None) for one size; (None, why) for a distribution or a range."""
    items = [v for v in value.strip("()").split(",") if v.strip()]
    if value.startswith("(") and len(items) == 3:
        return None, f"xfersize={value} is a range of sizes, not one size"
    sizes = {parse_size_bytes(v.strip(), kb_base=1024) for v in items[::2]}
    if len(sizes) == 1 and None not in sizes:
        return sizes.pop(), None
    return None, f"xfersize={value} is a distribution of sizes, not one size"


@dataclass(slots=True)
class _Parameters:
    """The wd=/fwd=/rd= lines of a text, by name."""

    workloads: dict[str, dict[str, str]]  # wd/fwd name -> its parameters ("default" too)
    rds: dict[str, dict[str, str]]

    @classmethod
    def read(cls, text: str) -> _Parameters:
        workloads: dict[str, dict[str, str]] = {}
        rds: dict[str, dict[str, str]] = {}
        for raw in text.splitlines():
            match = _PARAMETER_LINE.match(TAG.sub("", raw))
            if match is None:
                continue
            values = _split_parameters(match["rest"])
            if match["kind"] == "rd":
                rds[match["name"]] = values
            else:
                workloads[match["name"]] = values
        return cls(workloads, rds)

    def xfersize_of(self, rd_name: str) -> tuple[int | None, str | None]:
        """The one size the rd's workloads ask for, else None and why (None, None when the
        text does not define the rd)."""
        rd = self.rds.get(rd_name)
        if rd is None:
            return None, None
        patterns = rd.get("wd") or rd.get("fwd")
        if not patterns:
            return None, f"rd={rd_name} names no wd= or fwd="
        names = [p.strip() for p in patterns.strip("()").split(",") if p.strip()]
        used = [
            name
            for name in self.workloads
            if name not in ("default", "format")
            and any(fnmatch.fnmatchcase(name, pattern) for pattern in names)
        ]
        if not used:
            return None, f"rd={rd_name} uses {patterns}, which the text does not define"
        default = _keyword(self.workloads.get("default", {}), "xfersizes")
        found: dict[str, tuple[int | None, str | None]] = {}
        for name in used:
            value = _keyword(self.workloads[name], "xfersizes") or default
            found[name] = _single_size(value) if value else (_DEFAULT_XFERSIZE, None)
        reasons = [why for _, why in found.values() if why]
        if reasons:
            return None, reasons[0]
        sizes = sorted({size for size, _ in found.values() if size is not None})
        if len(sizes) == 1:
            return sizes[0], None
        shown = ", ".join(f"{s:,}" for s in sizes)
        return None, f"the workloads of rd={rd_name} ask for different sizes: {shown} bytes"
