"""Hostile archives: members that climb out (`../`, absolute paths), links, decompression
bombs and nesting beyond the depth limit are refused with a reason, one decompression budget
serves the whole load, and memory stays bounded by one member (measured in a subprocess with
the kernel's peak RSS)."""

from __future__ import annotations

import gzip
import io
import json
import stat
import subprocess
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest

from benchmarks.bench_load_memory import load_peak_rss_mb
from tests.conftest import REPO, SAMPLES
from tests.reliability.conftest import run_ingest

GOOD = (SAMPLES / "fio" / "fioplot__fio-3.14__randread-1-1.json").read_bytes()
MB = 1024 * 1024


def _expand(*paths: Path, **limits: int) -> dict:
    """Walk `paths` in a subprocess (one load's walk) under the given PERF_MAX_* limits."""
    env_limits = {f"PERF_MAX_{k.upper()}": str(v) for k, v in limits.items()}
    done = subprocess.run(
        [sys.executable, "-m", "tests.reliability._expand", *map(str, paths)],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", **env_limits},
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return json.loads(done.stdout)


def _reasons(result: dict) -> dict[str, str]:
    return {path.rsplit("!/", 1)[-1]: reason for path, reason in result["refused"]}


def _tar_member(name: str, data: bytes = b"", **attrs) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in attrs.items():
        setattr(info, key, value)
    return info, io.BytesIO(data)


def _zeros_archive(target: Path | io.BytesIO, members: int, mode: str = "zip") -> None:
    """An archive of `members` members m00.json, m01.json... of 16 MiB zeros each, compressed
    at the fastest level: mode "zip", "w:gz" (tar.gz) or "w" (plain tar)."""
    zeros = bytes(16 * MB)
    names = [f"m{i:02}.json" for i in range(members)]
    if mode == "zip":
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            for name in names:
                zf.writestr(name, zeros)
        return
    where = {"fileobj": target} if isinstance(target, io.BytesIO) else {"name": target}
    level = {"compresslevel": 1} if mode == "w:gz" else {}
    with tarfile.open(mode=mode, **where, **level) as tar:
        for name in names:
            tar.addfile(*_tar_member(name, zeros))


def test_tar_escapes_and_links_are_refused(tmp_path: Path) -> None:
    archive = tmp_path / "hostile.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.addfile(*_tar_member("case/good.json", GOOD))
        tar.addfile(*_tar_member("../../escape.json", GOOD))
        tar.addfile(*_tar_member("/tmp/absolute.json", GOOD))
        tar.addfile(*_tar_member("case/link.json", type=tarfile.SYMTYPE, linkname="/etc/passwd"))
        tar.addfile(*_tar_member("case/hard.json", type=tarfile.LNKTYPE, linkname="case/good.json"))
        tar.addfile(*_tar_member("case/fifo", type=tarfile.FIFOTYPE))
    result = _expand(archive)
    assert [p.rsplit("!/", 1)[-1] for p, _ in result["members"]] == ["case/good.json"]
    assert _reasons(result) == {
        "../../escape.json": "archive member path leaves the archive (refused)",
        "/tmp/absolute.json": "archive member path leaves the archive (refused)",
        "case/link.json": "archive member is a link (refused)",
        "case/hard.json": "archive member is a link (refused)",
        "case/fifo": "archive member is not a regular file (refused)",
    }
    # AND through the command: the good file loads, the rest are rejected with reasons
    done = run_ingest(tmp_path / "w.duckdb", "load", str(archive), "--quiet")
    assert done.returncode == 1
    assert "1 loaded" in done.stdout and "5 rejected" in done.stdout
    assert not (tmp_path.parent / "escape.json").exists()


def test_zip_escapes_and_links_are_refused(tmp_path: Path) -> None:
    archive = tmp_path / "hostile.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("good.json", GOOD)
        zf.writestr("../escape.json", GOOD)
        zf.writestr("/abs.json", GOOD)
        zf.writestr("C:/windows.json", GOOD)
        link = zipfile.ZipInfo("link.json")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
    result = _expand(archive)
    assert [p.rsplit("!/", 1)[-1] for p, _ in result["members"]] == ["good.json"]
    assert set(_reasons(result)) == {"../escape.json", "/abs.json", "C:/windows.json", "link.json"}


def _gzip_of_zeros(path: Path, total_bytes: int) -> None:
    """A gzip file inflating to `total_bytes` of zeros, written without ever holding them:
    one 64 MiB member compressed once (~64 KiB) and repeated (gzip allows many members)."""
    block = 64 * MB
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = compressor.compress(bytes(block)) + compressor.flush()
    with open(path, "wb") as out:
        for _ in range(total_bytes // block):
            out.write(member)


BOMB_REASON = (
    "decompresses over 400:1, a decompression bomb (refused; set "
    "PERF_MAX_COMPRESSION_RATIO to raise it)"
)


@pytest.fixture(scope="module")
def gzip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 10 GiB of zeros in a ~10 MB .gz
    bomb = tmp_path_factory.mktemp("bomb") / "observer.json.gz"
    _gzip_of_zeros(bomb, 10 * 1024 * MB)
    assert bomb.stat().st_size < 20 * MB
    return bomb


@pytest.mark.slow
def test_gzip_bomb_is_refused_early_by_its_ratio(gzip_bomb: Path) -> None:
    # WHEN expanded with the default limits
    result = _expand(gzip_bomb)
    # THEN it is refused after the first 64 MiB, not after filling memory to the 4 GiB limit
    assert result["members"] == []
    assert _reasons(result) == {"observer.json": BOMB_REASON}
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 64 * 3 + 100


@pytest.mark.slow
def test_gzip_bomb_under_the_ratio_stops_at_the_file_limit(gzip_bomb: Path) -> None:
    # GIVEN the ratio check lifted, WHEN expanded with a 256 MiB per-file limit
    result = _expand(gzip_bomb, file_bytes=256 * MB, compression_ratio=100_000)
    # THEN the size limit refuses it, having held about the limit in memory
    assert _reasons(result) == {"observer.json": "decompresses to over 268,435,456 bytes (refused)"}
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 256 + 200


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["zip", "tgz"])
def test_single_member_bomb_in_zip_or_tgz_is_refused(tmp_path: Path, suffix: str) -> None:
    # GIVEN one member of 512 MiB zeros, deflated at full strength (~0.5 MB), as bombs are
    bomb = tmp_path / f"bomb.{suffix}"
    zeros = bytes(512 * MB)
    if suffix == "zip":
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            zf.writestr("big.json", zeros)
    else:
        with tarfile.open(bomb, "w:gz", compresslevel=9) as tar:
            tar.addfile(*_tar_member("big.json", zeros))
    del zeros
    result = _expand(bomb)
    assert _reasons(result) == {"big.json": BOMB_REASON}
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 300


def test_tar_bomb_of_many_members_stops_at_the_archive_budget(tmp_path: Path) -> None:
    # GIVEN a tar.gz of 24 members of 16 MiB zeros each (384 MiB inflated, ~400 KB on disk)
    bomb = tmp_path / "bomb.tgz"
    _zeros_archive(bomb, 24, "w:gz")
    # WHEN the archive may expand to 128 MiB in total
    result = _expand(bomb, archive_bytes=128 * MB)
    # THEN the first 8 members fit, the other 16 are refused, and memory stayed bounded
    assert len(result["members"]) == 8
    reasons = set(_reasons(result).values())
    assert len(result["refused"]) == 16
    assert reasons == {
        "the archives of this load expand to over 134,217,728 bytes in total (refused; set "
        "PERF_MAX_ARCHIVE_BYTES to raise it)"
    }
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 128 + 150


def test_zip_bomb_stops_at_the_archive_budget(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    _zeros_archive(bomb, 12)
    assert bomb.stat().st_size < 2 * MB
    result = _expand(bomb, archive_bytes=64 * MB, file_bytes=32 * MB)
    assert len(result["members"]) == 4
    assert len(result["refused"]) == 8
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 64 + 150


def test_archives_nested_beyond_the_depth_limit_are_refused(tmp_path: Path) -> None:
    data, name = GOOD, "good.json"
    for level in range(6):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as zf:
            zf.writestr(name, data)
        data, name = buffer.getvalue(), f"level{level}.zip"
    (tmp_path / name).write_bytes(data)
    result = _expand(tmp_path / name)
    assert result["members"] == []
    [(path, reason)] = result["refused"]
    assert reason == "archive nested deeper than 4 levels (refused)"
    assert path.count("!/") == 4


def test_gzip_that_is_not_gzip_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "fake.json.gz"
    fake.write_bytes(gzip.compress(GOOD)[:40])
    result = _expand(fake)
    assert result["members"] == []
    [(_, reason)] = result["refused"]
    assert reason.startswith("archive cannot be read")


def test_one_budget_for_every_archive_of_the_load(tmp_path: Path) -> None:
    # GIVEN two tar.gz of 6 members of 16 MiB zeros each (2 x 96 MiB inflated)
    for name in ("a.tgz", "b.tgz"):
        _zeros_archive(tmp_path / name, 6, "w:gz")
    # WHEN both are walked in one load that may expand 128 MiB in total
    result = _expand(tmp_path / "a.tgz", tmp_path / "b.tgz", archive_bytes=128 * MB)
    # THEN the budget is shared: 8 members fit (6 of a, 2 of b), not 6 + 6
    assert ["/".join(p.split("/")[-2:]) for p, _ in result["members"]] == [
        *(f"a.tgz!/m{i:02}.json" for i in range(6)),
        "b.tgz!/m00.json",
        "b.tgz!/m01.json",
    ]
    assert ["/".join(p.split("/")[-2:]) for p, _ in result["refused"]] == [
        f"b.tgz!/m{i:02}.json" for i in range(2, 6)
    ]


def test_nested_archive_is_spooled_not_held(tmp_path: Path) -> None:
    # GIVEN a zip holding a tar holding 12 members of 16 MiB zeros (192 MiB)
    inner = io.BytesIO()
    _zeros_archive(inner, 12, "w")
    outer = tmp_path / "outer.zip"
    with zipfile.ZipFile(outer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("inner.tar", inner.getvalue())
    del inner
    # WHEN walked, each member read once and dropped, as the loader does
    result = _expand(outer)
    # THEN every member is read, holding about one member, not the 192 MiB inner archive
    assert [size for _, size in result["members"]] == [16 * MB] * 12
    assert result["rss_peak_mb"] - result["rss_before_mb"] < 4 * 16 + 40


def test_load_memory_is_bounded_by_one_member_not_the_archive(tmp_path: Path) -> None:
    # GIVEN a zip of 24 members of 16 MiB each (384 MiB inflated, each under the ratio check's
    # 64 MiB grace: the 40 x 60 MiB zip, scaled down)
    archive = tmp_path / "many.zip"
    _zeros_archive(archive, 24)
    empty = tmp_path / "empty"
    empty.mkdir()
    # WHEN loaded by the command, against the peak RSS of an empty load
    baseline, _ = load_peak_rss_mb(empty, tmp_path / "empty.duckdb")
    peak, returncode = load_peak_rss_mb(archive, tmp_path / "w.duckdb")
    # THEN every member was read (binary data: skipped with the reason, exit 0), and the load
    # held a few members at a time, far from the 384 MiB that holding them all takes
    assert returncode == 0
    assert peak - baseline < 384 / 2, (baseline, peak)
