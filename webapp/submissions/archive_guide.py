"""What a results archive must hold and what the server checks, for the upload page.

Every item is read from the library that enforces it (``ioscore.results``: the loader's run
markers, the job-file rules, the archive-safety limits, the rule list) or from the service's
settings, so the page cannot promise something the checks do not do.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from ioscore.results import (
    ARCHIVE_SUFFIXES,
    JOB_OUTPUT_PREFIXES,
    JOB_OUTPUT_SUFFIXES,
    JOB_SCRIPT_SUFFIXES,
    MIN_WRITE_SECONDS,
    MIN_WRITE_SECONDS_SCC,
    RULES,
    RUN_MARKERS,
)


@dataclass(frozen=True)
class GuideItem:
    title: str
    detail: str


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB"


def must_hold() -> list[GuideItem]:
    markers = " or ".join(RUN_MARKERS)
    return [
        GuideItem(
            "A run directory",
            f"a directory holding {markers} (result.json is read when both exist); an "
            "io500 C-app run also keeps result.txt and its config*.ini next to it",
        ),
        GuideItem(
            "The job or launch script",
            "a non-empty file ending in " + ", ".join(JOB_SCRIPT_SUFFIXES),
        ),
        GuideItem(
            "The job's output (stdout/stderr)",
            "a non-empty file ending in "
            + ", ".join(JOB_OUTPUT_SUFFIXES)
            + " or named "
            + ", ".join(f"{p}…" for p in JOB_OUTPUT_PREFIXES),
        ),
        GuideItem(
            "Custom code, if any",
            "the source of a custom find tool is mandatory when one was used",
        ),
    ]


def server_checks() -> list[GuideItem]:
    kinds = ", ".join(ARCHIVE_SUFFIXES)
    return [
        GuideItem(
            "Archive safety, before anything is unpacked",
            f"{kinds}; at most {_mib(settings.IOSCORE_UPLOAD_MAX_BYTES)} uploaded, "
            f"{settings.IOSCORE_ARCHIVE_MAX_FILES:,} members and "
            f"{_mib(settings.IOSCORE_ARCHIVE_MAX_BYTES)} unpacked "
            f"(compression ratio at most {settings.IOSCORE_ARCHIVE_MAX_RATIO:g}); no links, "
            "devices, absolute paths or '..'; nested archives are refused",
        ),
        GuideItem(
            "Benchmark rules",
            f"write and create phases run at least {MIN_WRITE_SECONDS:g} s "
            f"({MIN_WRITE_SECONDS_SCC:g} s for SCC runs); the checks applied: "
            + ", ".join(rule_names()),
        ),
        GuideItem(
            "Metadata",
            "the system description against the ioscore-system/1 schema and the "
            "questionnaire's answers; both are checked on this page before upload",
        ),
    ]


def rule_names() -> list[str]:
    return [rule.__name__.removeprefix("rule_").replace("_", " ") for rule in RULES]
