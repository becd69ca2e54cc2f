"""The batched writer: parsed files into the warehouse's `raw` schema.

Every source file is all-or-nothing: its `raw.source_files` row and all its rows in `raw.*`
tables appear together or not at all, so a rejected file, a crash or a kill leaves the
warehouse as it was before that file. Files are written in batches, one transaction per
batch (a kill leaves a prefix of whole files): DuckDB's per-statement cost is then paid once
per batch instead of once per table per file, which is most of the time for small files.

Identity is (content, labels, HCIBench case): the loader asks `find_same_content` whether
these bytes were already loaded in this case (with which labels and parser version) and
`find_by_path` whether an earlier version of the file is stored; both see staged files too,
so a batch is consistent with itself before it is written. The same bytes with the same labels
are one file wherever they lie (a copied folder adds nothing); the same bytes under other
labels are another file (one output copied into two labelled folders is two results); a path
holds one file, so a new load of a path (new bytes, or new labels) replaces its earlier one.

Where several loaders write at once (a lake: several machines, no unique constraint to stop two
of them storing the same file), the check and the write of one identity (its path; its bytes in
its HCIBench case) are serialised across loaders by the warehouse's identity locks
(`Warehouse.identity_locks`): `claim` takes both keys before the check and they are held until
the batch holding the file is committed; a file that is not staged (already loaded, or
rejected) hands its keys back at once (`release`). A loader never waits for a key while holding
others: when a key is taken it first commits its batch (releasing everything), then waits for
the file's keys in sorted order, so two loaders cannot deadlock. A warehouse file has one
writer at a time and needs no such locks. A commit that loses a race is re-run whole
(`Warehouse.commit`); each commit is labelled with its files (`Warehouse.label_commit`).

Catalog work is paid per commit, not per file: the stored identities are read whole once and
then kept current (`_StoredIndex`): this writer's own commits are applied from what it staged,
another writer's (a lake loader learns of them from the newest snapshot id, asked in the same
round trip that takes a file's keys) from the warehouse's change feed
(`Warehouse.changed_rows`); ids are drawn per batch, and a file's two keys are taken, or
handed back, in one round trip.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, NamedTuple

import pyarrow as pa

from ingest.outcomes import Outcome
from ingest.raw_schema import SOURCE_FILE_ID, ensure_schema, raw_tables
from ingest.records import ParseError
from ingest.walk import ARCHIVE_SEP
from warehouse import Warehouse, WarehouseLost, kill_point

# A large esxtop capture is written on its own rather than held with other files; the byte
# bound keeps a batch of wide rows (Arrow memory) from growing with the file count. 500 files
# a commit: a lake commit costs a catalog transaction and a Parquet file per table, and 1,000
# small fio files loaded into a lake in 4.2 s at 500 a commit against 4.4 s at 100 (a file
# warehouse: no difference); with `BATCH_BYTES`, the memory held is bounded either way.
BATCH_ROWS = 2_000_000
BATCH_BYTES = 256 * 1024**2
DEFAULT_BATCH_FILES = 500


_IDENTITY_COLUMNS = "source_file_id, path, labels_json, parser_version, sha256, hcibench_case"
_ALL_IDENTITIES_SQL = f"select {_IDENTITY_COLUMNS} from raw.source_files"


class _StoredIndex:
    """Every stored file's identity row, by path and by (bytes, HCIBench case), read in one
    query and kept up to date without reading the table again: `version` is the warehouse's
    newest commit the index holds (`IdentityLocks.newest_commit`; None where this writer is
    the only one). A query per file was a quarter of loading 2,007 already-loaded files into a
    file (6 ms each) and of a lake loader (several catalog round trips each); reading the whole
    table after every commit was a lake loader's next cost (one Parquet file per commit ever
    made), so commits are applied to it (`apply`): this writer's own from what it staged,
    other writers' from the warehouse's change feed (`Warehouse.changed_rows`)."""

    def __init__(self, rows: list[tuple], version: int | None) -> None:
        self.version = version
        self.by_path: dict[str, dict[int, tuple]] = {}
        self.by_content: dict[tuple[str, str | None], dict[int, tuple]] = {}
        self.by_id: dict[int, tuple] = {}
        self.apply(rows, [], version)

    def apply(self, inserted: Iterable[tuple], deleted: Iterable[int], version: int | None) -> None:
        """Add rows and drop ids (ids are never reused, so the order of commits, and a row
        met twice, do not matter), now as of commit `version`."""
        for row in inserted:
            self.by_id[row[0]] = row
            self.by_path.setdefault(row[1], {})[row[0]] = row
            self.by_content.setdefault((row[4], row[5]), {})[row[0]] = row
        for file_id in deleted:
            row = self.by_id.pop(file_id, None)
            if row is not None:
                del self.by_path[row[1]][file_id]
                del self.by_content[(row[4], row[5])][file_id]
        self.version = version

    def rows(self, path: str | None, sha256: str | None, hcibench_case: str | None) -> list[tuple]:
        found = dict(self.by_content.get((sha256, hcibench_case), {}))
        found.update(self.by_path.get(path, {}))
        return [found[key] for key in sorted(found)]


class EarlierLoad(NamedTuple):
    """A stored (or staged) load of the same bytes."""

    source_file_id: int | None  # None while staged: ids are drawn when written
    path: str
    labels_json: str
    parser_version: str


@dataclass(slots=True)
class _StagedFile:
    new_id: int | None  # drawn when written
    old_ids: list[int]
    source_row: dict[str, Any]
    tables: dict[str, pa.Table]
    outcome: Outcome
    # The parser's optional `check_stored(con, source_file_id, path)`: run in the write's
    # transaction once the file's rows are in, it refuses the file (ParseError) for what only
    # the warehouse can tell (a key another stored file holds).
    check_stored: Callable[..., None] | None = None

    def as_earlier_load(self) -> EarlierLoad:
        row = self.source_row
        return EarlierLoad(self.new_id, row["path"], row["labels_json"], row["parser_version"])


@dataclass(slots=True)
class _Batch:
    """The files staged for the next write, their sizes, and their paths and contents for
    the checks of the files after them (a scan of the batch per file grew with its square:
    125,000 comparisons a 500-file batch)."""

    files: list[_StagedFile] = field(default_factory=list)
    rows: int = 0
    held_bytes: int = 0
    by_path: dict[str, list[_StagedFile]] = field(default_factory=dict)
    by_content: dict[tuple[str, str | None], list[_StagedFile]] = field(default_factory=dict)

    def add(self, staged: _StagedFile) -> None:
        self.files.append(staged)
        self.rows += sum(t.num_rows for t in staged.tables.values())
        # Buffer sizes, not `nbytes`: the same bound (at least the memory held) at 1 % of the
        # cost (`nbytes` walks every column's slices: 4 % of loading many small files).
        self.held_bytes += sum(t.get_total_buffer_size() for t in staged.tables.values())
        row = staged.source_row
        self.by_path.setdefault(row["path"], []).append(staged)
        self.by_content.setdefault((row["sha256"], row["hcibench_case"]), []).append(staged)


def _batch_files() -> int:
    return max(1, int(os.environ.get("PERF_INGEST_BATCH_FILES", DEFAULT_BATCH_FILES)))


# A file's identity: its path, its bytes' sha256 and its HCIBench case (None outside one).
Identity = tuple[str, str, str | None]


def identity_keys(path: str, sha256: str, hcibench_case: str | None) -> list[str]:
    """The lock names of a file's two identities, sorted (the one order every loader uses)."""
    return sorted([f"raw-path:{path}", f"raw-content:{sha256}:{hcibench_case or ''}"])


