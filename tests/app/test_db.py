"""The dashboard keeps the published snapshot attached between reads (app/lib/db.py, through
warehouse.file.FileReader).

GIVEN a main warehouse file published to its serving snapshot
WHEN the dashboard reads the snapshot, a writer changes the main file and publishes again
THEN reads reuse one kept connection per published version, the writer is never blocked by
the dashboard (the main file is not kept open), and the first read after the publish sees
the new version, never the replaced file.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from app.lib import db
from warehouse import file


def _write(main: Path, value: int) -> None:
    with duckdb.connect(str(main)) as con:
        con.execute("create schema if not exists marts")
        con.execute("create or replace table marts.t as select ? as v", [value])
        # dbt-duckdb writes views that name their catalog (the main file's name).
        con.execute(f'create or replace view marts.named as select v from "{main.stem}".marts.t')


@pytest.fixture()
def published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    main = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(main))
    monkeypatch.delenv("PERF_SERVING_PATH", raising=False)
    _write(main, 1)
    return file.publish_copy(main)


def test_reads_of_the_snapshot_share_one_kept_connection(published: Path) -> None:
    assert db.reading_path() == str(published)
    assert db.read(published, "select v from marts.t")["v"].to_list() == [1]
    kept = file._kept[published].con
    assert db.read(published, "select v + 1 as v from marts.t")["v"].to_list() == [2]
    assert file._kept[published].con is kept
    # A view that names the main file's catalog reads through the snapshot too.
    assert db.read(published, "select v from marts.named")["v"].to_list() == [1]


def test_a_publish_is_seen_at_once_and_no_writer_waits(published: Path) -> None:
    main = file.main_path()
    assert db.read(published, "select v from marts.t")["v"].to_list() == [1]
    # The dashboard holds the snapshot, never the main file: a writer opens it at once.
    with file.connect(main, timeout_s=0) as con:
        con.execute("update marts.t set v = 2")
    file.publish_copy(main)
    assert db.read(published, "select v from marts.t")["v"].to_list() == [2]


def test_the_main_file_is_read_with_a_short_lived_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = tmp_path / "unpublished.duckdb"
    monkeypatch.setenv("PERF_DUCKDB_PATH", str(main))
    _write(main, 7)
    assert db.reading_path() == str(main)  # nothing published yet
    assert db.read(main, "select v from marts.t")["v"].to_list() == [7]
    assert main not in file._kept
    with file.connect(main, timeout_s=0) as con:  # not held: a writer gets in
        con.execute("update marts.t set v = 8")
