"""The list builder (spec leaderboard.md §2, §3, §8).

For every release in date order and every list type of its era, the builder proposes the
entries: the previous release's list of the same type (entries keep their frozen numbers and
origin release), or the previous Historical list when the type is new, plus the newly accepted
submissions of the release that pass the type's filter; de-duplicated per storage system on the
award lists; ranked with competition ranking (ties share a rank, earlier submission first).

Writing rules, so that running the builder twice changes nothing:
* a list that does not exist yet is created (published when its release date has passed,
  draft otherwise);
* a draft list is rewritten when the proposal differs from what is stored;
* a frozen or published list is never rewritten silently: a difference is reported, and only
  with ``correction_reason`` applied as ``Correction`` records with a new revision.

The next release always carries over what is stored, so committee corrections survive.

IO500's history (SC17-ISC21) is not rebuilt: a release holding lists the website published
(``ListOrigin.IO500_WEBSITE``, written by ``rankings.published``) keeps them exactly, and the
builder only carries them into the next release. Where the published lists contradict the
spec's rules, the published behaviour is what later lists continue from:
* carry-over: the committee restarted the ranked lists at SC19 (the SC19 IO500 list held SC19
  submissions only); from SC19 on each list carried the previous one, which is what the
  builder does from SC21 on, starting from the ISC21 lists;
* one entry per storage system: the committee de-duplicated by hand, some systems appear
  twice (SC18, ISC20 10-node, SC20); the published membership is kept as it was, new
  entries are de-duplicated by the ``StorageSystem`` entity;
* 10-node membership: the published 10-node lists held every 10-client-node submission that
  opted in, not only those on the IO500 list; the builder proposes 10-node lists from all
  candidates with exactly 10 client nodes (counted from the run's own files when the
  submitter did not state them).

Imported runs without questionnaire data (the archive from SC21 on has none) go where the
IO500 rules put a run without a questionnaire: Research, and 10-node Research with exactly
10 client nodes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from submissions.models import (
    LEVEL_ORDER,
    ListType,
    Release,
    ReproducibilityLevel,
    Source,
    Status,
    StorageSystem,
    Submission,
    TargetList,
)

from .eras import list_types_for
from .models import (
    Correction,
    CorrectionKind,
    ListEntry,
    ListOrigin,
    ListState,
    RankedList,
    StoragePin,
)
from .phases import PHASE_FIELDS, PHASES

PROPRIETARY_RANK = LEVEL_ORDER.index(ReproducibilityLevel.PROPRIETARY.value)


@dataclass(frozen=True)
class Display:
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


DISPLAY_FIELDS: tuple[str, ...] = tuple(Display.__dataclass_fields__)


@dataclass(frozen=True)
class Facts:
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


@dataclass(frozen=True)
class Candidate:
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
        c = self.candidate
        return (
            c.submission_id,
            c.score,
            c.bw,
            c.md,
            c.carried,
            c.origin_release_id,
            c.display,
            self.rank,
            self.bw_rank,
            self.md_rank,
            self.award_score,
            self.award_bw,
            self.award_md,
            self.pinned,
            tuple(self.displaced),
        )


@dataclass
class BuildReport:
    created: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # locked lists differing from a rebuild

    def lines(self) -> list[str]:
        out = [
            f"created {len(self.created)}, rewritten {len(self.rewritten)}, "
            f"unchanged {len(self.unchanged)}, corrected {len(self.corrected)}"
        ]
        out += [
            f"warning: {name} is frozen/published and differs from a rebuild; "
            "rerun with --correct REASON to record the changes as corrections"
            for name in self.stale
        ]
        return out


# --- ranking --------------------------------------------------------------------------------


def competition_ranks(values: list[float]) -> list[int]:
    """Ranks for values already sorted descending: equal values share a rank (1, 2, 2, 4)."""
    ranks: list[int] = []
    for index, value in enumerate(values):
        if index and value == values[index - 1]:
            ranks.append(ranks[-1])
        else:
            ranks.append(index + 1)
    return ranks


def _metric_ranks(candidates: list[Candidate], metric: Callable[[Candidate], float]) -> list[int]:
    order = sorted(
        range(len(candidates)),
        key=lambda i: (
            -metric(candidates[i]),
            candidates[i].submitted_at,
            candidates[i].submission_id,
        ),
    )
    ranks = competition_ranks([metric(candidates[i]) for i in order])
    result = [0] * len(candidates)
    for position, index in enumerate(order):
        result[index] = ranks[position]
    return result


def rank(candidates: Iterable[Candidate]) -> list[RankedEntry]:
    """Order by entry score (ties: earlier submission first) and store all three ranks."""
    ordered = sorted(candidates, key=lambda c: (-c.score, c.submitted_at, c.submission_id))
    ranks = competition_ranks([c.score for c in ordered])
    bw_ranks = _metric_ranks(ordered, lambda c: c.bw)
    md_ranks = _metric_ranks(ordered, lambda c: c.md)
    return [
        RankedEntry(c, position=i + 1, rank=ranks[i], bw_rank=bw_ranks[i], md_rank=md_ranks[i])
        for i, c in enumerate(ordered)
    ]


def deduplicate(
    candidates: Iterable[Candidate], facts: dict[int, Facts], pins: dict[tuple[str, int], int]
) -> tuple[list[Candidate], dict[int, list[int]], set[int]]:
    """Best entry per storage system unless the committee pinned another (spec §3).

    Returns the kept candidates, ``kept id -> displaced ids`` and the ids kept by a pin.
    """
    groups: dict[tuple[str, int], list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        groups[facts[candidate.submission_id].storage_key].append(candidate)
    kept: list[Candidate] = []
    displaced: dict[int, list[int]] = {}
    pinned: set[int] = set()
    for key, members in groups.items():
        members.sort(key=lambda c: (-c.score, c.submitted_at, c.submission_id))
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


def mark_awards(
    entries: list[RankedEntry], release_id: int, facts: dict[int, Facts], ten_node_list: bool
) -> None:
    """Highest SCORE, BW and MD among the entries new in this release; on any-size lists
    only runs with at least 10 client nodes are eligible (spec §3)."""
    eligible = [
        e
        for e in entries
        if e.candidate.origin_release_id == release_id
        and (ten_node_list or (facts[e.candidate.submission_id].client_nodes or 0) >= 10)
    ]
    if not eligible:
        return
    for metric, flag in (("score", "award_score"), ("bw", "award_bw"), ("md", "award_md")):
        best = max(getattr(e.candidate, metric) for e in eligible)
        for entry in eligible:
            if getattr(entry.candidate, metric) == best:
                setattr(entry, flag, True)


# --- membership -----------------------------------------------------------------------------


def _valid_at(f: Facts, when: date) -> bool:
    if f.score_valid is False:
        return False
    return _in_window(f, when)


def _in_window(f: Facts, when: date) -> bool:
    """Validity window only: a carried entry was judged when it entered its list (for IO500's
    published lists, by the committee), so carrying re-checks only the window."""
    if f.valid_from is not None and when < f.valid_from:
        return False
    return not (f.valid_to is not None and when > f.valid_to)


def _ten_node(f: Facts) -> bool:
    if f.ten_node_eligible is False:
        return False
    return f.client_nodes == 10


def _production(f: Facts) -> bool:
    return f.production_eligible is True


def _research_level(f: Facts) -> bool:
    if f.historic_import and not f.level:
        return True  # IO500 rules: a run without questionnaire is ranked on Research
    return f.level in LEVEL_ORDER and LEVEL_ORDER.index(f.level) >= PROPRIETARY_RANK


def fresh(f: Facts) -> Candidate:
    return Candidate(
        f.id, f.score, f.bw, f.md, f.phases, f.submitted_at, f.release_id, display=f.display
    )


class ReleaseBuilder:
    """Proposes every list of one release from the stored (or proposed) previous lists."""

    def __init__(
        self,
        release: Release,
        facts: dict[int, Facts],
        previous: dict[str, list[Candidate]],
        pins: dict[str, dict[tuple[str, int], int]],
    ):
        self.release = release
        self.facts = facts
        self.previous = previous
        self.pins = pins
        self.new = [f for f in facts.values() if f.release_id == release.pk]

    def carried(
        self,
        slug: str,
        keep: Callable[[Facts], bool],
        keep_listed: Callable[[Facts], bool] | None = None,
    ) -> list[Candidate]:
        """Entries of the previous list of this type (``keep_listed`` re-checks them, default
        ``keep``), or, for a new type, the previous Historical entries that pass ``keep``."""
        source = self.previous.get(slug)
        if source is None:  # a new list type: seed from the previous Historical list
            source = self.previous.get("historical", [])
        elif keep_listed is not None:
            keep = keep_listed
        when = self.release.release_date
        return [
            replace(c, carried=True, display=self.facts[c.submission_id].display)
            for c in source
            if c.submission_id in self.facts
            and _in_window(self.facts[c.submission_id], when)
            and keep(self.facts[c.submission_id])
        ]

    def new_matching(self, keep: Callable[[Facts], bool]) -> list[Candidate]:
        when = self.release.release_date
        return [fresh(f) for f in self.new if not f.scc and _valid_at(f, when) and keep(f)]

    @staticmethod
    def _union(*parts: list[Candidate]) -> list[Candidate]:
        seen: dict[int, Candidate] = {}
        for part in parts:
            for candidate in part:
                seen.setdefault(candidate.submission_id, candidate)
        return list(seen.values())

    def ranked(
        self, slug: str, pool: list[Candidate], dedup: bool, award: bool, ten_node_list: bool
    ) -> list[RankedEntry]:
        displaced: dict[int, list[int]] = {}
        pinned: set[int] = set()
        if dedup:
            pool, displaced, pinned = deduplicate(pool, self.facts, self.pins.get(slug, {}))
        entries = rank(pool)
        for entry in entries:
            entry.displaced = displaced.get(entry.candidate.submission_id, [])
            entry.pinned = entry.candidate.submission_id in pinned
        if award:
            mark_awards(entries, self.release.pk, self.facts, ten_node_list)
        return entries

    def propose(self) -> dict[str, list[RankedEntry]]:
        lists: dict[str, list[RankedEntry]] = {}
        types = list_types_for(self.release)
        everything = lambda f: True  # noqa: E731
        opted = lambda f: f.opt_in  # noqa: E731

        historical_prev = self.previous.get("historical", [])
        historical = self._union(
            [
                replace(c, carried=True, display=self.facts[c.submission_id].display)
                for c in historical_prev
                if c.submission_id in self.facts
            ],
            [fresh(f) for f in self.new if not f.scc],
        )
        lists["historical"] = self.ranked("historical", historical, False, False, False)
        lists["full"] = self.ranked(
            "full",
            self._union(self.carried("full", everything), self.new_matching(everything)),
            False,
            False,
            False,
        )
        if "production" in types:
            prod_pool = self._union(
                self.carried("production", lambda f: f.opt_in and _production(f)),
                self.new_matching(
                    lambda f: f.opt_in and _production(f) and f.target_list == TargetList.PRODUCTION
                ),
            )
            lists["production"] = self.ranked("production", prod_pool, True, True, False)
            on_production = {e.candidate.submission_id for e in lists["production"]}
            research_pool = self._union(
                self.carried("research", lambda f: f.opt_in and f.id not in on_production),
                self.new_matching(
                    lambda f: f.opt_in and f.id not in on_production and _research_level(f)
                ),
            )
            research_pool = [c for c in research_pool if c.submission_id not in on_production]
            lists["research"] = self.ranked("research", research_pool, True, True, False)
            for slug, any_size_pool in (
                ("ten-node-production", prod_pool),
                ("ten-node-research", research_pool),
            ):
                pool = self._union(
                    [c for c in any_size_pool if _ten_node(self.facts[c.submission_id])],
                    self.carried(slug, lambda f: f.opt_in and _ten_node(f)),
                )
                if slug == "ten-node-research":
                    pool = [c for c in pool if c.submission_id not in on_production]
                else:
                    pool = [c for c in pool if _production(self.facts[c.submission_id])]
                lists[slug] = self.ranked(slug, pool, True, True, True)
        if "io500" in types:
            io500_pool = self._union(self.carried("io500", opted), self.new_matching(opted))
            lists["io500"] = self.ranked("io500", io500_pool, True, True, False)
            ten_pool = self._union(
                [c for c in io500_pool if _ten_node(self.facts[c.submission_id])],
                # Published 10-node entries stay: the committee judged their node count.
                self.carried("ten-node-challenge", lambda f: f.opt_in and _ten_node(f), opted),
            )
            lists["ten-node-challenge"] = self.ranked(
                "ten-node-challenge", ten_pool, True, True, True
            )
        when = self.release.release_date
        scc = [fresh(f) for f in self.new if f.scc and _valid_at(f, when)]
        if scc:
            lists["scc"] = self.ranked("scc", scc, False, False, False)
        return lists


def empty_reason(slug: str) -> str:
    """Why a list of this type can be empty, shown on its page instead of a bare table."""
    if slug in ("production", "ten-node-production"):
        size = "exactly 10 client nodes and " if slug == "ten-node-production" else ""
        return (
            f"No submission qualifies yet: Production needs {size}a committee verdict of "
            "Fully Reproducible on a production system with no single point of failure, and "
            "the submitter's opt-in (spec §5.3). Runs imported from the IO500 archive carry "
            "no questionnaire, so the IO500 rules rank them on Research."
        )
    if slug in ("research", "ten-node-research"):
        size = " with exactly 10 client nodes" if slug == "ten-node-research" else ""
        return (
            f"No submission qualifies yet: Research holds opted-in runs{size} rated at least "
            "Proprietary, and imported IO500 runs without questionnaire."
        )
    return "No accepted submission qualifies for this list yet."


# --- database side --------------------------------------------------------------------------


def load_facts() -> dict[int, Facts]:
    """Every accepted submission with a score, in two queries (plus storage-system merges)."""
    canonical = _canonical_storage_ids()
    rows = Submission.objects.filter(
        status=Status.ACCEPTED,
        score_total__isnull=False,
        score_bw__isnull=False,
        score_md__isnull=False,
    ).values(
        "id",
        "release_id",
        "release__release_date",
        "score_total",
        "score_bw",
        "score_md",
        "submitted_at",
        "created",
        "score_valid",
        "valid_from__release_date",
        "valid_to__release_date",
        "target_list",
        "opt_in_ranking",
        "scc",
        "production_eligible",
        "ten_node_eligible",
        "system_description__client_nodes",
        "questionnaire__assigned_level",
        "storage_system_id",
        "site__name",
        "client_system__name",
        "storage_system__fs_type",
        "storage_system__vendor",
        "storage_system__name",
        "procs",
        "source",
        *(f"system_description__{f}" for f in _SD_FIELDS),
    )
    phase_values: dict[int, dict[str, float]] = defaultdict(dict)
    from submissions.models import PhaseResult

    for sid, name, value in PhaseResult.objects.filter(
        submission__status=Status.ACCEPTED, name__in=PHASES
    ).values_list("submission_id", "name", "value"):
        phase_values[sid][name] = value
    facts: dict[int, Facts] = {}
    for row in rows:
        sid = row["id"]
        storage = row["storage_system_id"]
        key = ("storage", canonical.get(storage, storage)) if storage else ("submission", sid)
        facts[sid] = Facts(
            id=sid,
            release_id=row["release_id"],
            release_date=row["release__release_date"],
            score=row["score_total"],
            bw=row["score_bw"],
            md=row["score_md"],
            phases=tuple(phase_values[sid].get(p) for p in PHASES),
            submitted_at=row["submitted_at"] or row["created"],
            score_valid=row["score_valid"],
            valid_from=row["valid_from__release_date"],
            valid_to=row["valid_to__release_date"],
            target_list=row["target_list"],
            opt_in=row["opt_in_ranking"],
            scc=row["scc"],
            production_eligible=row["production_eligible"],
            ten_node_eligible=row["ten_node_eligible"],
            client_nodes=row["system_description__client_nodes"],
            level=row["questionnaire__assigned_level"] or "",
            storage_key=key,
            display=_display(row),
            historic_import=row["source"] == Source.IO500_IMPORT,
        )
    return facts


_SD_FIELDS = (
    "institution",
    "system",
    "storage_vendor",
    "fs_type",
    "fs_name",
    "fs_version",
    "procs_per_node",
    "total_procs",
)


def _display(row: dict[str, object]) -> Display:
    """Flattened description first; the entities fill what the description leaves blank."""

    def text(*keys: str) -> str:
        for key in keys:
            value = row.get(key)
            if value:
                return str(value)
        return ""

    sd = "system_description__"
    return Display(
        institution=text(f"{sd}institution", "site__name"),
        system=text(f"{sd}system", "client_system__name"),
        storage_vendor=text(f"{sd}storage_vendor", "storage_system__vendor"),
        fs_type=text(f"{sd}fs_type", "storage_system__fs_type"),
        fs_name=text(f"{sd}fs_name", "storage_system__name"),
        fs_version=text(f"{sd}fs_version"),
        client_nodes=row.get(f"{sd}client_nodes"),  # type: ignore[arg-type]
        procs_per_node=row.get(f"{sd}procs_per_node"),  # type: ignore[arg-type]
        total_procs=row.get(f"{sd}total_procs") or row.get("procs"),  # type: ignore[arg-type]
        level=text("questionnaire__assigned_level"),
    )


def _canonical_storage_ids() -> dict[int, int]:
    parent: dict[int, int] = {
        source: target
        for source, target in StorageSystem.objects.filter(merged_into__isnull=False).values_list(
            "id", "merged_into"
        )
        if target is not None
    }
    resolved: dict[int, int] = {}
    for start in parent:
        node, seen = start, {start}
        while node in parent and parent[node] not in seen:
            node = parent[node]
            seen.add(node)
        resolved[start] = node
    return resolved


def _load_pins() -> dict[str, dict[tuple[str, int], int]]:
    canonical = _canonical_storage_ids()
    pins: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)
    for slug, storage, submission in StoragePin.objects.values_list(
        "list_type__slug", "storage_system_id", "submission_id"
    ):
        pins[slug][("storage", canonical.get(storage, storage))] = submission
    return pins


ENTRY_VALUE_FIELDS = (
    "submission_id",
    "score",
    "bw",
    "md",
    *PHASE_FIELDS,
    "submitted_at",
    "origin_release_id",
    "carried_over",
    "rank",
    "bw_rank",
    "md_rank",
    "award_score",
    "award_bw",
    "award_md",
    "pinned",
    "displaced",
    *DISPLAY_FIELDS,
)


def stored_entries(ranked_list: RankedList) -> list[RankedEntry]:
    entries = []
    for position, row in enumerate(
        ranked_list.entries.order_by("position").values_list(*ENTRY_VALUE_FIELDS), start=1
    ):
        values = dict(zip(ENTRY_VALUE_FIELDS, row, strict=True))
        candidate = Candidate(
            submission_id=values["submission_id"],
            score=values["score"],
            bw=values["bw"],
            md=values["md"],
            phases=tuple(values[f] for f in PHASE_FIELDS),
            submitted_at=values["submitted_at"],
            origin_release_id=values["origin_release_id"],
            carried=values["carried_over"],
            display=Display(**{f: values[f] for f in DISPLAY_FIELDS}),
        )
        entries.append(
            RankedEntry(
                candidate,
                position=position,
                rank=values["rank"],
                bw_rank=values["bw_rank"],
                md_rank=values["md_rank"],
                award_score=values["award_score"],
                award_bw=values["award_bw"],
                award_md=values["award_md"],
                pinned=values["pinned"],
                displaced=list(values["displaced"] or []),
            )
        )
    return entries


def _entry_rows(ranked_list: RankedList, entries: list[RankedEntry]) -> list[ListEntry]:
    rows = []
    for entry in entries:
        c = entry.candidate
        phase_values = dict(zip(PHASE_FIELDS, c.phases, strict=True))
        rows.append(
            ListEntry(
                ranked_list=ranked_list,
                submission_id=c.submission_id,
                position=entry.position,
                rank=entry.rank,
                bw_rank=entry.bw_rank,
                md_rank=entry.md_rank,
                score=c.score,
                bw=c.bw,
                md=c.md,
                submitted_at=c.submitted_at,
                carried_over=c.carried,
                origin_release_id=c.origin_release_id,
                award_score=entry.award_score,
                award_bw=entry.award_bw,
                award_md=entry.award_md,
                pinned=entry.pinned,
                displaced=entry.displaced,
                **phase_values,
                **{f: getattr(c.display, f) for f in DISPLAY_FIELDS},
            )
        )
    return rows


def _write_entries(ranked_list: RankedList, entries: list[RankedEntry]) -> None:
    ranked_list.entries.all().delete()
    ListEntry.objects.bulk_create(_entry_rows(ranked_list, entries), batch_size=2000)


def _record_corrections(
    ranked_list: RankedList, old: list[RankedEntry], new: list[RankedEntry], reason: str
) -> None:
    """Apply a rebuild to a locked list as correction records and a new revision (spec §8)."""
    revision = ranked_list.revision + 1
    before = {e.candidate.submission_id: e for e in old}
    after = {e.candidate.submission_id: e for e in new}
    records = []
    for sid in sorted(after.keys() - before.keys()):
        records.append(
            Correction(
                ranked_list=ranked_list,
                kind=CorrectionKind.ADDED,
                submission_id=sid,
                new_value={"score": after[sid].candidate.score},
                reason=reason,
                revision=revision,
            )
        )
    for sid in sorted(before.keys() - after.keys()):
        records.append(
            Correction(
                ranked_list=ranked_list,
                kind=CorrectionKind.REMOVED,
                submission_id=sid,
                old_value={"score": before[sid].candidate.score},
                reason=reason,
                revision=revision,
            )
        )
    for sid in sorted(before.keys() & after.keys()):
        old_display, new_display = before[sid].candidate.display, after[sid].candidate.display
        if old_display != new_display:
            changed = [
                f for f in DISPLAY_FIELDS if getattr(old_display, f) != getattr(new_display, f)
            ]
            records.append(
                Correction(
                    ranked_list=ranked_list,
                    kind=CorrectionKind.RENAME,
                    submission_id=sid,
                    old_value={f: getattr(old_display, f) for f in changed},
                    new_value={f: getattr(new_display, f) for f in changed},
                    reason=reason,
                    revision=revision,
                )
            )
        if before[sid].candidate.score != after[sid].candidate.score:
            records.append(
                Correction(
                    ranked_list=ranked_list,
                    kind=CorrectionKind.SCORE,
                    submission_id=sid,
                    old_value={"score": before[sid].candidate.score},
                    new_value={"score": after[sid].candidate.score},
                    reason=reason,
                    revision=revision,
                )
            )
    Correction.objects.bulk_create(records)
    _write_entries(ranked_list, new)
    ranked_list.revision = revision
    ranked_list.save(update_fields=["revision"])


def build_lists(
    release_acronym: str | None = None,
    correction_reason: str | None = None,
    today: date | None = None,
) -> BuildReport:
    """Build (or verify) the lists of every release, or of one release when given."""
    today = today or timezone.now().date()
    releases = list(Release.objects.order_by("release_date", "id"))
    if release_acronym is not None and not any(r.acronym == release_acronym for r in releases):
        raise ValueError(f"unknown release {release_acronym!r}")
    types = {t.slug: t for t in ListType.objects.all()}
    facts = load_facts()
    pins = _load_pins()
    existing = {
        (rl.release_id, rl.list_type.slug): rl
        for rl in RankedList.objects.select_related("list_type")
    }
    report = BuildReport()
    previous: dict[str, list[Candidate]] = {}
    published = {rl.release_id for rl in existing.values() if rl.origin == ListOrigin.IO500_WEBSITE}
    for release in releases:
        if release.pk in published:  # history as the website published it: carry, never build
            previous = {
                **previous,
                **{
                    slug: [e.candidate for e in stored_entries(rl)]
                    for (release_id, slug), rl in existing.items()
                    if release_id == release.pk
                },
            }
            report.unchanged += [
                f"{release.acronym}/{slug} (published by IO500)"
                for (release_id, slug) in existing
                if release_id == release.pk
            ]
            continue
        write = release_acronym is None or release.acronym == release_acronym
        proposals = ReleaseBuilder(release, facts, previous, pins).propose()
        current: dict[str, list[Candidate]] = {}
        for slug, entries in proposals.items():
            stored = existing.get((release.pk, slug))
            if slug not in types:
                raise ValueError(f"list type {slug!r} is missing (submissions migration 0002)")
            if not write:
                result = stored_entries(stored) if stored is not None else entries
            else:
                result = _apply(
                    release, types[slug], stored, entries, correction_reason, today, report
                )
            current[slug] = [e.candidate for e in result]
        previous = {**previous, **current}
        if release_acronym is not None and release.acronym == release_acronym:
            break
    return report


def _apply(
    release: Release,
    list_type: ListType,
    stored: RankedList | None,
    entries: list[RankedEntry],
    correction_reason: str | None,
    today: date,
    report: BuildReport,
) -> list[RankedEntry]:
    name = f"{release.acronym}/{list_type.slug}"
    with transaction.atomic():
        if stored is None:
            published = release.release_date <= today
            now = timezone.now()
            stored = RankedList.objects.create(
                release=release,
                list_type=list_type,
                state=ListState.PUBLISHED if published else ListState.DRAFT,
                frozen_at=now if published else None,
                published_at=now if published else None,
            )
            _write_entries(stored, entries)
            report.created.append(name)
            return entries
        old = stored_entries(stored)
        if [e.signature() for e in old] == [e.signature() for e in entries]:
            report.unchanged.append(name)
            return old
        if not stored.is_locked:
            _write_entries(stored, entries)
            stored.built_at = timezone.now()
            stored.save(update_fields=["built_at"])
            report.rewritten.append(name)
            return entries
        if correction_reason:
            _record_corrections(stored, old, entries, correction_reason)
            report.corrected.append(name)
            return entries
        report.stale.append(name)
        return old
