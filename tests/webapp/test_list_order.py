"""A stored list's order keys (``rankings.maintenance.list_order``): a whole list is written with
evenly gapped keys, an accepted run gets a key between its neighbours' and leaves every other
row's key alone, and a spot without room left renumbers the list, in the right order."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from .test_incremental_lists import assert_equals_full_rebuild, assert_keys_distinct
from .test_rankings import World


def test_keys_between_neighbours() -> None:
    from rankings.maintenance.list_order import GAP, insert_keys, neighbours, spaced

    assert spaced(3) == [GAP, 2 * GAP, 3 * GAP]
    stored = {1: 100, 2: 200, 3: 300}
    # On top, between two, two between two, after the last.
    ids = [9, 1, 8, 2, 6, 7, 3, 5]
    stays = {1, 2, 3}
    assert neighbours(ids, stays) == {1, 2, 3}
    assert insert_keys(ids, stays, stored) == {
        9: 50,
        8: 150,
        6: 233,
        7: 266,
        5: 300 + GAP,
    }
    assert insert_keys([1, 4, 5], {1}, {1: 7}) == {4: 7 + GAP, 5: 7 + 2 * GAP}
    assert insert_keys([4], set(), {}) == {4: GAP}
    # No key left between 200 and 201, nor below 1.
    assert insert_keys([1, 2, 4, 3], stays, {2: 200, 3: 201}) is None
    assert insert_keys([4, 1], {1}, {1: 1}) is None
    # Only the neighbours of inserted ids are read.
    assert neighbours([1, 2, 3, 4], {1, 2, 4}) == {2, 4}


def keys_of(list_id: int) -> dict[int, int]:
    from rankings.models import ListEntry

    return dict(
        ListEntry.objects.filter(ranked_list_id=list_id).values_list("submission_id", "position")
    )


def historical() -> Any:
    from rankings.models import RankedList

    return RankedList.objects.get(release__acronym="ISC99", list_type__slug="historical")


@pytest.fixture
def draft_list() -> tuple[World, Any]:
    """A release whose lists are drafts (rewritten by an acceptance), four runs built."""
    from rankings.maintenance.builder import build_lists

    world = World()
    isc99 = world.release("ISC99", date(2099, 6, 1))
    for score in (40.0, 30.0, 20.0, 10.0):
        world.submission(isc99, score)
    build_lists()
    return world, isc99


@pytest.mark.django_db
def test_a_whole_list_is_written_with_gapped_keys(draft_list: tuple[World, Any]) -> None:
    from rankings.maintenance.list_order import spaced
    from rankings.models import ListEntry

    the_list = historical()
    keys = ListEntry.objects.filter(ranked_list=the_list).order_by("position")
    assert list(keys.values_list("position", flat=True)) == spaced(4)
    assert list(keys.values_list("score", flat=True)) == [40.0, 30.0, 20.0, 10.0]


@pytest.mark.django_db
def test_an_accepted_run_moves_no_other_key(draft_list: tuple[World, Any]) -> None:
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListEntry

    world, isc99 = draft_list
    the_list = historical()
    before = keys_of(the_list.pk)
    ranks_before = dict(the_list.entries.values_list("submission_id", "rank"))
    sub = world.submission(isc99, 25.0)
    assert "ISC99/historical" in update_lists([sub.pk]).rewritten
    after = keys_of(the_list.pk)
    new_key = after.pop(sub.pk)
    assert after == before
    ordered = sorted(before.values())
    assert ordered[1] < new_key < ordered[2]  # between 30 and 20
    # The rows below it have their new ranks.
    ranks = dict(the_list.entries.values_list("submission_id", "rank"))
    assert ranks[sub.pk] == 3
    assert {sid: ranks[sid] - ranks_before[sid] for sid in ranks_before} == {
        sid: int(rank >= 3) for sid, rank in ranks_before.items()
    }
    assert list(
        ListEntry.objects.filter(ranked_list=the_list)
        .order_by("position")
        .values_list("score", flat=True)
    ) == [40.0, 30.0, 25.0, 20.0, 10.0]
    assert_equals_full_rebuild()


@pytest.mark.django_db
def test_inserts_at_one_spot_renumber_the_list_when_no_room_is_left(
    draft_list: tuple[World, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a gap of 4, keys 4 and 8 have room for two runs between them (6, then 7); the
    third renumbers the list, and the order stays the ranking's throughout."""
    from rankings.maintenance import list_order
    from rankings.maintenance.builder import build_lists, update_lists
    from rankings.models import ListEntry

    world, isc99 = draft_list
    monkeypatch.setattr(list_order, "GAP", 4)
    the_list = historical()
    the_list.entries.all().delete()
    build_lists()  # the list written again with the small gap
    assert sorted(keys_of(the_list.pk).values()) == [4, 8, 12, 16]
    renumbered = []
    for n in range(3):
        before = keys_of(the_list.pk)
        # The same score as the runs before it: later submitted, so after them, before 30.
        sub = world.submission(isc99, 35.0)
        update_lists([sub.pk])
        after = keys_of(the_list.pk)
        del after[sub.pk]
        renumbered.append(after != before)
        scores = ListEntry.objects.filter(ranked_list=the_list).order_by("position")
        assert list(scores.values_list("score", flat=True)) == [40.0] + [35.0] * (n + 1) + [
            30.0,
            20.0,
            10.0,
        ]
        assert list(scores.values_list("submission_id", flat=True))[n + 1] == sub.pk
        assert_keys_distinct()
    assert renumbered == [False, False, True]
    assert sorted(keys_of(the_list.pk).values()) == list_order.spaced(7)
    assert_equals_full_rebuild()


def migrate_rankings(target: str) -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    with connection.cursor() as cursor:  # the test's inserts: FK checks now, not at commit
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([("rankings", target)])


def stored_positions() -> dict[int, list[int]]:
    """Each list's stored positions in list order (by the old order of the rows: score)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT ranked_list_id, position FROM rankings_listentry "
            "ORDER BY ranked_list_id, position"
        )
        out: dict[int, list[int]] = {}
        for list_id, position in cursor.fetchall():
            out.setdefault(list_id, []).append(position)
    return out


def fillfactor() -> list[str] | None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'rankings_listentry'")
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_the_migration_spaces_each_list_in_its_order_and_back(
    draft_list: tuple[World, Any],
) -> None:
    """rankings 0009 gives every list the keys of a whole write in its current order (also
    when the stored positions were not 1..N), with room in the pages; reversed, 1..N."""
    from django.db import connection

    from rankings.maintenance.list_order import spaced
    from rankings.models import ListEntry

    order = {
        list_id: list(
            ListEntry.objects.filter(ranked_list_id=list_id)
            .order_by("position")
            .values_list("submission_id", flat=True)
        )
        for list_id in stored_positions()
    }
    migrate_rankings("0008_list_search_index")
    assert fillfactor() is None
    assert stored_positions() == {k: list(range(1, len(v) + 1)) for k, v in order.items()}
    with connection.cursor() as cursor:  # gaps and an offset that the migration closes
        cursor.execute("UPDATE rankings_listentry SET position = position * 3 + 5")
    migrate_rankings("0009_list_order_keys")
    assert fillfactor() == ["fillfactor=50"]
    assert stored_positions() == {k: spaced(len(v)) for k, v in order.items()}
    for list_id, ids in order.items():
        assert (
            list(
                ListEntry.objects.filter(ranked_list_id=list_id)
                .order_by("position")
                .values_list("submission_id", flat=True)
            )
            == ids
        )
