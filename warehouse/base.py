"""The warehouse interface: what every kind of warehouse does, and the types they share.

A warehouse is chosen once (`warehouse.from_settings`) and everything else talks to the
`Warehouse` it returns: the loader, `ingest build`, the publish gate, the dashboard, the SQL
console and `ingest query`. Each kind implements the interface in a module of its own, as
dbt-duckdb's `environments/` do: `warehouse.file.FileWarehouse` (one DuckDB file on one
machine, the embedded default) and `warehouse.lake.LakeWarehouse` (a DuckLake with its catalog
in PostgreSQL, for teams). A third kind (MotherDuck, an object-store lake) is a third module
and one more branch in the factory; no caller changes.

What the interface covers, by job:

- who may write: `exclusive()` (one build, publish or migration at a time) and `loading()`
  (what a load holds: the file's writer lock, or nothing in a lake, where loaders run side by
  side); `identity_locks()` serialise the check-and-write of one file identity across loaders;
- writing: `connect_writer()`, `new_source_file_ids()`, `commit()` (one transaction, re-run
  whole where a commit can lose a race) and `label_commit()` (where commits are kept: a lake);
  `raise_if_lost()` tells a failed statement from the warehouse going away mid-load;
- integrity: `missing_files()`, the data files the catalog lists that storage lost (a lake);
- building: `child_env()` and `dbt_args()`, the environment and profile target of `dbt build`
  and any other child writer;
- the gate: `validation_view()` (one fixed version to validate), `record_validation()`,
  `publish()`, `served()` and `serving_status()`;
- reading what is served: `reader()`, a `Reader` (the dashboard's kept connection, the console's
  locked attachment, `ingest query`).
"""

from __future__ import annotations

import datetime as dt
import os
import signal
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import duckdb

# DuckDB 1.5.5 (pinned: the DuckLake and PostgreSQL extension packages need it exactly) turns
# `qualify row_number() over (...) = 1` above a range join into an arg_min aggregate that
# allocates without bound (per_node_iops: 19 GiB, then out of memory; 1.5.6 is fine). Every
# connection of ours switches that one rewrite off; dbt's profile does the same.
DUCKDB_CONFIG: dict[str, str] = {"disabled_optimizers": "top_n_window_elimination"}

REPO_ROOT = Path(__file__).resolve().parent.parent

# The expectations' own table (dbt creates it, `record_validation` appends to it).
VALIDATION_SCHEMA = "data_quality"
VALIDATION_TABLE = "validation_results"
VALIDATION_RESULTS = f"{VALIDATION_SCHEMA}.{VALIDATION_TABLE}"

T = TypeVar("T")


# --- errors --------------------------------------------------------------------------------


class WarehouseUnavailable(RuntimeError):
    """The warehouse cannot be opened or read: missing, locked by another process, not a
    DuckDB database, its catalog unreachable, or a bad setting. The message says what to do."""


class WarehouseLost(WarehouseUnavailable):
    """The warehouse went away while it was being written (a lake's catalog stopped
    answering): every commit before stays, nothing after it was written."""


class WriterBusy(RuntimeError):
    """Another writer held the warehouse for longer than the timeout."""


class ValidationNotRecorded(RuntimeError):
    """A validation run's outcomes could not be stored (the warehouse stayed locked, the
    catalog went away, the side file could not be written)."""


class ResultsTableMissing(ValidationNotRecorded):
    """dbt has not built the warehouse yet, so there is no results table to append to."""


