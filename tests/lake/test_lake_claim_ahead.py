"""A lake loader takes the identity keys of the files ahead of it in one PostgreSQL round
trip (`RawWriter.claim_ahead`), not one a file; a key another session holds ends that, and
every file is still stored once.

Real PostgreSQL (tests/lake/conftest.py), real fio outputs written by synth.
"""

from __future__ import annotations

from pathlib import Path

from ingest import writer
from ingest.load import load_items
from ingest.parse_pool import CHUNK_FILES, ParsePool
from ingest.sources import source_for
from ingest.walk import Walk
from tests.lake.test_lake_load import fio_files, paths_stored, read
from warehouse import LakeWarehouse, ducklake
from warehouse.lake_locks import PgIdentityLocks


def _identity(path: Path) -> writer.Identity:
    return (str(path), source_for(str(path), path.read_bytes()).sha256, None)


def test_a_lake_loader_takes_the_keys_of_a_window_of_files_at_once(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch
) -> None:
    files = fio_files(tmp_path / "fio", 40)
    takes: list[int] = []
    real_take = PgIdentityLocks.try_take

    def counted(self, keys):
        takes.append(len(keys))
        return real_take(self, keys)

    monkeypatch.setattr(PgIdentityLocks, "try_take", counted)
    walk = Walk([tmp_path / "fio"])
    summary = load_items(
        lake_target, walk, cli_labels={}, known_paths=walk.known_paths, parse_pool=ParsePool(0)
    )
    assert summary.exit_code == 0
    with read(lake_target) as con:
        assert paths_stored(con) == sorted(map(str, files))
    # a window of CHUNK_FILES files (two keys each) per round trip, not a round trip a file
    assert len(takes) <= -(-len(files) // CHUNK_FILES) + 1, takes
    assert max(takes) == 2 * CHUNK_FILES


def _free(session, keys: list[str]) -> bool:
    """Whether `session` can take every key now (and then holds them)."""
    lock_keys = [ducklake.lock_key(k) for k in keys]
    return session.execute(
        "select bool_and(pg_try_advisory_lock(k)) from unnest(%s::bigint[]) as k", [lock_keys]
    ).fetchone()[0]


def test_a_key_held_elsewhere_gives_back_what_was_taken_and_claims_go_file_by_file(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    files = fio_files(tmp_path / "fio", 4)
    identities = [_identity(f) for f in files]
    keys = [k for i in identities for k in writer.identity_keys(*i)]
    other = ducklake.catalog_session(lake_target)
    loader = writer.RawWriter(lake_target)
    try:
        held = writer.identity_keys(*identities[2])[0]
        other.execute("select pg_advisory_lock(%s)", [ducklake.lock_key(held)])
        loader.claim_ahead(identities)
        # every key the loader took before the refusal was given back
        assert _free(other, [k for k in keys if k != held])
        other.execute("select pg_advisory_unlock_all()")
        # and from now on it claims file by file: asked again, it takes nothing ahead
        loader.claim_ahead(identities)
        assert _free(other, keys)
        other.execute("select pg_advisory_unlock_all()")
        loader.claim(*identities[0])
        assert not _free(other, writer.identity_keys(*identities[0]))
    finally:
        loader.close()
        other.close()


def test_a_file_found_to_have_no_format_hands_back_its_keys_at_once(
    lake_target: LakeWarehouse, tmp_path: Path, monkeypatch
) -> None:
    """Keys taken ahead for a file whose parse finds no format are given back when it is
    skipped, not held until the batch's commit (another loader of the folder would wait)."""
    files = fio_files(tmp_path / "mixed", 3)
    notes = [tmp_path / "mixed" / f"notes-{n}.txt" for n in range(3)]
    for n, path in enumerate(notes):
        path.write_text(f"run {n}: nothing any parser knows\n", encoding="utf-8")
    other = ducklake.catalog_session(lake_target)
    freed: list[bool] = []
    real_unclaim = writer.RawWriter.unclaim_ahead

    def unclaim_and_look(self, path, sha256, case):
        real_unclaim(self, path, sha256, case)
        keys = writer.identity_keys(path, sha256, case)
        freed.append(_free(other, keys))  # free now, while the batch is still staged
        other.execute("select pg_advisory_unlock_all()")

    monkeypatch.setattr(writer.RawWriter, "unclaim_ahead", unclaim_and_look)
    try:
        walk = Walk([tmp_path / "mixed"])
        summary = load_items(
            lake_target, walk, cli_labels={}, known_paths=walk.known_paths,
            parse_pool=ParsePool(0),
        )  # fmt: skip
    finally:
        other.close()
    assert summary.exit_code == 0
    with read(lake_target) as con:
        assert paths_stored(con) == sorted(map(str, files))
    assert freed == [True] * len(notes)


def test_unclaim_ahead_gives_back_only_a_file_taken_ahead(
    lake_target: LakeWarehouse, tmp_path: Path
) -> None:
    identities = [_identity(f) for f in fio_files(tmp_path / "fio", 3)]
    other = ducklake.catalog_session(lake_target)
    loader = writer.RawWriter(lake_target)
    try:
        loader.claim_ahead(identities[:2])
        loader.unclaim_ahead(*identities[1])
        assert _free(other, writer.identity_keys(*identities[1]))
        assert not _free(other, writer.identity_keys(*identities[0]))
        other.execute("select pg_advisory_unlock_all()")
        loader.claim(*identities[2])
        loader.unclaim_ahead(*identities[2])  # claimed, not taken ahead: still held
        assert not _free(other, writer.identity_keys(*identities[2]))
    finally:
        loader.close()
        other.close()
