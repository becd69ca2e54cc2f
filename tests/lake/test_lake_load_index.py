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
