"""Types shared by every parser and the loader.

A parser never touches the warehouse: it receives the bytes of one file plus a
`SourceFile` describing where the file came from, and returns a `Parsed` holding
rows for one or more `raw.*` tables. Rows are frozen dataclasses (one type per
table, declared in the parser's `TABLES`) or, for very wide formats such as
esxtop, a ready-made `pyarrow.Table` with the same columns.

Units live in column names (`lat_mean_ns`, `bw_bytes_per_s`, `io_bytes`): a
parser converts a tool's unit to the one its column name promises, so nothing
downstream has to remember which fio version wrote microseconds.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa


@dataclass(frozen=True, slots=True)
class SourceFile:
    """Where the bytes handed to a parser came from.

    `path` is the logical path shown to users: an absolute file path, or for a
    member of an archive `<archive path>!/<member path>` (nested archives chain
    the `!/`). `folder` is the logical folder holding the file; outputs of one
    test are grouped by it when `result_per` is `folder`.
    """

    path: str
    name: str
    folder: str
    sha256: str
    size_bytes: int
    labels: Mapping[str, Any] = field(default_factory=dict)
    # Logical path of the HCIBench test-case folder (`<paramfile>-<epoch>`) the
    # file sits in, or beside (its `-res.txt`); None outside HCIBench results.
    hcibench_case: str | None = None


class ParseError(Exception):
    """A file that cannot be read as its format: says where and why.

    `location` is human-readable and as precise as the parser can make it:
    `line 12`, `line 3, column 18`, `byte 40960`, `row 721`, `end of file`.
    """

    def __init__(self, path: str, location: str, reason: str) -> None:
        super().__init__(f"{path}: {location}: {reason}")
        self.path = path
        self.location = location
        self.reason = reason


class RunState(enum.StrEnum):
    """Whether a measured job can be trusted as a result."""

    ok = "ok"
    error = "error"  # the tool reported an error for the job
    unfinished = "unfinished"  # the run never reached its final report


class LatencyKind(enum.StrEnum):
    """Which span of an I/O's life a latency measures: the vocabulary of the `*latency_kind`
    column every table with a latency carries, so a row never leaves it to the reader.

    The split is fio's (HOWTO `slat`/`clat`/`lat`); the other tools report one span:

    - total: from the moment the tool issued the I/O until it completed. fio `lat`
      (= slat + clat); Vdbench's response time (`resp`); HCIBench's LATENCY/R_LATENCY/
      W_LATENCY, which average fio's `lat_ns.mean` or Vdbench's `resp`; the vSAN performance
      service's latencies (`latencyAvgRead`, ...): the whole time at the layer reported.
    - completion: from submission until completion (fio `clat`), what fio forms without a
      usable `lat` offer.
    - submission: the time to submit the I/O (fio `slat`).
    """

    total = "total"
    completion = "completion"
    submission = "submission"


@dataclass(slots=True)
class Parsed:
    """What one parser call produced: rows per raw table, plus notes.

    Notes are facts the user should see in the load summary and that are kept
    in `raw.source_files.notes_json` (e.g. "dropped truncated last row 722").
    """

    tables: dict[str, list[Any] | pa.Table] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Set when the file loads but yields no workload result (the run did not finish, the tool
    # reported an error, no direction rows, a report kind that carries no measurements): the
    # load summary prints it even with --quiet, so no run disappears silently.
    no_result_reason: str | None = None

    def add(self, table: str, rows: list[Any] | pa.Table) -> None:
        existing = self.tables.get(table)
        if existing is None:
            self.tables[table] = rows
        elif isinstance(existing, list) and isinstance(rows, list):
            existing.extend(rows)
        else:
            raise TypeError(f"cannot mix row lists and Arrow tables for {table}")

    def row_count(self) -> int:
        return sum(
            len(rows) if isinstance(rows, list) else rows.num_rows for rows in self.tables.values()
        )
