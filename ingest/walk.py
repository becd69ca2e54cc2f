"""Expand the PATH arguments of `ingest load` into the files to parse, one at a time.

A PATH is a file, a folder (walked recursively, links not followed) or an
archive (`.tar`, `.tar.gz`, `.tgz`, `.zip`, `.gz`), possibly holding further
archives, as HCIBench and vSAN Observer hand them out. Each file becomes a
`Member` with a logical path: the absolute path on disk, or for an archive
member `<archive>!/<member>`. Logical paths are always valid text: a byte of a
file name that is not UTF-8 is written `\\xNN`.

Input is hostile until proven otherwise. Only regular files (and archive members
that are regular files) are read: a FIFO, a device, a socket or a symbolic link is
refused from its `lstat`, before anything opens it, so `/dev/zero` or a FIFO can
neither fill memory nor hang the load. A folder that cannot be listed and a file
that cannot be opened are refusals with the reason, never silently missing. Archive
members whose names climb out of the archive (`../`, absolute paths) and links are
refused, and decompression is bounded: per member (size limit, compression ratio)
and by one budget for the whole load.

Memory is bounded by one file, not by the load: `Walk` lists the folders first
(paths only), then reads each file or member only when the loader asks for the
next one, and a nested archive is spooled to a temporary file rather than held.
So the walk holds at most one file's bytes (twice, while it is joined). The bound
of a whole `ingest load`, for any number of files and members:

    peak RSS <= baseline + about 7 x the largest file (its bytes, text and parse)
                + the writer's batch (at most 500 files, 2M rows or 256 MiB of Arrow data)
                + the files read ahead (`ingest.load`'s window, for the parse workers and
                  the identity keys: at most 64 MiB of bytes past the file being staged,
                  and their tables)
                + DuckDB's cache (capped by DuckDB's own memory_limit)

plus a few KB per file for the summary's outcomes; each parse worker (`ingest.parse_pool`) is
a process of its own. `benchmarks/bench_load_memory.py`
measures it: baseline (an empty load) 117 MiB; 1,000 fio files 301 MiB; one
archive of 100 members (236 MiB inflated) 278 MiB.
"""

from __future__ import annotations

import gzip
import io
import os
import posixpath
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ingest.labels import is_label_file

# A single file is parsed in memory; beyond this it is refused, not loaded half.
MAX_FILE_BYTES = int(os.environ.get("PERF_MAX_FILE_BYTES", 4 * 1024**3))
# Archives nest (an Observer bundle inside an HCIBench case inside a tarball),
# but not without end.
MAX_ARCHIVE_DEPTH = 4
# Everything the archives of one load expand to, nested archives included. Members are read
# one at a time, so this bounds the decompression work of a load (many small bombs, each under
# the ratio check, in one or many archives), not its memory; one budget for the whole load, so
# several archives cannot multiply it.
MAX_ARCHIVE_BYTES = int(os.environ.get("PERF_MAX_ARCHIVE_BYTES", 8 * 1024**3))

# Tool outputs compress 5-50:1 (esxtop CSVs full of zeros reach ~100:1); gzip's ceiling is
# ~1030:1, which only runs of one byte reach. Past this ratio, and past the first 64 MiB, a
# member is a decompression bomb and is refused before the per-file limit fills memory.
MAX_COMPRESSION_RATIO = int(os.environ.get("PERF_MAX_COMPRESSION_RATIO", 400))
_RATIO_GRACE_BYTES = 64 * 1024**2
_CHUNK = 1024**2
# A nested archive is copied here while its members are read; past this it goes to disk.
_SPOOL_BYTES = 16 * 1024**2
# Opening never blocks (a file swapped for a FIFO after its lstat) and never follows a link.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)

ARCHIVE_SEP = "!/"


@dataclass(frozen=True, slots=True)
class Member:
    """A file to consider for loading."""

    path: str
    size_bytes: int
    read: Callable[[], bytes]


@dataclass(frozen=True, slots=True)
class Refused:
    """A file (or folder) that must not be loaded, and why (reported as rejected)."""

    path: str
    reason: str
    location: str = "archive"


@dataclass(frozen=True, slots=True)
class _DiskFile:
    """A regular file found by the listing: its logical path, OS path and lstat."""

    logical: str
    os_path: str
    st: os.stat_result


