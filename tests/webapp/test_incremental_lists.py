"""The incremental list builder: accepting a submission writes only the lists it
concerns, and what it stores is exactly what a full rebuild stores.

"Written" is measured on the rows: a rewritten list gets new rows for changed entries and
new placings for moved ones (``persistence.rewrite_entries``), so a list that was not written
keeps every row's id and placing; the builder's report names the lists it created or
rewrote. Equality with a full rebuild is checked twice: a ``build_lists()`` afterwards finds
nothing to change, and every stored value (not just the ids) is the same before and after
that rebuild.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from .test_list_index import assert_index_exact
from .test_rankings import World

pytestmark = pytest.mark.django_db

EXCLUDED = {"id"}
# A list's order without its keys (rankings.maintenance.list_order): an incremental write keeps the
# other rows' keys where a fresh build spaces them evenly.
KEYS = {"id", "ranked_list_id", "position"}


@pytest.fixture
def world() -> World:
    return World()


def snapshot(excluded: set[str] = EXCLUDED) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """Every stored entry value, by (release, list type), in list order."""
    from rankings.models import ListEntry

    fields = [f.attname for f in ListEntry._meta.concrete_fields if f.attname not in excluded]
    lists: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for row in ListEntry.objects.order_by("ranked_list_id", "position").values_list(
        "ranked_list__release__acronym", "ranked_list__list_type__slug", *fields
    ):
        lists.setdefault((row[0], row[1]), []).append(tuple(map(_plain, row[2:])))
    return lists


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


Rows = dict[tuple[str, str], set[tuple[int, ...]]]


def entry_ids() -> Rows:
    """Each list's rows as (id, position, ranks)."""
    from rankings.models import ListEntry

    ids: Rows = {}
    for release, slug, *row in ListEntry.objects.values_list(
        "ranked_list__release__acronym",
        "ranked_list__list_type__slug",
        "id",
        "position",
        "rank",
        "bw_rank",
        "md_rank",
    ):
        ids.setdefault((release, slug), set()).add(tuple(row))
    return ids


def written(before: Rows) -> set[str]:
    """Lists whose rows were replaced (or created) since ``before``."""
    after = entry_ids()
    return {f"{r}/{s}" for (r, s), ids in after.items() if before.get((r, s)) != ids}


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The stored lists the builder reads back (to carry them, or to compare a proposal)."""
    from rankings.maintenance import builder, loading, persistence

    names: list[str] = []

    def counting(ranked_list: Any) -> Any:
        names.append(f"{ranked_list.release.acronym}/{ranked_list.list_type.slug}")
        return loading.stored_entries(ranked_list)

    def counting_candidates(ranked_list: Any) -> Any:
        names.append(f"{ranked_list.release.acronym}/{ranked_list.list_type.slug}")
        return loading.stored_candidates(ranked_list)

    monkeypatch.setattr(builder, "stored_entries", counting)
    monkeypatch.setattr(builder, "stored_candidates", counting_candidates)
    monkeypatch.setattr(persistence, "stored_entries", counting)
    return names


@pytest.fixture
def ranked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lists the builder ranked (an update decides membership first, then ranks only
    the lists it writes)."""
    from rankings.maintenance.membership import ReleaseBuilder
    from submissions.models import Release

    names: list[str] = []
    ranking = ReleaseBuilder.ranked

    def counting(self: ReleaseBuilder, spec: Any, members: Any) -> Any:
        names.append(f"{Release.objects.get(pk=self.release_id).acronym}/{spec.slug}")
        return ranking(self, spec, members)

    monkeypatch.setattr(ReleaseBuilder, "ranked", counting)
    return names


def statistics() -> list[tuple[Any, ...]]:
    """Every stored list statistic (the trends chart's numbers), in a stable order."""
    from rankings.models import ListStatistic

    fields = [f.attname for f in ListStatistic._meta.concrete_fields if f.attname != "id"]
    return sorted(ListStatistic.objects.values_list(*fields), key=repr)


def assert_equals_full_rebuild() -> None:
    from rankings.maintenance.builder import build_lists
    from rankings.maintenance.list_statistics import store_statistics
    from rankings.models import RankedList

    stored = snapshot()
    report = build_lists()
    assert report.created == [] and report.rewritten == [] and report.stale == []
    assert snapshot() == stored
    # The statistics written from the ranking in hand equal those of the stored rows.
    kept = statistics()
    for ranked_list in RankedList.objects.all():
        store_statistics(ranked_list)
    assert statistics() == kept
    # The lists' stored search texts and filter choices are the entries' (list_index).
    assert_index_exact()
    assert_keys_distinct()
    # A build from nothing stores the same lists, in the same order, with the same values.
    ordered = snapshot(KEYS)
    RankedList.objects.all().delete()
    build_lists()
    assert snapshot(KEYS) == ordered
    assert_index_exact()


