"""A fresh acceptance placed into the newest release's stored lists: what
``update_lists`` would write, without proposing every list again.

``builder.update_lists`` proposes each list of a release from the previous release's stored
lists and the facts of every submission, then compares; at 100,000 submissions that is most
of a second per list for one new row. When the accepted runs are *fresh* (of the newest
release, on no stored list of any release) the lists ``build_lists`` would now propose
differ from the stored ones, which are what it proposed before, by those runs alone: every
other entry is judged on facts that did not change. So each run is placed by itself, with
the builder's own rules (``membership.admits_new``, ``ranking._order``, ``award_holders``):

* membership: the any-size pool of each rule, the 10-node subset of it; Research leaves out
  the runs kept on Production, the run itself when it is kept there;
* one entry per storage system: on a de-duplicated list the run joins its system's group
  (the kept entry and the runs it displaced, found by the storage system's ids): it takes
  the kept entry's place when it is better or pinned (the group recorded as displaced by
  it), else it is recorded as displaced by the kept entry;
* ranks: the run's are one more than the count of entries above it in each metric, and the
  entries between it and a replaced entry (or below it) move by one, in one UPDATE (the
  only work left that grows with the list, in SQL: the stored ranks of those rows change);
* list order: a key between its neighbours' (``list_order``), found by the score index;
* awards and the trends statistics: from the release's own entries (carried ones hold no
  award and are not in the box), read back; the list's best and count from the stored ones
  (the best read from the list when a replaced entry held it).

A run that takes a kept entry's place on Production sends that entry back to Research:
it enters the Research lists that take it (carried from the previous list of the type, or
as a run of the release), by the same steps.

What it does not place exactly it leaves to the full update: it raises ``Fallback`` inside
a savepoint, so nothing it wrote stays. That is a list to create, a locked list or one
IO500 published, a spot with no list-order key left between its neighbours, a run of an
older release (carried into every later list), a list without stored statistics.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.utils import timezone

from rankings.models import ListEntry, ListOrigin, RankedList
from submissions.models import ListRule, ListType, Release, Submission

from . import list_index, list_order
from .eras import list_types_for
from .list_statistics import EntryValues, store_statistics_changed
from .loading import load_facts, load_pins, rows_of, storage_ids_of, stored_candidate
from .membership import (
    RULE_ORDER,
    ListSpec,
    admits_new,
    admits_new_ten_node,
    carry_keep,
    fresh,
    in_window,
    keep_for,
    on_ten_nodes,
)
from .persistence import BuildReport, entry_rows, entry_values
from .ranking import AWARDS, Candidate, Facts, RankedEntry, award_holders

_TABLE = ListEntry._meta.db_table
AWARD_FLAGS = tuple(flag for _metric, flag in AWARDS)


class Fallback(Exception):
    """A case this path does not place exactly: the full update runs instead."""


def place_fresh(ids: set[int]) -> BuildReport | None:
    """Place these runs if they are fresh acceptances in the newest release; the report as
    ``update_lists`` gives it, or None when the full update has to run."""
    release = Release.objects.order_by("release_date", "id").last()
    if release is None or not ids:
        return None
    if set(Submission.objects.filter(pk__in=ids).values_list("release_id", flat=True)) != {
        release.pk
    }:
        return None  # an older release's run is carried into every later list
    if ListEntry.objects.filter(submission_id__in=ids).exists():
        return None  # re-scored, withdrawn or moved: its old entries change too
    try:
        with transaction.atomic():
            return _place(release, ids)
    except Fallback:
        return None


class _Kept(NamedTuple):
    """The entry a de-duplicated list keeps for a storage system."""

    pk: int
    submission_id: int
    score: float
    submitted_at: datetime
    pinned: bool
    displaced: list[int]


def _place(release: Release, ids: set[int]) -> BuildReport:
    specs = [ListSpec.of(t) for t in list_types_for(release, ListType.objects.all())]
    stored = {
        rl.list_type.slug: rl
        for rl in RankedList.objects.filter(release=release).select_related("list_type")
    }
    if not any(s.rule == ListRule.HISTORICAL and s.slug in stored for s in specs):
        # Fresh means on no list: a run in any pool of the release is on its Historical
        # list, so without one a run could be displaced somewhere unseen.
        raise Fallback
    if any(s.slug not in stored and s.rule != ListRule.SCC for s in specs):
        raise Fallback  # a list type new to the release: the full update builds it
    if any(rl.origin != ListOrigin.BUILT for rl in stored.values()):
        raise Fallback  # lists IO500 published: carried as they are, never built
    facts = load_facts(only=ids)
    pins = load_pins()
    report = BuildReport()
    written: set[str] = set()
    for sid in sorted(facts):
        written |= _place_one(release, specs, stored, facts[sid], pins)
    for spec in specs:
        if spec.slug not in stored:
            continue  # a release without a competition has no SCC list (as build_lists)
        name = f"{release.acronym}/{spec.slug}"
        (report.rewritten if spec.slug in written else report.unchanged).append(name)
    return report


def _place_one(
    release: Release,
    specs: list[ListSpec],
    stored: dict[str, RankedList],
    f: Facts,
    pins: dict[str, dict[tuple[str, int], int]],
) -> set[str]:
    """Place one run on every list of the release that takes it (and the Production entry
    it replaced on the Research lists that take that one back); the slugs written."""
    when = release.release_date
    on_production: set[int] = set()
    returning: dict[str, Entrant] = {}
    written: set[str] = set()
    for rule in RULE_ORDER:
        of_rule = [s for s in specs if s.rule == rule]
        whole = next((s for s in of_rule if not s.ten_node), None)
        if of_rule and whole is None:
            raise Fallback  # a 10-node list without its any-size list: not worth a path
        for spec in of_rule:
            admitted = (
                admits_new_ten_node(rule, f, when, on_production)
                if spec.ten_node
                else admits_new(rule, f, when, on_production)
            )
            entrants = [Entrant(fresh(f), f.storage_key)] if admitted else []
            if spec.slug in returning:
                entrants.append(returning[spec.slug])
            if not entrants:
                continue
            ranked_list = stored.get(spec.slug)
            if ranked_list is None:
                raise Fallback  # the release's first SCC run: the full update creates the list
            if ranked_list.is_locked:
                raise Fallback  # the full update reports it stale (or corrects it)
            for entrant in entrants:
                kept, replaced = _enter(
                    ranked_list, spec, release, entrant, pins.get(spec.slug, {})
                )
                if rule == ListRule.PRODUCTION and not spec.ten_node and kept:
                    on_production = {f.id}
                    if replaced is not None:  # off Production: Research material again
                        returning = _back_to_research(release, specs, replaced, on_production)
            ranked_list.built_at = timezone.now()
            ranked_list.save(update_fields=["built_at"])
            written.add(spec.slug)
    return written


class Entrant(NamedTuple):
    """A run entering a list: its candidate (fresh, or carried with its frozen numbers)
    and its storage system's de-duplication key."""

    candidate: Candidate
    storage_key: tuple[str, int]