class _TooLarge(Exception):
    pass


class _Bomb(Exception):
    pass


@dataclass(slots=True)
class _Budget:
    """Bytes the archives of this load may still expand to, and every path met so far."""

    remaining: int
    known_paths: set[str] = field(default_factory=set)

    def limit(self) -> int:
        return min(MAX_FILE_BYTES, self.remaining)

    def refusal(self, where: str, size: int) -> Refused:
        if size > MAX_FILE_BYTES:
            return _too_large(where, size)
        return Refused(
            where,
            f"the archives of this load expand to over {MAX_ARCHIVE_BYTES:,} bytes in total "
            "(refused; set PERF_MAX_ARCHIVE_BYTES to raise it)",
        )


def valid_text(text: str) -> str:
    """`text` as valid UTF-8 text: an undecodable byte of a file name (a surrogate escape
    from the OS) becomes `\\xNN`, so it can be printed and stored."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def is_archive_name(name: str) -> bool:
    lower = name.lower()
    return lower.endswith((".tar", ".tar.gz", ".tgz", ".zip", ".gz"))


def _copy_bounded(
    stream: io.BufferedIOBase,
    write: Callable[[bytes], object],
    limit: int,
    compressed_pos: Callable[[], int] | None = None,
) -> int:
    """Copy at most `limit` bytes to `write` (else _TooLarge); _Bomb when the data inflates
    too steeply (`compressed_pos` tells how many compressed bytes have been consumed)."""
    size = 0
    while chunk := stream.read(min(_CHUNK, limit + 1 - size)):
        size += len(chunk)
        if size > limit:
            raise _TooLarge
        if (
            compressed_pos is not None
            and size > _RATIO_GRACE_BYTES
            and size > MAX_COMPRESSION_RATIO * max(compressed_pos(), 1)
        ):
            raise _Bomb
        write(chunk)
    return size


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
    return valid_text(normalised)


def _labels_first(name: str) -> bool:
    # Label files first: a run.yaml stored after the outputs it describes must still label
    # them (the loader reads labels as they arrive). False sorts before True.
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
            f"{logical}{ARCHIVE_SEP}{valid_text(raw_name)}",
            "archive member path leaves the archive (refused)",
        )
    where = f"{logical}{ARCHIVE_SEP}{name}"
    if kind == "link":
        return Refused(where, "archive member is a link (refused)")
    if kind != "file":
        return Refused(where, "archive member is not a regular file (refused)")
    if size > budget.limit():
        return budget.refusal(where, size)
    return where


def _member_items(
    where: str,
    stream: io.BufferedIOBase,
    compressed_pos: Callable[[], int],
    too_large: Callable[[int], Refused],
    depth: int,
    budget: _Budget,
) -> Iterator[Member | Refused]:
    """One archive member read from `stream`, charged to the budget: a plain file, or the
    members of a nested archive (spooled, so its bytes are not held in memory).
    `too_large(limit)` is the refusal when the member inflates past `limit`."""
    limit = budget.limit()
    copy = _BoundedCopy(where, stream, limit, compressed_pos, too_large(limit))
    if not is_archive_name(where):
        chunks: list[bytes] = []
        size = yield from copy.into(chunks.append)
        if size is None:
            return
        budget.remaining -= size
        data = b"".join(chunks)
        del chunks
        yield Member(where, size, lambda: data)
        return
    if depth >= MAX_ARCHIVE_DEPTH:
        yield Refused(where, f"archive nested deeper than {MAX_ARCHIVE_DEPTH} levels (refused)")
        return
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
        size = yield from copy.into(spool.write)
        if size is None:
            return
        budget.remaining -= size
        spool.seek(0)
        yield from _expand_archive(where, spool, depth + 1, budget)


@dataclass(frozen=True, slots=True)
class _BoundedCopy:
    """One member's bytes to copy under its limits (see `_copy_bounded`)."""

    where: str
    stream: io.BufferedIOBase
    limit: int
    compressed_pos: Callable[[], int]
    too_large: Refused

    def into(self, write: Callable[[bytes], object]) -> Iterator[Refused]:
        """Copy to `write` and return the size; on a limit, yield the refusal, return None."""
        try:
            return _copy_bounded(self.stream, write, self.limit, self.compressed_pos)
        except _TooLarge:
            yield self.too_large
        except _Bomb:
            yield _bomb(self.where)
        return None


