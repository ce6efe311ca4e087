"""A fresh acceptance placed by itself (``rankings.maintenance.placing``): each case checks which
path placed the run (the placing path, or the full update it falls back to) and that a
full ``build_lists()`` afterwards changes nothing, the same lists built from nothing are
the same rows, and the statistics and list index are the stored rows' own
(``assert_equals_full_rebuild``).

The lists are those of ``test_incremental_lists.releases``: ISC24 is the newest release,
its lists drafts; its runs are fs-4-a (10.0, 10 nodes, no questionnaire), fs-4-b (24.0,
Proprietary: Research) and fs-4-c (34.0, Fully Reproducible on Production).
"""

from __future__ import annotations

from typing import Any

import pytest

from .test_incremental_lists import assert_equals_full_rebuild, releases
from .test_rankings import World

pytestmark = pytest.mark.django_db

__all__ = ["releases"]  # the fixture, used by name


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Which path each ``update_lists`` took: "placed" or "full"."""
    from rankings.maintenance import builder
    from rankings.maintenance import placing as acceptance

    taken: list[str] = []

    def spy(ids: set[int]) -> Any:
        report = acceptance.place_fresh(ids)
        taken.append("full" if report is None else "placed")
        return report

    monkeypatch.setattr(builder, "place_fresh", spy)
    return taken


def on(release: Any, slug: str) -> list[tuple[int, int, int, int, list[int], bool]]:
    """A list's (submission, rank, bw rank, md rank, displaced, pinned) in list order."""
    from rankings.models import ListEntry

    return [
        (sid, rank, bw_rank, md_rank, list(displaced), pinned)
        for sid, rank, bw_rank, md_rank, displaced, pinned in ListEntry.objects.filter(
            ranked_list__release=release, ranked_list__list_type__slug=slug
        )
        .order_by("position")
        .values_list("submission_id", "rank", "bw_rank", "md_rank", "displaced", "pinned")
    ]


def ids_on(release: Any, slug: str) -> list[int]:
    return [row[0] for row in on(release, slug)]


def storage_of(name: str) -> Any:
    from submissions.models import StorageSystem

    return StorageSystem.objects.get(name=name)


def listed(release: Any, name: str) -> Any:
    from submissions.models import Submission

    return Submission.objects.get(release=release, storage_system__name=name)


