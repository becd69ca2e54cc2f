"""`python -m ingest load` in team mode: several loaders at once on one DuckLake.

Real processes against a real PostgreSQL (tests/lake/conftest.py) on fio status-interval JSON
written by synth (the loader benchmark's files, two dumps each: distinct bytes per file).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import duckdb
import pytest

import warehouse
from ingest import writer
from ingest.label_resolver import LabelResolver
from ingest.load import load_items
from ingest.outcomes import Outcome, Status
from ingest.sources import source_for
from ingest.triage import load_member
from ingest.walk import Member, Walk
from synth.fio_results import write_benchmark_vms
from tests.conftest import REPO
from warehouse import FileWarehouse, LakeWarehouse, ducklake

SUMMARY = re.compile(r"(\d+) loaded.*?, (\d+) already loaded.*?(\d+) rejected")


def fio_files(folder: Path, count: int) -> list[Path]:
    """`count` small fio JSON outputs (distinct bytes), in load order."""
    write_benchmark_vms(folder, count, dumps=2)
    return [folder / f"vdb-datastore-0-{i + 1}.json" for i in range(count)]


def lake_env(tgt: LakeWarehouse, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_")}
    env.update(PERF_WAREHOUSE=tgt.uri, PERF_LAKE_DATA_PATH=tgt.data_path or "", **extra)
    return {**env, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}


def start_load(tgt: LakeWarehouse, paths: Iterable[Path], **extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ingest", "load", "--quiet", *map(str, paths)],
        cwd=REPO,
        env=lake_env(tgt, **extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> tuple[int, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out + err


def load(tgt: LakeWarehouse, paths: Iterable[Path], **extra: str) -> tuple[int, str]:
    return finish(start_load(tgt, paths, **extra))


def counts(output: str) -> tuple[int, int, int]:
    """(loaded, already loaded, rejected) from the summary line."""
    match = SUMMARY.search(output.replace("\n", " "))
    assert match, output
    return int(match[1]), int(match[2]), int(match[3])


def read(tgt: LakeWarehouse) -> duckdb.DuckDBPyConnection:
    return ducklake.connect(tgt, read_only=True)


def raw_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute(
        "select table_name from information_schema.columns where table_schema = 'raw' "
        "and column_name = '_source_file_id' and table_catalog = current_database()"
    ).fetchall()
    return sorted(name for (name,) in rows)


def rows_by_path(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str], int]:
    """(raw table, source path) -> rows; rows with no source file count under path None."""
    return {
        (table, path): n
        for table in raw_tables(con)
        for path, n in con.execute(
            f"select s.path, count(*) from raw.{table} t left join raw.source_files s "
            "on s.source_file_id = t._source_file_id group by s.path"
        ).fetchall()
    }


def paths_stored(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every path in raw.source_files, once per row (a duplicate shows twice)."""
    return sorted(p for (p,) in con.execute("select path from raw.source_files").fetchall())


def snapshot_count(tgt: LakeWarehouse) -> int:
    with read(tgt) as con:
        return con.execute("select count(*) from lake.snapshots()").fetchone()[0]


def load_commits(con: duckdb.DuckDBPyConnection) -> list[tuple[str, dict]]:
    """(commit message, extra info) of every snapshot `ingest load` wrote."""
    rows = con.execute(
        "select commit_message, commit_extra_info from lake.snapshots() "
        "where author = 'ingest load' order by snapshot_id"
    ).fetchall()
    return [(message, json.loads(extra)) for message, extra in rows]


