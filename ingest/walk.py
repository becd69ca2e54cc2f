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

from ingest.labels import is_label_file

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
    # Label files first: a run.yaml stored after the outputs it describes must still label
    # them (the loader reads labels as they arrive). False sorts before True.
    name = info.name if isinstance(info, tarfile.TarInfo) else info.filename
    return not is_label_file(name)


def _too_large(path: str, size: int) -> Refused:
    return Refused(
        path,
        f"file is {size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit "
        "(set PERF_MAX_FILE_BYTES to raise it)",
    )


def _member_path(
    logical: str, raw_name: str, kind: str, size: int, budget: _Budget
) -> str | Refused:
    """The logical path of an archive member worth reading, or why it is refused.

    `kind` is "file", "link" or "other" (devices, FIFOs); the declared `size` is checked
    against the budget before a byte is inflated."""
    name = _safe_member_name(raw_name)
    if name is None:
        return Refused(
            f"{logical}{ARCHIVE_SEP}{raw_name}", "archive member path leaves the archive (refused)"
        )
    where = f"{logical}{ARCHIVE_SEP}{name}"
    if kind == "link":
        return Refused(where, "archive member is a link (refused)")
    if kind != "file":
        return Refused(where, "archive member is not a regular file (refused)")
    if size > budget.limit():
        return budget.refusal(where, size)
    return where


def _read_member(
    where: str,
    stream: io.BufferedIOBase,
    limit: int,
    compressed_pos: Callable[[], int],
    too_large: Refused,
) -> bytes | Refused:
    """The inflated bytes of one member, else `too_large` or a bomb's refusal."""
    try:
        return _read_bounded(stream, limit, compressed_pos)
    except _TooLarge:
        return too_large
    except _Bomb:
        return _bomb(where)


def _expand_read(
    where: str, read: bytes | Refused, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """What a member read by `_read_member` holds, charged to the archive's budget."""
    if isinstance(read, Refused):
        yield read
        return
    budget.remaining -= len(read)
    yield from _expand_bytes(where, read, depth, budget)


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issym() or info.islnk():
        return "link"
    return "file" if info.isfile() else "other"


def _expand_tar(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with tarfile.open(fileobj=stream, mode="r:*") as archive:
        for info in sorted(archive.getmembers(), key=_labels_first):
            if info.isdir():
                continue
            where = _member_path(logical, info.name, _tar_kind(info), info.size, budget)
            if isinstance(where, Refused):
                yield where
                continue
            extracted = archive.extractfile(info)
            start = stream.tell()
            # A .tar.gz inflates as it goes: watch the compressed position. (A tar member
            # never reads past its checked size, so too_large cannot happen here.)
            read = (
                _read_member(
                    where,
                    extracted,
                    info.size,
                    lambda s=start: stream.tell() - s,
                    budget.refusal(where, info.size + 1),
                )
                if extracted
                else b""
            )
            yield from _expand_read(where, read, depth, budget)


def _expand_zip(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with zipfile.ZipFile(stream) as archive:
        for info in sorted(archive.infolist(), key=_labels_first):
            if info.is_dir():
                continue
            kind = "link" if stat.S_ISLNK(info.external_attr >> 16) else "file"
            where = _member_path(logical, info.filename, kind, info.file_size, budget)
            if isinstance(where, Refused):
                yield where
                continue
            limit = budget.limit()
            with archive.open(info) as member:  # the declared sizes may lie: read no more
                read = _read_member(
                    where,
                    member,
                    limit,
                    lambda i=info, m=member: i.compress_size - m._compress_left,
                    budget.refusal(where, limit + 1),
                )
            yield from _expand_read(where, read, depth, budget)


def _expand_gzip(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """A single gzip-compressed file, e.g. observer.json.gz."""
    inner = posixpath.basename(logical)[: -len(".gz")]
    where = f"{logical}{ARCHIVE_SEP}{inner}"
    limit = budget.limit()
    with gzip.GzipFile(fileobj=stream) as unpacked:
        start = stream.tell()
        read = _read_member(
            where,
            unpacked,
            limit,
            lambda: stream.tell() - start,
            Refused(where, f"decompresses to over {limit:,} bytes (refused)"),
        )
    yield from _expand_read(where, read, depth, budget)


def _expand_bytes(
    logical: str, data: bytes, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """A member already in memory: a plain file, or an archive to open."""
    if not is_archive_name(logical):
        yield Member(logical, len(data), lambda data=data: data)
    elif depth >= MAX_ARCHIVE_DEPTH:
        yield Refused(logical, f"archive nested deeper than {MAX_ARCHIVE_DEPTH} levels (refused)")
    else:
        yield from _expand_archive(logical, io.BytesIO(data), depth + 1, budget)


def _expand_archive(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """The members of the archive readable from `stream` (seekable)."""
    lower = logical.lower()
    if lower.endswith(".zip"):
        expand_members = _expand_zip
    elif lower.endswith((".tar", ".tar.gz", ".tgz")):
        expand_members = _expand_tar
    else:
        expand_members = _expand_gzip
    try:
        yield from expand_members(logical, stream, depth, budget)
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
