"""The list builder (LEADERBOARD-RULES §2, §3, §8): for every release in date order and
every list type of its era, propose the entries and write them.

The work is split along its seams:
* ``loading``: the accepted submissions (``Facts``), pins and stored lists, from the ORM;
* ``membership``: who is on which list, from the ``ListType`` rows' flags (pure);
* ``ranking``: competition ranks, one entry per storage system, awards (pure);
* ``persistence``: create, rewrite or correct the stored lists (never silently a locked one).

The next release always carries over what is stored, so committee corrections survive.

IO500's history (SC17-ISC21) is not rebuilt: a release holding lists the website published
(``ListOrigin.IO500_WEBSITE``, written by ``io500archive.published``) keeps them exactly, and the
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

``update_lists`` is the incremental form for newly accepted (or re-scored, or withdrawn)
submissions: it starts at their earliest release from the lists stored before it, and writes
only the lists those submissions are or were on (or displaced an entry of); every other list
keeps its rows untouched. It relies on the stored lists being what ``build_lists`` wrote, so
changes that are not about submissions (pins, storage-system merges, new list types,
corrections) still go through ``build_lists``. It reads the carried lists' frozen numbers
only (``stored_candidates``) and the phase values of the releases it writes only, decides
each list's members before ranking and ranks only the lists it writes, and a rewritten list
changes only its differing rows (``persistence.rewrite_entries``). An
acceptance runs it from a Celery task (``rankings.tasks``); both builders hold the lists'
lock (``list_lock``) while they read and write.

The common acceptance, a run of the newest release on no list yet, does not propose any
list: ``acceptance.place_fresh`` places the run by itself into the stored lists, reading
only the rows around its place (and the release's own entries), and hands every other case
back to the update described above.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.db.models import Q
from django.utils import timezone

from ioscore.results import gc_paused
from rankings.models import ListEntry, ListOrigin, RankedList
from submissions.models import ListRule, ListType, Release, Submission

from .eras import list_types_for
from .list_lock import lists_locked
from .list_statistics import fill_missing, no_longer_accepted, restate
from .loading import load_facts, load_pins, stored_candidates, stored_entries
from .membership import ListSpec, Members, ReleaseBuilder
from .membership import empty_reason as reason_for_spec
from .persistence import BuildReport, apply
from .placing import place_fresh
from .ranking import Candidate

__all__ = ["BuildReport", "build_lists", "empty_reason", "update_lists"]


def empty_reason(list_type: ListType | str) -> str:
    """Why a list of this type can be empty (by row, or by slug for the pages)."""
    if isinstance(list_type, str):
        row = ListType.objects.filter(slug=list_type).first()
        if row is None:
            return reason_for_spec(ListSpec(list_type, ""))
        list_type = row
    return reason_for_spec(ListSpec.of(list_type))


def build_lists(
    release_acronym: str | None = None,
    correction_reason: str | None = None,
    today: date | None = None,
) -> BuildReport:
    """Build (or verify) the lists of every release, or of one release when given."""
    with lists_locked(), gc_paused():
        return _build(release_acronym, correction_reason, today or timezone.now().date())


def _build(release_acronym: str | None, correction_reason: str | None, today: date) -> BuildReport:
    releases = list(Release.objects.order_by("release_date", "id"))
    if release_acronym is not None and not any(r.acronym == release_acronym for r in releases):
        raise ValueError(f"unknown release {release_acronym!r}")
    types = list(ListType.objects.all())
    if releases and not types:
        raise ValueError("no list types (submissions migration 0002 seeds them)")
    by_slug = {t.slug: t for t in types}
    facts = load_facts()
    pins = load_pins()
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
                    slug: stored_candidates(rl)
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
        specs = [ListSpec.of(t) for t in list_types_for(release, types)]
        proposals = ReleaseBuilder(release, facts, previous, pins, specs).propose()
        current: dict[str, list[Candidate]] = {}
        for slug, entries in proposals.items():
            stored = existing.get((release.pk, slug))
            if not write:
                result = stored_entries(stored) if stored is not None else entries
            else:
                result = apply(
                    release, by_slug[slug], stored, entries, correction_reason, today, report
                )
            current[slug] = [e.candidate for e in result]
        previous = {**previous, **current}
        if release_acronym is not None and release.acronym == release_acronym:
            break
    # Lists stored before their trends statistics existed (or written around the builder).
    fill_missing()
    restate(no_longer_accepted())  # however a run left, its numbers leave the statistics
    return report


def update_lists(submission_ids: Iterable[int], today: date | None = None) -> BuildReport:
    """Bring the lists up to date after these submissions were accepted (or changed), writing
    only the lists they concern; the result equals what ``build_lists()`` would store."""
    ids = set(submission_ids)
    with lists_locked(), gc_paused():
        report = _update(ids, today or timezone.now().date())
        restate(ids)  # locked lists keep a withdrawn run's entry, not its statistics
        return report


def _update(ids: set[int], today: date) -> BuildReport:
    placed = place_fresh(ids)  # a fresh acceptance in the newest release, placed by itself
    if placed is not None:
        return placed
    report = BuildReport()
    # Its release now, and every release whose lists hold it (it may have moved release).
    starts = set(Submission.objects.filter(pk__in=ids).values_list("release_id", flat=True))
    starts |= set(
        ListEntry.objects.filter(submission_id__in=ids).values_list(
            "ranked_list__release_id", flat=True
        )
    )
    releases = list(Release.objects.order_by("release_date", "id"))
    first = next((i for i, r in enumerate(releases) if r.pk in starts), None)
    if first is None:
        return report
    types = list(ListType.objects.all())
    by_slug = {t.slug: t for t in types}
    existing = {
        (rl.release_id, rl.list_type.slug): rl
        for rl in RankedList.objects.select_related("list_type")
    }
    published = {rl.release_id for rl in existing.values() if rl.origin == ListOrigin.IO500_WEBSITE}
    # Phases are read only for the releases whose new entries this writes.
    facts = load_facts(phases_of=[r.pk for r in releases[first:]])
    pins = load_pins()
    # What build_lists would carry into the first release: the newest stored list of each type
    # that a release from there on has (a new type starts from Historical).
    needed = {t.slug for r in releases[first:] for t in list_types_for(r, types)}
    needed |= {t.slug for t in types if t.rule == ListRule.HISTORICAL}
    latest: dict[str, RankedList] = {}
    for release in releases[:first]:
        for (release_id, slug), rl in existing.items():
            if release_id == release.pk and slug in needed:
                latest[slug] = rl
    previous = {slug: stored_candidates(rl) for slug, rl in latest.items()}
    changed_before: set[str] = set()  # the lists of the previous release this changed
    for release in releases[first:]:
        stored_here = {slug: rl for (rid, slug), rl in existing.items() if rid == release.pk}
        if release.pk in published:  # carried as the website published it, as build_lists does
            previous = {
                **previous,
                **{slug: stored_candidates(rl) for slug, rl in stored_here.items()},
            }
            changed_before = set()
            continue
        specs = [ListSpec.of(t) for t in list_types_for(release, types)]
        builder = ReleaseBuilder(release, facts, previous, pins, specs)
        current: dict[str, list[Candidate]] = {}
        changed: set[str] = set()
        for spec, members in builder.memberships().items():
            stored = stored_here.get(spec.slug)
            # Research leaves out who is on Production: a changed Production list (or the
            # Research list carried from) can change it without any of ids on it.
            unsettled = spec.rule == ListRule.RESEARCH and (
                spec.slug in changed_before
                or any(s.rule == ListRule.PRODUCTION and s.slug in changed for s in specs)
            )
            if stored is not None and not _concerns(members, stored, ids, unsettled):
                # Not on it before or after: the stored rows are this very proposal, so it is
                # not even ranked (the next release carries the same members in any order).
                report.unchanged.append(f"{release.acronym}/{spec.slug}")
                current[spec.slug] = members.candidates
                continue
            entries = builder.ranked(spec, members)
            unchanged = len(report.unchanged)
            result = apply(release, by_slug[spec.slug], stored, entries, None, today, report)
            if len(report.unchanged) == unchanged:  # created, rewritten, or stale
                changed.add(spec.slug)
            current[spec.slug] = [e.candidate for e in result]
        previous = {**previous, **current}
        changed_before = changed
    return report


def _concerns(members: Members, stored: RankedList, ids: set[int], unsettled: bool) -> bool:
    """Whether any of ``ids`` is, or was, on this list or displaced one of its entries
    (a de-duplicated list records the runs each entry displaced); for an ``unsettled``
    list (a Research list after Production changed) also whether its members changed at
    all: a run of ``ids`` that takes a Production entry's place sends that entry to
    Research (or among the runs a Research entry displaced)."""
    if members.holds_any(ids):
        return True
    if unsettled and _members_differ(members, stored):
        return True
    was_there = Q(submission_id__in=ids)
    if stored.list_type.award:  # only de-duplicated lists record displaced runs
        for sid in ids:
            was_there |= Q(displaced__contains=[sid])
    return stored.entries.filter(was_there).exists()


def _members_differ(members: Members, stored: RankedList) -> bool:
    """Whether the stored list holds other runs, or records other displaced runs, than
    ``members``."""
    proposed = {
        c.submission_id: members.displaced.get(c.submission_id, []) for c in members.candidates
    }
    rows = stored.entries.values_list("submission_id", "displaced")
    return proposed != {sid: list(displaced or []) for sid, displaced in rows}
