"""Safe inspection and extraction of result archives (.tar.gz/.tgz/.tar/.zip).

The one owner of the archive-safety rules (LEADERBOARD-RULES §9.1), shared by the CLI
(``ioscore validate``, ``ioscore upload``) and the service (upload request and validation
worker), so whatever the CLI accepts the service accepts too. Only regular files and
directories; no absolute paths, ``..``, links, devices, nested archives (the suite's
``ranks-<phase>.csv.gz`` rank files are compressed CSVs, allowed) or non-UTF-8 names;
bounded entries (files *and* directories), depth, bytes and expansion ratio, all counted while
streaming, so a lying header or a decompression bomb is stopped after bounded work. ``._*``
and ``__MACOSX`` are ignored. Extraction only creates regular files and directories below the
destination, opened with O_EXCL|O_NOFOLLOW.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from ioscore.results.errors import ResultFormatError

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
NESTED_SUFFIXES = (
    ".tar",
    ".tgz",
    ".tar.gz",
    ".gz",
    ".zip",
    ".bz2",
    ".tbz2",
    ".xz",
    ".txz",
    ".7z",
    ".rar",
    ".zst",
)
# Magic numbers of archive/compressed formats (checked on the first bytes of each member).
NESTED_MAGIC = (
    b"\x1f\x8b",
    b"PK\x03\x04",
    b"BZh",
    b"\xfd7zXZ",
    b"7z\xbc\xaf",
    b"Rar!",
    b"\x28\xb5\x2f\xfd",
)
# The suite's every-rank files (``--rank-detail-full``: ``ranks-<phase>.csv.gz``) are one
# gzip-compressed CSV each, not archives: kept as uploaded, never unpacked here, read only by
# ``parse_rankcsv.suite_rank_file``, which bounds the decompressed bytes.
SUITE_RANK_FILE = re.compile(r"ranks-[A-Za-z0-9-]{1,64}\.csv\.gz")
_CHUNK = 1 << 16
# Small archives compress text very well; the ratio is judged only past this many bytes.
_RATIO_FLOOR = 1 << 20


def _nested(name: PurePosixPath) -> bool:
    """Whether a member's name says it is an archive (the suite's rank files are not)."""
    return name.name.lower().endswith(NESTED_SUFFIXES) and not SUITE_RANK_FILE.fullmatch(name.name)


@dataclass(frozen=True)
class ArchiveLimits:
    max_entries: int = 10_000  # files and directories
    max_total_bytes: int = 2 << 30  # uncompressed
    max_file_bytes: int = 1 << 30
    max_ratio: float = 200.0  # uncompressed / compressed
    max_depth: int = 64  # path components of one member
    max_name_chars: int = 1024  # characters of one member path


class UnsafeArchive(ResultFormatError):
    """The archive is refused; ``reason`` is the message for the submitter."""


@dataclass(frozen=True)
class Member:
    name: PurePosixPath
    is_dir: bool
    size: int


def is_macos_metadata(name: str) -> bool:
    """``._*`` files and anything under ``__MACOSX``: macOS adds them to archives; IO500 ignores
    them."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return any(part == "__MACOSX" or part.startswith("._") for part in parts)


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES)