def placed_in_root(path: str, roots: Sequence[str]) -> tuple[str | None, str | None]:
    """The load root `path` was found under (the innermost PATH argument holding it) and the
    path relative to it; (None, None) when no root holds it. A file or archive given as
    the PATH argument itself is named relative to its folder (`x.tgz!/case/vm1.json`)."""
    for root in sorted(roots, key=len, reverse=True):
        if path == root or path.startswith(root + ARCHIVE_SEP):
            return root, os.path.basename(root) + path[len(root) :]
        folder = root.rstrip("/")
        if path.startswith(folder + "/"):
            return root, path[len(folder) + 1 :]
    return None, None


class RawWriter:
    """A warehouse, opened for writing with the raw schema."""

    def __init__(
        self, wh: Warehouse, *, lock_timeout_s: float | None = None, roots: Sequence[str] = ()
    ) -> None:
        self.warehouse = wh
        self.roots = tuple(roots)  # the load's PATH arguments, absolute
        self.con = wh.connect_writer(timeout_s=lock_timeout_s)
        try:
            self._locks = wh.identity_locks()
        except BaseException:
            self.con.close()
            raise
        self.batch_files = _batch_files()
        self.batch_rows = BATCH_ROWS
        self._batch = _Batch()
        self._index: _StoredIndex | None = None  # what is stored, read once per commit
        # Identities whose keys `claim_ahead` holds and no `claim` has used yet.
        self._claimed_ahead: Counter[Identity] = Counter()
        self._claims_ahead = self._locks.shared  # whether other writers take keys too
        self.committed = 0  # files this writer committed
        self.lost: WarehouseLost | None = None
        ensure_schema(self.con, wh)
        self._table_names = list(raw_tables())

    def close(self) -> None:
        """Write what is staged (unless the warehouse went away), then close."""
        try:
            if self.lost is None:
                self.flush()
        finally:
            self.con.close()
            self._locks.close()

    def claim_ahead(self, identities: Sequence[Identity]) -> None:
        """Take the identity keys of the files the load checks next, all in one go: a lake
        loader asked PostgreSQL once a file (a round trip: 5 % of a lake load of small
        files). Each file's `claim` then finds its keys held, and the stored identities
        current as of this take: no other writer can commit these identities meanwhile.

        When a key is held elsewhere (another loader has the same file), the keys taken so
        far are given back with the staged batch (`flush`), as `claim` does, and the rest
        of the load claims file by file: a take that keeps failing would commit ever smaller
        batches. Nothing to do with one writer at a time."""
        if not self._claims_ahead or not identities or self._claimed_ahead[identities[0]]:
            return
        wanted = [i for i in identities if not self._claimed_ahead[i]]
        if len(wanted) < 2:
            return
        if self._locks.try_take([key for i in wanted for key in identity_keys(*i)]):
            self._claimed_ahead.update(wanted)
            self._current_index()
        else:
            self._claims_ahead = False
            self.flush()

    def unclaim_ahead(self, path: str, sha256: str, hcibench_case: str | None) -> None:
        """Hand back at once the keys `claim_ahead` took for a file that will never be
        claimed (its parse found no format: skipped), so another loader of the same folder
        need not wait for this batch's commit; nothing when none were taken for it."""
        if self._use_claimed_ahead((path, sha256, hcibench_case)):
            self._locks.release(identity_keys(path, sha256, hcibench_case))

    def _use_claimed_ahead(self, identity: Identity) -> bool:
        """Whether `claim_ahead` holds the identity's keys (then counted as used)."""
        if not self._claimed_ahead[identity]:
            return False
        self._claimed_ahead[identity] -= 1
        return True

    def claim(self, path: str, sha256: str, hcibench_case: str | None) -> None:
        """Before a file's checks (`find_same_content`, `find_by_path`): hold the file's
        identity keys until its batch is committed, so the checks and the write see no other
        loader's file; a key another loader holds: commit what is staged (releasing every
        key held), then wait (a warehouse with one writer at a time has no identity locks).
        Then make sure the stored identities are current (`_current_index`). Keys
        `claim_ahead` took for the file are held already, and the index was made current
        when they were taken."""
        if self._use_claimed_ahead((path, sha256, hcibench_case)):
            if self._index is None:
                self._current_index()
            return
        keys = identity_keys(path, sha256, hcibench_case)
        if not self._locks.try_take(keys):
            self.flush()
            self._locks.take(keys)
        self._current_index()

    def _current_index(self) -> _StoredIndex:
        """The stored identities as of the newest commit, asked with the file's keys held:
        another writer's commits since the index's version are applied from the warehouse's
        change feed, else (no feed, no index yet) the table is read whole. Asked first, read
        second: a commit landing in between makes the index newer than its version, never
        older (applying a commit twice changes nothing: `_StoredIndex.apply`)."""
        newest = self._locks.newest_commit()
        index = self._index
        if index is not None and index.version != newest:
            changes = None
            if index.version is not None and newest is not None:
                changes = self.warehouse.changed_rows(
                    self.con, "source_files", _IDENTITY_COLUMNS, index.version, newest
                )
            if changes is None:
                index = None
            else:
                index.apply(*changes, newest)
        if index is None:
            index = _StoredIndex(self.con.execute(_ALL_IDENTITIES_SQL).fetchall(), newest)
        self._index = index
        return index

    def release(self, path: str, sha256: str, hcibench_case: str | None) -> None:
        """Hand back a claimed file's keys at once when it is not staged (already loaded, or
        rejected): no write of it is coming, so loaders waiting for those keys need not wait
        for this batch's commit."""
        self._locks.release(identity_keys(path, sha256, hcibench_case))

    def find_same_content(self, sha256: str, hcibench_case: str | None) -> list[EarlierLoad]:
        """Earlier loads of these bytes in the same context, stored or staged.

        The context is the HCIBench test case: every case folder holds its own
        byte-identical copy of `vsan.cfg` (and often `hcibench.cfg`), and each copy
        describes its own case, so it is loaded once per case."""
        stored = [
            EarlierLoad(*row[:4])
            for row in self._stored(sha256=sha256, hcibench_case=hcibench_case)
            if (row[4], row[5]) == (sha256, hcibench_case)
        ]
        staged = self._batch.by_content.get((sha256, hcibench_case), [])
        return stored + [f.as_earlier_load() for f in staged]

    def find_by_path(self, path: str) -> list[int | None]:
        stored = [row[0] for row in self._stored(path=path) if row[1] == path]
        return stored + [f.new_id for f in self._batch.by_path.get(path, [])]

    def _stored(
        self,
        *,
        path: str | None = None,
        sha256: str | None = None,
        hcibench_case: str | None = None,
    ) -> list[tuple]:
        """`raw.source_files` rows at `path` or with these bytes in this case."""
        index = self._index if self._index is not None else self._current_index()
        return index.rows(path, sha256, hcibench_case)

    def stage(
        self,
        *,
        old_ids: Iterable[int | None],
        source_row: dict[str, Any],
        arrays: dict[str, pa.Table],
        module: ModuleType,
        outcome: Outcome,
    ) -> None:
        """Queue one parsed file's tables (`ingest.parse_step`; replacing `old_ids`) for the
        next write."""
        stored_old = sorted({i for i in old_ids if i is not None})  # staged ones have no id yet
        check = getattr(module, "check_stored", None)
        load_root, path_in_root = placed_in_root(source_row["path"], self.roots)
        row = {**source_row, "load_root": load_root, "path_in_root": path_in_root}
        batch = self._batch
        batch.add(_StagedFile(None, stored_old, row, arrays, outcome, check))
        if (
            len(batch.files) >= self.batch_files
            or batch.rows >= self.batch_rows
            or batch.held_bytes >= BATCH_BYTES
        ):
            self.flush()

    def flush(self) -> None:
        """Write every staged file in one transaction; on a database error,
        retry them one by one so one bad file cannot sink the others."""
        staged, self._batch = self._batch.files, _Batch()
        index, self._index = self._index, None  # the commit changes what is stored
        try:
            if staged and self._write_all_or_each(staged):
                self._index = self._after_own_commit(index, staged)
            elif not staged:
                self._index = index
        finally:
            self._release_all()  # the batch is committed (or rejected): let others in

    def _release_all(self) -> None:
        self._claimed_ahead.clear()
        self._locks.release_all()

    def _after_own_commit(
        self, index: _StoredIndex | None, staged: list[_StagedFile]
    ) -> _StoredIndex | None:
        """The index with this writer's commit of `staged` applied, without reading: when
        the newest commit (asked before the keys go back) is the one right after the index's
        version, it is ours and no other writer's came between (commit ids only grow). Else
        the index as it was: the next claim applies every commit since its version, ours
        included, from the change feed (`_current_index`)."""
        if index is None:
            return None
        newest = self._locks.newest_commit()
        if newest is not None and (index.version is None or newest != index.version + 1):
            return index
        inserted = [
            (f.new_id, *(f.source_row[c] for c in _IDENTITY_COLUMNS.split(", ")[1:]))
            for f in staged
        ]
        index.apply(inserted, [old for f in staged for old in f.old_ids], newest)
        return index

    def _write_all_or_each(self, staged: list[_StagedFile]) -> bool:
        """Write `staged` in one commit, else each file in a commit of its own (a file that
        fails is rejected); True when the one commit held them all."""
        try:
            self._write(staged)
            return True
        except Exception as exc:  # any failure, not only the database's: no file claims rows
            self._stop_if_lost(exc, staged)
            if len(staged) == 1:  # that were rolled back
                _mark_unstored(staged[0], exc)
                return False
            for i, one in enumerate(staged):
                try:
                    self._write([one])
                except Exception as one_exc:
                    self._stop_if_lost(one_exc, staged[i:])
                    _mark_unstored(one, one_exc)
            return False

    def _stop_if_lost(self, failure: Exception, unwritten: list[_StagedFile]) -> None:
        """A failed write because the warehouse went away: no file after it can be written;
        the unwritten ones say so, and the load stops (WarehouseLost)."""
        try:
            self.warehouse.raise_if_lost(failure)
        except WarehouseLost as lost:
            self.abandon(lost, unwritten)
            raise

    def abandon(self, lost: WarehouseLost, unwritten: list[_StagedFile] | None = None) -> None:
        """The warehouse is gone: every file not yet written (the staged batch, by default) is
        rejected as not stored, and `close` writes nothing more."""
        self.lost = lost
        for staged in self._batch.files if unwritten is None else unwritten:
            staged.outcome.reject("warehouse", "parsed, but not stored: the warehouse went away")
        self._batch = _Batch()

    def _write(self, staged: list[_StagedFile]) -> None:
        self.warehouse.commit(self.con, lambda: self._stage_rows(staged))
        self.committed += len(staged)
        kill_point("after_commit")

    def _stage_rows(self, staged: list[_StagedFile]) -> None:
        """Inside the transaction: ids, the replaced files' deletes, every row, the label."""
        # Ids are drawn inside the transaction, so a killed load never
        # leaves a used id behind that a re-run would draw again.
        new_ids = self.warehouse.new_source_file_ids(self.con, len(staged))
        for f, new_id in zip(staged, new_ids, strict=True):
            f.new_id = new_id
        self._delete(sorted({old for f in staged for old in f.old_ids}))
        for name, batch in _rows_by_table(staged).items():
            self._insert(f"raw.{name}", batch)
        files = pa.Table.from_pylist([{"source_file_id": f.new_id, **f.source_row} for f in staged])
        self._insert("raw.source_files", files)
        for f in staged:
            if f.check_stored is not None:
                f.check_stored(self.con, f.new_id, f.source_row["path"])
        self._label(staged)
        kill_point("before_commit")

    def _label(self, staged: list[_StagedFile]) -> None:
        """Name the files this commit holds (a lake's `snapshots()`): author `ingest load`,
        message `<n> files`, extra info a JSON list of path, sha256 and id."""
        files = [
            {"path": f.source_row["path"], "sha256": f.source_row["sha256"],
             "source_file_id": f.new_id}
            for f in staged
        ]  # fmt: skip
        self.warehouse.label_commit(
            self.con, "ingest load", f"{len(staged)} files", {"files": files}
        )

    def prune(self, roots: list[str], seen: set[str]) -> list[str]:
        """Forget the stored files under `roots` (folders or archives, as the walk names them)
        that are not in `seen` (every path the walk met, read or refused): their files are gone.
        One commit per batch of files, each file's path key held meanwhile (another loader
        storing that path waits); returns the forgotten paths."""
        self.flush()
        gone = [
            (file_id, path)
            for root in roots
            for file_id, path in self.con.execute(
                "select source_file_id, path from raw.source_files "
                "where path = ? or starts_with(path, ? || '/') or starts_with(path, ? || ?)",
                [root, root, root, ARCHIVE_SEP],
            ).fetchall()
            if path not in seen
        ]
        forgotten: list[str] = []
        for start in range(0, len(gone), self.batch_files):
            batch = gone[start : start + self.batch_files]
            self._locks.take(sorted(f"raw-path:{path}" for _, path in batch))
            try:
                self.warehouse.commit(self.con, lambda batch=batch: self._forget(batch))
            finally:
                self._release_all()
            forgotten += [path for _, path in batch]
        self._index = None  # the commits changed what is stored
        return forgotten

    def _forget(self, batch: list[tuple[int, str]]) -> None:
        self._delete(sorted({file_id for file_id, _ in batch}))
        paths = [path for _, path in batch]
        message = f"{len(batch)} files pruned (gone from disk)"
        self.warehouse.label_commit(self.con, "ingest load", message, {"pruned": paths})

    def _delete(self, old_ids: list[int]) -> None:
        """Remove the rows of replaced files (earlier versions, older parsers, other labels)."""
        if not old_ids:
            return
        marks = ", ".join("?" for _ in old_ids)
        for name in self._table_names:
            self.con.execute(f"delete from raw.{name} where {SOURCE_FILE_ID} in ({marks})", old_ids)
        self.con.execute(f"delete from raw.source_files where source_file_id in ({marks})", old_ids)

    def _insert(self, table: str, batch: pa.Table) -> None:
        self.con.register("_batch", batch)
        try:
            self.con.execute(f"insert into {table} by name select * from _batch")
        finally:
            self.con.unregister("_batch")


