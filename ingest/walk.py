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


def is_archive_name(name: str) -> bool:
    lower = name.lower()
    return lower.endswith((".tar", ".tar.gz", ".tgz", ".zip", ".gz"))


def _read_bounded(stream: io.BufferedIOBase, limit: int) -> bytes:
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _TooLarge
    return data


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


def _expand_tar(logical: str, stream: BinaryIO, depth: int) -> Iterator[Member | Refused]:
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
            if info.size > MAX_FILE_BYTES:
                yield _too_large(where, info.size)
                continue
            extracted = archive.extractfile(info)
            data = extracted.read() if extracted else b""
            yield from _expand_bytes(where, data, depth)


def _expand_zip(logical: str, stream: BinaryIO, depth: int) -> Iterator[Member | Refused]:
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
            if info.file_size > MAX_FILE_BYTES:
                yield _too_large(where, info.file_size)
                continue
            with archive.open(info) as member:
                try:
                    content = _read_bounded(member, MAX_FILE_BYTES)
                except _TooLarge:
                    yield _too_large(where, info.file_size)
                    continue
            yield from _expand_bytes(where, content, depth)


def _expand_bytes(logical: str, data: bytes, depth: int) -> Iterator[Member | Refused]:
    """A member already in memory: a plain file, or an archive to open."""
    if not is_archive_name(logical) or depth >= MAX_ARCHIVE_DEPTH:
        if depth >= MAX_ARCHIVE_DEPTH and is_archive_name(logical):
            yield Refused(
                logical, f"archive nested deeper than {MAX_ARCHIVE_DEPTH} levels (refused)"
            )
            return
        yield Member(logical, len(data), lambda data=data: data)
        return
    yield from _expand_archive(logical, io.BytesIO(data), depth + 1)


def _expand_archive(logical: str, stream: BinaryIO, depth: int) -> Iterator[Member | Refused]:
    """The members of the archive readable from `stream` (seekable)."""
    lower = logical.lower()
    try:
        if lower.endswith(".zip"):
            yield from _expand_zip(logical, stream, depth)
        elif lower.endswith((".tar", ".tar.gz", ".tgz")):
            yield from _expand_tar(logical, stream, depth)
        else:  # a single gzip-compressed file, e.g. observer.json.gz
            inner = posixpath.basename(logical)[: -len(".gz")]
            where = f"{logical}{ARCHIVE_SEP}{inner}"
            with gzip.GzipFile(fileobj=stream) as unpacked:
                try:
                    content = _read_bounded(unpacked, MAX_FILE_BYTES)
                except _TooLarge:
                    yield Refused(where, f"decompresses to over {MAX_FILE_BYTES:,} bytes (refused)")
                    return
            yield from _expand_bytes(where, content, depth)
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
            yield from _expand_archive(logical, stream, 1)
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
