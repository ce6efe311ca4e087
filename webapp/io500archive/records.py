"""The IO500 website's data beside the archive: its submission records and its published lists.

* ``io500-website-submissions-2021.csv``: one row per website submission (id = archive
  ``submission-<N>``), with the release it was filed under, scores, the twelve phase values
  and the descriptive ``information_*`` fields. Published entries without an archive
  directory live only here.
* ``io500-published-lists.csv``: every list the site published SC17-ISC21, one row per
  entry as displayed (``displayed=0``: a row the site no longer showed; ``dup=1``: a second
  copy of an entry in the malformed ISC21 full/historical lists).

Only reading and checking happens here (no Django); ``importer`` writes the rows.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ioscore.results import finite_number

RECORDS_FILE = "io500-website-submissions-2021.csv"
LISTS_FILE = "io500-published-lists.csv"
RELEASES_FILE = "io500-releases.csv"
RECORD_COLUMNS = ("id", "release", "information_system", "information_institution", "io500_score")
LIST_COLUMNS = (
    "release",
    "list",
    "rank",
    "displayed",
    "dup",
    "web_submission_id",
    "web_submission_release",
    "system",
    "institution",
    "filesystem",
    "storage_vendor",
    "client_nodes",
    "score",
    "io500_bw",
    "io500_md",
)
# The website's list names -> our list type slugs (legacy era, LEADERBOARD-RULES §1).
LIST_SLUGS = {
    "io500": "io500",
    "ten": "ten-node-challenge",
    "full": "full",
    "historical": "historical",
    "scc": "scc",
}
# The archive's submission-N is the website id, except one bundle directory whose primary
# run is website submission 36 (the data README; the other runs of 109 are further ids).
WEBSITE_ID_OF_ARCHIVE_DIR = {109: 36}
# Website record columns of the twelve scored phases (find: the website's "find_easy").
RECORD_PHASES = {
    "ior-easy-write": "ior_easy_write",
    "mdtest-easy-write": "mdtest_easy_write",
    "ior-hard-write": "ior_hard_write",
    "mdtest-hard-write": "mdtest_hard_write",
    "find": "find_easy",
    "ior-easy-read": "ior_easy_read",
    "mdtest-easy-stat": "mdtest_easy_stat",
    "ior-hard-read": "ior_hard_read",
    "mdtest-hard-stat": "mdtest_hard_stat",
    "mdtest-easy-delete": "mdtest_easy_delete",
    "mdtest-hard-read": "mdtest_hard_read",
    "mdtest-hard-delete": "mdtest_hard_delete",
}


class ImportInputError(Exception):
    """An input file is missing or malformed; the message names the file, line and key."""


number = finite_number  # one parser of a finite float for the CSVs of the import


def integer(value: str | None) -> int | None:
    result = number(value)
    return int(result) if result is not None and result == int(result) else None


def read_csv(path: Path, required: Iterable[str], delimiter: str = ",") -> list[dict[str, str]]:
    if not path.is_file():
        raise ImportInputError(f"{path}: file not found")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter=delimiter)
            header = reader.fieldnames or []
            missing = [key for key in required if key not in header]
            if missing:
                raise ImportInputError(f"{path}:1: missing column(s) {', '.join(missing)}")
            rows = []
            for row in reader:
                if None in row:
                    raise ImportInputError(
                        f"{path}:{reader.line_num}: more fields than the header has"
                    )
                rows.append({k: (v or "").strip() for k, v in row.items()})
            return rows
    except UnicodeDecodeError as exc:
        raise ImportInputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except csv.Error as exc:
        raise ImportInputError(f"{path}: malformed CSV ({exc})") from None


def release_name(text: str) -> str:
    """Website spelling ("sc18*", "ISC20") -> our acronym ("SC18*", "ISC20"); "" if none."""
    name = text.strip().upper()
    return name if name and name != "-" else ""


def read_records(path: Path) -> dict[int, dict[str, str]]:
    """Website records by id; a duplicate or non-numeric id is an error naming its line."""
    records: dict[int, dict[str, str]] = {}
    for line, row in enumerate(read_csv(path, RECORD_COLUMNS), start=2):
        ident = integer(row["id"])
        if ident is None or ident <= 0:
            raise ImportInputError(f"{path}:{line}: id {row['id']!r} is not a positive number")
        if ident in records:
            raise ImportInputError(f"{path}:{line}: duplicate id {ident}")
        records[ident] = row
    return records


@dataclass(frozen=True)
class PublishedRow:
    line: int
    release: str
    slug: str
    rank: int
    web_id: int
    web_release: str
    system: str
    institution: str
    filesystem: str
    storage_vendor: str
    client_nodes: int | None
    score: float
    bw: float | None
    md: float | None


@dataclass
class PublishedLists:
    rows: list[PublishedRow]
    hidden: int  # displayed=0: rows of website records deleted in 2021, not shown by the site
    duplicates: int  # dup=1: second copies in the malformed ISC21 full/historical lists


def read_published_lists(path: Path) -> PublishedLists:
    rows: list[PublishedRow] = []
    hidden = duplicates = 0
    for line, row in enumerate(read_csv(path, LIST_COLUMNS), start=2):
        if row["displayed"] == "0":
            hidden += 1
            continue
        if row["dup"] == "1":
            duplicates += 1
            continue
        slug = LIST_SLUGS.get(row["list"])
        rank, web_id, score = integer(row["rank"]), integer(row["web_submission_id"]), None
        score = number(row["score"])
        problems = [
            what
            for what, bad in (
                (f"unknown list {row['list']!r}", slug is None),
                ("rank is not a number", rank is None),
                ("web_submission_id is not a number", web_id is None),
                ("score is not a number", score is None),
                ("release is empty", not release_name(row["release"])),
            )
            if bad
        ]
        if problems:
            raise ImportInputError(f"{path}:{line}: {'; '.join(problems)}")
        assert slug is not None and rank is not None and web_id is not None and score is not None
        rows.append(
            PublishedRow(
                line=line,
                release=release_name(row["release"]),
                slug=slug,
                rank=rank,
                web_id=web_id,
                web_release=release_name(row["web_submission_release"]),
                system=row["system"],
                institution=row["institution"],
                filesystem=row["filesystem"],
                storage_vendor=row["storage_vendor"],
                client_nodes=integer(row["client_nodes"]),
                score=score,
                bw=number(row["io500_bw"]),
                md=number(row["io500_md"]),
            )
        )
    return PublishedLists(rows, hidden, duplicates)
