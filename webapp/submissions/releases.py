"""Releases known from history, and conversion to the results library's ``Release``.

Accepted tags and run-date windows (tag date .. submission deadline) come from the results
library's built-in table (``ioscore.results.BUILTIN_RELEASES``); this module only adds the
publication (BoF) dates, which the library does not need. Imported releases are marked
``historic``: their dates are approximate to the week.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from ioscore.results import BUILTIN_RELEASES
from ioscore.results import Release as LibraryRelease

# acronym -> publication date (= embargo end), the BoF at SC / ISC.
PUBLICATION_DATES: dict[str, date] = {
    "SC17": date(2017, 11, 13),
    "ISC18": date(2018, 6, 25),
    "SC18": date(2018, 11, 12),
    # The corrected re-issue of the SC18 lists (metadata-rate re-scoring): the website's
    # re-scored records are dated 2019-01-01 (submission date and valid_from).
    "SC18*": date(2019, 1, 1),
    "ISC19": date(2019, 6, 17),
    "SC19": date(2019, 11, 19),
    "ISC20": date(2020, 6, 23),
    "SC20": date(2020, 11, 17),
    "ISC21": date(2021, 6, 28),
    "SC21": date(2021, 11, 16),
    "ISC22": date(2022, 5, 31),
    "SC22": date(2022, 11, 15),
    "ISC23": date(2023, 5, 23),
    "SC23": date(2023, 11, 14),
    "ISC24": date(2024, 5, 14),
    "SC24": date(2024, 11, 19),
    "ISC25": date(2025, 6, 11),
    "SC25": date(2025, 11, 18),
    "ISC26": date(2026, 6, 4),
    "SC26": date(2026, 11, 17),
}


# Re-issues share the window and tags of the release they correct.
REISSUE_OF = {"SC18*": "SC18"}


def library_releases() -> dict[str, Any]:
    table = {k: v for k, v in BUILTIN_RELEASES.items() if k in PUBLICATION_DATES}
    for reissue, original in REISSUE_OF.items():
        table[reissue] = replace(BUILTIN_RELEASES[original], acronym=reissue)
    return table


def release_for_run_date(day: date) -> str | None:
    """The first release whose submission deadline is on or after the run date."""
    candidates = sorted(library_releases().values(), key=lambda r: PUBLICATION_DATES[r.acronym])
    for release in candidates:
        if release.acronym in REISSUE_OF:
            continue
        if release.window_end is not None and release.window_end >= day:
            return str(release.acronym)
    return None


def release_for_year(year: int) -> str | None:
    """Fallback when a run carries no date: the autumn (SC) release of its year."""
    acronym = f"SC{year % 100:02d}"
    return acronym if acronym in PUBLICATION_DATES else None


def model_defaults(acronym: str) -> dict[str, Any]:
    """Field values for a ``submissions.Release`` row of a historic release."""
    lib = library_releases()[acronym]
    published = PUBLICATION_DATES[acronym]
    return {
        "name": f"IO500 {acronym} list",
        "release_date": published,
        "submission_deadline": lib.window_end or published,
        "tag_date": lib.window_start,
        "accepted_versions": list(lib.accepted_tags),
        "historic": True,
    }


def to_library(release: Any) -> Any:
    """A ``submissions.Release`` row as the results library's ``Release`` (for ``check``)."""
    builtin = library_releases().get(release.acronym)
    return LibraryRelease(
        acronym=release.acronym,
        accepted_tags=tuple(release.accepted_versions),
        window_start=release.tag_date,
        window_end=release.submission_deadline,
        legacy_format=bool(builtin.legacy_format) if builtin is not None else False,
    )