def _back_to_research(
    release: Release, specs: list[ListSpec], sid: int, on_production: set[int]
) -> dict[str, Entrant]:
    """The Research lists of the release a run that left Production enters, as
    ``ReleaseBuilder`` would put it there: carried from the previous list of the type, or
    new in the release; on the 10-node list from the any-size pool first."""
    f = load_facts(only=[sid]).get(sid)
    if f is None:
        raise Fallback  # not accepted any more: not a fresh acceptance's doing
    when = release.release_date
    out: dict[str, Entrant] = {}
    any_size: Candidate | None = None
    for spec in sorted((s for s in specs if s.rule == ListRule.RESEARCH), key=lambda s: s.ten_node):
        previous = (
            RankedList.objects.filter(list_type__slug=spec.slug)
            .exclude(release=release)
            .order_by("-release__release_date", "-release_id")
            .first()
        )
        if previous is None:
            raise Fallback  # a type new to the release seeds from Historical
        row = stored_candidate(previous, sid)
        keep = carry_keep(ListRule.RESEARCH, spec.ten_node, on_production)
        carried = None
        if row is not None and in_window(f, when) and keep(f):
            carried = row._replace(display=f.display)
        if not spec.ten_node:
            admitted = f.release_id == release.pk and admits_new(
                ListRule.RESEARCH, f, when, on_production
            )
            candidate = carried or (fresh(f) if admitted else None)
            any_size = candidate
        else:
            candidate = (any_size if on_ten_nodes(f) else None) or carried
            if not keep_for(ListRule.RESEARCH, on_production)(f):
                candidate = None
        if candidate is not None:
            out[spec.slug] = Entrant(candidate, f.storage_key)
    return out


