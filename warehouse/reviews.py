"""Review decisions on change points: a user confirms or dismisses a change, and it is kept.

dbt rebuilds marts.change_points from scratch, and the dashboard reads a published snapshot,
so a decision can live in neither. It lives in a store of its own, outside the rebuilt marts
and the snapshot, keyed by the change's stable identity (series key + measure + the first
result after the change), one row per decision (who, when, why: the history is kept; the
latest decision of a change is its state):

- file mode: `<warehouse>.reviews.jsonl` beside the warehouse file (as the serving copy
  `<warehouse>.serving.duckdb` is), one JSON object a line, appended under a lock of its own
  (`<warehouse>.reviews.jsonl.lock`): a `dbt build` holds the warehouse's writer lock for
  minutes, and a click must not wait for it;
- team mode: the table `perf_reviews.change_point_decisions` in the lake's catalog
  PostgreSQL, which every dashboard server reaches; one INSERT, committed at once.

The History page reads the store directly, so every user sees a decision at once. `ingest
build` copies the store into the warehouse's `reviews.change_point_decisions` (the dbt source
the on-run-start hook `create_review_landing` creates empty) before dbt runs, and
marts.change_points takes each change's latest decision as its `review_state`.
"""

from __future__ import annotations

import datetime as dt
import json
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from warehouse import ducklake, filelock
from warehouse.base import Warehouse
from warehouse.file import FileWarehouse
from warehouse.lake import LakeWarehouse

REVIEW_STATES = ("open", "confirmed", "dismissed")
# The warehouse table dbt reads (source `reviews`), filled from the store by `ingest build`.
LANDING = "reviews.change_point_decisions"
# Team mode: the store in the catalog database (not the lake: a lake table would reach
# another dashboard only through its next published snapshot).
PG_SCHEMA = "perf_reviews"
PG_TABLE = f"{PG_SCHEMA}.change_point_decisions"
COLUMNS = ("series_key", "measure", "result_id", "review_state", "reviewed_by", "reviewed_at")
COLUMNS += ("review_note",)
# Longest note kept (a text box, not a document).
MAX_NOTE_CHARS = 2000


class ReviewError(ValueError):
    """A decision that cannot be stored, or a store that cannot be read (the message says
    which file and line, or what)."""


@dataclass(frozen=True, slots=True)
class ChangeIdentity:
    """What names one change point across rebuilds: its series, measure and the first result
    after the change (result ids are stable: a hash of the loaded file and the job)."""

    series_key: str
    measure: str
    result_id: str


@dataclass(frozen=True, slots=True)
class ReviewDecision:
    change: ChangeIdentity
    review_state: str
    reviewed_at: dt.datetime
    reviewed_by: str | None = None
    review_note: str | None = None

    def row(self) -> tuple:
        c = self.change
        return (c.series_key, c.measure, c.result_id, self.review_state, self.reviewed_by,
                self.reviewed_at, self.review_note)  # fmt: skip


def decision(
    change: ChangeIdentity, state: str, user: str | None = None, note: str | None = None
) -> ReviewDecision:
    """A decision made now; an empty user or note is none, and a state outside
    REVIEW_STATES is refused."""
    if state not in REVIEW_STATES:
        raise ReviewError(f"review state {state!r} is not one of {', '.join(REVIEW_STATES)}")
    note = (note or "").strip()[:MAX_NOTE_CHARS] or None
    return ReviewDecision(change, state, dt.datetime.now(dt.UTC), (user or "").strip() or None,
                          note)  # fmt: skip


def latest(decisions: list[ReviewDecision]) -> dict[ChangeIdentity, ReviewDecision]:
    """Each change's latest decision (ties: the one recorded last)."""
    out: dict[ChangeIdentity, ReviewDecision] = {}
    for d in decisions:
        kept = out.get(d.change)
        if kept is None or d.reviewed_at >= kept.reviewed_at:
            out[d.change] = d
    return out


class ReviewStore(ABC):
    """Where decisions are kept (see the module docstring)."""

    @abstractmethod
    def record(self, decision: ReviewDecision) -> None:
        """Store one decision, visible to every reader when this returns."""

    @abstractmethod
    def decisions(self) -> list[ReviewDecision]:
        """Every decision, in the order recorded."""

    @abstractmethod
    def describe(self) -> str:
        """Where the store is, for docs and messages (no password)."""


# --- file mode -----------------------------------------------------------------------------


def _to_json(d: ReviewDecision) -> str:
    record = dict(zip(COLUMNS, d.row(), strict=True))
    record["reviewed_at"] = d.reviewed_at.isoformat()
    return json.dumps(record, sort_keys=True)


