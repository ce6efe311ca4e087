"""IO500 releases: accepted benchmark tags and the window a run must fall into.

/work/shared/data/io500-releases.csv (the old vi4io export) is *not* a release table: it lists
158 submissions of the lists sc17 ... sc19 with their submission dates. So the table below is
built in: tags from the benchmark's release history (BENCHMARK-RULES §7.2), windows from the tag
date to the list's submission deadline. Dates are approximate to the week (they only feed a
warning, LEADERBOARD-RULES §9.16); `load_releases_csv` narrows sc17-sc19 to the dates actually
seen in that CSV, and the service can pass its own `Release` objects instead.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

from ioscore.results.errors import ResultFormatError

_BASE_TAG = re.compile(r"^(io500-(?:isc|sc)\d\d(?:_v\d+)?)")
# git describe suffixes: "-<n>-g<hash>" (commits after the tag), then "-dirty" (ioscore) or
# "-<changed lines>" (IO500's locally modified tree).
_SUFFIXES = re.compile(r"(?:-\d+-g[0-9a-f]{6,})?(?:-dirty|-\d+)?$")


def base_tag(version: str) -> str:
    """The tag a version string was built from: suffixes removed ("io500-sc25-3-g..." ->
    "io500-sc25", "v1.2-4-gabcdef0-dirty" -> "v1.2")."""
    match = _BASE_TAG.match(version)
    return match.group(1) if match else _SUFFIXES.sub("", version)


@dataclass(frozen=True)
class Release:
    acronym: str  # "SC25"
    accepted_tags: tuple[str, ...]  # base tags, e.g. ("io500-sc25",); "" = none (bash era)
    window_start: date | None
    window_end: date | None  # submission deadline
    legacy_format: bool = False  # the bash script was the benchmark of this release
    notes: tuple[str, ...] = field(default_factory=tuple)

    def accepts(self, version: str | None) -> bool:
        """True when the version's base tag (without git-describe/dirty suffix) is accepted."""
        if not version:
            return False
        base = base_tag(version)
        family = re.sub(r"_v\d+$", "", base)
        return bool(base) and (base in self.accepted_tags or family in self.accepted_tags)


def _r(acronym: str, tags: tuple[str, ...], start: str, end: str, legacy: bool = False) -> Release:
    return Release(acronym, tags, date.fromisoformat(start), date.fromisoformat(end), legacy)


# A family name ("io500-sc20") accepts every _vN of it; ISC23, SC23 and ISC24_v1 are one commit.
BUILTIN_RELEASES: dict[str, Release] = {
    r.acronym: r
    for r in (
        _r("SC17", (), "2017-06-01", "2017-11-13", legacy=True),
        _r("ISC18", (), "2017-11-14", "2018-06-25", legacy=True),
        _r("SC18", (), "2018-06-26", "2018-11-12", legacy=True),
        _r("ISC19", (), "2018-11-13", "2019-06-17", legacy=True),
        _r("SC19", (), "2019-06-18", "2019-11-18", legacy=True),
        _r("ISC20", ("io500-isc20",), "2020-05-01", "2020-07-15", legacy=True),
        _r("SC20", ("io500-sc20",), "2020-10-01", "2020-11-15"),
        _r("ISC21", ("io500-isc21",), "2021-05-01", "2021-06-20"),
        _r("SC21", ("io500-sc21",), "2021-09-01", "2021-11-08"),
        _r("ISC22", ("io500-isc22",), "2022-03-01", "2022-05-20"),
        _r("SC22", ("io500-sc22",), "2022-10-01", "2022-11-07"),
        _r("ISC23", ("io500-isc23",), "2023-04-01", "2023-05-20"),
        _r("SC23", ("io500-sc23", "io500-isc23"), "2023-04-01", "2023-11-10"),
        _r("ISC24", ("io500-isc24", "io500-isc23"), "2024-03-15", "2024-05-10"),
        _r("SC24", ("io500-sc24",), "2024-10-01", "2024-11-11"),
        _r("ISC25", ("io500-isc25",), "2025-04-01", "2025-06-06"),
        _r("SC25", ("io500-sc25",), "2025-10-01", "2025-11-10"),
        _r("ISC26", ("io500-isc26",), "2026-04-01", "2026-05-29"),
        _r("SC26", ("io500-sc26",), "2026-10-01", "2026-11-09"),
    )
}

DEFAULT_RELEASES_CSV = (
    Path(__file__).resolve().parents[3].parent / "shared" / "data" / ("io500-releases.csv")
)


def _csv_date(text: str) -> date | None:
    text = text.strip()
    for pattern, build in (
        (r"^(\d{4})-(\d\d)-(\d\d)$", lambda m: date(int(m[1]), int(m[2]), int(m[3]))),
        (r"^(\d{4})-(\d\d)$", lambda m: date(int(m[1]), int(m[2]), 1)),
    ):
        match = re.match(pattern, text)
        if match:
            try:
                return build(match)
            except ValueError:
                return None
    return None


def load_releases_csv(path: Path) -> dict[str, Release]:
    """The built-in table, with sc17-sc19 windows narrowed to the CSV's submission dates."""
    releases = dict(BUILTIN_RELEASES)
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise ResultFormatError(path, f"cannot read file: {exc.strerror}") from None
    seen: dict[str, list[date]] = {}
    with handle:
        reader = csv.DictReader(handle, delimiter=";")
        needed = {"information_list_name", "information_submission_date"}
        if not reader.fieldnames or not needed <= set(reader.fieldnames):
            raise ResultFormatError(path, f"missing columns {sorted(needed)}", 1)
        try:
            for row in reader:
                name = (row.get("information_list_name") or "").strip().upper()
                when = _csv_date(row.get("information_submission_date") or "")
                if name and when:
                    seen.setdefault(name, []).append(when)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise ResultFormatError(path, f"bad CSV: {exc}", reader.line_num) from None
    for name, dates in seen.items():
        base = releases.get(name)
        if base is not None:
            releases[name] = replace(
                base,
                window_start=min(dates),
                window_end=max(dates),
                notes=(f"window from {len(dates)} submissions in {path.name}",),
            )
    return releases


def get_release(acronym: str, csv_path: Path | None = None) -> Release:
    """Look a release up by acronym (case-insensitive), using the CSV when it exists."""
    path = csv_path if csv_path is not None else DEFAULT_RELEASES_CSV
    table = load_releases_csv(path) if path.is_file() else dict(BUILTIN_RELEASES)
    release = table.get(acronym.strip().upper())
    if release is None:
        raise KeyError(f"unknown release {acronym!r}; known: {', '.join(table)}")
    return release
