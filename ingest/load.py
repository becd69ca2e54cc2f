"""Write parsed files into the warehouse's `raw` schema.

Every source file is loaded in its own transaction: its `raw.source_files`
row and all its rows in `raw.*` tables appear together or not at all, so a
rejected file, a crash or a kill leaves the warehouse as it was before that
file. Identity is the content: a file whose bytes (sha256) were already loaded
with the same labels and parser version adds nothing; a file at a known path
whose bytes changed replaces the rows of its earlier version.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import pyarrow as pa

from ingest import labels as run_labels
from ingest import tables
from ingest.faults import kill_point
from ingest.hcibench_context import hcibench_case_of
from ingest.records import Parsed, ParseError
from ingest.registry import HEAD_BYTES, PARSERS, detect_format
from ingest.sources import source_for
from ingest.walk import Member, Refused, expand, folder_chain

# Empty files with these endings are tool outputs that never got written
# (a crashed run); they are rejected, not skipped, so nobody misses them.
_OUTPUT_SUFFIXES = (".json", ".csv", ".out", ".txt")
# Documentation and scripts quote tool output (a README with a -res.txt block,
# a fixture generator) but are never tool output themselves: no tool writes
# these endings, so they are skipped before content detection can be fooled.
_NEVER_OUTPUT_SUFFIXES = (".md", ".markdown", ".rst", ".py", ".rb", ".sh", ".ps1", ".ipynb")

_DUCKDB_TYPES = {
    pa.int64(): "BIGINT",
    pa.int32(): "INTEGER",
    pa.int16(): "SMALLINT",
    pa.float64(): "DOUBLE",
    pa.float32(): "FLOAT",
    pa.string(): "VARCHAR",
    pa.large_string(): "VARCHAR",
    pa.bool_(): "BOOLEAN",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
    pa.date32(): "DATE",
}

SOURCE_FILES_DDL = """
create table if not exists raw.source_files (
    source_file_id bigint not null,
    path varchar not null,
    name varchar not null,
    folder varchar not null,
    sha256 varchar not null,
    size_bytes bigint not null,
    format varchar not null,
    parser_version varchar not null,
    labels_json varchar not null,
    result_per varchar not null,
    hcibench_case varchar,
    row_count bigint not null,
    notes_json varchar not null,
    loaded_at timestamptz not null
)
"""


@dataclass(slots=True)
class Outcome:
    path: str
    status: str  # loaded | unchanged | replaced | skipped | rejected | labels
    format: str | None = None
    rows: int = 0
    location: str = ""
    reason: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LoadSummary:
    outcomes: list[Outcome] = field(default_factory=list)

    def by_status(self, *statuses: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def exit_code(self) -> int:
        return 1 if self.by_status("rejected") else 0


def _table_schema(spec: Any) -> pa.Schema:
    return spec if isinstance(spec, pa.Schema) else tables.arrow_schema(spec)


def _duckdb_type(arrow_type: pa.DataType) -> str:
    if pa.types.is_dictionary(arrow_type):
        return _duckdb_type(arrow_type.value_type)
    try:
        return _DUCKDB_TYPES[arrow_type]
    except KeyError:
        raise TypeError(f"no DuckDB type for Arrow type {arrow_type}") from None


def _all_tables() -> dict[str, pa.Schema]:
    specs: dict[str, pa.Schema] = {}
    for module in PARSERS.values():
        for name, spec in module.TABLES.items():
            specs[name] = _table_schema(spec)
    return specs


class Warehouse:
    """The DuckDB file, opened for writing with the raw schema in place."""

    def __init__(self, db_path: Path, *, lock_timeout_s: float = 60.0) -> None:
        self.db_path = db_path
        db_path.parent.mkdir(parents=True, exist_ok=True)
        self.con = _connect_with_retry(db_path, lock_timeout_s)
        # Batch limits: files per transaction, and rows (a large esxtop
        # capture is written on its own).
        self.batch_files = max(1, int(os.environ.get("PERF_INGEST_BATCH_FILES", 100)))
        self.batch_rows = 2_000_000
        self._staged: list[_StagedFile] = []
        self._staged_rows = 0
        self._ensure_schema()

    def close(self) -> None:
        """Write what is staged, then close."""
        try:
            self.flush()
        finally:
            self.con.close()

    def _ensure_schema(self) -> None:
        con = self.con
        con.execute("create schema if not exists raw")
        con.execute("create sequence if not exists raw.source_file_seq start 1")
        con.execute(SOURCE_FILES_DDL)
        existing = {
            (t, c)
            for t, c in con.execute(
                "select table_name, column_name from information_schema.columns "
                "where table_schema = 'raw'"
            ).fetchall()
        }
        known_tables = {t for t, _ in existing}
        for name, schema in _all_tables().items():
            if name not in known_tables:
                columns = ", ".join(f'"{f.name}" {_duckdb_type(f.type)}' for f in schema)
                con.execute(f"create table raw.{name} ({columns}, _source_file_id bigint not null)")
                continue
            # A newer parser version may add columns: add them, never drop.
            for f in schema:
                if (name, f.name) not in existing:
                    con.execute(
                        f'alter table raw.{name} add column "{f.name}" {_duckdb_type(f.type)}'
                    )

    def find_same_content(
        self, sha256: str, hcibench_case: str | None
    ) -> list[tuple[int, str, str, str]]:
        """Earlier loads of these bytes in the same context, stored or staged.

        The context is the HCIBench test case: every case folder holds its
        own byte-identical copy of `vsan.cfg` (and often `hcibench.cfg`), and
        each copy describes its own case, so it is loaded once per case."""
        stored = self.con.execute(
            "select source_file_id, path, labels_json, parser_version "
            "from raw.source_files where sha256 = ? and hcibench_case is not distinct from ?",
            [sha256, hcibench_case],
        ).fetchall()
        staged = [
            (
                f.new_id,
                f.source_row["path"],
                f.source_row["labels_json"],
                f.source_row["parser_version"],
            )
            for f in self._staged
            if f.source_row["sha256"] == sha256 and f.source_row["hcibench_case"] == hcibench_case
        ]
        return stored + staged

    def find_by_path(self, path: str) -> list[int]:
        rows = self.con.execute(
            "select source_file_id from raw.source_files where path = ?", [path]
        ).fetchall()
        return [r[0] for r in rows] + [
            f.new_id for f in self._staged if f.source_row["path"] == path
        ]

    def stage(
        self,
        *,
        old_ids: Iterable[int],
        source_row: dict[str, Any],
        parsed: Parsed,
        module: ModuleType,
        outcome: Outcome,
    ) -> None:
        """Queue one parsed file (replacing `old_ids`) for the next write.

        Files are written in batches, one transaction per batch: each file is
        still all-or-nothing (a kill leaves a prefix of whole files), but the
        per-statement cost of DuckDB is paid once per batch instead of once per
        table per file, which is most of the time for small files."""
        arrays: dict[str, pa.Table] = {}
        for name, rows in parsed.tables.items():
            if name not in module.TABLES:
                raise TypeError(f"parser {module.FORMAT} wrote undeclared table {name}")
            arrow = (
                rows if isinstance(rows, pa.Table) else tables.to_arrow(module.TABLES[name], rows)
            )
            if arrow.num_rows:
                arrays[name] = arrow
        stored_old = sorted({i for i in old_ids if i is not None})  # staged ones have no id yet
        staged = _StagedFile(None, stored_old, dict(source_row), arrays, outcome)
        self._staged.append(staged)
        self._staged_rows += sum(t.num_rows for t in arrays.values())
        if len(self._staged) >= self.batch_files or self._staged_rows >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        """Write every staged file in one transaction; on a database error,
        retry them one by one so one bad file cannot sink the others."""
        staged, self._staged, self._staged_rows = self._staged, [], 0
        if not staged:
            return
        try:
            self._write(staged)
        except (duckdb.Error, pa.ArrowException) as exc:
            if len(staged) == 1:
                _mark_unstored(staged[0], exc)
                return
            for one in staged:
                try:
                    self._write([one])
                except (duckdb.Error, pa.ArrowException) as one_exc:
                    _mark_unstored(one, one_exc)

    def _write(self, staged: list[_StagedFile]) -> None:
        con = self.con
        con.begin()
        try:
            # Ids are drawn inside the transaction, so a killed load never
            # leaves a used id behind that a re-run would draw again.
            for f in staged:
                (f.new_id,) = con.execute("select nextval('raw.source_file_seq')").fetchone()
            old_ids = sorted({old for f in staged for old in f.old_ids})
            if old_ids:
                marks = ", ".join("?" for _ in old_ids)
                for name in _all_tables():
                    con.execute(
                        f"delete from raw.{name} where _source_file_id in ({marks})", old_ids
                    )
                con.execute(
                    f"delete from raw.source_files where source_file_id in ({marks})", old_ids
                )
            by_table: dict[str, list[pa.Table]] = {}
            for f in staged:
                for name, arrow in f.tables.items():
                    ids = pa.array([f.new_id] * arrow.num_rows, type=pa.int64())
                    by_table.setdefault(name, []).append(
                        arrow.append_column("_source_file_id", ids)
                    )
            for name, parts in by_table.items():
                batch = (
                    parts[0]
                    if len(parts) == 1
                    else pa.concat_tables(parts, promote_options="default")
                )
                con.register("_batch", batch)
                con.execute(f"insert into raw.{name} by name select * from _batch")
                con.unregister("_batch")
            files = pa.Table.from_pylist(
                [{"source_file_id": f.new_id, **f.source_row} for f in staged]
            )
            con.register("_files", files)
            con.execute("insert into raw.source_files by name select * from _files")
            con.unregister("_files")
            kill_point("before_commit")
            con.commit()
        except BaseException:
            con.rollback()
            raise
        kill_point("after_commit")


@dataclass(slots=True)
class _StagedFile:
    new_id: int | None  # drawn when written
    old_ids: list[int]
    source_row: dict[str, Any]
    tables: dict[str, pa.Table]
    outcome: Outcome


def _mark_unstored(staged: _StagedFile, exc: Exception) -> None:
    staged.outcome.status = "rejected"
    staged.outcome.location = "warehouse"
    staged.outcome.reason = f"parsed, but could not be stored: {exc}"
    staged.outcome.rows = 0


def _connect_with_retry(db_path: Path, timeout_s: float) -> duckdb.DuckDBPyConnection:
    """Open for writing; while another process holds the file, wait and retry."""
    deadline = time.monotonic() + timeout_s
    delay = 0.05
    while True:
        try:
            return duckdb.connect(str(db_path))
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 1.0)


class LabelResolver:
    """Labels for a file: run.yaml files from its folder chain, then --label."""

    def __init__(self, cli_labels: Mapping[str, Any]) -> None:
        self.cli_labels = dict(cli_labels)
        # folder -> its labels, or the error that makes them unusable (every
        # file under a broken run.yaml is rejected, naming that run.yaml).
        self._by_folder: dict[str, dict[str, Any] | run_labels.LabelError] = {}

    def _read(self, folder: str, text: str, origin: str) -> dict[str, Any]:
        try:
            found: dict[str, Any] | run_labels.LabelError = run_labels.parse_label_file(
                text, origin
            )
        except run_labels.LabelError as exc:
            found = exc
        self._by_folder[folder] = found
        if isinstance(found, run_labels.LabelError):
            raise found
        return found

    def add_label_file(self, member: Member) -> None:
        """Read a run.yaml met while walking; raises LabelError when invalid."""
        folder = member.path.rsplit("/", 1)[0]
        if folder in self._by_folder:
            cached = self._by_folder[folder]
            if isinstance(cached, run_labels.LabelError):
                raise cached
            return
        self._read(folder, member.read().decode("utf-8", errors="replace"), member.path)

    def _folder_labels(self, folder: str) -> dict[str, Any]:
        if folder not in self._by_folder:
            if "!" in folder:  # archive folders: only files met in the walk count
                self._by_folder[folder] = {}
            else:
                self._by_folder[folder] = {}
                for name in run_labels.LABEL_FILE_NAMES:
                    candidate = Path(folder) / name
                    if candidate.is_file():
                        text = candidate.read_text(encoding="utf-8", errors="replace")
                        return self._read(folder, text, candidate.as_posix())
        cached = self._by_folder[folder]
        if isinstance(cached, run_labels.LabelError):
            raise cached
        return cached

    def labels_for(self, logical_path: str) -> dict[str, Any]:
        layers = [self._folder_labels(folder) for folder in folder_chain(logical_path)]
        merged = run_labels.merge(*layers, self.cli_labels)
        run_labels.check_merged(merged, "labels (run.yaml files and --label)")
        return merged


def _is_label_file(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in run_labels.LABEL_FILE_NAMES


def _source_row(source, fmt: str, module: ModuleType, parsed: Parsed, labels: dict) -> dict:
    return {
        "path": source.path,
        "name": source.name,
        "folder": source.folder,
        "sha256": source.sha256,
        "size_bytes": source.size_bytes,
        "format": fmt,
        "parser_version": module.PARSER_VERSION,
        "labels_json": json.dumps(labels, sort_keys=True),
        "result_per": labels["result_per"],
        "hcibench_case": source.hcibench_case,
        "row_count": parsed.row_count(),
        "notes_json": json.dumps(parsed.notes),
        "loaded_at": dt.datetime.now(dt.UTC),
    }


def load_member(
    warehouse: Warehouse, member: Member, resolver: LabelResolver, known_paths: set[str]
) -> Outcome:
    """Detect, parse and store one file; never raises for bad input."""
    try:
        data = member.read()
    except OSError as exc:
        return Outcome(member.path, "rejected", location="file", reason=f"cannot be read: {exc}")
    name = member.path.rsplit("/", 1)[-1]
    if not data:
        if name.lower().endswith(_OUTPUT_SUFFIXES):
            return Outcome(
                member.path,
                "rejected",
                location="byte 0",
                reason="empty file: the tool wrote no output",
            )
        return Outcome(member.path, "skipped", reason="empty file")
    if name.lower().endswith(_NEVER_OUTPUT_SUFFIXES):
        return Outcome(
            member.path, "skipped", reason="documentation or source code, not tool output"
        )
    fmt = detect_format(data[:HEAD_BYTES], name)
    if fmt is None:
        return Outcome(member.path, "skipped", reason="not a supported format")
    module = PARSERS[fmt]
    try:
        labels = resolver.labels_for(member.path)
    except run_labels.LabelError as exc:
        return Outcome(
            member.path, "rejected", fmt, location=exc.origin, reason=f"bad labels: {exc.reason}"
        )
    case = hcibench_case_of(member.path, known_paths)
    labels.setdefault("result_per", "folder" if case else "file")
    source = source_for(member.path, data, labels=labels, hcibench_case=case)
    labels_json = json.dumps(labels, sort_keys=True)

    same_content = warehouse.find_same_content(source.sha256, source.hcibench_case)
    current = [
        row for row in same_content if row[2] == labels_json and row[3] == module.PARSER_VERSION
    ]
    if current:
        earlier = current[0][1]
        reason = "" if earlier == member.path else f"same content as {earlier}"
        return Outcome(member.path, "unchanged", fmt, reason=reason)

    try:
        parsed = module.parse(data, source)
    except ParseError as exc:
        return Outcome(member.path, "rejected", fmt, location=exc.location, reason=exc.reason)
    except RecursionError:
        return Outcome(
            member.path, "rejected", fmt, location="file", reason="structure nested too deeply"
        )
    except Exception as exc:  # a parser bug must not abort the other files
        return Outcome(
            member.path,
            "rejected",
            fmt,
            location="file",
            reason=f"parser failed unexpectedly ({type(exc).__name__}: {exc}); "
            "please report this file",
        )

    # Replace the earlier version at this path, or the same bytes loaded with
    # other labels or by an older parser version.
    old_ids = {row[0] for row in same_content} | set(warehouse.find_by_path(member.path))
    status = "replaced" if old_ids else "loaded"
    outcome = Outcome(member.path, status, fmt, rows=parsed.row_count(), notes=list(parsed.notes))
    warehouse.stage(
        old_ids=old_ids,
        source_row=_source_row(source, fmt, module, parsed, labels),
        parsed=parsed,
        module=module,
        outcome=outcome,
    )
    return outcome


def collect(paths: Iterable[Path]) -> list[Member | Refused]:
    """Every candidate file, archive members included, in a stable order."""
    items: list[Member | Refused] = []
    for path in paths:
        items.extend(expand(path))
    return items