def _tar_kind(info: tarfile.TarInfo) -> str:
    if info.issym() or info.islnk():
        return "link"
    return "file" if info.isfile() else "other"


def _expand_tar(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with tarfile.open(fileobj=stream, mode="r:*") as archive:
        infos = sorted(archive.getmembers(), key=lambda i: _labels_first(i.name))
        _know(budget, logical, (i.name for i in infos if not i.isdir()))
        for info in infos:
            if info.isdir():
                continue
            where = _member_path(logical, info.name, _tar_kind(info), info.size, budget)
            if isinstance(where, Refused):
                yield where
                continue
            extracted = archive.extractfile(info) or io.BytesIO()
            start = stream.tell()
            # A .tar.gz inflates as it goes: watch the compressed position.
            yield from _member_items(
                where,
                extracted,
                lambda s=start: stream.tell() - s,
                lambda _limit, w=where, n=info.size: budget.refusal(w, n + 1),
                depth,
                budget,
            )


def _expand_zip(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    with zipfile.ZipFile(stream) as archive:
        infos = sorted(archive.infolist(), key=lambda i: _labels_first(i.filename))
        _know(budget, logical, (i.filename for i in infos if not i.is_dir()))
        for info in infos:
            if info.is_dir():
                continue
            kind = "link" if stat.S_ISLNK(info.external_attr >> 16) else "file"
            where = _member_path(logical, info.filename, kind, info.file_size, budget)
            if isinstance(where, Refused):
                yield where
                continue
            with archive.open(info) as member:  # the declared sizes may lie: read no more
                yield from _member_items(
                    where,
                    member,
                    lambda i=info, m=member: i.compress_size - m._compress_left,
                    lambda limit, w=where: budget.refusal(w, limit + 1),
                    depth,
                    budget,
                )


def _expand_gzip(
    logical: str, stream: BinaryIO, depth: int, budget: _Budget
) -> Iterator[Member | Refused]:
    """A single gzip-compressed file, e.g. observer.json.gz."""
    inner = posixpath.basename(logical)[: -len(".gz")]
    where = f"{logical}{ARCHIVE_SEP}{inner}"
    budget.known_paths.add(where)
    with gzip.GzipFile(fileobj=stream) as unpacked:
        start = stream.tell()
        yield from _member_items(
            where,
            unpacked,
            lambda: stream.tell() - start,
            lambda limit: Refused(where, f"decompresses to over {limit:,} bytes (refused)"),
            depth,
            budget,
        )


def _know(budget: _Budget, logical: str, names: Iterable[str]) -> None:
    """Every member of an archive is known before the first is loaded (HCIBench case folders
    are recognised by their siblings)."""
    for name in names:
        safe = _safe_member_name(name)
        if safe is not None:
            budget.known_paths.add(f"{logical}{ARCHIVE_SEP}{safe}")


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
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        gzip.BadGzipFile,
        EOFError,
        OSError,
        UnicodeError,
    ) as exc:
        yield Refused(logical, f"archive cannot be read: {valid_text(str(exc))}")


def _kind_of(mode: int) -> str | None:
    """What a non-regular file is, from its lstat mode (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    kinds = {
        stat.S_ISLNK: "a symbolic link",
        stat.S_ISFIFO: "a FIFO (named pipe)",
        stat.S_ISCHR: "a character device",
        stat.S_ISBLK: "a block device",
        stat.S_ISSOCK: "a socket",
    }
    return next((name for test, name in kinds.items() if test(mode)), "not a regular file")


def _refused_kind(logical: str, kind: str) -> Refused:
    if kind == "a symbolic link":
        return Refused(logical, "is a symbolic link (not followed)", "file")
    return Refused(logical, f"is {kind}, not a regular file (not read)", "file")


def _os_error(exc: OSError) -> str:
    return valid_text(f"{exc.strerror or exc}" + (f" (errno {exc.errno})" if exc.errno else ""))


def _list_folder(folder: str) -> Iterator[_DiskFile | Refused]:
    """The regular files under `folder` (its own first, label files first, then its
    subfolders in name order), every other entry refused with the reason."""
    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: (_labels_first(e.name), e.name))
    except OSError as exc:
        reason = f"folder cannot be read: {_os_error(exc)}; the files in it are not loaded"
        yield Refused(valid_text(folder), reason, "folder")
        return
    subfolders = []
    for entry in entries:
        logical = valid_text(entry.path)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            yield Refused(logical, f"cannot be read: {_os_error(exc)}", "file")
            continue
        if stat.S_ISDIR(st.st_mode):
            subfolders.append(entry.path)
            continue
        kind = _kind_of(st.st_mode)
        yield _refused_kind(logical, kind) if kind else _DiskFile(logical, entry.path, st)
    for sub in subfolders:
        yield from _list_folder(sub)


def _list_path(path: Path) -> Iterator[_DiskFile | Refused]:
    """What one PATH argument lists: itself, or the files of its folder tree."""
    os_path = os.path.abspath(path)
    logical = valid_text(Path(os_path).as_posix())
    try:
        st = os.lstat(os_path)
    except OSError as exc:
        yield Refused(logical, f"cannot be read: {_os_error(exc)}", "file")
        return
    if stat.S_ISDIR(st.st_mode):
        yield from _list_folder(os_path)
        return
    kind = _kind_of(st.st_mode)
    yield _refused_kind(logical, kind) if kind else _DiskFile(logical, os_path, st)


def _open_regular(disk: _DiskFile) -> BinaryIO:
    """The file opened for reading, if it is still the regular file the listing saw."""
    fd = os.open(disk.os_path, _OPEN_FLAGS)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or now.st_ino != disk.st.st_ino:
            raise OSError(f"{disk.logical} changed since it was listed (no longer that file)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_regular(disk: _DiskFile) -> bytes:
    """The bytes of a listed regular file; OSError when it grew past the limit."""
    with _open_regular(disk) as stream:
        # One read of the size it has now (a read of the limit would allocate the limit),
        # then whatever it grew by, in chunks, up to the limit.
        size = min(os.fstat(stream.fileno()).st_size, MAX_FILE_BYTES)
        chunks = [stream.read(size)]
        try:
            _copy_bounded(stream, chunks.append, MAX_FILE_BYTES - len(chunks[0]))
        except _TooLarge:
            raise OSError(f"grew past the {MAX_FILE_BYTES:,}-byte limit while read") from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class Walk:
    """The files of the PATH arguments, yielded one at a time as the loader asks.

    The folders are listed when the walk is made (paths and lstat only, no content);
    `known_paths` holds every listed path and, from the moment an archive is opened, all of
    its members, so a member's siblings are known before it is loaded. One decompression
    budget serves every archive of the walk.
    """

    def __init__(self, paths: Iterable[Path]) -> None:
        self._listed = [item for path in paths for item in _list_path(path)]
        self._budget = _Budget(MAX_ARCHIVE_BYTES)
        self._budget.known_paths.update(item.logical for item in self._disk_files())
        self.known_paths = self._budget.known_paths

    def _disk_files(self) -> list[_DiskFile]:
        return [item for item in self._listed if isinstance(item, _DiskFile)]

    def __len__(self) -> int:
        """Listed entries on disk (an archive counts once, however many members it has)."""
        return len(self._listed)

    def __iter__(self) -> Iterator[Member | Refused]:
        for item in self._listed:
            if isinstance(item, Refused):
                yield item
                continue
            try:
                yield from self._expand(item)
            except Exception as exc:  # one file's failure is that file's refusal
                reason = f"cannot be read ({type(exc).__name__}: {valid_text(str(exc))})"
                yield Refused(item.logical, reason, "file")

    def _expand(self, disk: _DiskFile) -> Iterator[Member | Refused]:
        size = disk.st.st_size
        if not is_archive_name(disk.logical):
            if size > MAX_FILE_BYTES:
                yield _too_large(disk.logical, size)
            else:
                yield Member(disk.logical, size, lambda: _read_regular(disk))
            return
        try:
            stream = _open_regular(disk)
        except OSError as exc:
            yield Refused(disk.logical, f"archive cannot be read: {_os_error(exc)}", "file")
            return
        with stream:
            yield from _expand_archive(disk.logical, stream, 1, self._budget)


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