def without_ids(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """Every raw table's rows as sorted text, minus the id (and load time) columns."""
    tables = {t: "* exclude (_source_file_id)" for t in raw_tables(con)}
    tables["source_files"] = "* exclude (source_file_id, loaded_at)"
    return {
        table: sorted(map(repr, con.execute(f"select {cols} from raw.{table}").fetchall()))
        for table, cols in tables.items()
    }


def test_two_loaders_at_once_store_every_file_once(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    files = fio_files(tmp_path / "fio", 36)
    # GIVEN two loaders started at the same moment on 24 files each, 12 of them shared, each
    # committing every 4 files (commits interleave; keys are handed over between batches)
    first = start_load(lake_target, files[:24], PERF_INGEST_BATCH_FILES="4")
    second = start_load(lake_target, files[12:], PERF_INGEST_BATCH_FILES="4")
    (rc1, out1), (rc2, out2) = finish(first), finish(second)
    assert (rc1, rc2) == (0, 0), out1 + out2
    # THEN each shared file was stored by exactly one of them, the other found it loaded
    (loaded1, same1, _), (loaded2, same2, _) = counts(out1), counts(out2)
    assert (loaded1 + loaded2, same1 + same2) == (36, 12)
    con = read(lake_target)
    assert paths_stored(con) == sorted(str(f) for f in files)
    assert None not in {path for _, path in rows_by_path(con)}, "no row without its file"
    # AND the snapshots say which files each commit holds, every file in one commit
    commits = load_commits(con)
    named = [f["path"] for _, extra in commits for f in extra["files"]]
    assert sorted(named) == paths_stored(con)
    assert all(message == f"{len(extra['files'])} files" for message, extra in commits)
    ids = dict(con.execute("select path, source_file_id from raw.source_files").fetchall())
    assert all(ids[f["path"]] == f["source_file_id"] for _, e in commits for f in e["files"])

    # AND the same files loaded into a warehouse file give the same raw rows, minus ids
    db = tmp_path / "w.duckdb"
    # each file a PATH argument of its own, as the loaders above were given them
    paths = [str(f) for f in files]
    load_items(FileWarehouse(db), Walk(files), cli_labels={}, known_paths=set(paths), roots=paths)
    with duckdb.connect(str(db), read_only=True) as file_con:
        assert without_ids(con) == without_ids(file_con)

    # WHEN both sets are loaded again THEN nothing is added: not a row, not a snapshot
    before, rows = snapshot_count(lake_target), rows_by_path(con)
    rc, out = load(lake_target, files)
    assert rc == 0 and counts(out) == (0, 36, 0), out
    assert snapshot_count(lake_target) == before
    con = read(lake_target)
    assert rows_by_path(con) == rows and len(paths_stored(con)) == 36


def test_two_loaders_parsing_in_worker_processes_store_every_file_once(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race above with parse workers up: one loader in this process (its pool says how
    many files came back from its workers), the other a `python -m ingest load` with two
    workers. Results come back out of process, are staged in walk order, and the identity
    locks still decide which loader stores a shared file."""
    from ingest.parse_pool import START_FILES, ParsePool

    files = fio_files(tmp_path / "fio", 3 * START_FILES)
    half = 2 * START_FILES  # each loader parses more than START_FILES: its workers start
    workers = {"PERF_INGEST_BATCH_FILES": "8", "PERF_INGEST_PARSE_WORKERS": "2"}
    second = start_load(lake_target, files[-half:], **workers)
    monkeypatch.setenv("PERF_INGEST_BATCH_FILES", "8")
    pool, mine = ParsePool(2), [str(f) for f in files[:half]]
    pool.start()  # up before the load: small files are otherwise all parsed while they start
    here = load_items(
        lake_target,
        Walk(files[:half]),
        cli_labels={},
        known_paths=set(mine),
        roots=mine,
        parse_pool=pool,
    )
    rc2, out2 = finish(second)
    assert rc2 == 0, out2
    assert pool.parsed_in_workers > START_FILES // 2  # not the in-process fallback
    statuses = [o.status for o in here.outcomes]
    loaded2, same2, _ = counts(out2)
    shared = 2 * half - len(files)
    assert statuses.count(Status.LOADED) + loaded2 == len(files)
    assert statuses.count(Status.UNCHANGED) + same2 == shared
    con = read(lake_target)
    assert paths_stored(con) == sorted(str(f) for f in files)
    # AND the rows are those of one in-process load into a warehouse file, ids aside
    db = tmp_path / "w.duckdb"
    paths = [str(f) for f in files]
    monkeypatch.setenv("PERF_INGEST_PARSE_WORKERS", "0")
    load_items(FileWarehouse(db), Walk(files), cli_labels={}, known_paths=set(paths), roots=paths)
    with duckdb.connect(str(db), read_only=True) as file_con:
        assert without_ids(con) == without_ids(file_con)


def test_a_changed_file_replaces_its_rows_and_a_rejected_one_changes_nothing(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    files = fio_files(tmp_path / "fio", 4)
    assert load(lake_target, files)[0] == 0
    with read(lake_target) as con:
        old_id = con.execute(
            "select source_file_id from raw.source_files where path = ?", [str(files[0])]
        ).fetchone()[0]
        rows = rows_by_path(con)
    # WHEN the first file is rewritten with other bytes (another seed's output) and reloaded
    other = fio_files(tmp_path / "other", 6)[5]  # seed 5: bytes no loaded file has
    files[0].write_bytes(other.read_bytes())
    rc, out = load(lake_target, files)
    assert rc == 0 and counts(out) == (1, 3, 0) and "1 replaced" in out, out
    # THEN its earlier rows are gone and the new ones stored once, under a new id
    with read(lake_target) as con:
        assert paths_stored(con) == sorted(map(str, files))
        new_rows = rows_by_path(con)
        assert None not in {path for _, path in new_rows}
        ids = [i for (i,) in con.execute("select source_file_id from raw.source_files").fetchall()]
        assert old_id not in ids and len(set(ids)) == 4
        assert {k: n for k, n in new_rows.items() if k[1] != str(files[0])} == {
            k: n for k, n in rows.items() if k[1] != str(files[0])
        }
        after_replace = without_ids(con)

    # WHEN a truncated fio output is loaded THEN it is rejected, naming the file, and the
    # lake is exactly as it was (no snapshot, no row)
    bad = tmp_path / "bad" / "vm-cut.json"
    bad.parent.mkdir()
    bad.write_bytes(files[1].read_bytes()[:2000])
    before = snapshot_count(lake_target)
    rc, out = load(lake_target, [bad])
    assert rc == 1 and counts(out) == (0, 0, 1) and "rejected vm-cut.json" in out, out
    assert snapshot_count(lake_target) == before
    with read(lake_target) as con:
        assert without_ids(con) == after_replace


def free_now(tgt: LakeWarehouse, keys: list[str]) -> list[bool]:
    """Per key: whether another PostgreSQL session could take it right now (not waiting)."""
    with ducklake.catalog_session(tgt) as other:
        taken = [
            other.execute("select pg_try_advisory_lock(%s)", [ducklake.lock_key(k)]).fetchone()[0]
            for k in keys
        ]
        other.execute("select pg_advisory_unlock_all()")
    return taken


def test_a_file_that_is_not_staged_hands_its_keys_back_before_the_commit(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    # GIVEN a lake holding one fio output, and a loader in the middle of a batch (nothing
    # committed yet) that met that file again, a new file, a copy of the new file elsewhere
    # (the same bytes as a staged file: already loaded) and a truncated one
    done, new = fio_files(tmp_path / "fio", 2)
    assert load(lake_target, [done])[0] == 0
    copy = tmp_path / "copy" / new.name
    bad = tmp_path / "bad" / "vm-cut.json"
    for folder in (copy.parent, bad.parent):
        folder.mkdir()
    copy.write_bytes(new.read_bytes())
    bad.write_bytes(new.read_bytes()[:2000])
    files = (done, new, copy, bad)
    loader = writer.RawWriter(lake_target)
    try:
        outcomes = [
            load_member(
                loader, Member(str(f), f.stat().st_size, f.read_bytes), LabelResolver({}), set()
            ).status
            for f in files
        ]
        assert outcomes == [Status.UNCHANGED, Status.LOADED, Status.UNCHANGED, Status.REJECTED]
        # THEN another loader can take the keys of the already-loaded and the rejected file
        # at once, while the staged file's stay held until its batch is committed; the copy
        # hands back its path, not the content key the staged file also holds
        done_keys, new_keys, (content, path), bad_keys = map(identity_keys, files)
        assert free_now(lake_target, done_keys + bad_keys) == [True] * 4
        assert free_now(lake_target, new_keys) == [False, False]
        assert content.startswith("raw-content:") and path.startswith("raw-path:")
        assert free_now(lake_target, [content, path]) == [False, True]
    finally:
        loader.close()
    assert free_now(lake_target, new_keys) == [True, True]
    with read(lake_target) as con:
        assert paths_stored(con) == sorted([str(done), str(new)])


def identity_keys(path: Path) -> list[str]:
    """The lock names of a file's identities, as the loader names them (no HCIBench case)."""
    return writer.identity_keys(str(path), source_for(str(path), path.read_bytes()).sha256, None)


@pytest.mark.parametrize(
    ("conninfo", "shown"),
    [
        pytest.param(
            "dbname=lake host=127.0.0.1 port=1 user=u password=s3cret-pw",
            "port=1 user=u password=*** (data in ",
            id="keywords",
        ),
        pytest.param(
            "postgresql://u:s3cret-pw@127.0.0.1:1/lake",
            "postgresql://u:***@127.0.0.1:1/lake (data in ",
            id="uri-userinfo",
        ),
        pytest.param(
            "postgresql://127.0.0.1:1/lake?user=u&password=s3cret-pw",
            "postgresql://127.0.0.1:1/lake?user=u&password=*** (data in ",
            id="uri-query",
        ),
    ],
)
def test_an_unreachable_catalog_is_one_clear_error_without_the_password(
    tmp_path: Path, conninfo: str, shown: str
) -> None:
    """Every libpq form of a password is hidden (the URI forms were printed in full)."""
    files = fio_files(tmp_path / "fio", 1)
    tgt = warehouse.from_settings("ducklake:postgres:" + conninfo, data_path=str(tmp_path / "data"))
    assert "s3cret-pw" not in tgt.describe()
    rc, out = load(tgt, files)
    out = out.replace("\n", "")  # the console wraps long lines
    assert rc == 1, out
    assert "s3cret-pw" not in out
    assert "error: Cannot reach the lake's catalog DuckLake ducklake:postgres:" in out
    assert shown in out and "Connection refused" in out


def test_a_lost_snapshot_race_is_retried_and_a_failed_store_does_not_quote_the_rows() -> None:
    # Seen with 4 loaders committing one file each: two commits claimed snapshot 212.
    text = (
        "TransactionContext Error: Failed to commit: Failed to commit DuckLake transaction: "
        'Failed to execute query "INSERT INTO "public".ducklake_inlined_data_25_1 VALUES '
        "(210, 212, 'secret row');\": ERROR:  duplicate key value violates unique constraint "
        '"ducklake_snapshot_pkey"\nDETAIL:  Key (snapshot_id)=(212) already exists.'
    )
    exc = duckdb.TransactionException(text)
    assert ducklake.is_conflict(exc)
    assert not ducklake.is_conflict(duckdb.TransactionException("duplicate key in table t"))
    outcome = Outcome("/x.json", Status.LOADED, "fio", rows=3)
    writer._mark_unstored(writer._StagedFile(None, [], {}, {}, outcome), exc)
    assert outcome.status == Status.REJECTED and outcome.rows == 0
    assert "secret row" not in outcome.reason and "ducklake_inlined_data" not in outcome.reason
    assert outcome.reason.startswith("parsed, but could not be stored: TransactionContext Error")
    assert "query (statement left out): ERROR:  duplicate key value" in outcome.reason