# --- what the gate found, and what the dashboard serves -----------------------------------


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The latest validation run of a warehouse (what `python -m expectations` found)."""

    run_at: dt.datetime
    # The warehouse's change time (ns) of the version the run validated: a later change is
    # not covered by this run.
    validated_ns: int | None
    outcomes: tuple[dict[str, Any], ...]  # the data_quality.validation_results columns

    @property
    def constraint_failures(self) -> int:
        return sum(o["success"] is False and o["severity"] == "constraint" for o in self.outcomes)


@dataclass(frozen=True, slots=True)
class ServingStatus:
    """What the dashboard serves against what the warehouse holds.

    `main` describes the warehouse, `snapshot` the served version (None: nothing published
    yet); the times are nanoseconds since the epoch: file times for a file, snapshot commit
    times for a lake. The notices ("newer data awaits publishing", "a newer version failed
    validation") read these fields only, so they say the same in every kind of warehouse."""

    main: Path | str
    snapshot: Path | str | None  # None: nothing published yet
    snapshot_as_of_ns: int | None  # when the served version's data last changed
    main_changed_ns: int | None  # None: no warehouse yet
    pending: bool  # a writer (load, build) ran, or was killed, since the last publish
    validation: ValidationReport | None

    @property
    def unpublished(self) -> bool:
        """The warehouse holds changes the dashboard does not show."""
        if self.main_changed_ns is None:
            return False
        if self.snapshot_as_of_ns is None:
            return True
        return self.pending or self.main_changed_ns > self.snapshot_as_of_ns

    @property
    def failed_newer_version(self) -> bool:
        """The latest validation failed on a version newer than the one served."""
        v = self.validation
        if v is None or v.constraint_failures == 0:
            return False
        return self.snapshot_as_of_ns is None or (v.validated_ns or 0) > self.snapshot_as_of_ns

    @property
    def changed_since_validation(self) -> bool:
        v = self.validation
        return v is None or (self.main_changed_ns or 0) > (v.validated_ns or 0)


@dataclass(frozen=True, slots=True)
class MissingFile:
    """A data file the warehouse's catalog lists that its storage no longer holds."""

    schema: str
    table: str
    path: str
    kind: str  # "data" (rows) or "delete" (which rows of a data file are deleted)


# --- crash points (tests only) -----------------------------------------------------------

_reached: Counter[str] = Counter()


def kill_point(stage: str) -> None:
    """SIGKILL this process the n-th time it reaches `stage` when PERF_INGEST_KILL says so.

    Stages: `before_commit` (a file's rows inserted, not committed), `after_commit`,
    `publish_copy` (the snapshot copy written, not yet renamed). No `finally` runs, exactly as
    when a dropped SSH session or the OOM killer ends a load. Unset, it is one dict look-up.
    """
    spec = os.environ.get("PERF_INGEST_KILL")
    if not spec:
        return
    _reached[stage] += 1
    if spec == f"{stage}:{_reached[stage]}":
        os.kill(os.getpid(), signal.SIGKILL)


# --- the interface -------------------------------------------------------------------------


class IdentityLocks(ABC):
    """Locks on file identities (a path; bytes in an HCIBench case) held from a loader's
    check of a file to the commit of the batch that stores it, so two loaders never store the
    same file twice. A warehouse with one writer at a time needs none (`NoIdentityLocks`)."""

    shared: bool = True  # other writers take these keys too (False: one writer at a time)

    @abstractmethod
    def try_take(self, keys: list[str]) -> bool:
        """Take every key now, or return False (keys taken so far stay held)."""

    @abstractmethod
    def take(self, keys: list[str]) -> None:
        """Wait for the keys, in the order given (sorted by the caller)."""

    @abstractmethod
    def release(self, keys: list[str]) -> None:
        """Give one hold of each key back (a file that will not be written)."""

    @abstractmethod
    def release_all(self) -> None:
        """Give every key back (the batch is committed)."""

    @abstractmethod
    def newest_commit(self) -> int | None:
        """Asked once a file's keys are held: the id of the warehouse's newest commit by any
        writer (a lake's snapshot id), so a loader knows whether its copy of the stored
        identities is still current (another loader's file of these keys was committed
        before the keys were handed over). None with one writer at a time: only its own
        commits change what is stored."""

    @abstractmethod
    def close(self) -> None: ...


class NoIdentityLocks(IdentityLocks):
    """One writer at a time: nothing to serialise."""

    shared = False

    def try_take(self, keys: list[str]) -> bool:
        return True

    def take(self, keys: list[str]) -> None:
        pass

    def release(self, keys: list[str]) -> None:
        pass

    def release_all(self) -> None:
        pass

    def newest_commit(self) -> int | None:
        return None

    def close(self) -> None:
        pass


class Reader(ABC):
    """The version of a warehouse its readers see: the published one, else (nothing published
    yet) the newest. The dashboard takes cursors on a connection kept per process; the SQL
    console and `ingest query` attach it to a locked-down connection of their own."""

    @property
    @abstractmethod
    def name(self) -> str:
        """A printable name (no password) that `warehouse.reader_for` turns back into this
        reader in the same environment: the dashboard's cache key and caption."""

    @abstractmethod
    def cursor(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
        """A read-only connection (or cursor) on the served version, for one block."""

    @abstractmethod
    def attach_config(self) -> dict[str, object]:
        """Start-up options an in-memory DuckDB needs before it can `attach` this version."""

    @abstractmethod
    def attach(self, con: duckdb.DuckDBPyConnection, *, snapshot: int | None = None) -> None:
        """Attach the served version (or `snapshot`, where versions are kept) read-only to
        `con` and make it the default catalog; restrict file access to what it needs."""

    @abstractmethod
    def child_settings(self) -> dict[str, str]:
        """What a child process of ours (the console's worker) passes to `reader_from_settings`
        to read the same version: may hold a password, never printed."""

    def served_snapshot(self) -> int | None:
        """The served snapshot id where versions are kept (None: a file, or none published)."""
        return None

    def preload(self) -> None:
        """Load what `attach` needs into this process ahead of time: the console's worker does
        it before it caps its own memory (a lake's extensions map ~850 MB of address space).
        Nothing to load for a file."""
        return None


class Warehouse(ABC):
    """One warehouse, of whichever kind (see the module docstring)."""

    # --- what it is --------------------------------------------------------------------

    @abstractmethod
    def describe(self) -> str:
        """For messages and logs: where it is, never a password."""

    @abstractmethod
    def missing_reason(self) -> str | None:
        """Why there is nothing to validate or publish yet (no file); None when there is."""

    @abstractmethod
    def reader(self) -> Reader:
        """What readers see (see `Reader`)."""

    # --- who may write -------------------------------------------------------------------

    @abstractmethod
    def exclusive(self, *, writes: bool) -> AbstractContextManager[tuple[int, ...]]:
        """Hold the warehouse for one build, publish or migration (waits for another).

        `writes`: the block changes the data (a build): the dashboard is told a newer version
        awaits publishing. Yields the file descriptors a child process must inherit for the
        hold to cover it (`warehouse.child.run_child`)."""

    @abstractmethod
    def loading(self, stored_any: Callable[[], bool]) -> AbstractContextManager[None]:
        """What a load holds while it runs. `stored_any()` says afterwards whether the load
        stored a file (a load that stored nothing leaves the served version current)."""

    @abstractmethod
    def identity_locks(self) -> IdentityLocks: ...

    def missing_files(self) -> list[MissingFile]:
        """The data files its catalog lists that are gone from storage (`ingest check`). A
        DuckDB file holds its data itself: nothing to miss."""
        return []

    def data_files_checked(self) -> int:
        """How many data files `missing_files` looked for (0 for a DuckDB file)."""
        return 0

    def raise_if_lost(self, failure: BaseException) -> None:
        """Raise WarehouseLost when `failure` (an error while reading or writing) means the
        warehouse itself went away, rather than one file or statement failing: a load then
        stops with what it committed, instead of rejecting every file after it. A file on
        local disk does not go away: nothing to ask."""
        return None

    # --- writing ---------------------------------------------------------------------------

    # Whether a raw table is given a row, inserted and deleted, in the transaction that
    # creates it (ingest.raw_schema): a lake's table that never held a row is slow to scan.
    # A DuckDB file's is not (the rows would cost 35 ms of every new file warehouse).
    primes_new_tables: ClassVar[bool] = False

    @abstractmethod
    def connect_writer(self, *, timeout_s: float | None = None) -> duckdb.DuckDBPyConnection:
        """A read-write connection, with the `raw` schema and the id source ready."""

    @abstractmethod
    def new_source_file_ids(self, con: duckdb.DuckDBPyConnection, count: int) -> list[int]:
        """`count` `raw.source_files` ids no file of this warehouse has (inside the
        transaction): one call per commit, not one per file."""

    @abstractmethod
    def commit(self, con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
        """Run `work()` in one transaction and commit it; any failure rolls it back. Where
        several writers commit at once (a lake), a commit that lost the race is re-run whole,
        so `work` must do all of its writing itself."""

    @abstractmethod
    def label_commit(
        self, con: duckdb.DuckDBPyConnection, author: str, message: str, extra: dict[str, Any]
    ) -> None:
        """Inside a transaction: name the commit it will make, where the warehouse keeps a
        history of commits (a lake's snapshots); nothing for a file."""

    def changed_rows(
        self, con: duckdb.DuckDBPyConnection, table: str, columns: str, since: int, until: int
    ) -> tuple[list[tuple], list[int]] | None:
        """What the commits after `since` up to `until` (`IdentityLocks.newest_commit` ids) did
        to `raw.<table>`: the rows they inserted (`columns`, the first its `source_file_id`)
        and the `source_file_id`s they deleted; None where that cannot be asked (read the
        table whole). A file has one writer and no commit ids: None."""
        return None

    # --- building ----------------------------------------------------------------------------

    @abstractmethod
    def child_env(self) -> dict[str, str]:
        """The environment variables a child writer (dbt, `ingest locked -- CMD`) needs to
        work on this warehouse (added to the parent's environment)."""

    @abstractmethod
    def dbt_args(self) -> list[str]:
        """Extra `dbt` arguments (the profile's target for this kind of warehouse)."""

    @abstractmethod
    def folder(self) -> Path | None:
        """The local folder the warehouse keeps its files in (the dashboard keeps uploaded
        results under it, so their provenance paths resolve for every reader), or None where
        it has none (a lake whose data files are in an object store)."""

    # --- the gate ------------------------------------------------------------------------------

    @abstractmethod
    def validation_view(
        self,
    ) -> AbstractContextManager[tuple[duckdb.DuckDBPyConnection, int | None]]:
        """A read-only connection to one fixed version to validate (a load committing meanwhile
        is not half-seen), and that version's snapshot id where versions are kept."""

    @abstractmethod
    def record_validation(
        self, run_at: dt.datetime, rows: list[dict[str, Any]], validated: int | None
    ) -> int | None:
        """Append a validation run (`rows`: the results table's columns but `run_at`) and keep
        it where the dashboard reads the latest run; return the snapshot the record created
        (None for a file). Raises ValidationNotRecorded (ResultsTableMissing before dbt built
        the warehouse)."""

    @abstractmethod
    def publish(self, validated: int | None, recorded: int | None) -> str:
        """Serve the validated version (only the gate calls this, under `exclusive`, once
        every constraint held); return what is served now, for the user."""

    @abstractmethod
    def served(self) -> str | None:
        """What the dashboard serves now, for messages; None before the first publish."""

    @abstractmethod
    def serving_status(self, *, recent_ok: bool = False) -> ServingStatus:
        """The served version against the newest data. Every page view asks (`recent_ok`): a
        status a few seconds old may then be returned where asking costs catalog queries."""


def sql_text(value: str) -> str:
    """`value` as an SQL string literal, for the statements that take no bound parameters
    (ATTACH, SET) and the values the product writes itself where binding one would cost more
    than the statement (`warehouse.build_state`)."""
    return "'" + value.replace("'", "''") + "'"


def in_transaction(con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
    """`work()` in one transaction, committed, or rolled back when anything fails. A commit
    that fails (a DuckLake conflict) has ended the transaction already: the rollback is
    skipped then, so the commit's own error is the one raised."""
    con.begin()
    try:
        result = work()
    except BaseException:
        con.rollback()
        raise
    con.commit()
    return result


def rows_by_column(rows: list[dict[str, Any]]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and value tuples of dict rows that share their keys (an INSERT's parts)."""
    columns = list(rows[0]) if rows else []
    return columns, [tuple(row[c] for c in columns) for row in rows]


def insert_validation_sql(columns: list[str]) -> str:
    names = ", ".join(["run_at", *columns])
    marks = ", ".join("?" for _ in range(len(columns) + 1))
    return f"insert into {VALIDATION_RESULTS} ({names}) values ({marks})"


def require_validation_table(con: duckdb.DuckDBPyConnection) -> None:
    (count,) = con.execute(
        "select count(*) from information_schema.tables where table_catalog = current_database() "
        "and table_schema = ? and table_name = ?",
        [VALIDATION_SCHEMA, VALIDATION_TABLE],
    ).fetchone()
    if not count:
        raise ResultsTableMissing(
            f"{VALIDATION_RESULTS} does not exist; build the warehouse first "
            "(`python -m ingest build` runs dbt, which creates it)"
        )