def _from_json(path: Path, number: int, line: str) -> ReviewDecision:
    try:
        record = json.loads(line)
        change = ChangeIdentity(record["series_key"], record["measure"], record["result_id"])
        when = dt.datetime.fromisoformat(record["reviewed_at"])
        state = record["review_state"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ReviewError(f"{path}, line {number}: not a review decision ({exc})") from exc
    if state not in REVIEW_STATES:
        raise ReviewError(f"{path}, line {number}: review state {state!r} is unknown")
    return ReviewDecision(change, state, when, record.get("reviewed_by"),
                          record.get("review_note"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class FileReviewStore(ReviewStore):
    path: Path

    def describe(self) -> str:
        return str(self.path)

    def record(self, decision: ReviewDecision) -> None:
        # One write of one whole line, flushed to disk, under the store's own lock: a reader
        # never sees half a line, and two writers never interleave theirs.
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with filelock.writer_lock(self.path), self.path.open("a", encoding="utf-8") as out:
            out.write(_to_json(decision) + "\n")
            out.flush()

    def decisions(self) -> list[ReviewDecision]:
        if not self.path.is_file():
            return []
        with filelock.writer_lock(self.path):  # held for a moment: never half an appended line
            lines = self.path.read_text(encoding="utf-8").splitlines()
        return [_from_json(self.path, n, line) for n, line in enumerate(lines, 1) if line.strip()]


def file_store_path(main: Path) -> Path:
    return main.with_name(main.stem + ".reviews.jsonl")


# --- team mode -----------------------------------------------------------------------------

_PG_DDL = (
    f"create schema if not exists {PG_SCHEMA}; "
    f"create table if not exists {PG_TABLE} ("
    " series_key text not null, measure text not null, result_id text not null,"
    " review_state text not null, reviewed_by text, reviewed_at timestamptz not null,"
    " review_note text)"
)


@dataclass(frozen=True)
class CatalogReviewStore(ReviewStore):
    lake: ducklake.LakeAddress

    def describe(self) -> str:
        return f"{PG_TABLE} in the catalog of {self.lake.describe()}"

    def _session(self):  # -> psycopg.Connection
        conn = ducklake.catalog_session(self.lake)
        conn.execute(_PG_DDL)
        return conn

    def record(self, decision: ReviewDecision) -> None:
        marks = ", ".join(["%s"] * len(COLUMNS))
        with self._session() as conn:  # autocommit: visible to every server at once
            conn.execute(f"insert into {PG_TABLE} ({', '.join(COLUMNS)}) values ({marks})",
                         decision.row())  # fmt: skip

    def decisions(self) -> list[ReviewDecision]:
        with self._session() as conn:
            rows = conn.execute(
                f"select {', '.join(COLUMNS)} from {PG_TABLE} order by reviewed_at"
            ).fetchall()
        return [ReviewDecision(ChangeIdentity(*r[:3]), r[3], r[5], r[4], r[6]) for r in rows]


# --- the store of a warehouse, and its copy into the warehouse ------------------------------


def store_for(wh: Warehouse) -> ReviewStore:
    """The review store of a warehouse: beside its file, or in its lake's catalog."""
    if isinstance(wh, LakeWarehouse):
        return CatalogReviewStore(wh)
    if isinstance(wh, FileWarehouse):
        return FileReviewStore(file_store_path(wh.main))
    raise TypeError(f"no review store for {wh!r}")


# The landing's DDL, as the dbt macro `create_review_landing` writes it (a plain `dbt build`
# creates it; `ingest build` may run before any dbt build did).
_LANDING_DDL = (
    "create schema if not exists reviews; "
    f"create table if not exists {LANDING} ("
    " series_key varchar not null, measure varchar not null, result_id varchar not null,"
    " review_state varchar not null, reviewed_by varchar, reviewed_at timestamptz not null,"
    " review_note varchar)"
)


def copy_into(wh: Warehouse, decisions: list[ReviewDecision]) -> None:
    """Make the warehouse's landing hold exactly `decisions` (the store is the truth; the
    landing is what dbt reads). The caller holds the writer lock."""
    con = wh.connect_writer()
    try:
        con.execute(_LANDING_DDL)

        def work() -> None:
            con.execute(f"delete from {LANDING}")
            if decisions:
                con.executemany(
                    f"insert into {LANDING} values (?, ?, ?, ?, ?, ?, ?)",
                    [d.row() for d in decisions],
                )

        wh.commit(con, work)
    finally:
        con.close()


def _landing_rows(wh: Warehouse) -> Counter | None:
    """The landing's rows (None: no landing yet, or no warehouse)."""
    if wh.missing_reason() is not None:
        return None
    con = wh.connect_writer()
    try:
        found = con.execute(
            "select count(*) from duckdb_tables() where database_name = current_database()"
            " and schema_name = 'reviews' and table_name = 'change_point_decisions'"
        ).fetchone()[0]
        if not found:
            return None
        return Counter(con.execute(f"select {', '.join(COLUMNS)} from {LANDING}").fetchall())
    finally:
        con.close()


def copy_store_into_warehouse(wh: Warehouse) -> bool:
    """`ingest build`'s first step: the store's decisions into the landing, under the writer
    lock, when they differ from it (an unchanged copy writes nothing: no new commit, nothing
    to publish, no source change for the incremental build). True when it copied."""
    decisions = store_for(wh).decisions()
    wanted = Counter(d.row() for d in decisions)
    with wh.exclusive(writes=False):
        landing = _landing_rows(wh)
    if landing == wanted or (landing is None and not decisions):
        return False
    with wh.exclusive(writes=True):
        copy_into(wh, decisions)
    return True


__all__ = [
    "LANDING",
    "REVIEW_STATES",
    "CatalogReviewStore",
    "ChangeIdentity",
    "FileReviewStore",
    "ReviewDecision",
    "ReviewError",
    "ReviewStore",
    "copy_store_into_warehouse",
    "decision",
    "latest",
    "store_for",
]
