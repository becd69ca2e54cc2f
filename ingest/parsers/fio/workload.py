"""What a fio job asked for, from its options: pattern, read %, random %, block size, queue
depth; and the key that keeps different tests of one folder apart."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ingest.parsers._common import fio_read_random_pct, fio_rw_mode, parse_size_bytes

# fio's defaults for options a job file leaves out (HOWTO): bs=4k, iodepth=1, numjobs=1.
_DEFAULT_BLOCK_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Workload:
    rw: str | None = None
    read_pct: int | None = None
    random_pct: int | None = None
    block_size_bytes: int | None = None
    iodepth: int | None = None
    numjobs: int | None = None
    ioengine: str | None = None

    @property
    def signature(self) -> str:
        return f"{self.rw}/r{self.read_pct}/bs{self.block_size_bytes}/qd{self.iodepth}"


def int_option(value: Any) -> int | None:
    """An integer option as fio wrote it into its output; None when it is not one."""
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def workload_of(options: Mapping[str, Any], measured_read_pct: int | None = None) -> Workload:
    """The workload of a job from its fio options.

    Options missing from a file that lists options mean fio's defaults (rw=read, bs=4k,
    iodepth=1). A file that lists no options at all (fio 2.1 JSON, terse) says nothing about
    the workload: the read % is then what the job measured and the rest is unknown."""
    if not options:
        return Workload(read_pct=measured_read_pct)
    rw = options.get("rw") or options.get("readwrite")
    read_pct, random_pct = fio_read_random_pct(
        rw,
        int_option(options.get("rwmixread")),
        int_option(options.get("rwmixwrite")),
        int_option(options.get("percentage_random")),
        rwmixwrite_given_last=_given_last(options, "rwmixwrite", "rwmixread"),
    )
    bs = options.get("bs") or options.get("blocksize")
    kb_base = int_option(options.get("kb_base")) or 1024
    return Workload(
        rw=fio_rw_mode(rw),
        read_pct=read_pct,
        random_pct=random_pct,
        block_size_bytes=parse_size_bytes(bs, kb_base) if bs is not None else _DEFAULT_BLOCK_SIZE,
        iodepth=int_option(options.get("iodepth")) or 1,
        numjobs=int_option(options.get("numjobs")) or 1,
        ioengine=options.get("ioengine"),
    )


def _given_last(options: Mapping[str, Any], key: str, other: str) -> bool:
    """Whether `key` comes after `other` in the options (fio lets the later one win)."""
    keys = list(options)
    return key in options and other in options and keys.index(key) > keys.index(other)


def measured_read_pct(entry: Mapping[str, Any]) -> int | None:
    """Share of reads a JSON job entry really did (by I/O count, else by bytes)."""
    ios = [
        (entry.get(n) or {}).get("total_ios", (entry.get(n) or {}).get("io_bytes", 0)) or 0
        for n in ("read", "write")
    ]
    return round(100 * ios[0] / sum(ios)) if sum(ios) else None


def group_keys(jobs: Iterable[tuple[int, int, Workload]]) -> dict[tuple[int, int], str]:
    """workload_key per (run, group) from (run, groupid, workload) of each job: a stonewall
    group is one test; its key names the workloads it ran so folder-wise grouping never
    merges tests."""
    signatures: dict[tuple[int, int], set[str]] = {}
    for run_index, groupid, workload in jobs:
        signatures.setdefault((run_index, groupid), set()).add(workload.signature)
    return {
        key: f"run{key[0]}/group{key[1]}/" + "+".join(sorted(sigs))
        for key, sigs in signatures.items()
    }