def assert_keys_distinct() -> None:
    """No two entries of a list share a list-order key (their order would be undefined)."""
    from django.db.models import Count

    from rankings.models import ListEntry

    assert not (
        ListEntry.objects.values("ranked_list_id", "position")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .exists()
    )


@pytest.fixture
def releases(world: World) -> dict[str, Any]:
    """Two legacy releases and three of the current era (Production/Research lists), with
    runs on every kind of list, built once with the full builder as on 2023-01-01: the
    legacy lists are published (locked), the current era's are drafts."""
    from rankings.maintenance.builder import build_lists

    days = {
        "SC21": date(2021, 11, 16),
        "ISC22": date(2022, 5, 31),
        "ISC23": date(2023, 5, 23),
        "SC23": date(2023, 11, 14),
        "ISC24": date(2024, 5, 14),
    }
    made = {acronym: world.release(acronym, day) for acronym, day in days.items()}
    for n, release in enumerate(made.values()):
        world.submission(release, 10.0 + n, storage=world.storage(f"fs-{n}-a"), nodes=10)
        world.submission(release, 20.0 + n, storage=world.storage(f"fs-{n}-b"), level="proprietary")
        world.submission(
            release,
            30.0 + n,
            storage=world.storage(f"fs-{n}-c"),
            production=True,
            target="production",
            level="fully_reproducible",
        )
    build_lists(today=date(2023, 1, 1))
    return made