def test_a_new_run_is_placed_with_ranks_ties_and_awards(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry

    isc24 = releases["ISC24"]
    # The score of fs-4-b exactly (a tie: it shares the rank, the earlier run comes first),
    # the best BW and MD of the release's Research runs (the awards move to it).
    sub = world.submission(
        isc24, 24.0, bw=500.0, md=500.0, storage=world.storage("new-fs"), level="proprietary"
    )
    report = update_lists([sub.pk])
    assert paths == ["placed"]
    assert set(report.rewritten) == {"ISC24/historical", "ISC24/full", "ISC24/research"}
    research = on(isc24, "research")
    at = ids_on(isc24, "research").index(sub.pk)
    tied = listed(isc24, "fs-4-b").pk
    assert research[at - 1][0] == tied and research[at - 1][1] == research[at][1]
    assert research[at][2:4] == (1, 1)
    awards = ListEntry.objects.get(
        ranked_list__release=isc24, ranked_list__list_type__slug="research", submission=sub
    )
    assert (awards.award_bw, awards.award_md) == (True, True)
    assert_equals_full_rebuild()


def test_a_lower_run_of_a_kept_system_is_recorded_as_displaced(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    kept = listed(isc24, "fs-4-b").pk
    sub = world.submission(isc24, 1.0, storage=storage_of("fs-4-b"), level="proprietary")
    update_lists([sub.pk])
    assert paths == ["placed"]
    assert sub.pk not in ids_on(isc24, "research")
    assert [row[4] for row in on(isc24, "research") if row[0] == kept] == [[sub.pk]]
    assert_equals_full_rebuild()


def test_a_better_run_takes_its_system_s_place_on_research(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    old = listed(isc24, "fs-4-b").pk
    sub = world.submission(isc24, 30.0, storage=storage_of("fs-4-b"), level="proprietary")
    update_lists([sub.pk])
    assert paths == ["placed"]
    research = ids_on(isc24, "research")
    assert sub.pk in research and old not in research
    assert [row[4] for row in on(isc24, "research") if row[0] == sub.pk] == [[old]]
    assert_equals_full_rebuild()


def test_a_pin_keeps_a_lower_run_and_a_pinned_entry_keeps_its_place(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import StoragePin
    from submissions.models import ListType

    isc24 = releases["ISC24"]
    research = ListType.objects.get(slug="research")
    shared = storage_of("fs-4-b")
    first = listed(isc24, "fs-4-b").pk
    lower = world.submission(isc24, 2.0, storage=shared, level="proprietary")
    StoragePin.objects.create(list_type=research, storage_system=shared, submission=lower)
    update_lists([lower.pk])  # the pin puts it in the kept entry's place
    higher = world.submission(isc24, 90.0, storage=shared, level="proprietary")
    update_lists([higher.pk])  # the pinned entry stays
    assert paths == ["placed", "placed"]
    kept = [row for row in on(isc24, "research") if row[0] == lower.pk]
    assert len(kept) == 1 and kept[0][5] is True
    assert kept[0][4] == sorted([first, higher.pk])
    assert_equals_full_rebuild()


def test_runs_of_merged_storage_systems_share_one_entry(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import build_lists, update_lists
    from submissions.models import StorageSystem

    isc24 = releases["ISC24"]
    alias = world.storage("fs-4-b-alias")
    StorageSystem.objects.filter(pk=alias.pk).update(merged_into=storage_of("fs-4-b"))
    build_lists()  # merges go through the full build
    sub = world.submission(isc24, 3.0, storage=alias, level="proprietary")
    update_lists([sub.pk])
    assert paths == ["placed"]
    assert sub.pk not in ids_on(isc24, "research")
    assert_equals_full_rebuild()


def test_several_runs_at_once_and_ten_node_lists(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    shared = world.storage("twin-fs")
    first = world.submission(isc24, 40.0, storage=shared, level="proprietary", nodes=10)
    second = world.submission(isc24, 41.0, storage=shared, level="proprietary", nodes=10)
    update_lists([first.pk, second.pk])
    assert paths == ["placed"]
    assert second.pk in ids_on(isc24, "ten-node-research")
    assert first.pk not in ids_on(isc24, "ten-node-research")
    assert_equals_full_rebuild()


def test_a_better_production_run_sends_the_replaced_one_to_research(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    """The replaced Production entry is Research material again (a run of the release)."""
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    old = listed(isc24, "fs-4-c").pk
    sub = world.submission(
        isc24,
        50.0,
        storage=storage_of("fs-4-c"),
        production=True,
        target="production",
        level="fully_reproducible",
    )
    update_lists([sub.pk])
    assert paths == ["placed"]
    assert ids_on(isc24, "production").count(sub.pk) == 1 and old not in ids_on(isc24, "production")
    assert old in ids_on(isc24, "research")
    assert_equals_full_rebuild()


def test_a_replaced_ten_node_production_run_returns_to_both_research_lists(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    shared = world.storage("ten-fs")
    production = {"production": True, "target": "production", "level": "fully_reproducible"}
    first = world.submission(isc24, 45.0, storage=shared, nodes=10, **production)
    update_lists([first.pk])
    assert first.pk in ids_on(isc24, "ten-node-production")
    better = world.submission(isc24, 46.0, storage=shared, nodes=10, **production)
    update_lists([better.pk])
    assert paths == ["placed", "placed"]
    assert first.pk in ids_on(isc24, "research") and first.pk in ids_on(isc24, "ten-node-research")
    assert better.pk in ids_on(isc24, "ten-node-production")
    assert_equals_full_rebuild()


def test_a_carried_production_entry_replaced_goes_where_its_carry_allows(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    """SC23's fs-3-c run is carried onto ISC24 Production; replaced there it is not a run
    of ISC24, and SC23's Research list did not hold it: it enters no Research list."""
    from rankings.maintenance.builder import update_lists

    sc23, isc24 = releases["SC23"], releases["ISC24"]
    old = listed(sc23, "fs-3-c").pk
    assert old in ids_on(isc24, "production")
    sub = world.submission(
        isc24,
        50.0,
        storage=storage_of("fs-3-c"),
        production=True,
        target="production",
        level="fully_reproducible",
    )
    update_lists([sub.pk])
    assert paths == ["placed"]
    assert old not in ids_on(isc24, "production") and old not in ids_on(isc24, "research")
    assert_equals_full_rebuild()


def test_an_older_release_s_better_production_run_sends_the_replaced_one_on_to_research(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    """Not the newest release: the full update; the replaced entry enters SC23's Research
    list and the ISC24 Research list that carries it."""
    from rankings.maintenance.builder import update_lists

    sc23, isc24 = releases["SC23"], releases["ISC24"]
    old = listed(sc23, "fs-3-c").pk
    sub = world.submission(
        sc23,
        60.0,
        storage=storage_of("fs-3-c"),
        production=True,
        target="production",
        level="fully_reproducible",
    )
    update_lists([sub.pk])
    assert paths == ["full"]
    assert old in ids_on(sc23, "research") and old in ids_on(isc24, "research")
    assert_equals_full_rebuild()


def test_a_locked_list_falls_back_and_is_reported_stale(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListState, RankedList

    isc24 = releases["ISC24"]
    RankedList.objects.filter(release=isc24, list_type__slug="full").update(
        state=ListState.PUBLISHED
    )
    sub = world.submission(isc24, 5.0, storage=world.storage("late-fs"))
    report = update_lists([sub.pk])
    assert paths == ["full"]
    assert report.stale == ["ISC24/full"]
    assert sub.pk in ids_on(isc24, "historical") and sub.pk not in ids_on(isc24, "full")


def test_an_scc_run_creating_the_scc_list_falls_back(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from submissions.models import Submission

    isc24 = releases["ISC24"]
    sub = world.submission(isc24, 7.0, storage=world.storage("student-fs"))
    Submission.objects.filter(pk=sub.pk).update(scc=True)
    report = update_lists([sub.pk])
    assert paths == ["full"]
    assert report.created == ["ISC24/scc"] and ids_on(isc24, "scc") == [sub.pk]
    assert_equals_full_rebuild()


def test_no_key_left_between_the_neighbours_falls_back_and_renumbers(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry

    isc24 = releases["ISC24"]
    full = ListEntry.objects.filter(ranked_list__release=isc24, ranked_list__list_type__slug="full")
    above, below = full.order_by("position")[:2]
    ListEntry.objects.filter(pk=below.pk).update(position=above.position + 1)
    sub = world.submission(
        isc24, (above.score + below.score) / 2, storage=world.storage("squeezed-fs")
    )
    update_lists([sub.pk])
    assert paths == ["full"]
    assert ids_on(isc24, "full")[:3] == [above.submission_id, sub.pk, below.submission_id]
    assert_equals_full_rebuild()


def test_a_list_without_statistics_falls_back(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListStatistic

    isc24 = releases["ISC24"]
    ListStatistic.objects.filter(ranked_list__release=isc24).delete()
    sub = world.submission(isc24, 6.0, storage=world.storage("plain-fs"))
    update_lists([sub.pk])
    assert paths == ["full"]
    assert_equals_full_rebuild()


def test_a_run_on_no_list_changes_nothing(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    from rankings.maintenance.builder import update_lists

    isc24 = releases["ISC24"]
    sub = world.submission(isc24, 8.0, storage=world.storage("pending-fs"), status="submitted")
    report = update_lists([sub.pk])
    assert paths == ["placed"]
    assert report.rewritten == [] and len(report.unchanged) == 6
    assert_equals_full_rebuild()


def test_a_list_missing_from_the_release_falls_back_and_is_built(
    world: World, releases: dict[str, Any], paths: list[str]
) -> None:
    """Not one the run enters: the full update builds every missing list of the release."""
    from rankings.maintenance.builder import update_lists
    from rankings.models import RankedList

    isc24 = releases["ISC24"]
    RankedList.objects.filter(release=isc24, list_type__slug="production").delete()
    sub = world.submission(isc24, 9.0, storage=world.storage("other-fs"))
    report = update_lists([sub.pk])
    assert paths == ["full"]
    assert report.created == ["ISC24/production"]
    assert_equals_full_rebuild()
