"""A list seen under a scoring edition or a visitor's formula: a what-if view, never stored.

The editions and the formula language belong to the results library (``ioscore.results``:
``EDITIONS``, ``parse_formula``, ``rerank``). This module reads what a view needs from the
query string (``Scoring``), scores every entry of a list under it, ranks them against the
official ranks and says why an entry is left unranked (``reranked``). Nothing here writes:
the official rank stays the frozen ``ListEntry.rank``.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any, cast

from django.core.cache import cache
from django.db.models import QuerySet

from ioscore.results import (
    EDITIONS,
    MAX_FORMULA_CHARS,
    RND4K_READ,
    SCORED_PHASES,
    Edition,
    Formula,
    FormulaError,
    formula_values,
    parse_formula,
    rerank,
    variable_name,
)
from submissions.models import PhaseResult

from .models import ListEntry
from .phases import PHASE_FIELDS

OFFICIAL = "official"
FORMULA = "formula"  # the chooser's value for "the formula typed below"
# As long as an anonymous page is cached (page_cache.PAGE_SECONDS), keyed on the list's
# identity, which every change of its rows moves.
RERANKING_SECONDS = 60
_SHOWN_CHARS = 40


@dataclass(frozen=True)
class Scoring:
    """The what-if view a query asks for: an edition other than the official one, or a
    formula. ``error`` is why a typed formula cannot be used (shown as it is; the view is
    then the official list)."""

    edition: Edition | None = None
    formula: Formula | None = None
    formula_text: str = ""
    error: str = ""

    @classmethod
    def from_query(cls, query: Any) -> tuple[Scoring, list[str]]:
        """The view and the parameter errors (an unknown edition) to report."""
        errors: list[str] = []
        slug = (query.get("edition") or "").strip()
        # Kept one character past the limit, so the length refusal still names it.
        text = (query.get("formula") or "").strip()[: MAX_FORMULA_CHARS + 1]
        if slug not in ("", OFFICIAL, FORMULA, *EDITIONS):
            shown = slug if len(slug) <= _SHOWN_CHARS else slug[:_SHOWN_CHARS] + "..."
            errors.append(
                f"parameter 'edition': unknown edition {shown!r}; editions are "
                f"{', '.join([*EDITIONS, FORMULA])}"
            )
            slug = ""
        if text and slug not in ("", OFFICIAL, FORMULA):
            # The chooser sends the box's text with every edition: the edition picked wins.
            errors.append(f"parameter 'formula' ignored: the edition {slug!r} is chosen")
            text = ""
        if text:
            try:
                return cls(formula=parse_formula(text), formula_text=text), errors
            except FormulaError as exc:
                return cls(formula_text=text, error=str(exc)), errors
        if slug == FORMULA:
            return cls(error="the formula is empty"), errors
        if slug in ("", OFFICIAL):
            return cls(), errors
        return cls(edition=EDITIONS[slug]), errors

    @property
    def active(self) -> bool:
        return self.edition is not None or self.formula is not None

    @property
    def edition_param(self) -> str:
        """The chooser's value: an edition's slug, ``formula`` or ``""`` (official)."""
        if self.formula_text or self.error:
            return FORMULA
        return self.edition.slug if self.edition is not None else ""

    @property
    def title(self) -> str:
        if self.edition is not None:
            return self.edition.title
        return f"Your formula: {self.formula_text}" if self.formula is not None else ""

    @property
    def explanation(self) -> str:
        if self.edition is not None:
            return self.edition.explanation
        if self.formula is not None:
            return (
                "Each entry's value of the formula over its phase values (GiB/s, kIOPS) and "
                "scores; highest first."
            )
        return ""

    @property
    def needs_rnd4k(self) -> bool:
        if self.edition is not None:
            return self.edition.slug == "with-rnd4k"
        return self.formula is not None and variable_name(RND4K_READ) in self.formula.variables

    @property
    def key(self) -> str:
        """What the scores depend on (``reranked``'s cache key)."""
        if self.formula is not None:
            return f"{FORMULA}={self.formula.text}"
        return f"edition={self.edition.slug}" if self.edition is not None else ""

    def score(
        self, phases: dict[str, float], bw: float, md: float, total: float
    ) -> tuple[float | None, str]:
        """The entry's score under this view, or None and why it has none."""
        if self.edition is not None:
            value = self.edition.score(phases)
            needed: set[str] = set(SCORED_PHASES)
            if self.edition.slug == "without-find":
                needed.discard("find")
            missing = sorted(needed - phases.keys(), key=_phase_order)
        else:
            assert self.formula is not None
            values = formula_values(phases, bw, md, total)
            value = self.formula.value(values)
            missing = sorted(self.formula.variables - values.keys())
        if value is not None:
            return value, ""
        if missing and not phases:
            return None, "only its published scores exist, no phase values"
        if missing:
            return None, "no value for " + ", ".join(missing)
        if self.edition is not None:
            return None, "a group's geometric mean is zero"
        return None, "the formula has no finite value here (division by zero, log of 0 ...)"


def _phase_order(name: str) -> int:
    return SCORED_PHASES.index(name) if name in SCORED_PHASES else len(SCORED_PHASES)


@dataclass(frozen=True)
class Placing:
    """One entry under a what-if view. ``official_rank`` is its place in the official order
    among the entries the view ranks (its list rank when unranked); ``change`` is that minus
    the view's rank: positive moved up. ``rank`` None: unranked, ``reason`` says why.
    ``rnd4k``: the run's measured ior-rnd4K-easy-read, which no official column carries, so a
    download of the view can recompute an edition that scores it (None: not measured)."""

    entry_id: int
    official_rank: int
    score: float | None
    rank: int | None
    change: int | None
    reason: str = ""
    rnd4k: float | None = None


@dataclass
class Reranking:
    """Every entry of a list under a view: ``order`` ranked first (by the view's rank),
    then the unranked in list order. ``unreproduced``: ranked entries whose list score is
    not what their phase values give under the official formula (a published list's
    rounded or corrected scores), which can move under any view."""

    order: list[Placing]
    unreproduced: int = 0
    by_id: dict[int, Placing] = field(init=False)

    def __post_init__(self) -> None:
        self.by_id = {p.entry_id: p for p in self.order}

    @property
    def moved(self) -> int:
        return sum(1 for p in self.order if p.change)

    @property
    def ranked(self) -> int:
        return sum(1 for p in self.order if p.rank is not None)

    @property
    def unranked(self) -> int:
        return sum(1 for p in self.order if p.rank is None)


def reranked(
    entries: QuerySet[ListEntry], scoring: Scoring, version: list[Any] | None
) -> Reranking:
    """``entries`` (one list's, as the visitor may see them) under ``scoring``. With
    ``version`` (``page_cache.list_identity``) the result is kept as long as an anonymous
    page, so the pages and downloads of one view score the list once."""
    key = None
    if version is not None:
        text = "|".join([*map(str, version), scoring.key])
        key = "whatif:" + hashlib.sha256(text.encode()).hexdigest()
        kept = cache.get(key)
        if kept is not None:
            rows, unreproduced = kept
            return Reranking([Placing(*row) for row in rows], unreproduced)
    reranking = _rerank(entries, scoring)
    if key is not None:
        rows = [
            (p.entry_id, p.official_rank, p.score, p.rank, p.change, p.reason, p.rnd4k)
            for p in reranking.order
        ]
        cache.set(key, (rows, reranking.unreproduced), RERANKING_SECONDS)
    return reranking


def _rerank(entries: QuerySet[ListEntry], scoring: Scoring) -> Reranking:
    rows = list(
        entries.order_by("position").values_list(
            "pk", "submission_id", "rank", "score", "bw", "md", *PHASE_FIELDS
        )
    )
    rnd4k = {
        sid: value
        for sid, value in PhaseResult.objects.filter(
            submission_id__in=entries.values("submission_id"), name=RND4K_READ
        ).values_list("submission_id", "value")
        if value is not None
    }
    values_of: list[tuple[int, int, float | None]] = []
    reasons: dict[object, str] = {}
    rnd4k_of: dict[object, float | None] = {}
    unreproduced = 0
    for pk, sid, rank, total, bw, md, *values in rows:
        phases = {p: v for p, v in zip(SCORED_PHASES, values, strict=True) if v is not None}
        rnd4k_of[pk] = rnd4k.get(sid)
        if scoring.needs_rnd4k and sid in rnd4k:
            phases[RND4K_READ] = rnd4k[sid]
        value, reasons[pk] = scoring.score(phases, bw, md, total)
        values_of.append((pk, rank, value))
        if value is not None and not _reproduced(phases, total):
            unreproduced += 1
    # An entry's official place among the entries this view ranks: an entry the view cannot
    # score (a list-only entry without phase values) moves no other entry.
    ranked_officially = sorted(rank for _, rank, value in values_of if value is not None)
    scored: list[tuple[object, int, float | None]] = [
        (pk, bisect_left(ranked_officially, rank) + 1 if value is not None else rank, value)
        for pk, rank, value in values_of
    ]
    return Reranking(
        [
            Placing(
                cast(int, r.key),
                r.official_rank,
                r.score,
                r.rank,
                r.change,
                reasons[r.key],
                rnd4k_of[r.key],
            )
            for r in rerank(scored)
        ],
        unreproduced,
    )


# How far a list score may be from what its phase values give and still be that score (the
# website printed phase values with two decimals).
REPRODUCED_WITHIN = 0.01


def _reproduced(phases: dict[str, float], total: float) -> bool:
    official = EDITIONS[OFFICIAL].score(phases)
    return official is not None and abs(official - total) <= REPRODUCED_WITHIN * abs(total)
