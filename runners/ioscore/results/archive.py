"""Safe extraction of result archives (.tar.gz/.tgz/.tar/.zip) into a temporary directory.

Leaderboard spec §9.1: only regular files and directories, no absolute paths, no `..`, no
links or devices, bounded size and file count; `._*` and `__MACOSX` are ignored. Nothing is
written outside the temporary directory we create, and only that directory is removed.
"""

from __future__ import annotations

import shutil
import stat
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ioscore.results.errors import ResultFormatError

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")


@dataclass(frozen=True)
class ArchiveLimits:
    max_files: int = 20_000
    max_total_bytes: int = 2 * 1024**3
    max_file_bytes: int = 1024**3


def is_macos_metadata(name: str) -> bool:
    """``._*`` files and anything under ``__MACOSX``: the spec says to ignore them."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return any(part == "__MACOSX" or part.startswith("._") for part in parts)


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(ARCHIVE_SUFFIXES)


def _safe_member_path(name: str, archive: Path) -> PurePosixPath | None:
    """The relative path to extract to, None to skip (macOS metadata), error if unsafe."""
    clean = name.replace("\\", "/")
    path = PurePosixPath(clean)
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        raise ResultFormatError(archive, f"absolute path in archive: {name!r}")
    if ".." in path.parts:
        raise ResultFormatError(archive, f"'..' in archive path: {name!r}")
    if is_macos_metadata(clean):
        return None
    parts = [p for p in path.parts if p not in ("", ".")]
    return PurePosixPath(*parts) if parts else None


class _Budget:
    def __init__(self, limits: ArchiveLimits, archive: Path) -> None:
        self.limits, self.archive, self.files, self.bytes = limits, archive, 0, 0

    def add(self, name: str, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > self.limits.max_files:
            raise ResultFormatError(self.archive, f"more than {self.limits.max_files} files")
        if size > self.limits.max_file_bytes:
            raise ResultFormatError(self.archive, f"member {name!r} is too large ({size} bytes)")
        if self.bytes > self.limits.max_total_bytes:
            raise ResultFormatError(
                self.archive, f"unpacked size exceeds {self.limits.max_total_bytes} bytes"
            )


def _copy_bounded(source: object, target: Path, declared: int, name: str, archive: Path) -> None:
    # Never trust the declared size alone: stop when the stream runs past it.
    written = 0
    with target.open("wb") as out:
        while True:
            chunk = source.read(1 << 20)  # type: ignore[attr-defined]
            if not chunk:
                break
            written += len(chunk)
            if written > declared:
                raise ResultFormatError(archive, f"member {name!r} is larger than declared")
            out.write(chunk)


def _extract_tar(archive: Path, dest: Path, limits: ArchiveLimits) -> None:
    budget = _Budget(limits, archive)
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                rel = _safe_member_path(member.name, archive)
                if rel is None:
                    continue
                if member.isdir():
                    (dest / rel).mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isreg():
                    raise ResultFormatError(
                        archive, f"not a regular file in archive: {member.name!r}"
                    )
                budget.add(member.name, member.size)
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                handle = tar.extractfile(member)
                if handle is None:
                    raise ResultFormatError(archive, f"cannot read member {member.name!r}")
                with handle:
                    _copy_bounded(handle, target, member.size, member.name, archive)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise ResultFormatError(archive, f"broken or truncated archive: {exc}") from None


def _extract_zip(archive: Path, dest: Path, limits: ArchiveLimits) -> None:
    budget = _Budget(limits, archive)
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                rel = _safe_member_path(info.filename, archive)
                if rel is None:
                    continue
                mode = info.external_attr >> 16
                if info.is_dir():
                    (dest / rel).mkdir(parents=True, exist_ok=True)
                    continue
                # Zip writers without Unix attributes leave the type bits 0: a plain file.
                if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                    raise ResultFormatError(
                        archive, f"not a regular file in archive: {info.filename!r}"
                    )
                budget.add(info.filename, info.file_size)
                target = dest / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as handle:
                    _copy_bounded(handle, target, info.file_size, info.filename, archive)
    except (zipfile.BadZipFile, EOFError, OSError, RuntimeError) as exc:
        raise ResultFormatError(archive, f"broken or truncated archive: {exc}") from None


def extract_archive(archive: Path, dest: Path, limits: ArchiveLimits | None = None) -> None:
    limits = limits or ArchiveLimits()
    name = archive.name.lower()
    if name.endswith(".zip"):
        _extract_zip(archive, dest, limits)
    elif name.endswith((".tar.gz", ".tgz", ".tar")):
        _extract_tar(archive, dest, limits)
    else:
        raise ResultFormatError(archive, f"unknown archive type (expected {ARCHIVE_SUFFIXES})")


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
        extract_archive(path, temp, limits)
        yield temp
    finally:
        shutil.rmtree(temp, ignore_errors=True)