def test_a_new_run_in_the_newest_release_writes_only_that_release_s_lists(
    world: World, releases: dict[str, Any], loaded: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    before = entry_ids()
    sub = world.submission(
        releases["ISC24"], 25.0, storage=world.storage("new-fs"), level="proprietary", nodes=10
    )
    report = update_lists([sub.pk])
    # Research-rated, 10 client nodes: Historical, Full, Research and 10-node Research;
    # not Production (no verdict), not SCC, and nothing of an earlier release.
    expected = {
        "ISC24/historical",
        "ISC24/full",
        "ISC24/research",
        "ISC24/ten-node-research",
    }
    assert set(report.rewritten) == expected and report.created == []
    assert written(before) == expected
    assert set(report.unchanged) == {"ISC24/production", "ISC24/ten-node-production"}
    # A fresh run of the newest release is placed by itself (rankings.maintenance.placing): no list
    # is read back whole, neither the previous release's to carry nor the ones it joins.
    assert loaded == []
    assert_equals_full_rebuild()


def test_a_run_of_an_older_release_rewrites_the_lists_that_carry_it(
    world: World, releases: dict[str, Any], ranked: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    before = entry_ids()
    sub = world.submission(releases["SC23"], 50.0, storage=world.storage("late-fs"), nodes=16)
    report = update_lists([sub.pk])
    # A run without questionnaire of the current era: Historical and Full (carried to ISC24);
    # it is not Research (below Proprietary), so the Research lists are not touched.
    expected = {"SC23/historical", "SC23/full", "ISC24/historical", "ISC24/full"}
    assert set(report.rewritten) == expected
    assert written(before) == expected
    # Only those were ranked: SC23's other lists were carried into ISC24 as unranked members,
    # and ISC24's proposals from them equal what is stored.
    assert sorted(ranked) == sorted(expected)
    assert "ISC24/research" in report.unchanged
    assert_equals_full_rebuild()


def test_a_lower_run_of_a_listed_storage_system_rewrites_the_list_it_is_displaced_from(
    world: World, releases: dict[str, Any]
) -> None:
    """Not on the de-duplicated list, yet it changes it: the winner records what it
    displaced (LEADERBOARD-RULES §3)."""
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry
    from submissions.models import StorageSystem

    shared = StorageSystem.objects.get(name="fs-4-b")
    before = entry_ids()
    sub = world.submission(releases["ISC24"], 1.0, storage=shared, level="proprietary")
    report = update_lists([sub.pk])
    assert set(report.rewritten) == {"ISC24/historical", "ISC24/full", "ISC24/research"}
    # Research gets no row for it: the kept entry's row records it, in place.
    assert written(before) == {"ISC24/historical", "ISC24/full"}
    winner = ListEntry.objects.get(
        ranked_list__release=releases["ISC24"],
        ranked_list__list_type__slug="research",
        submission__storage_system=shared,
    )
    assert winner.displaced == [sub.pk]
    assert_equals_full_rebuild()


def test_a_withdrawn_run_leaves_its_lists(world: World, releases: dict[str, Any]) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry
    from submissions.models import Submission

    sub = Submission.objects.get(storage_system__name="fs-4-c")
    assert ListEntry.objects.filter(submission=sub).exists()
    Submission.objects.filter(pk=sub.pk).update(status="rejected")
    report = update_lists([sub.pk])
    assert not ListEntry.objects.filter(submission=sub).exists()
    assert {name.split("/")[0] for name in report.rewritten} == {"ISC24"}
    assert_equals_full_rebuild()


def test_nothing_to_update(world: World, releases: dict[str, Any]) -> None:
    from rankings.maintenance.builder import update_lists

    before = entry_ids()
    assert update_lists([]).lines()[0].startswith("created 0, rewritten 0")
    assert update_lists([10**9]).rewritten == []
    assert written(before) == set()


def test_the_command_updates_incrementally(world: World, releases: dict[str, Any]) -> None:
    from io import StringIO

    from django.core.management import CommandError, call_command

    sub = world.submission(releases["ISC24"], 99.0, storage=world.storage("cli-fs"))
    out = StringIO()
    call_command("build_lists", submission=[sub.pk], stdout=out)
    assert out.getvalue().startswith("created 0, rewritten 2, unchanged 4")
    with pytest.raises(CommandError, match="--submission"):
        call_command("build_lists", submission=[sub.pk], release="ISC24")
    assert_equals_full_rebuild()


def test_a_withdrawn_run_of_an_old_release_leaves_every_later_list(
    world: World, releases: dict[str, Any]
) -> None:
    """The ripple forward: its release's lists and every later list that carried it."""
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry
    from submissions.models import Submission

    sub = Submission.objects.get(storage_system__name="fs-2-b")  # ISC23, Research-rated
    carried_by = set(
        ListEntry.objects.filter(submission=sub).values_list("ranked_list__release__acronym")
    )
    assert carried_by == {("ISC23",), ("SC23",), ("ISC24",)}
    Submission.objects.filter(pk=sub.pk).update(status="withdrawn")
    report = update_lists([sub.pk])
    assert not ListEntry.objects.filter(submission=sub).exists()
    assert {name.split("/")[0] for name in report.rewritten} == {"ISC23", "SC23", "ISC24"}
    assert_equals_full_rebuild()


def test_a_corrected_score_ripples_through_the_carried_entries(
    world: World, releases: dict[str, Any]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry
    from submissions.models import Submission

    sub = Submission.objects.get(storage_system__name="fs-2-a")  # ISC23, 10 client nodes
    Submission.objects.filter(pk=sub.pk).update(score_total=99.0, score_bw=80.0, score_md=90.0)
    update_lists([sub.pk])
    latest = ListEntry.objects.get(
        submission=sub,
        ranked_list__release=releases["ISC24"],
        ranked_list__list_type__slug="historical",
    )
    assert (latest.score, latest.bw, latest.md, latest.rank) == (99.0, 80.0, 90.0, 1)
    assert latest.ranked_list.entries.order_by("position").first() == latest
    assert_equals_full_rebuild()


def test_a_run_moved_to_a_later_release_leaves_the_earlier_one(
    world: World, releases: dict[str, Any]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry
    from submissions.models import Submission

    sub = Submission.objects.get(storage_system__name="fs-3-b")  # SC23
    Submission.objects.filter(pk=sub.pk).update(release=releases["ISC24"])
    update_lists([sub.pk])
    assert set(
        ListEntry.objects.filter(submission=sub).values_list(
            "ranked_list__release__acronym", flat=True
        )
    ) == {"ISC24"}
    assert_equals_full_rebuild()


def test_updating_twice_writes_nothing_the_second_time(
    world: World, releases: dict[str, Any]
) -> None:
    """A duplicate task message (acks_late, retries) is harmless."""
    from rankings.maintenance.builder import update_lists

    sub = world.submission(releases["SC23"], 42.0, storage=world.storage("twice-fs"))
    assert update_lists([sub.pk]).rewritten
    before = entry_ids()
    again = update_lists([sub.pk])
    assert again.rewritten == [] and again.created == []
    assert written(before) == set()
