"""A lake loader reads what is stored once per commit, not once per file (`ingest.writer`'s
`_StoredIndex`), yet still sees what another loader committed since it read it.

Real PostgreSQL (tests/lake/conftest.py), real fio outputs written by synth.
"""

from __future__ import annotations

from pathlib import Path

from ingest import writer
from ingest.label_resolver import LabelResolver
from ingest.outcomes import Status
from ingest.sources import source_for
from ingest.triage import load_member
from ingest.walk import Member
from tests.lake.test_lake_load import counts, fio_files, load, paths_stored, read
from warehouse import LakeWarehouse


def member(path: Path) -> Member:
    return Member(str(path), path.stat().st_size, path.read_bytes)


def test_a_file_another_loader_committed_after_the_check_read_the_lake_is_not_stored_twice(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    # GIVEN a loader that already read what the lake stores (it checked file `a` and found
    # nothing: its copy of the stored identities is from before `a` was loaded)
    first, second = fio_files(tmp_path / "fio", 2)
    loader = writer.RawWriter(lake_target)
    try:
        sha = source_for(str(first), first.read_bytes()).sha256
        loader.claim(str(first), sha, None)
        assert loader.find_same_content(sha, None) == []
        assert loader.find_by_path(str(first)) == []
        loader.release(str(first), sha, None)
        # WHEN another loader stores that file meanwhile
        status, output = load(lake_target, [first])
        assert status == 0 and counts(output) == (1, 0, 0), output
        # THEN the first loader sees it (already loaded, by the other loader's commit) and
        # still loads a file nobody stored
        resolver = LabelResolver({})
        assert load_member(loader, member(first), resolver, set()).status == Status.UNCHANGED
        assert load_member(loader, member(second), resolver, set()).status == Status.LOADED
    finally:
        loader.close()
    with read(lake_target) as con:
        assert paths_stored(con) == sorted([str(first), str(second)])


def test_a_loader_reads_what_is_stored_once_per_commit(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch
) -> None:
    # GIVEN five files loaded into the lake, and a loader counting its reads of every stored
    # identity
    files = fio_files(tmp_path / "fio", 5)
    assert load(lake_target, files)[0] == 0
    reads = []
    real = writer._StoredIndex.__init__

    def counted(self, rows, version):
        reads.append(version)
        real(self, rows, version)

    monkeypatch.setattr(writer._StoredIndex, "__init__", counted)
    # WHEN it meets all five again (nothing commits meanwhile)
    loader = writer.RawWriter(lake_target)
    try:
        outcomes = [load_member(loader, member(f), LabelResolver({}), set()) for f in files]
    finally:
        loader.close()
    # THEN every one is already loaded, told from a single read of the lake
    assert [o.status for o in outcomes] == [Status.UNCHANGED] * 5
    assert len(reads) == 1 and reads[0] is not None


def counting_reads(monkeypatch) -> list[int | None]:
    """The version of every whole read of the stored identities a loader makes from now on."""
    reads: list[int | None] = []
    real = writer._StoredIndex.__init__

    def counted(self, rows, version):
        reads.append(version)
        real(self, rows, version)

    monkeypatch.setattr(writer._StoredIndex, "__init__", counted)
    return reads


def stored_ids(tgt: LakeWarehouse, path: Path) -> list[int]:
    with read(tgt) as con:
        rows = con.execute(
            "select source_file_id from raw.source_files where path = ? order by 1", [str(path)]
        ).fetchall()
    return [row[0] for row in rows]


def test_another_loaders_replacement_reaches_the_index_without_a_whole_read(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch
) -> None:
    # GIVEN file `a` loaded, and a loader that read what the lake stores (one whole read)
    a, b = fio_files(tmp_path / "fio", 2)
    assert load(lake_target, [a])[0] == 0
    reads = counting_reads(monkeypatch)
    loader = writer.RawWriter(lake_target)
    try:
        resolver = LabelResolver({})
        assert load_member(loader, member(a), resolver, set()).status == Status.UNCHANGED
        # WHEN another loader replaces `a` with new bytes (its old row deleted, a new one in)
        a.write_bytes(b.read_bytes().replace(b'"jobname"', b'"jobname" ', 1))
        status, output = load(lake_target, [a])
        assert status == 0 and counts(output) == (1, 0, 0), output
        (new_id,) = stored_ids(lake_target, a)
        # THEN the first loader knows the new bytes are stored and the old row is gone,
        # from the other loader's commit alone (no second whole read)
        assert load_member(loader, member(a), resolver, set()).status == Status.UNCHANGED
        assert loader.find_by_path(str(a)) == [new_id]
        assert load_member(loader, member(b), resolver, set()).status == Status.LOADED
    finally:
        loader.close()
    assert len(reads) == 1
    assert len(stored_ids(lake_target, a)) == 1 and len(stored_ids(lake_target, b)) == 1


def test_a_loaders_own_commits_need_no_read_and_anothers_between_them_is_seen(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch
) -> None:
    # GIVEN a loader committing each file on its own (a batch of one)
    x, y, z = fio_files(tmp_path / "fio", 3)
    reads = counting_reads(monkeypatch)
    resolver = LabelResolver({})
    loader = writer.RawWriter(lake_target)
    loader.batch_files = 1
    try:
        # WHEN it loads x (its own commit), then stages z while another loader commits y
        # (a commit between two of its own), then meets x, y and z again
        assert load_member(loader, member(x), resolver, set()).status == Status.LOADED
        loader.batch_files = 2
        assert load_member(loader, member(z), resolver, set()).status == Status.LOADED
        status, output = load(lake_target, [y])
        assert status == 0 and counts(output) == (1, 0, 0), output
        loader.flush()
        again = [load_member(loader, member(f), resolver, set()).status for f in (x, y, z)]
    finally:
        loader.close()
    # THEN all three are already loaded, each stored once, told from one whole read: its
    # own commits were applied to it, and the other loader's y (with z, the commit after it)
    # from the lake's change feed
    assert again == [Status.UNCHANGED] * 3
    for path in (x, y, z):
        assert len(stored_ids(lake_target, path)) == 1
    assert len(reads) == 1 and reads[0] is not None