def _rows_by_table(staged: list[_StagedFile]) -> dict[str, pa.Table]:
    """Each raw table's rows from every staged file, tagged with the file's new id."""
    parts: dict[str, list[pa.Table]] = {}
    for f in staged:
        for name, arrow in f.tables.items():
            parts.setdefault(name, []).append(_with_file_id(arrow, f.new_id))
    return {name: _scan_ready(tabs) for name, tabs in parts.items()}


_FILE_ID_RUNS = pa.run_end_encoded(pa.int32(), pa.int64())


def _with_file_id(arrow: pa.Table, file_id: int | None) -> pa.Table:
    """The rows with `_source_file_id` added as one run of the file's id per chunk (DuckDB
    expands it as it scans): an esxtop capture has 10^7 to 10^8 rows, whose ids as a Python
    list took a second per 10^7 rows and as a plain column 8 bytes of memory each."""
    ids = pa.array([file_id], pa.int64())
    runs = [
        pa.RunEndEncodedArray.from_arrays(pa.array([len(chunk)], pa.int32()), ids)
        for chunk in arrow.column(0).chunks
        if len(chunk)  # a run is at least one row long
    ]
    return arrow.append_column(SOURCE_FILE_ID, pa.chunked_array(runs, _FILE_ID_RUNS))


