"""Ranking a list (LEADERBOARD-RULES §3): pure functions over plain values, no database.

``rank`` orders candidates by score with competition ranking (ties share a rank, earlier
submission first) and stores the BW and MD ranks too (``metric_ranks``); ``deduplicate``
keeps the best entry per storage system unless the committee pinned another; ``mark_awards``
flags the release's best SCORE, BW and MD. The value types (``Facts`` of a submission, a
``Candidate`` entry, a ``RankedEntry``) are shared by membership, loading and persistence;
the immutable ones are named tuples, since an update at 100,000 submissions makes a million
of them (a frozen dataclass takes five times as long to make).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import NamedTuple


class Display(NamedTuple):
    """The flattened list columns of a submission, stored on each entry (see ListEntry)."""

    institution: str = ""
    system: str = ""
    storage_vendor: str = ""
    fs_type: str = ""
    fs_name: str = ""
    fs_version: str = ""
    client_nodes: int | None = None
    procs_per_node: int | None = None
    total_procs: int | None = None
    level: str = ""


DISPLAY_FIELDS: tuple[str, ...] = Display._fields


class Facts(NamedTuple):
    """What the list filters need to know about one accepted submission."""

    id: int
    release_id: int
    release_date: date
    score: float
    bw: float
    md: float
    phases: tuple[float | None, ...]
    submitted_at: datetime
    score_valid: bool | None
    valid_from: date | None
    valid_to: date | None
    target_list: str
    opt_in: bool
    scc: bool
    production_eligible: bool | None
    ten_node_eligible: bool | None
    client_nodes: int | None
    level: str
    storage_key: tuple[str, int]
    display: Display = Display()
    historic_import: bool = False  # imported from the IO500 archive, no questionnaire


class Candidate(NamedTuple):
    """One proposed entry: frozen numbers plus where it came from."""

    submission_id: int
    score: float
    bw: float
    md: float
    phases: tuple[float | None, ...]
    submitted_at: datetime
    origin_release_id: int
    carried: bool = False
    display: Display = Display()


@dataclass
class RankedEntry:
    candidate: Candidate
    position: int
    rank: int
    bw_rank: int
    md_rank: int
    award_score: bool = False
    award_bw: bool = False
    award_md: bool = False
    pinned: bool = False
    displaced: list[int] = field(default_factory=list)

    def signature(self) -> tuple[object, ...]:
        return (*self.content(), self.rank, self.bw_rank, self.md_rank)

    def content(self) -> tuple[object, ...]:
        """The signature without the ranks, which one new entry above shifts."""
        c = self.candidate
        return (
            c.submission_id,
            c.score,
            c.bw,
            c.md,
            c.carried,
            c.origin_release_id,
            c.display,
            self.award_score,
            self.award_bw,
            self.award_md,
            self.pinned,
            tuple(self.displaced),
        )


def competition_ranks(values: list[float]) -> list[int]:
    """Ranks for values already sorted descending: equal values share a rank (1, 2, 2, 4)."""
    ranks: list[int] = []
    for index, value in enumerate(values):
        if index and value == values[index - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(index + 1)
    return ranks


def metric_ranks(values: list[float]) -> list[int]:
    """Each value's competition rank among ``values`` (1 + how many are greater): the order
    of equal values, which the list's tie-break decides, does not change it."""
    ordered = sorted(values, reverse=True)
    rank_of = dict(zip(ordered, competition_ranks(ordered), strict=True))  # equal: equal rank
    return [rank_of[value] for value in values]


def _order(c: Candidate) -> tuple[float, datetime, int]:
    return (-c.score, c.submitted_at, c.submission_id)


def rank(candidates: Iterable[Candidate]) -> list[RankedEntry]:
    """Order by entry score (ties: earlier submission first) and store all three ranks."""
    ordered = sorted(candidates, key=_order)
    ranks = competition_ranks([c.score for c in ordered])
    bw_ranks = metric_ranks([c.bw for c in ordered])
    md_ranks = metric_ranks([c.md for c in ordered])
    return [
        RankedEntry(c, i + 1, ranks[i], bw_ranks[i], md_ranks[i]) for i, c in enumerate(ordered)
    ]


def deduplicate(
    candidates: Iterable[Candidate], facts: dict[int, Facts], pins: dict[tuple[str, int], int]
) -> tuple[list[Candidate], dict[int, list[int]], set[int]]:
    """Best entry per storage system unless the committee pinned another (LEADERBOARD-RULES §3).

    Returns the kept candidates, ``kept id -> displaced ids`` and the ids kept by a pin.
    """
    groups: dict[tuple[str, int], list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        groups[facts[candidate.submission_id].storage_key].append(candidate)
    kept: list[Candidate] = []
    displaced: dict[int, list[int]] = {}
    pinned: set[int] = set()
    for key, members in groups.items():
        members.sort(key=_order)
        winner = members[0]
        pin = pins.get(key)
        if pin is not None:
            for member in members:
                if member.submission_id == pin:
                    winner = member
                    pinned.add(pin)
        kept.append(winner)
        others = sorted(m.submission_id for m in members if m is not winner)
        if others:
            displaced[winner.submission_id] = others
    return kept, displaced, pinned


AWARDS = (("score", "award_score"), ("bw", "award_bw"), ("md", "award_md"))


def award_holders(
    new: Iterable[tuple[int, int | None, tuple[float, float, float]]], ten_node_list: bool
) -> dict[str, set[int]]:
    """Per award flag, the runs holding it among a list's entries new in its release, given
    as (submission id, client nodes, (score, bw, md)): the highest SCORE, BW and MD; on
    any-size lists only runs with at least 10 client nodes are eligible (LEADERBOARD-RULES §3)."""
    eligible = [(sid, values) for sid, nodes, values in new if ten_node_list or (nodes or 0) >= 10]
    holders: dict[str, set[int]] = {flag: set() for _metric, flag in AWARDS}
    for column, (_metric, flag) in enumerate(AWARDS):
        if eligible:
            best = max(values[column] for _sid, values in eligible)
            holders[flag] = {sid for sid, values in eligible if values[column] == best}
    return holders


def mark_awards(
    entries: list[RankedEntry], release_id: int, facts: dict[int, Facts], ten_node_list: bool
) -> None:
    """Set the award flags of ``entries`` (``award_holders``)."""
    holders = award_holders(
        (
            (c.submission_id, facts[c.submission_id].client_nodes, (c.score, c.bw, c.md))
            for e in entries
            if (c := e.candidate).origin_release_id == release_id
        ),
        ten_node_list,
    )
    for entry in entries:
        for flag, held in holders.items():
            if entry.candidate.submission_id in held:
                setattr(entry, flag, True)
