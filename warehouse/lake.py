"""Team mode: the warehouse as a DuckLake with its catalog in PostgreSQL.

`PERF_WAREHOUSE` (or `--warehouse`) = `ducklake:postgres:<libpq conninfo>` and
`PERF_LAKE_DATA_PATH` (or `--data-path`) for the Parquet files choose it
(`warehouse.from_settings`). The mechanics (extensions, attaching, retries, advisory locks)
are in `warehouse.ducklake`; this module is what the lake does as a `Warehouse`.

Who may write
    Loaders run side by side, on several machines: no lock for a load; the check-and-write of
    one file identity is serialised by PostgreSQL advisory locks on its keys
    (`warehouse.lake_locks.PgIdentityLocks`). One `dbt build` or publish at a time: the
    advisory lock `BUILD_LOCK`.

Publishing
    The file mode copies a validated file onto a serving snapshot and keeps the latest
    validation run in a side file. A lake needs neither: every commit is a snapshot, so
    publishing is one row in `serving.publications` naming the snapshot to serve, and the
    validation history is the lake's own `data_quality.validation_results` table. The
    expectations' results and the publication rows are labelled commits (author `expectations`
    / `publish`) that change no data, so `serving_status()` leaves them out when it asks "did
    the data change since the served snapshot?"; every other commit (a load, a `dbt build`, an
    analyst's write) counts.

Which snapshot is served
    The gate validates snapshot S (read as of S: a load committing meanwhile does not change
    what is validated), appends the results (snapshot S1) and serves S1, so the dashboard's
    data-quality page shows the run that let the version through. A commit that landed between
    S and S1 would make S1 hold data nobody validated; then S itself is served (its results are
    in the history, just not in the served version). Readers see the published snapshot, and
    the latest one before the first publish (as a file is read until its first publish).

The dashboard's reads
    The published snapshot is attached read-only once per process and every read takes a
    cursor on it; whether a newer publication exists is asked at most every `LAKE_CHECK_S`
    seconds (a page makes thirty reads), and a new one is attached and served from then on.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import duckdb

from warehouse import base, ducklake
from warehouse.base import (
    IdentityLocks,
    MissingFile,
    Reader,
    Warehouse,
    insert_validation_sql,
    require_validation_table,
    rows_by_column,
    sql_text,
)
from warehouse.ducklake import LAKE_ALIAS, LAKE_PREFIX, LakeAddress, LakeError
from warehouse.lake_locks import PgIdentityLocks

T = TypeVar("T")

VALIDATION_AUTHOR = "expectations"
PUBLISH_AUTHOR = "publish"
_LABELLED = (VALIDATION_AUTHOR, PUBLISH_AUTHOR)  # commits that change no data
_SNAPSHOTS = f"{LAKE_ALIAS}.snapshots()"
# Ids below this belong to warehouse files migrated into the lake (`ingest migrate` refuses a
# file with larger ids), so a lake load can never draw one of theirs.
MIGRATED_ID_CEILING = 2**32
# How often the dashboard asks the lake for a newer publication (seconds).
LAKE_CHECK_S = 3.0
# How long a failed read waits to learn whether the catalog is still there.
CATALOG_PROBE_TIMEOUT_S = 5
# How long a loader waits for another loader's hold of a file identity.
IDENTITY_LOCK_TIMEOUT_S = 3600.0


def publisher() -> str:
    """`user@host, pid N`: who published (serving.publications.published_by)."""
    return f"{getpass.getuser()}@{socket.gethostname()}, pid {os.getpid()}"


def _ns(when: dt.datetime | None) -> int | None:
    if when is None:
        return None
    return int(when.timestamp()) * 1_000_000_000 + when.microsecond * 1000


def snapshot_time_ns(con: duckdb.DuckDBPyConnection, snapshot: int | None) -> int | None:
    if snapshot is None:
        return None
    row = con.execute(
        f"select snapshot_time from {_SNAPSHOTS} where snapshot_id = ?", [snapshot]
    ).fetchone()
    return None if row is None else _ns(row[0])


def foreign_commits_between(con: duckdb.DuckDBPyConnection, after: int, before: int) -> int:
    """How many snapshots strictly between `after` and `before`: commits of other writers
    that a snapshot `before` holds beside what was validated at `after`."""
    (count,) = con.execute(
        f"select count(*) from {_SNAPSHOTS} where snapshot_id > ? and snapshot_id < ?",
        [after, before],
    ).fetchone()
    return int(count)


def _latest_data_change(con: duckdb.DuckDBPyConnection) -> tuple[int, dt.datetime]:
    """The newest snapshot that is not a labelled (data-free) commit of ours."""
    return con.execute(
        f"select snapshot_id, snapshot_time from {_SNAPSHOTS} "
        "where coalesce(author, '') not in (?, ?) order by snapshot_id desc limit 1",
        list(_LABELLED),
    ).fetchone()


def latest_validation(con: duckdb.DuckDBPyConnection) -> base.ValidationReport | None:
    """The newest validation run in the lake's history, passed or failed; None before any."""
    row = con.execute(
        f"select commit_extra_info from {_SNAPSHOTS} where author = ? "
        "order by snapshot_id desc limit 1",
        [VALIDATION_AUTHOR],
    ).fetchone()
    if row is None:
        return None
    info = json.loads(row[0])
    run_at = dt.datetime.fromisoformat(info["run_at"])
    cursor = con.execute(
        "select * exclude (run_at) from data_quality.validation_results where run_at = ?",
        [run_at],
    )
    names = [d[0] for d in cursor.description]
    outcomes = tuple(dict(zip(names, r, strict=True)) for r in cursor.fetchall())
    validated_ns = snapshot_time_ns(con, int(info["validated_snapshot"]))
    return base.ValidationReport(run_at=run_at, validated_ns=validated_ns, outcomes=outcomes)


