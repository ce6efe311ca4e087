"""Which list types a release has (LEADERBOARD-RULES §1: legacy IO500 / 10 Node Challenge up to
SC22).

Each ``ListType`` row names its era; this module says which era a release is in.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from submissions.models import ListEra, ListType, Release

# SC22 (2022-11-15) is the last release with the legacy lists; ISC23 introduced
# Production / Research. A date, not an acronym, so new releases need no code change.
LEGACY_ERA_END = date(2022, 11, 30)


def era_of(release: Release) -> str:
    return ListEra.LEGACY if release.release_date <= LEGACY_ERA_END else ListEra.CURRENT


def list_types_for(release: Release, types: Iterable[ListType]) -> list[ListType]:
    """The types of ``types`` a list of ``release`` exists for, in their order."""
    era = era_of(release)
    chosen = [t for t in types if t.era in (ListEra.ANY, era)]
    return sorted(chosen, key=lambda t: (t.order, t.slug))