def _enter(
    ranked_list: RankedList,
    spec: ListSpec,
    release: Release,
    entrant: Entrant,
    pins: dict[tuple[str, int], int],
) -> tuple[bool, int | None]:
    """Put the run on the list (in its system's kept entry's place when it is better or
    pinned), or among the runs that entry displaced; whether it is kept, and the run of
    the entry it replaced."""
    c = entrant.candidate
    pin = pins.get(entrant.storage_key)
    kept = _kept_entry(ranked_list, entrant.storage_key) if spec.award else None
    if kept is None:
        _insert(ranked_list, spec, release, c, pin == c.submission_id)
        return True, None
    group = {kept.submission_id, *kept.displaced}
    if kept.pinned != (pin == kept.submission_id) or (pin in group and not kept.pinned):
        raise Fallback  # the pins changed since the list was built
    order = (-c.score, c.submitted_at, c.submission_id)
    beats = order < (-kept.score, kept.submitted_at, kept.submission_id)
    if pin == c.submission_id or (beats and not kept.pinned):
        _insert(ranked_list, spec, release, c, pin == c.submission_id, replacing=kept)
        return True, kept.submission_id
    displaced = sorted([*kept.displaced, c.submission_id])
    ListEntry.objects.filter(pk=kept.pk).update(displaced=displaced)
    return False, None


def _kept_entry(ranked_list: RankedList, storage_key: tuple[str, int]) -> _Kept | None:
    """The entry the list keeps for a storage system (a run without one is its own
    group)."""
    systems = storage_ids_of(storage_key)
    if not systems:
        return None
    rows = list(
        ranked_list.entries.filter(submission__storage_system_id__in=systems).values_list(
            "pk", "submission_id", "score", "submitted_at", "pinned", "displaced"
        )
    )
    if len(rows) > 1:
        raise Fallback  # two entries of one system: not a list build_lists wrote
    if not rows:
        return None
    pk, sid, score, submitted_at, pinned, displaced = rows[0]
    return _Kept(pk, sid, score, submitted_at, pinned, list(displaced or []))


def _insert(
    ranked_list: RankedList,
    spec: ListSpec,
    release: Release,
    candidate: Candidate,
    pinned: bool,
    replacing: _Kept | None = None,
) -> None:
    """A new row for the run at its place (the kept entry it replaces deleted, the runs of
    their group recorded as displaced by it), the rows between moved by a rank, the awards,
    statistics and list index brought along."""
    removed = _delete(replacing) if replacing is not None else None
    key = _key(ranked_list, candidate)
    ranks = _ranks_of(ranked_list, candidate)
    _shift_ranks(ranked_list, candidate, None if removed is None else removed.values)
    displaced = [] if replacing is None else sorted([replacing.submission_id, *replacing.displaced])
    entry = RankedEntry(candidate, 0, *ranks, pinned=pinned, displaced=displaced)
    ListEntry.objects.bulk_create(entry_rows(ranked_list, [entry], [key]))
    new = _release_entries(ranked_list, release)
    if spec.award:
        _mark_awards(new, spec.ten_node)
    gone = [] if removed is None else [removed.values]
    if not store_statistics_changed(ranked_list, new, entry_values([entry]), gone):
        raise Fallback
    list_index.update(
        ranked_list.pk, [candidate.submission_id], [] if removed is None else [removed.for_index]
    )


class _Deleted(NamedTuple):
    """A deleted row: what the list index and the statistics read of it."""

    for_index: list_index.Removed
    values: Any  # its ``list_statistics.EntryValues``


def _delete(kept: _Kept) -> _Deleted:
    read = ", ".join(EntryValues._fields)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {_TABLE} WHERE id = %s RETURNING {list_index.REMOVED_COLUMNS}, {read}",
            [kept.pk],
        )
        row = cursor.fetchone()
    width = len(list_index.Removed._fields)
    return _Deleted(list_index.Removed._make(row[:width]), EntryValues._make(row[width:]))