def shown(name: str) -> str:
    """A member name safe to print and store: lone surrogates (undecodable bytes) escaped."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def archive_kind(path: Path) -> str:
    """ "tar.gz", "tar" or "zip" by content (the file name is not trusted)."""
    with Path(path).open("rb") as handle:
        head = handle.read(512)
    if head[:2] == b"\x1f\x8b":
        return "tar.gz"
    if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if head[257:262] == b"ustar":
        return "tar"
    raise UnsafeArchive(path, "not a .tar.gz/.tgz/.tar or .zip archive (unrecognised content)")


class _Checker:
    """Names, entry count, depth and bytes of one archive, counted as members stream by."""

    def __init__(self, path: Path, limits: ArchiveLimits) -> None:
        self.path, self.limits = path, limits
        self.compressed = max(path.stat().st_size, 1)
        self.entries = 0
        self.bytes = 0
        # Names seen so far (bounded by max_entries): a duplicate or a file where a directory
        # must be is refused while inspecting too, not only when extraction trips over it.
        self.files: set[PurePosixPath] = set()
        self.dirs: set[PurePosixPath] = set()

    def refuse(self, message: str) -> UnsafeArchive:
        return UnsafeArchive(self.path, message)

    def name(self, raw: str) -> PurePosixPath:
        text = shown(raw)
        if text != raw:
            raise self.refuse(f"{text}: member names must be UTF-8")
        if not raw or "\x00" in raw:
            raise self.refuse(f"{text!r}: empty or NUL in member name")
        if len(raw) > self.limits.max_name_chars:
            raise self.refuse(
                f"{text[:80]}...: member path longer than {self.limits.max_name_chars}"
            )
        if raw.startswith(("/", "\\")) or (len(raw) > 1 and raw[1] == ":"):
            raise self.refuse(f"{text}: absolute path not allowed")
        parts = PurePosixPath(raw.replace("\\", "/")).parts
        if ".." in parts:
            raise self.refuse(f"{text}: path traversal ('..') not allowed")
        clean = [p for p in parts if p not in (".", "")]
        if not clean:
            raise self.refuse(f"{text!r}: empty member name")
        if len(clean) > self.limits.max_depth:
            raise self.refuse(f"{text[:80]}...: nested deeper than {self.limits.max_depth} levels")
        return PurePosixPath(*clean)

    def entry(self, name: PurePosixPath, is_dir: bool, size: int) -> Member:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise self.refuse(
                f"too many entries (more than {self.limits.max_entries} files and directories)"
            )
        self.place(name, is_dir)
        if not is_dir:
            if _nested(name):
                raise self.refuse(f"{name}: nested archives are not allowed; unpack it first")
            if size > self.limits.max_file_bytes:
                raise self.refuse(f"{name}: member larger than {self.limits.max_file_bytes} bytes")
            self.grow(size, str(name))
        return Member(name, is_dir, size)

    def place(self, name: PurePosixPath, is_dir: bool) -> None:
        parents = name.parents[:-1]  # without "."
        for parent in parents:
            if parent in self.files:
                raise self.refuse(f"{name}: conflicts with a file of the same name")
        if name in self.files:
            raise self.refuse(f"{name}: listed twice in the archive")
        if is_dir:
            self.dirs.add(name)
        elif name in self.dirs:
            raise self.refuse(f"{name}: conflicts with a directory of the same name")
        else:
            self.files.add(name)
        self.dirs.update(parents)

    def grow(self, count: int, name: str) -> None:
        self.bytes += count
        check_expansion(self.path, self.bytes, self.compressed, self.limits, name)


def check_expansion(
    path: Path, total: int, compressed: int, limits: ArchiveLimits, name: str = ""
) -> None:
    where = f"{name}: " if name else ""
    if total > limits.max_total_bytes:
        raise UnsafeArchive(
            path, f"{where}archive expands to more than {limits.max_total_bytes} bytes"
        )
    if total > _RATIO_FLOOR and total / compressed > limits.max_ratio:
        raise UnsafeArchive(
            path,
            f"{where}compression ratio above {limits.max_ratio:g} (possible decompression bomb)",
        )


def _tar_members(
    archive: tarfile.TarFile, check: _Checker
) -> Iterator[tuple[Member, tarfile.TarInfo]]:
    for info in archive:  # streaming: the checker stops a bomb before it is read whole
        if is_macos_metadata(info.name):
            continue
        name = check.name(info.name)
        text = shown(info.name)
        if info.issym() or info.islnk():
            raise check.refuse(f"{text}: links are not allowed (symlink or hardlink)")
        if info.ischr() or info.isblk() or info.isfifo() or info.isdev():
            raise check.refuse(f"{text}: device or FIFO files are not allowed")
        if not (info.isdir() or info.isfile()):
            raise check.refuse(f"{text}: only regular files and directories are allowed")
        yield check.entry(name, info.isdir(), info.size), info


def _zip_members(
    archive: zipfile.ZipFile, check: _Checker
) -> Iterator[tuple[Member, zipfile.ZipInfo]]:
    for info in archive.infolist():
        if is_macos_metadata(info.filename):
            continue
        name = check.name(info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise check.refuse(f"{info.filename}: links are not allowed (symlink)")
        # Zip writers without Unix attributes leave the type bits 0: a plain file.
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise check.refuse(f"{info.filename}: device or FIFO files are not allowed")
        if info.flag_bits & 0x1:
            raise check.refuse(f"{info.filename}: encrypted archive members are not allowed")
        if not info.is_dir() and info.compress_type not in (
            zipfile.ZIP_STORED,
            zipfile.ZIP_DEFLATED,
        ):
            raise check.refuse(
                f"{info.filename}: unsupported zip compression method {info.compress_type} "
                "(use stored or deflate)"
            )
        yield check.entry(name, info.is_dir(), info.file_size), info


def _decompressed(path: Path, kind: str) -> IO[bytes]:
    if kind == "tar.gz":
        return gzip.GzipFile(path, "rb")  # type: ignore[return-value]
    return path.open("rb")


def _check_tar_stream(path: Path, kind: str, end: int, limits: ArchiveLimits) -> None:
    """The whole (decompressed) stream once more: intact to its end, within the byte and
    ratio limits, and nothing but zero padding after the last member tarfile read.

    tarfile silently stops at a header cut short or damaged after the first member, and
    gzip's own end is only checked when read to it, so both are verified here.
    """
    compressed = max(path.stat().st_size, 1)
    total = 0
    try:
        with _decompressed(path, kind) as stream:
            while chunk := stream.read(_CHUNK):
                start = max(end - total, 0)
                total += len(chunk)
                check_expansion(path, total, compressed, limits)
                if start < len(chunk) and chunk.count(0, start) != len(chunk) - start:
                    raise UnsafeArchive(
                        path, "archive is corrupt or truncated (damaged header after the last file)"
                    )
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise UnsafeArchive(path, f"archive is corrupt or truncated ({exc})") from None
    if total < end:
        raise UnsafeArchive(path, "archive is corrupt or truncated (ends inside a file)")


def inspect(path: Path, limits: ArchiveLimits | None = None) -> list[Member]:
    """Check every member without writing anything; returns the accepted members."""
    return extract(path, None, limits)


def extract(
    path: Path, destination: Path | None, limits: ArchiveLimits | None = None
) -> list[Member]:
    """Validate and (when ``destination`` is given) extract into that new directory."""
    path = Path(path)
    limits = limits or ArchiveLimits()
    check = _Checker(path, limits)
    kind = archive_kind(path)
    members: list[Member] = []
    if destination is not None:
        destination.mkdir(mode=0o700, parents=False, exist_ok=False)
    try:
        if kind == "zip":
            with zipfile.ZipFile(path) as zf:
                for member, zinfo in _zip_members(zf, check):
                    members.append(member)
                    with zf.open(zinfo) as handle:
                        _store(handle, destination, member, check)
        else:
            with tarfile.open(path, mode="r|gz" if kind == "tar.gz" else "r|") as tar:
                for member, tinfo in _tar_members(tar, check):
                    members.append(member)
                    stream = None if member.is_dir else tar.extractfile(tinfo)
                    _store(stream, destination, member, check)
                end = tar.offset
            _check_tar_stream(path, kind, end, limits)
    except UnsafeArchive:
        raise
    except FileExistsError as exc:
        raise check.refuse(f"{shown(str(exc.filename))}: listed twice in the archive") from None
    except NotImplementedError as exc:
        raise check.refuse(f"unsupported archive feature: {exc}") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError) as exc:
        raise check.refuse(f"archive is corrupt or truncated: {shown(str(exc))}") from None
    if not any(not m.is_dir for m in members):
        raise check.refuse("archive contains no files")
    return members


def _safe_dir(root: Path, relative: PurePosixPath) -> Path:
    current = root
    for part in relative.parts:
        current = current / part
        try:
            current.mkdir(mode=0o700)
        except FileExistsError:
            if current.is_symlink() or not current.is_dir():
                raise UnsafeArchive(
                    root, f"{relative}: conflicts with a file of the same name"
                ) from None
    return current


def _nested_content(member: Member, head: bytes) -> bool:
    """Whether a member's first bytes are an archive or compressed file: refused, except
    gzip in a suite rank file (what that one holds)."""
    if not head.startswith(NESTED_MAGIC):
        return False
    return not (SUITE_RANK_FILE.fullmatch(member.name.name) and head.startswith(b"\x1f\x8b"))


def _store(
    stream: IO[bytes] | None, destination: Path | None, member: Member, check: _Checker
) -> None:
    """Read one member (written below ``destination`` when given), counting real bytes:
    headers may lie, so output past the declared size counts against the limits too."""
    if member.is_dir:
        if destination is not None:
            _safe_dir(destination, member.name)
        return
    if stream is None:
        raise check.refuse(f"{member.name}: unreadable member")
    handle = None
    if destination is not None:
        parent = destination
        if member.name.parent.parts:
            parent = _safe_dir(destination, member.name.parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        handle = os.fdopen(os.open(parent / member.name.name, flags, 0o600), "wb")
    written = 0
    try:
        with stream:
            while chunk := stream.read(_CHUNK):
                if written == 0 and _nested_content(member, chunk):
                    raise check.refuse(
                        f"{member.name}: nested archives are not allowed; unpack it first"
                    )
                written += len(chunk)
                if written > member.size:
                    check.grow(len(chunk), str(member.name))
                if handle is not None:
                    handle.write(chunk)
    finally:
        if handle is not None:
            handle.close()
    if written < member.size:
        raise check.refuse(
            f"{member.name}: archive is corrupt or truncated ({written} of {member.size} bytes)"
        )


def extract_archive(archive: Path, dest: Path, limits: ArchiveLimits | None = None) -> list[Member]:
    """Extract into ``dest`` (created here; it must not exist yet); the accepted members."""
    return extract(archive, dest, limits)


def inspect_archive(archive: Path, limits: ArchiveLimits | None = None) -> list[Member]:
    """Check every member without writing anything; the accepted members."""
    return extract(archive, None, limits)


@contextmanager
def unpacked(path: Path, limits: ArchiveLimits | None = None) -> Iterator[Path]:
    """A directory for `path`: itself, or a temporary extraction removed afterwards."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.exists():
        raise ResultFormatError(path, "no such file or directory")
    if not is_archive(path):
        raise ResultFormatError(
            path, f"not a directory or an archive ({', '.join(ARCHIVE_SUFFIXES)})"
        )
    temp = Path(tempfile.mkdtemp(prefix="ioscore-unpack-"))
    try:
        extract(path, temp / "archive", limits)
        yield temp / "archive"
    finally:
        shutil.rmtree(temp, ignore_errors=True)
