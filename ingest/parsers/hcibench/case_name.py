"""The grammar of HCIBench's test-case and parameter-file names, which carry the workload:
`[group<i>-][<prefix>-]<fio|vdb>-<N>vmdk-<ws>ws-<bs>-<rd>rdpct-<rand>randompct-<T>threads
[-<suffix>][-<epoch>]`. The loader and dbt read the same rules."""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CaseName:
    """What an HCIBench test-case (or parameter file) name says about the workload."""

    case_name: str
    param_name: str
    tool: str  # fio | vdbench
    user_prefix: str | None
    group_index: int | None
    disks_per_vm: int
    working_set_pct: int
    block_size_bytes: int
    block_size_text: str
    read_pct: int
    random_pct: int
    threads_per_disk: int
    name_suffix: str | None
    started_at: dt.datetime | None


_CASE_NAME = re.compile(
    r"^(?:group(?P<group>\d+)-)?"
    r"(?P<param>(?:(?P<prefix>.+?)-)?(?P<tool>fio|vdb)-(?P<disks>\d+)vmdk-(?P<ws>\d+)ws-"
    r"(?P<bs>\d+)(?P<unit>[kKmM]?)[bB]?-(?P<rd>\d+)rdpct-(?P<rand>\d+)randompct-"
    r"(?P<threads>\d+)threads(?:-(?P<suffix>[^/]+?))??)"
    r"(?:-(?P<epoch>\d{10}))?$"
)
_EPOCH_SUFFIX = re.compile(r"-(\d{10})(?:-res\.txt)?$")
# HCIBench names block sizes in KiB (`4k`, or a bare `4`), unlike fio's bytes for a bare number.
_UNIT_BYTES = {"": 1024, "k": 1024, "m": 1024 * 1024}


def epoch_at(name: str) -> dt.datetime | None:
    """HCIBench's test start: the epoch suffix of a case name (or its `-res.txt`), UTC."""
    match = _EPOCH_SUFFIX.search(name)
    return dt.datetime.fromtimestamp(int(match.group(1)), dt.UTC) if match else None


def parse_case_name(name: str) -> CaseName | None:
    """Workload facts of `[group<i>-][<prefix>-]<fio|vdb>-<N>vmdk-<ws>ws-<bs>-<rd>rdpct-
    <rand>randompct-<T>threads[-<epoch>][-res.txt]`; None for other names.

    HCIBench writes block sizes in KiB: `4k` and a bare `4` both mean 4096 bytes.
    """
    base = posixpath.basename(name.rstrip("/")).removesuffix("-res.txt")
    match = _CASE_NAME.match(base)
    if not match:
        return None
    if not (0 <= int(match["rd"]) <= 100 and 0 <= int(match["rand"]) <= 100):
        return None
    epoch = match["epoch"]
    return CaseName(
        case_name=base,
        param_name=match["param"],
        tool="fio" if match["tool"] == "fio" else "vdbench",
        user_prefix=match["prefix"],
        group_index=int(match["group"]) if match["group"] else None,
        disks_per_vm=int(match["disks"]),
        working_set_pct=int(match["ws"]),
        block_size_bytes=int(match["bs"]) * _UNIT_BYTES[match["unit"].lower()],
        block_size_text=match["bs"] + match["unit"],
        read_pct=int(match["rd"]),
        random_pct=int(match["rand"]),
        threads_per_disk=int(match["threads"]),
        name_suffix=match["suffix"],
        started_at=dt.datetime.fromtimestamp(int(epoch), dt.UTC) if epoch else None,
    )