# Entries before a run in list order (``ranking._order``: score down, then earlier
# submission, then id); the redundant score bound lets the score index start at the run.
_BEFORE = "(score > %s OR (score = %s AND (submitted_at, submission_id) < (%s, %s)))"
_AFTER = "(score < %s OR (score = %s AND (submitted_at, submission_id) > (%s, %s)))"


def _key(ranked_list: RankedList, c: Candidate) -> int:
    """The run's list-order key, between its neighbours' (``list_order.insert_keys``)."""
    order: list[Any] = [c.score, c.score, c.submitted_at, c.submission_id]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT position FROM {_TABLE} WHERE ranked_list_id = %s AND score >= %s "
            f"AND {_BEFORE} ORDER BY score, submitted_at DESC, submission_id DESC LIMIT 1",
            [ranked_list.pk, c.score, *order],
        )
        before = cursor.fetchone()
        cursor.execute(
            f"SELECT position FROM {_TABLE} WHERE ranked_list_id = %s AND score <= %s "
            f"AND {_AFTER} ORDER BY score DESC, submitted_at, submission_id LIMIT 1",
            [ranked_list.pk, c.score, *order],
        )
        after = cursor.fetchone()
    low = before[0] if before else 0
    if after is None:
        return low + list_order.GAP
    step = (after[0] - low) // 2
    if step < 1:
        raise Fallback  # no key left between them: the full update renumbers the list
    return low + step


def _ranks_of(ranked_list: RankedList, c: Candidate) -> tuple[int, int, int]:
    """The run's competition ranks: one more than the entries above it in each metric."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM {_TABLE} WHERE ranked_list_id = %s AND score > %s), "
            f"(SELECT count(*) FROM {_TABLE} WHERE ranked_list_id = %s AND bw > %s), "
            f"(SELECT count(*) FROM {_TABLE} WHERE ranked_list_id = %s AND md > %s)",
            [ranked_list.pk, c.score, ranked_list.pk, c.bw, ranked_list.pk, c.md],
        )
        above = cursor.fetchone()
    return above[0] + 1, above[1] + 1, above[2] + 1


def _shift_ranks(ranked_list: RankedList, added: Candidate, removed: Any | None) -> None:
    """Every entry below the added run in a metric one rank down in it, and below the
    removed one (already deleted) one rank up: only the rows whose ranks change (ranks are
    in no index, so PostgreSQL updates them in place)."""
    metrics = ("score", "bw", "md")
    sets, changes, params = [], [], []
    for metric, rank in zip(metrics, ("rank", "bw_rank", "md_rank"), strict=True):
        value = getattr(added, metric)
        if removed is None:
            sets.append(f"{rank} = {rank} + ({metric} < %s)::int")
            changes.append(f"{metric} < %s")
            params.append([value])
        else:
            gone = getattr(removed, metric)
            sets.append(f"{rank} = {rank} + ({metric} < %s)::int - ({metric} < %s)::int")
            changes.append(f"({metric} < %s) <> ({metric} < %s)")
            params.append([value, gone])
    set_params = [v for pair in params for v in pair]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_TABLE} SET {', '.join(sets)} WHERE ranked_list_id = %s "
            f"AND ({' OR '.join(changes)})",
            [*set_params, ranked_list.pk, *set_params],
        )


_RELEASE_COLUMNS = (*EntryValues._fields, "pk", "client_nodes", *AWARD_FLAGS)
ReleaseEntry = NamedTuple(  # type: ignore[misc]
    "ReleaseEntry", [(name, Any) for name in _RELEASE_COLUMNS]
)


def _release_entries(ranked_list: RankedList, release: Release) -> list[Any]:
    """The list's entries new in its release (by the origin-release index), as stored now."""
    rows = rows_of(
        ranked_list.entries.filter(origin_release_id=release.pk).values_list(*_RELEASE_COLUMNS)
    )
    return [ReleaseEntry._make(row) for row in rows]


def _mark_awards(new: list[Any], ten_node_list: bool) -> None:
    """``ranking.award_holders`` over the release's entries, writing the flags that changed."""
    holders = award_holders(
        ((e.submission_id, e.client_nodes, (e.score, e.bw, e.md)) for e in new), ten_node_list
    )
    for entry in new:
        flags = {flag: entry.submission_id in held for flag, held in holders.items()}
        if any(getattr(entry, flag) != value for flag, value in flags.items()):
            ListEntry.objects.filter(pk=entry.pk).update(**flags)