def published_or_latest(con: duckdb.DuckDBPyConnection) -> int:
    """The snapshot a reader serves: the published one, else (nothing published yet) the
    latest, as a file is read until its first publish."""
    published = ducklake.published_snapshot(con)
    return ducklake.current_snapshot(con) if published is None else published


# --- readers -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Kept:
    """One lake's kept connections: `latest` follows new commits (it answers "which snapshot
    is published?" and serves reads before the first publish); `served` holds the published
    snapshot attached."""

    latest: duckdb.DuckDBPyConnection
    served: duckdb.DuckDBPyConnection
    snapshot: int | None  # the published snapshot `served` holds; None: nothing published
    checked_at: float


_kept: dict[str, _Kept] = {}  # lake uri -> its kept connections
_retired: deque[duckdb.DuckDBPyConnection] = deque(maxlen=4)
_kept_lock = threading.Lock()
# The lake's serving status, kept LAKE_CHECK_S (uri -> (when, status)).
_statuses: dict[str, tuple[float, base.ServingStatus]] = {}


class LakeReader(Reader):
    """The lake's published snapshot (see the module docstring)."""

    def __init__(self, lake: LakeWarehouse) -> None:
        self.lake = lake

    @property
    def name(self) -> str:
        return LAKE_PREFIX + ducklake.redact(self.lake.conninfo)

    def _refresh(self, kept: _Kept) -> None:
        """Serve the newest publication if it changed since the last check."""
        probe = kept.latest.cursor()
        try:
            published = ducklake.published_snapshot(probe)
        finally:
            probe.close()
        kept.checked_at = time.monotonic()
        if published == kept.snapshot:
            return
        served = kept.latest if published is None else self.lake.connect(snapshot=published)
        if kept.served is not kept.latest:
            _retired.append(kept.served)
        kept.served, kept.snapshot = served, published

    def _kept(self) -> _Kept:
        uri = self.lake.uri
        with _kept_lock:
            kept = _kept.get(uri)
            try:
                if kept is None:
                    latest = self.lake.connect(read_only=True)
                    kept = _Kept(latest, latest, None, 0.0)
                    self._refresh(kept)
                    _kept[uri] = kept
                elif time.monotonic() - kept.checked_at >= LAKE_CHECK_S:
                    self._refresh(kept)
            except (LakeError, duckdb.Error) as exc:
                _kept.pop(uri, None)  # the next read connects afresh
                raise self._unreadable(exc) from exc
            return kept

    def _unreadable(self, reason: Exception) -> base.WarehouseUnavailable:
        """What the pages say of a lake they cannot read. PostgreSQL's own message may quote
        the conninfo: its password is never shown."""
        return base.WarehouseUnavailable(
            f"The team warehouse {self.lake.describe()} cannot be read: "
            f"{ducklake.redact(str(reason))}"
        )

    def _raise_if_catalog_is_gone(self, failed: duckdb.Error) -> None:
        """A read failed: if the catalog cannot be reached (PostgreSQL stopped, network cut)
        forget the kept connection (the next read connects afresh) and raise what the pages
        say for an unreadable warehouse; any other error is the query's own."""
        try:
            ducklake.catalog_session(self.lake, connect_timeout_s=CATALOG_PROBE_TIMEOUT_S).close()
        except LakeError as gone:
            with _kept_lock:
                _kept.pop(self.lake.uri, None)
                _statuses.pop(self.lake.uri, None)
            raise self._unreadable(gone) from failed

    @contextmanager
    def cursor(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cursor = self._kept().served.cursor()
        try:
            cursor.execute(f"USE {LAKE_ALIAS}")
            yield cursor
        except duckdb.Error as exc:
            self._raise_if_catalog_is_gone(exc)
            raise
        finally:
            cursor.close()

    def served_snapshot(self) -> int | None:
        return self._kept().snapshot

    def attach_config(self) -> dict[str, object]:
        # DuckLake's ATTACH looks its catalog's credentials up in the persistent secret
        # storage (also where an object store's keys for the data path live); the console's
        # statements cannot read or create secrets (warehouse.sql_policy).
        try:
            directory = ducklake.extension_directory()
        except LakeError as exc:
            raise base.WarehouseUnavailable(str(exc)) from exc
        return {"extension_directory": str(directory), "allow_persistent_secrets": True}

    def attach(self, con: duckdb.DuckDBPyConnection, *, snapshot: int | None = None) -> None:
        """The lake attached read-only as of `snapshot` (None: published, else latest)."""
        con.execute(ducklake.attach_sql(self.lake, read_only=True))
        if snapshot is None:
            snapshot = published_or_latest(con)
        elif snapshot > ducklake.current_snapshot(con) or snapshot < 0:
            latest = ducklake.current_snapshot(con)
            raise base.WarehouseUnavailable(
                f"The lake has no snapshot {snapshot} (the latest is {latest}); "
                "`select snapshot_id, snapshot_time, changes from lake.snapshots()` lists them."
            )
        con.execute(f"detach {LAKE_ALIAS}")
        con.execute(ducklake.attach_sql(self.lake, snapshot=snapshot))
        con.execute(f"use {LAKE_ALIAS}")
        data = self.lake.data_path
        if "://" not in data:  # DuckLake reads its Parquet files through the file system
            con.execute(f"set allowed_directories = [{sql_text(data)}]")

    def child_settings(self) -> dict[str, str]:
        return {"warehouse": self.lake.uri, "data_path": self.lake.data_path}

    def preload(self) -> None:
        try:
            con = duckdb.connect(":memory:", config=ducklake.duckdb_config())
            con.execute("load ducklake; load postgres_scanner")
            con.close()
        except (LakeError, duckdb.Error):
            pass  # the query's own attach reports what is wrong


# --- the warehouse -------------------------------------------------------------------------


@dataclass(frozen=True)
class LakeWarehouse(LakeAddress, Warehouse):
    """A DuckLake on PostgreSQL (see the module docstring)."""

    primes_new_tables: ClassVar[bool] = True  # DuckLake scans a never-filled table slowly

    def missing_reason(self) -> str | None:
        return None  # the first ATTACH creates the lake

    def connect(
        self, *, read_only: bool = False, snapshot: int | None = None
    ) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB with the lake attached as `lake` and in use."""
        return ducklake.connect(self, read_only=read_only, snapshot=snapshot)

    def reader(self) -> LakeReader:
        return LakeReader(self)

    # --- who may write

    @contextmanager
    def exclusive(self, *, writes: bool) -> Iterator[tuple[int, ...]]:
        """One build or publish at a time across machines; loads go on meanwhile (each reads
        and commits its own snapshots). A build marks nothing: its commits are the record."""
        with ducklake.advisory_lock(self, ducklake.BUILD_LOCK):
            yield ()

    @contextmanager
    def loading(self, stored_any: Callable[[], bool]) -> Iterator[None]:
        yield  # loaders run side by side; what is served changes only at a publish

    def identity_locks(self) -> IdentityLocks:
        return PgIdentityLocks(self, IDENTITY_LOCK_TIMEOUT_S)

    def _data_files(self) -> list[tuple[str, str, str, str]]:
        """(schema, table, path, kind) of every data and delete file the current snapshot of
        every table reads (`ducklake_list_files`)."""
        con = self.connect(read_only=True)
        try:
            tables = con.execute(
                "select schema_name, table_name from duckdb_tables() where database_name = ? "
                "order by all",
                [LAKE_ALIAS],
            ).fetchall()
            files = []
            for schema, table in tables:
                rows = con.execute(
                    "select data_file, delete_file from ducklake_list_files(?, ?, schema => ?)",
                    [LAKE_ALIAS, table, schema],
                ).fetchall()
                for data, delete in rows:
                    files.append((schema, table, data, "data"))
                    if delete:
                        files.append((schema, table, delete, "delete"))
            return files
        finally:
            con.close()

    def missing_files(self) -> list[MissingFile]:
        """Files of a local data folder that are gone. An object-store data path is not
        listed here (checking it needs that store's client): `data_files_checked` says 0."""
        if "://" in self.data_path:
            return []
        return [
            MissingFile(schema, table, path, kind)
            for schema, table, path, kind in self._data_files()
            if not os.path.isfile(path)
        ]

    def data_files_checked(self) -> int:
        return 0 if "://" in self.data_path else len(self._data_files())

    def lost(self, reason: BaseException) -> base.WarehouseLost:
        return base.WarehouseLost(
            f"Lost the lake's catalog {self.describe()} while writing: "
            f"{ducklake.redact(str(reason)).splitlines()[0]}"
        )

    def raise_if_lost(self, failure: BaseException) -> None:
        """A failed statement or commit: if the catalog no longer answers, the lake is lost."""
        if isinstance(failure, base.WarehouseLost):
            raise failure
        try:
            ducklake.catalog_session(self, connect_timeout_s=CATALOG_PROBE_TIMEOUT_S).close()
        except LakeError as gone:
            raise self.lost(gone.__cause__ or gone) from failure

    # --- writing

    def connect_writer(self, *, timeout_s: float | None = None) -> duckdb.DuckDBPyConnection:
        # Two first ATTACHes of a new lake at once both create DuckLake's catalog tables and
        # one fails (PostgreSQL: duplicate key in pg_type): writers attach in turn.
        with ducklake.advisory_lock(self, "ducklake-attach"):
            return self.connect()

    def new_source_file_ids(self, con: duckdb.DuckDBPyConnection, count: int) -> list[int]:
        """Random in [2^32, 2^63): loaders on other machines share no counter and DuckLake has
        no sequence; a random 63-bit id needs no coordination, and a million files collide
        with odds of about 5e-8 (n^2 / 2^64)."""
        span = 2**63 - MIGRATED_ID_CEILING
        return [MIGRATED_ID_CEILING + secrets.randbelow(span) for _ in range(count)]

    def commit(self, con: duckdb.DuckDBPyConnection, work: Callable[[], T]) -> T:
        return ducklake.commit(con, work)

    def label_commit(
        self, con: duckdb.DuckDBPyConnection, author: str, message: str, extra: dict[str, Any]
    ) -> None:
        ducklake.label_commit(con, author, message, extra)

    def changed_rows(
        self, con: duckdb.DuckDBPyConnection, table: str, columns: str, since: int, until: int
    ) -> tuple[list[tuple], list[int]] | None:
        """DuckLake's own change feed of the snapshots `since`+1 to `until`: it reads only
        the data files those commits added, so a loader keeps up with another's commits at a
        cost that does not grow with the lake (a whole read of `raw.source_files` opens one
        Parquet file per commit ever made). A feed it cannot give (a column added meanwhile,
        say) is None: the caller reads the table whole."""
        args = [LAKE_ALIAS, "raw", table, since + 1, until]
        try:
            inserted = con.execute(
                f"select {columns} from ducklake_table_insertions(?, ?, ?, ?, ?)", args
            ).fetchall()
            deleted = con.execute(
                "select source_file_id from ducklake_table_deletions(?, ?, ?, ?, ?)", args
            ).fetchall()
        except duckdb.Error:
            return None
        return inserted, [row[0] for row in deleted]

    # --- building

    def child_env(self) -> dict[str, str]:
        return {
            "PERF_WAREHOUSE": self.uri,
            "PERF_LAKE_DATA_PATH": self.data_path,
            # dbt's `lake` profile reads it: the pip packages' extensions, no download
            "PERF_DUCKDB_EXTENSION_DIR": str(ducklake.extension_directory()),
        }

    def dbt_args(self) -> list[str]:
        return ["--target", "lake"]

    def folder(self) -> Path | None:
        # the lake's shared data folder (README: the same folder on every machine)
        return None if "://" in self.data_path else Path(self.data_path)

    # --- the gate

    @contextmanager
    def validation_view(self) -> Iterator[tuple[duckdb.DuckDBPyConnection, int | None]]:
        """The newest snapshot when the run starts, attached read-only as of that snapshot."""
        latest = self.connect(read_only=True)
        try:
            snapshot = ducklake.current_snapshot(latest)
        finally:
            latest.close()
        con = self.connect(snapshot=snapshot)
        try:
            yield con, snapshot
        finally:
            con.close()

    def record_validation(
        self, run_at: dt.datetime, rows: list[dict[str, Any]], validated: int | None
    ) -> int | None:
        """One commit labelled with the snapshot the run validated; no side file (the lake
        keeps every run, and `serving_status` reads the latest from there)."""
        failures = sum(r["success"] is False and r["severity"] == "constraint" for r in rows)
        extra = {
            "run_at": run_at.isoformat(),
            "validated_snapshot": validated,
            "constraint_failures": failures,
        }
        message = f"validation of snapshot {validated}: {failures} constraint failures"
        columns, values = rows_by_column(rows)
        sql = insert_validation_sql(columns)

        def write(con: duckdb.DuckDBPyConnection) -> None:
            con.executemany(sql, [(run_at, *v) for v in values])

        try:
            con = self.connect()
        except LakeError as exc:
            raise base.ValidationNotRecorded(str(exc)) from exc
        try:
            require_validation_table(con)
            return ducklake.commit_labelled(con, (VALIDATION_AUTHOR, message, extra), write)
        except duckdb.Error as exc:
            raise base.ValidationNotRecorded(f"{self.describe()}: {exc}") from exc
        finally:
            con.close()

    def publish(self, validated: int | None, recorded: int | None) -> str:
        """Serve the results' snapshot `recorded` (or `validated` itself, see the module
        docstring) and record the publication."""
        if validated is None:
            raise ValueError("a lake publishes a validated snapshot")
        con = self.connect()
        try:
            served = validated
            if recorded is not None and foreign_commits_between(con, validated, recorded) == 0:
                served = recorded
            extra = {"snapshot_id": served, "validated_snapshot_id": validated}
            label = (PUBLISH_AUTHOR, f"publish snapshot {served}", extra)
            by = publisher()
            # The table's DDL in the same labelled commit: the first publish changes no data.
            ducklake.commit_labelled(
                con, label, lambda c: ducklake.record_publication(c, served, validated, by)
            )
        finally:
            con.close()
        where = self.describe()
        return f"validated snapshot {validated} and published snapshot {served} of {where}"

    def served(self) -> str | None:
        con = self.connect(read_only=True)
        try:
            snapshot = ducklake.published_snapshot(con)
        finally:
            con.close()
        return None if snapshot is None else f"snapshot {snapshot}"

    def serving_status(self, *, recent_ok: bool = False) -> base.ServingStatus:
        """The served snapshot against the newest data: a few catalog queries, so with
        `recent_ok` (the dashboard) they are asked at most every LAKE_CHECK_S, like the served
        snapshot. When the lake cannot be asked, an empty status: the page's first read then
        says what is wrong."""
        held = _statuses.get(self.uri)
        if recent_ok and held is not None and time.monotonic() - held[0] < LAKE_CHECK_S:
            return held[1]
        try:
            found = self.status_now()
        except (LakeError, duckdb.Error):
            return base.ServingStatus(self.reader().name, None, None, None, False, None)
        _statuses[self.uri] = (time.monotonic(), found)
        kept = _kept.get(self.uri)
        if kept is not None:
            # The next read asks again too: the pages' cache is cleared when this status names
            # a new snapshot, so the reads must not lag behind it.
            kept.checked_at = 0.0
        return found

    def status_now(self, con: duckdb.DuckDBPyConnection | None = None) -> base.ServingStatus:
        """`serving_status` asked now. `con`: a connection to the lake's newest snapshot to
        reuse (opening one, ATTACH, is most of the cost). `pending`: some data commit is newer
        than the served snapshot."""
        own = con is None
        con = self.connect(read_only=True) if con is None else con
        try:
            served = ducklake.published_snapshot(con)
            changed_id, changed_at = _latest_data_change(con)
            return base.ServingStatus(
                main=self.describe(),
                snapshot=None if served is None else f"snapshot {served}",
                snapshot_as_of_ns=snapshot_time_ns(con, served),
                main_changed_ns=_ns(changed_at),
                pending=served is not None and changed_id > served,
                validation=latest_validation(con),
            )
        finally:
            if own:
                con.close()
