"""Safe inspection and extraction of uploaded result archives (.tar.gz/.tgz/.zip).

Every rejection raises ``UnsafeArchive`` with a message a submitter can act on. Limits are
checked while streaming, so a lying header (zip) or a decompression bomb (gzip) is stopped
after at most ``max_bytes`` of output. Extraction only ever creates regular files and
directories below a fresh destination directory, opened with O_EXCL|O_NOFOLLOW.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from ioscore.results.archive import is_macos_metadata

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
_CHUNK = 1 << 16


class UnsafeArchive(Exception):
    """The archive is refused; ``str()`` is the message for the submitter."""


@dataclass(frozen=True)
class Limits:
    max_files: int = 10_000
    max_bytes: int = 2 << 30  # total uncompressed
    max_ratio: float = 200.0  # uncompressed / compressed

    @classmethod
    def from_settings(cls) -> Limits:
        from django.conf import settings

        return cls(
            max_files=settings.IOSCORE_ARCHIVE_MAX_FILES,
            max_bytes=settings.IOSCORE_ARCHIVE_MAX_BYTES,
            max_ratio=settings.IOSCORE_ARCHIVE_MAX_RATIO,
        )


def archive_kind(path: Path) -> str:
    """ "tar.gz" or "zip" by content (the file name is not trusted)."""
    with path.open("rb") as handle:
        head = handle.read(4)
    if head[:2] == b"\x1f\x8b":
        return "tar.gz"
    if head == b"PK\x03\x04" or head == b"PK\x05\x06":
        return "zip"
    raise UnsafeArchive("not a .tar.gz/.tgz or .zip archive (unrecognised file content)")


def ignored(name: str) -> bool:
    """macOS metadata the spec says to ignore (``._*`` files, ``__MACOSX``)."""
    return is_macos_metadata(name)


def _check_name(name: str) -> PurePosixPath:
    if not name or "\x00" in name:
        raise UnsafeArchive(f"{name!r}: empty or NUL in member name")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchive(f"{name}: absolute path not allowed")
    normal = name.replace("\\", "/")
    parts = PurePosixPath(normal).parts
    if ".." in parts:
        raise UnsafeArchive(f"{name}: path traversal ('..') not allowed")
    clean = PurePosixPath(*[p for p in parts if p not in (".", "")]) if parts else None
    if clean is None or not clean.parts:
        raise UnsafeArchive(f"{name!r}: empty member name")
    return clean


def _check_nested_name(name: str) -> None:
    if name.lower().endswith(NESTED_SUFFIXES):
        raise UnsafeArchive(f"{name}: nested archives are not allowed; unpack it first")


@dataclass
class Member:
    name: PurePosixPath
    is_dir: bool
    size: int


class _Budget:
    def __init__(self, limits: Limits, compressed_size: int) -> None:
        self.limits = limits
        self.compressed = max(compressed_size, 1)
        self.files = 0
        self.bytes = 0

    def add_file(self, name: str) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UnsafeArchive(f"too many files (more than {self.limits.max_files})")

    def add_bytes(self, count: int, name: str) -> None:
        self.bytes += count
        if self.bytes > self.limits.max_bytes:
            raise UnsafeArchive(
                f"{name}: archive expands to more than {self.limits.max_bytes} bytes"
            )
        # Small archives compress text very well; judge the ratio only past 1 MiB.
        if self.bytes > (1 << 20) and self.bytes / self.compressed > self.limits.max_ratio:
            raise UnsafeArchive(
                f"{name}: compression ratio above {self.limits.max_ratio:g} "
                "(possible decompression bomb)"
            )


def _tar_members(
    archive: tarfile.TarFile, budget: _Budget
) -> Iterator[tuple[Member, tarfile.TarInfo]]:
    for info in archive:  # streaming: a bomb is stopped by the budget before it is read whole
        if ignored(info.name):
            continue
        name = _check_name(info.name)
        if info.issym() or info.islnk():
            raise UnsafeArchive(f"{info.name}: links are not allowed (symlink or hardlink)")
        if info.ischr() or info.isblk() or info.isfifo() or info.isdev():
            raise UnsafeArchive(f"{info.name}: device or FIFO files are not allowed")
        if info.isdir():
            yield Member(name, True, 0), info
            continue
        if not info.isfile():
            raise UnsafeArchive(f"{info.name}: only regular files and directories are allowed")
        _check_nested_name(info.name)
        budget.add_file(info.name)
        budget.add_bytes(info.size, info.name)
        yield Member(name, False, info.size), info


def _zip_members(
    archive: zipfile.ZipFile, budget: _Budget
) -> Iterator[tuple[Member, zipfile.ZipInfo]]:
    for info in archive.infolist():
        if ignored(info.filename):
            continue
        name = _check_name(info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UnsafeArchive(f"{info.filename}: links are not allowed (symlink)")
        if mode and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode)):
            raise UnsafeArchive(f"{info.filename}: device or FIFO files are not allowed")
        if info.flag_bits & 0x1:
            raise UnsafeArchive(f"{info.filename}: encrypted archive members are not allowed")
        if info.is_dir():
            yield Member(name, True, 0), info
            continue
        _check_nested_name(info.filename)
        budget.add_file(info.filename)
        budget.add_bytes(info.file_size, info.filename)
        yield Member(name, False, info.file_size), info


def _check_gzip(path: Path, limits: Limits) -> None:
    """Decompress once without keeping output: real size, ratio and an intact end.

    tarfile's stream mode silently stops at a truncated gzip stream, and the tar headers'
    sizes are only claims, so the gzip layer is measured on its own first.
    """
    decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
    compressed = max(path.stat().st_size, 1)
    total = 0
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            data = chunk
            while data and not decompressor.eof:
                total += len(decompressor.decompress(data, _CHUNK))
                data = decompressor.unconsumed_tail
                if total > limits.max_bytes:
                    raise UnsafeArchive(f"archive expands to more than {limits.max_bytes} bytes")
                if total > (1 << 20) and total / compressed > limits.max_ratio:
                    raise UnsafeArchive(
                        f"compression ratio above {limits.max_ratio:g} "
                        "(possible decompression bomb)"
                    )
            if decompressor.eof:
                break
    if not decompressor.eof:
        raise UnsafeArchive("archive is corrupt or truncated (gzip stream ends early)")


def _open(path: Path) -> tuple[str, tarfile.TarFile | zipfile.ZipFile]:
    kind = archive_kind(path)
    try:
        if kind == "zip":
            return kind, zipfile.ZipFile(path)
        return kind, tarfile.open(path, mode="r|gz")
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError) as exc:
        raise UnsafeArchive(f"archive cannot be opened: {exc}") from None


def inspect(path: Path, limits: Limits) -> list[Member]:
    """Check every member without writing anything; returns the accepted members."""
    return extract(path, None, limits)


def extract(path: Path, destination: Path | None, limits: Limits) -> list[Member]:
    """Validate and (when ``destination`` is given) extract into that new, empty directory."""
    path = Path(path)
    budget = _Budget(limits, path.stat().st_size)
    if archive_kind(path) == "tar.gz":
        try:
            _check_gzip(path, limits)
        except zlib.error as exc:
            raise UnsafeArchive(f"archive is corrupt or truncated: {exc}") from None
    kind, archive = _open(path)
    members: list[Member] = []
    if destination is not None:
        destination.mkdir(mode=0o700, parents=False, exist_ok=False)
    try:
        with archive:
            iterator = (
                _zip_members(archive, budget)  # type: ignore[arg-type]
                if kind == "zip"
                else _tar_members(archive, budget)  # type: ignore[arg-type]
            )
            for member, info in iterator:
                members.append(member)
                if member.is_dir:
                    if destination is not None:
                        _safe_dir(destination, member.name)
                    continue
                stream = _member_stream(archive, info)
                if stream is None:
                    raise UnsafeArchive(f"{member.name}: unreadable member")
                with stream:
                    _copy_member(stream, destination, member, budget)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as exc:
        if isinstance(exc, FileExistsError):
            raise UnsafeArchive(f"{exc.filename}: listed twice in the archive") from None
        raise UnsafeArchive(f"archive is corrupt or truncated: {exc}") from None
    if not any(not m.is_dir for m in members):
        raise UnsafeArchive("archive contains no files")
    return members


def _member_stream(
    archive: tarfile.TarFile | zipfile.ZipFile, info: tarfile.TarInfo | zipfile.ZipInfo
) -> IO[bytes] | None:
    if isinstance(archive, zipfile.ZipFile) and isinstance(info, zipfile.ZipInfo):
        return archive.open(info)
    if isinstance(archive, tarfile.TarFile) and isinstance(info, tarfile.TarInfo):
        return archive.extractfile(info)
    return None


def _safe_dir(root: Path, relative: PurePosixPath) -> Path:
    current = root
    for part in relative.parts:
        current = current / part
        try:
            current.mkdir(mode=0o700)
        except FileExistsError:
            if current.is_symlink() or not current.is_dir():
                raise UnsafeArchive(f"{relative}: conflicts with a file of the same name") from None
    return current


def _copy_member(
    stream: IO[bytes], destination: Path | None, member: Member, budget: _Budget
) -> None:
    # Count real output bytes (headers may lie) on top of the declared sizes.
    declared = member.size
    written = 0
    handle = None
    if destination is not None:
        parent = destination
        if member.name.parent.parts:
            parent = _safe_dir(destination, member.name.parent)
        target = parent / member.name.name
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        handle = os.fdopen(os.open(target, flags, 0o600), "wb")
    try:
        first = True
        while chunk := stream.read(_CHUNK):
            if first and chunk.startswith(NESTED_MAGIC):
                raise UnsafeArchive(
                    f"{member.name}: nested archives are not allowed; unpack it first"
                )
            first = False
            written += len(chunk)
            if written > declared:
                budget.add_bytes(len(chunk), str(member.name))
            if handle is not None:
                handle.write(chunk)
    finally:
        if handle is not None:
            handle.close()
    if written < declared:
        # A truncated gzip stream ends the member early instead of raising.
        raise UnsafeArchive(
            f"{member.name}: archive is corrupt or truncated ({written} of {declared} bytes)"
        )
