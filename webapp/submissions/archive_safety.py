"""The service's view of the library's archive-safety rules (``ioscore.results``).

The library owns the rules and their default limits, so ``ioscore validate --upload`` accepts
exactly what the service accepts; this module only passes the configured limits (whose
defaults are the library's) and turns a refusal into a message without the server's paths.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings

from ioscore.results import ArchiveLimits, ArchiveMember, extract_archive, inspect_archive
from ioscore.results import UnsafeArchive as _LibraryRefusal
from ioscore.results import archive_kind as _library_kind

Member = ArchiveMember
__all__ = ["Limits", "Member", "UnsafeArchive", "archive_kind", "extract", "inspect"]


class UnsafeArchive(Exception):
    """The archive is refused; ``str()`` is the message for the submitter."""


class Limits(ArchiveLimits):
    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        return ArchiveLimits(
            max_entries=settings.IOSCORE_ARCHIVE_MAX_FILES,
            max_total_bytes=settings.IOSCORE_ARCHIVE_MAX_BYTES,
            max_ratio=settings.IOSCORE_ARCHIVE_MAX_RATIO,
        )


def archive_kind(path: Path) -> str:
    try:
        return _library_kind(path)
    except _LibraryRefusal as exc:
        raise UnsafeArchive(exc.reason) from None


def inspect(path: Path, limits: ArchiveLimits) -> list[Member]:
    """Check every member without writing anything; returns the accepted members."""
    try:
        return inspect_archive(path, limits)
    except _LibraryRefusal as exc:
        raise UnsafeArchive(exc.reason) from None


def extract(path: Path, destination: Path, limits: ArchiveLimits) -> list[Member]:
    """Validate and extract into ``destination`` (a new directory)."""
    try:
        return extract_archive(path, destination, limits)
    except _LibraryRefusal as exc:
        raise UnsafeArchive(exc.reason) from None
