"""Expand the PATH arguments of `ingest load` into the files to parse.

A PATH is a file, a folder (walked recursively, links not followed) or an
archive (`.tar`, `.tar.gz`, `.tgz`, `.zip`, `.gz`), possibly holding further
archives, as HCIBench and vSAN Observer hand them out. Each file becomes a
`Member` with a logical path: the absolute path on disk, or for an archive
member `<archive>!/<member>`.

Archives are hostile input until proven otherwise: members whose names climb
out of the archive (`../`, absolute paths), links and device files are refused,
and decompression is bounded so a small bomb cannot fill memory.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ingest.labels import LABEL_FILE_NAMES

# A single file is parsed in memory; beyond this it is refused, not loaded half.
MAX_FILE_BYTES = int(os.environ.get("PERF_MAX_FILE_BYTES", 4 * 1024**3))
# Archives nest (an Observer bundle inside an HCIBench case inside a tarball),
# but not without end.
MAX_ARCHIVE_DEPTH = 4
# Everything one archive expands to, nested archives included: members are held in memory
# until loaded, so a decompression bomb (a few MB of gzip that inflate to 100 GB of zeros
# in many members) must stop here, not at the out-of-memory killer.
MAX_ARCHIVE_BYTES = int(os.environ.get("PERF_MAX_ARCHIVE_BYTES", 8 * 1024**3))

# Tool outputs compress 5-50:1 (esxtop CSVs full of zeros reach ~100:1); gzip's ceiling is
# ~1030:1, which only runs of one byte reach. Past this ratio, and past the first 64 MiB, a
# member is a decompression bomb and is refused before the per-file limit fills memory.
MAX_COMPRESSION_RATIO = int(os.environ.get("PERF_MAX_COMPRESSION_RATIO", 400))
_RATIO_GRACE_BYTES = 64 * 1024**2
_CHUNK = 1024**2

ARCHIVE_SEP = "!/"


@dataclass(frozen=True, slots=True)
class Member:
    """A file to consider for loading."""

    path: str
    size_bytes: int
    read: Callable[[], bytes]


@dataclass(frozen=True, slots=True)
class Refused:
    """A file that must not be loaded, and why (reported as rejected)."""

    path: str
    reason: str


class _TooLarge(Exception):
    pass


class _Bomb(Exception):
    pass


@dataclass(slots=True)
class _Budget:
    """Bytes a top-level archive may still expand to."""

    remaining: int

    def limit(self) -> int:
        return min(MAX_FILE_BYTES, self.remaining)

    def refusal(self, where: str, size: int) -> Refused:
        if size > MAX_FILE_BYTES:
            return _too_large(where, size)
        return Refused(
            where,
            f"archive expands to over {MAX_ARCHIVE_BYTES:,} bytes in total (refused; set "
            "PERF_MAX_ARCHIVE_BYTES to raise it)",
        )


def is_archive_name(name: str) -> bool:
    lower = name.lower()
    return lower.endswith((".tar", ".tar.gz", ".tgz", ".zip", ".gz"))


def _read_bounded(
    stream: io.BufferedIOBase, limit: int, compressed_pos: Callable[[], int] | None = None
) -> bytes:
    """At most `limit` bytes, else _TooLarge; _Bomb when the data inflates too steeply
    (`compressed_pos` tells how many compressed bytes have been consumed so far)."""
    chunks: list[bytes] = []
    size = 0
    while chunk := stream.read(min(_CHUNK, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        if (
            compressed_pos is not None
            and size > _RATIO_GRACE_BYTES
            and size > MAX_COMPRESSION_RATIO * max(compressed_pos(), 1)
        ):
            raise _Bomb
    return b"".join(chunks)


def _bomb(where: str) -> Refused:
    return Refused(
        where,
        f"decompresses over {MAX_COMPRESSION_RATIO}:1, a decompression bomb (refused; set "
        "PERF_MAX_COMPRESSION_RATIO to raise it)",
    )


def _safe_member_name(name: str) -> str | None:
    """The normalised member name, or None when it escapes the archive."""
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    normalised = posixpath.normpath(name)
    if normalised == ".." or normalised.startswith("../"):
        return None
    return normalised


def _labels_first(info: tarfile.TarInfo | zipfile.ZipInfo) -> bool:
    name = info.name if isinstance(info, tarfile.TarInfo) else info.filename
    return posixpath.basename(name) not in LABEL_FILE_NAMES


def _too_large(path: str, size: int) -> Refused:
    return Refused(
        path,
        f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit "
        "(set PERF_MAX_FILE_BYTES to raise it)",
    )


def _expand_tar(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with tarfile.open(fileobj=stream, mode="r:*") as archive:
        # Label files first: a run.yaml stored after the outputs it describes
        # must still label them (the loader reads labels as they arrive).
        for info in sorted(archive.getmembers(), key=_labels_first):
            name = _safe_member_name(info.name)
            where = f"{logical}{ARCHIVE_SEP}{info.name}"
            if info.isdir():
                continue
            if name is None:
                yield Refused(where, "archive member path leaves the archive (refused)")
                continue
            where = f"{logical}{ARCHIVE_SEP}{name}"
            if info.issym() or info.islnk():
                yield Refused(where, "archive member is a link (refused)")
                continue
            if not info.isfile():
                yield Refused(where, "archive member is not a regular file (refused)")
                continue
            if info.size > budget.limit():
                yield budget.refusal(where, info.size)
                continue
            extracted = archive.extractfile(info)
            start = stream.tell()
            try:  # a .tar.gz inflates as it goes: watch the compressed position
                data = (
                    _read_bounded(extracted, info.size, lambda s=start: stream.tell() - s)
                    if extracted
                    else b""
                )
            except _Bomb:
                yield _bomb(where)
                continue
            budget.remaining -= len(data)
            yield from _expand_bytes(where, data, depth, budget)


def _expand_zip(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with zipfile.ZipFile(stream) as archive:
        for info in sorted(archive.infolist(), key=_labels_first):
            if info.is_dir():
                continue
            name = _safe_member_name(info.filename)
            if name is None:
                yield Refused(
                    f"{logical}{ARCHIVE_SEP}{info.filename}",
                    "archive member path leaves the archive (refused)",
                )
                continue
            where = f"{logical}{ARCHIVE_SEP}{name}"
            if stat.S_ISLNK(info.external_attr >> 16):
                yield Refused(where, "archive member is a link (refused)")
                continue
            if info.file_size > budget.limit():
                yield budget.refusal(where, info.file_size)
                continue
            with archive.open(info) as member:
                try:  # the declared sizes may lie: read no more than the limits
                    content = _read_bounded(
                        member,
                        budget.limit(),
                        lambda i=info, m=member: i.compress_size - m._compress_left,
                    )
                except _TooLarge:
                    yield budget.refusal(where, budget.limit() + 1)
                    continue
                except _Bomb:
                    yield _bomb(where)
                    continue
            budget.remaining -= len(content)
            yield from _expand_bytes(where, content, depth, budget)


def _expand_bytes(
    logical: str, data: bytes, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """A member already in memory: a plain file, or an archive to open."""
    if not is_archive_name(logical) or depth >= MAX_ARCHIVE_DEPTH:
        if depth >= MAX_ARCHIVE_DEPTH and is_archive_name(logical):
            yield Refused(
                logical, f"archive nested deeper than {MAX_ARCHIVE_DEPTH} levels (refused)"
            )
            return
        yield Member(logical, len(data), lambda data=data: data)
        return
    yield from _expand_archive(logical, io.BytesIO(data), depth + 1, budget)


def _expand_archive(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """The members of the archive readable from `stream` (seekable)."""
    lower = logical.lower()
    try:
        if lower.endswith(".zip"):
            yield from _expand_zip(logical, stream, depth, budget)
        elif lower.endswith((".tar", ".tar.gz", ".tgz")):
            yield from _expand_tar(logical, stream, depth, budget)
        else:  # a single gzip-compressed file, e.g. observer.json.gz
            inner = posixpath.basename(logical)[: -len(".gz")]
            where = f"{logical}{ARCHIVE_SEP}{inner}"
            with gzip.GzipFile(fileobj=stream) as unpacked:
                start = stream.tell()
                try:
                    content = _read_bounded(unpacked, budget.limit(), lambda: stream.tell() - start)
                except _TooLarge:
                    limit = budget.limit()
                    yield Refused(where, f"decompresses to over {limit:,} bytes (refused)")
                    return
                except _Bomb:
                    yield _bomb(where)
                    return
            budget.remaining -= len(content)
            yield from _expand_bytes(where, content, depth, budget)
    except (tarfile.TarError, zipfile.BadZipFile, gzip.BadGzipFile, EOFError, OSError) as exc:
        yield Refused(logical, f"archive cannot be read: {exc}")


def expand(path: Path) -> Iterator[Member | Refused]:
    """Every file under `path` (itself, its folder tree, its archives)."""
    path = path.absolute()
    if path.is_symlink():
        yield Refused(path.as_posix(), "is a symbolic link (not followed)")
        return
    if path.is_dir():
        for folder, dirs, files in os.walk(path, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                yield from expand_file(Path(folder) / name)
        return
    yield from expand_file(path)


def expand_file(path: Path) -> Iterator[Member | Refused]:
    logical = path.as_posix()
    if path.is_symlink():
        yield Refused(logical, "is a symbolic link (not followed)")
        return
    size = path.stat().st_size
    if is_archive_name(path.name):
        with open(path, "rb") as stream:
            yield from _expand_archive(logical, stream, 1, _Budget(MAX_ARCHIVE_BYTES))
        return
    if size > MAX_FILE_BYTES:
        yield _too_large(logical, size)
        return
    yield Member(logical, size, path.read_bytes)


def folder_chain(logical_path: str) -> list[str]:
    """Logical folders that may hold labels for a file, farthest first.

    For `/a/b/x.tgz!/case/vm1.json`: `/`, `/a`, `/a/b` on disk, then the
    archive's root `/a/b/x.tgz!` and `/a/b/x.tgz!/case`.
    """
    segments = logical_path.split(ARCHIVE_SEP)
    chain: list[str] = []
    disk = Path(segments[0]).parent
    chain.extend(p.as_posix() for p in reversed([disk, *disk.parents]))
    prefix = segments[0]
    for segment in segments[1:]:
        parts = segment.split("/")[:-1]
        chain.append(prefix + "!")
        for i in range(1, len(parts) + 1):
            chain.append(prefix + ARCHIVE_SEP + "/".join(parts[:i]))
        prefix = prefix + ARCHIVE_SEP + segment
    return chain