# Rows per chunk from which a table's chunks are handed to DuckDB as they are.
_BIG_CHUNK_ROWS = 100_000


def _scan_ready(tabs: list[pa.Table]) -> pa.Table:
    """One table for DuckDB to scan. Small chunks are combined into one: DuckDB scans an Arrow
    table of a hundred one-file chunks about ten times slower than the same rows in one chunk
    (per-chunk cost), which was most of a write. Big chunks (an esxtop capture's 8 MB slices)
    are kept: DuckDB inserts them on all its threads, and combining them copied every cell
    and left one chunk to one thread (a 14.4 M-row capture: 4.8 s instead of 2.3 s)."""
    table = pa.concat_tables(tabs, promote_options="default")
    chunks = max(1, table.column(0).num_chunks)
    return table if table.num_rows >= _BIG_CHUNK_ROWS * chunks else table.combine_chunks()


# DuckLake quotes the whole catalog statement that failed, rows of the file included.
_QUOTED_SQL = re.compile(r'(Failed to execute query )".*?"(: ERROR)', re.DOTALL)


def _mark_unstored(staged: _StagedFile, exc: Exception) -> None:
    if isinstance(exc, ParseError):  # refused by the parser's check_stored
        staged.outcome.reject(exc.location, exc.reason)
        return
    reason = _QUOTED_SQL.sub(r"\1(statement left out)\2", str(exc))
    staged.outcome.reject("warehouse", f"parsed, but could not be stored: {reason}")
