"""The service's view of the library's archive-safety rules (``ioscore.results.archive``).

The library owns the rules and their default limits, so ``ioscore validate --upload`` accepts
exactly what the service accepts; this module only reads the configured limits and turns a
refusal into a message without the server's file paths.
"""

from __future__ import annotations

from pathlib import Path

from ioscore.results import archive as rules
from ioscore.results.archive import ArchiveLimits, Member

__all__ = ["Limits", "Member", "UnsafeArchive", "archive_kind", "extract", "inspect"]


class UnsafeArchive(Exception):
    """The archive is refused; ``str()`` is the message for the submitter."""


class Limits(ArchiveLimits):
    @classmethod
    def from_settings(cls) -> ArchiveLimits:
        from django.conf import settings

        return ArchiveLimits(
            max_entries=settings.IOSCORE_ARCHIVE_MAX_FILES,
            max_total_bytes=settings.IOSCORE_ARCHIVE_MAX_BYTES,
            max_ratio=settings.IOSCORE_ARCHIVE_MAX_RATIO,
        )


def archive_kind(path: Path) -> str:
    try:
        return rules.archive_kind(path)
    except rules.UnsafeArchive as exc:
        raise UnsafeArchive(exc.reason) from None


def inspect(path: Path, limits: ArchiveLimits) -> list[Member]:
    """Check every member without writing anything; returns the accepted members."""
    return extract(path, None, limits)


def extract(path: Path, destination: Path | None, limits: ArchiveLimits) -> list[Member]:
    """Validate and (when ``destination`` is given) extract into that new directory."""
    try:
        return rules.extract(path, destination, limits)
    except rules.UnsafeArchive as exc:
        raise UnsafeArchive(exc.reason) from None
