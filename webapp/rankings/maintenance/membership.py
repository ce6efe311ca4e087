"""Who is on which list of a release (LEADERBOARD-RULES §2, §3, §5): pure, no database.

The list types' rows say how each list is built (``submissions.models.ListType``): ``rule``
(who enters), ``ten_node`` (the 10-client-node subset of the list of the same rule),
``award`` (one entry per storage system, awards marked). ``ReleaseBuilder.propose`` applies
them to one release, starting from the previous release's lists; nothing here looks at a
list's slug except to find that list's own previous entries.

Each list carries the previous list of its type (entries keep their frozen numbers and
origin release), or the previous Historical list when the type is new, and adds the newly
accepted submissions of the release that pass its rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date

from submissions.models import (
    LEVEL_ORDER,
    ListRule,
    ListType,
    Release,
    ReproducibilityLevel,
    TargetList,
)

from .ranking import Candidate, Display, Facts, RankedEntry, deduplicate, mark_awards, rank

PROPRIETARY_RANK = LEVEL_ORDER.index(ReproducibilityLevel.PROPRIETARY.value)
# Rules are evaluated in this order: Research needs who is on Production.
RULE_ORDER = [rule.value for rule in ListRule]

Keep = Callable[[Facts], bool]


@dataclass(frozen=True)
class ListSpec:
    """How one list type is built (a ``ListType`` row, as plain values)."""

    slug: str
    rule: str
    ten_node: bool = False
    award: bool = False
    order: int = 0

    @classmethod
    def of(cls, row: ListType) -> ListSpec:
        return cls(row.slug, row.rule, row.ten_node, row.award, row.order)


def _valid_at(f: Facts, when: date) -> bool:
    if f.score_valid is False:
        return False
    return in_window(f, when)


def in_window(f: Facts, when: date) -> bool:
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


def _anything(f: Facts) -> bool:
    return True


def _opted(f: Facts) -> bool:
    return f.opt_in


def fresh(f: Facts) -> Candidate:
    return Candidate(
        f.id, f.score, f.bw, f.md, f.phases, f.submitted_at, f.release_id, display=f.display
    )


def _carry(c: Candidate, display: Display) -> Candidate:
    """``c`` marked carried, shown as its submission now is (a constructor call: for
    100,000s of entries ``dataclasses.replace`` was most of the carrying)."""
    if c.carried and c.display is display:  # carried from a list proposed in this run
        return c
    return Candidate(
        c.submission_id, c.score, c.bw, c.md, c.phases, c.submitted_at, c.origin_release_id,
        True, display,
    )  # fmt: skip


@dataclass
class Members:
    """Who is on one list, before ranking: the candidates kept (one per storage system on a
    de-duplicated list), the runs each of them displaced, and those kept by a pin."""

    candidates: list[Candidate]
    displaced: dict[int, list[int]] = field(default_factory=dict)
    pinned: set[int] = field(default_factory=set)

    def holds_any(self, ids: set[int]) -> bool:
        """Whether any of ``ids`` is on the list or was displaced by one of its entries."""
        return any(c.submission_id in ids for c in self.candidates) or any(
            ids.intersection(others) for others in self.displaced.values()
        )


def _union(*parts: list[Candidate]) -> list[Candidate]:
    seen: dict[int, Candidate] = {}
    for part in parts:
        for candidate in part:
            seen.setdefault(candidate.submission_id, candidate)
    return list(seen.values())


def admits_new(rule: str, f: Facts, when: date, on_production: set[int]) -> bool:
    """Whether a run of the release itself (not carried) enters the any-size pool of ``rule``
    (``on_production``: the runs kept on the release's Production list, for Research). The
    one statement of the rules for new runs: ``ReleaseBuilder`` applies it to every run of a
    release, ``acceptance`` to one accepted run."""
    if rule == ListRule.HISTORICAL:
        return not f.scc  # every run ever accepted, no validity check
    if rule == ListRule.SCC:
        return f.scc and _valid_at(f, when)
    if f.scc or not _valid_at(f, when):
        return False
    if rule == ListRule.FULL:
        return True
    if not f.opt_in:  # every other list is opt-in
        return False
    if rule == ListRule.PRODUCTION:
        return _production(f) and f.target_list == TargetList.PRODUCTION
    if rule == ListRule.RESEARCH:
        return f.id not in on_production and _research_level(f)
    if rule == ListRule.IO500:
        return True
    raise ValueError(f"list rule {rule!r} has no membership rule")


def keep_for(rule: str, on_production: set[int]) -> Keep:
    """What every entry of a list of this rule must pass (the 10-node subset too)."""
    if rule == ListRule.PRODUCTION:
        return _production
    if rule == ListRule.RESEARCH:
        return lambda f: f.id not in on_production
    return _anything


def carry_keep(rule: str, ten_node: bool, on_production: set[int]) -> Keep:
    """What an entry of the previous list of a type must pass to be carried onto this
    release's list of it, besides the validity window (``ReleaseBuilder.carried``; a
    10-node list then applies ``keep_for`` to its whole pool). The IO500 10-node list's
    published legacy entries are re-checked by ``_opted`` only (``ten_node_pool``)."""
    if ten_node:
        return lambda f: f.opt_in and _ten_node(f)
    if rule == ListRule.PRODUCTION:
        return lambda f: f.opt_in and _production(f)
    if rule == ListRule.RESEARCH:
        return lambda f: f.opt_in and f.id not in on_production
    if rule == ListRule.IO500:
        return _opted
    if rule == ListRule.FULL:
        return _anything
    raise ValueError(f"list rule {rule!r} carries nothing by this rule")


def on_ten_nodes(f: Facts) -> bool:
    """Whether a run is 10-node list material (exactly 10 client nodes, not opted out)."""
    return _ten_node(f)


def admits_new_ten_node(rule: str, f: Facts, when: date, on_production: set[int]) -> bool:
    """Whether a run of the release itself enters the 10-node pool of ``rule``: the any-size
    pool's runs on exactly 10 client nodes that pass the rule's keep
    (``ReleaseBuilder.ten_node_pool``)."""
    return (
        admits_new(rule, f, when, on_production)
        and _ten_node(f)
        and keep_for(rule, on_production)(f)
    )


class ReleaseBuilder:
    """Proposes every list of one release from the stored (or proposed) previous lists."""

    def __init__(
        self,
        release: Release,
        facts: dict[int, Facts],
        previous: dict[str, list[Candidate]],
        pins: dict[str, dict[tuple[str, int], int]],
        specs: list[ListSpec],
    ):
        self.release_id: int = release.pk
        self.when = release.release_date
        self.facts = facts
        self.previous = previous
        self.pins = pins
        self.specs = specs
        self.new = [f for f in facts.values() if f.release_id == self.release_id]
        self.historical = next((s.slug for s in specs if s.rule == ListRule.HISTORICAL), None)
        self.on_production: set[int] = set()

    # --- the parts every rule is made of

    def carried(
        self, slug: str | None, keep: Keep, keep_listed: Keep | None = None
    ) -> list[Candidate]:
        """Entries of the previous list of this type (``keep_listed`` re-checks them, default
        ``keep``), or, for a new type, the previous Historical entries that pass ``keep``."""
        source = self.previous.get(slug) if slug is not None else None
        if source is None:  # a new list type: seed from the previous Historical list
            source = self.previous.get(self.historical or "", [])
        elif keep_listed is not None:
            keep = keep_listed
        facts = self.facts
        return [
            _carry(c, f.display)
            for c in source
            if (f := facts.get(c.submission_id)) is not None and in_window(f, self.when) and keep(f)
        ]

    def new_admitted(self, rule: str) -> list[Candidate]:
        """The release's own runs that enter the any-size pool of ``rule``."""
        return [fresh(f) for f in self.new if admits_new(rule, f, self.when, self.on_production)]

    # --- the rules: who is on the any-size list of each rule

    def _not_on_production(self, f: Facts) -> bool:
        return f.id not in self.on_production

    def keep(self, rule: str) -> Keep:
        """What every entry of a list of this rule must pass (the 10-node subset too)."""
        return keep_for(rule, self.on_production)

    def any_size_pool(self, rule: str, slug: str | None) -> list[Candidate]:
        if rule == ListRule.HISTORICAL:
            # Every run ever accepted stays (no window re-check), SCC runs have their own list.
            source = self.previous.get(slug or "", [])
            facts = self.facts
            carried = [
                _carry(c, f.display)
                for c in source
                if (f := facts.get(c.submission_id)) is not None
            ]
            return _union(carried, self.new_admitted(rule))
        if rule == ListRule.SCC:  # the release's own competition runs, nothing carried
            return self.new_admitted(rule)
        if rule in (ListRule.PRODUCTION, ListRule.IO500, ListRule.FULL):
            return _union(
                self.carried(slug, carry_keep(rule, False, self.on_production)),
                self.new_admitted(rule),
            )
        if rule == ListRule.RESEARCH:
            pool = _union(
                self.carried(slug, carry_keep(rule, False, self.on_production)),
                self.new_admitted(rule),
            )
            return [c for c in pool if self._not_on_production(self.facts[c.submission_id])]
        raise ValueError(f"list rule {rule!r} has no membership rule")

    def ten_node_pool(self, spec: ListSpec, any_size: list[Candidate]) -> list[Candidate]:
        """The any-size pool's runs on exactly 10 client nodes, plus the list's own carry."""
        # Published legacy 10-node entries stay: the committee judged their node count.
        listed = _opted if spec.rule == ListRule.IO500 else None
        pool = _union(
            [c for c in any_size if _ten_node(self.facts[c.submission_id])],
            self.carried(spec.slug, carry_keep(spec.rule, True, self.on_production), listed),
        )
        keep = self.keep(spec.rule)
        return [c for c in pool if keep(self.facts[c.submission_id])]

    def members(self, spec: ListSpec, pool: list[Candidate]) -> Members:
        if spec.award:  # award lists hold one entry per storage system (LEADERBOARD-RULES §3)
            return Members(*deduplicate(pool, self.facts, self.pins.get(spec.slug, {})))
        return Members(pool)

    def ranked(self, spec: ListSpec, members: Members) -> list[RankedEntry]:
        entries = rank(members.candidates)
        for entry in entries:
            entry.displaced = members.displaced.get(entry.candidate.submission_id, [])
            entry.pinned = entry.candidate.submission_id in members.pinned
        if spec.award:
            mark_awards(entries, self.release_id, self.facts, spec.ten_node)
        return entries

    def memberships(self) -> dict[ListSpec, Members]:
        """Who is on every list type in ``specs``, in the types' order; ranking them is
        ``ranked`` (an update ranks only the lists it writes)."""
        lists: dict[ListSpec, Members] = {}
        for rule in RULE_ORDER:
            specs = [s for s in self.specs if s.rule == rule]
            if not specs:
                continue
            whole = next((s for s in specs if not s.ten_node), None)
            pool = self.any_size_pool(rule, whole.slug if whole else None)
            if rule == ListRule.SCC and not pool:
                continue  # a release without a competition has no SCC list
            if whole is not None:
                lists[whole] = self.members(whole, pool)
            if rule == ListRule.PRODUCTION and whole is not None:
                self.on_production = {c.submission_id for c in lists[whole].candidates}
            for spec in specs:
                if spec.ten_node:
                    lists[spec] = self.members(spec, self.ten_node_pool(spec, pool))
        return dict(sorted(lists.items(), key=lambda item: (item[0].order, item[0].slug)))

    def propose(self) -> dict[str, list[RankedEntry]]:
        """The ranked entries of every list type in ``specs``, by slug, in the types' order."""
        return {spec.slug: self.ranked(spec, m) for spec, m in self.memberships().items()}


def empty_reason(spec: ListSpec) -> str:
    """Why a list of this type can be empty, shown on its page instead of a bare table."""
    size = "exactly 10 client nodes and " if spec.ten_node else ""
    if spec.rule == ListRule.PRODUCTION:
        return (
            f"No submission qualifies yet: Production needs {size}a committee verdict of "
            "Fully Reproducible on a production system with no single point of failure, and "
            "the submitter's opt-in to the Production list. Runs imported from the IO500 "
            "archive carry no questionnaire, so the IO500 rules rank them on Research."
        )
    if spec.rule == ListRule.RESEARCH:
        size = " with exactly 10 client nodes" if spec.ten_node else ""
        return (
            f"No submission qualifies yet: Research holds opted-in runs{size} rated at least "
            "Proprietary, and imported IO500 runs without questionnaire."
        )
    return "No accepted submission qualifies for this list yet."
