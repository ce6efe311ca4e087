"""Which list types a release has (spec §1: legacy IO500 / 10 Node Challenge up to SC22)."""

from __future__ import annotations

from datetime import date

from submissions.models import Release

# SC22 (2022-11-15) is the last release with the legacy lists; ISC23 introduced
# Production / Research. A date, not an acronym, so new releases need no code change.
LEGACY_ERA_END = date(2022, 11, 30)

LEGACY_TYPES = ("historical", "full", "io500", "ten-node-challenge", "scc")
CURRENT_TYPES = (
    "historical",
    "full",
    "production",
    "research",
    "ten-node-production",
    "ten-node-research",
    "scc",
)


def list_types_for(release: Release) -> tuple[str, ...]:
    return LEGACY_TYPES if release.release_date <= LEGACY_ERA_END else CURRENT_TYPES
