"""Each list's stored search texts and filter choices (``rankings.maintenance.list_index``): what
the builder, the website-list import and a canonical rename store equals what the entries
hold at that moment, and a search through them gives exactly the LIKE's rows, also when two
texts share a key."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from django.http import QueryDict

from .test_list_search import matching, searchable  # noqa: F401 (a fixture)
from .test_rankings import World

pytestmark = pytest.mark.django_db


def stored() -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    from rankings.models import ListFacet, ListSearchText

    texts = set(ListSearchText.objects.values_list("ranked_list_id", "search_key", "search_text"))
    facets = set(
        ListFacet.objects.values_list(
            "ranked_list_id", "fs_type", "storage_vendor", "origin_release_id"
        )
    )
    return texts, facets


def derived() -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """What the entries hold now."""
    from rankings.models import ListEntry

    entries = ListEntry.objects.order_by()
    texts = set(entries.values_list("ranked_list_id", "search_key", "search_text"))
    facets = set(
        entries.values_list("ranked_list_id", "fs_type", "storage_vendor", "origin_release_id")
    )
    return texts, facets


def assert_index_exact() -> None:
    from rankings.models import ListSearchText

    texts, facets = stored()
    assert texts and (texts, facets) == derived()
    # One row per text, and no key flagged as shared that is not.
    assert ListSearchText.objects.count() == len(texts)
    assert not ListSearchText.objects.filter(shared=True).exists()


def test_the_index_follows_builds_updates_corrections_and_renames() -> None:
    from rankings.maintenance.builder import build_lists, update_lists
    from rankings.models import ListEntry
    from submissions.models import Submission, SystemDescription

    world = World()
    sc23 = world.release("SC23", date(2023, 11, 14))  # published (locked) on "today"
    isc99 = world.release("ISC99", date(2099, 6, 1))  # its lists are drafts: rewritten
    old = world.submission(sc23, 5.0, system="Old One")
    build_lists(today=date(2024, 1, 1))
    assert_index_exact()

    new = world.submission(isc99, 9.0, system="Brand New")
    update_lists([new.pk], today=date(2024, 1, 1))
    assert_index_exact()
    assert matching_texts("brand new") == lists_of(new.pk) > 0

    SystemDescription.objects.filter(submission=new).update(storage_vendor="Other Vendor")
    Submission.objects.filter(pk=new.pk).update(score_total=10.0)
    update_lists([new.pk], today=date(2024, 1, 1))
    assert_index_exact()

    Submission.objects.filter(pk=new.pk).update(status="withdrawn")
    update_lists([new.pk], today=date(2024, 1, 1))
    assert_index_exact()
    assert matching_texts("brand new") == 0

    # A locked list changes by correction only.
    SystemDescription.objects.filter(submission=old).update(system="Renamed One")
    build_lists(correction_reason="renamed", today=date(2024, 1, 1))
    assert_index_exact()
    assert matching_texts("renamed one") == lists_of(old.pk) >= 2  # SC23, carried to ISC99

    # A canonical rename rewrites the entries' columns with UPDATE, then the index.
    from rankings.maintenance import canonical_rows

    ListEntry.objects.filter(submission=old).update(storage_vendor="INSPUR")
    canonical_rows.apply_to_stored_rows()
    assert set(ListEntry.objects.values_list("storage_vendor", flat=True)) == {"Inspur"}
    assert_index_exact()


def lists_of(submission_id: int) -> int:
    from rankings.models import ListEntry

    return ListEntry.objects.filter(submission_id=submission_id).count()


def matching_texts(word: str) -> int:
    from rankings.models import ListSearchText

    return ListSearchText.objects.filter(search_text__contains=word).count()


def test_entries_under_a_shared_key_are_tested_by_their_text(
    searchable: dict[str, int],  # noqa: F811 (the fixture)
) -> None:
    """Two texts with one key (a 64-bit hash collision, forced here): the search still
    gives the entries whose own text matches, not every entry with the key."""
    from rankings.models import ListEntry, ListSearchText

    beta = ListEntry.objects.get(
        submission_id=searchable["Beta"], ranked_list__list_type__slug="historical"
    )
    ListSearchText.objects.filter(ranked_list_id=beta.ranked_list_id).update(shared=False)
    ListSearchText.objects.filter(
        ranked_list_id=beta.ranked_list_id, search_key=beta.search_key
    ).update(shared=True)
    ListSearchText.objects.create(
        ranked_list_id=beta.ranked_list_id,
        search_key=beta.search_key,
        search_text="zeta\nno entry has this text",
        shared=True,
    )
    assert matching("q=zeta") == []
    assert matching("q=no+entry") == []
    assert matching("q=beta") == [searchable["Beta"]]
    assert matching("q=back%5Cslash") == [searchable["Beta"]]  # "back\slash"
    # A search matching most texts is answered by the keys of the others.
    assert len(matching("q=a")) == 5
    assert searchable["Beta"] not in matching("q=u") and len(matching("q=u")) == 4


def test_stored_filter_choices_are_the_entries_choices(
    searchable: dict[str, int],  # noqa: F811 (the fixture)
    client: Any,
) -> None:
    from django.urls import reverse

    from rankings.listview import facet_values
    from rankings.models import ListEntry, RankedList
    from submissions.models import Submission

    the_list = RankedList.objects.get(release__acronym="SC19", list_type__slug="historical")
    entries = ListEntry.objects.filter(ranked_list=the_list)
    stored_choices = facet_values(entries, the_list.pk)
    assert stored_choices == facet_values(entries)
    assert stored_choices["fs_types"] == ["BeeGFS", "DAOS", "Lustre", "Spectrum Scale"]
    assert stored_choices["years"] == [2019]

    # An entry hidden from the public (withdrawn after publication): its choice is not
    # offered, so the page does not read the list's stored choices.
    Submission.objects.filter(pk=searchable["Beta"]).update(status="withdrawn")
    page = client.get(reverse("rankings:ranked-list", args=["SC19", "historical"]))
    assert page.status_code == 200
    assert [c for c in page.context["facets"]["fs_types"]] == ["BeeGFS", "Lustre", "Spectrum Scale"]


def test_a_search_reads_the_texts_and_entries_by_key(
    searchable: dict[str, int],  # noqa: F811 (the fixture)
    client: Any,
) -> None:
    """The page's search tests the list's distinct texts, not every entry's text."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    with CaptureQueriesContext(connection) as captured:
        page = client.get(
            reverse("rankings:ranked-list", args=["SC19", "historical"]), {"q": "ddn"}
        )
    assert page.status_code == 200
    sql = [q["sql"] for q in captured.captured_queries]
    assert any("rankings_listsearchtext" in s and "LIKE" in s for s in sql)
    assert not any("rankings_listentry" in s and "LIKE" in s for s in sql)
    assert page.content.decode().count("<tr data-submission=") == 2
    state = QueryDict("q=ddn")
    assert matching(state.urlencode()) == [
        searchable["Alpha 100%"],
        searchable['O\'Brien "Quoted" Cluster'],
    ]


def index_rows(list_id: int) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """One list's stored texts and choices with their row ids (a rewrite changes the ids)."""
    from rankings.models import ListFacet, ListSearchText

    texts = set(
        ListSearchText.objects.filter(ranked_list_id=list_id).values_list("id", "search_text")
    )
    facets = set(
        ListFacet.objects.filter(ranked_list_id=list_id).values_list(
            "id", "fs_type", "storage_vendor"
        )
    )
    return texts, facets


def test_an_update_touches_only_the_texts_and_choices_it_adds_or_removes() -> None:
    """update_lists keeps the index by the rows it adds and removes (list_index.update): a
    known text changes nothing, a new one is added, the last entry of a text takes it
    along, and an entry whose text another entry still holds leaves it."""
    from rankings.maintenance.builder import build_lists, update_lists
    from rankings.models import RankedList
    from submissions.models import Submission, SystemDescription

    world = World()
    isc99 = world.release("ISC99", date(2099, 6, 1))  # drafts: rewritten by an acceptance
    first = world.submission(isc99, 5.0, system="Known")
    build_lists()
    the_list = RankedList.objects.get(release=isc99, list_type__slug="historical")
    assert_index_exact()

    known = world.submission(isc99, 7.0, system="Known")
    rows = index_rows(the_list.pk)
    update_lists([known.pk])
    assert index_rows(the_list.pk) == rows  # not even rewritten
    assert_index_exact()

    new = world.submission(isc99, 6.0, system="Brand New")
    SystemDescription.objects.filter(submission=new).update(fs_type="DAOS")
    update_lists([new.pk])
    texts, facets = index_rows(the_list.pk)
    assert texts > rows[0] and facets > rows[1]
    assert_index_exact()

    Submission.objects.filter(pk=new.pk).update(status="withdrawn")  # the last "brand new"
    update_lists([new.pk])
    assert index_rows(the_list.pk) == rows
    assert matching_texts("brand new") == 0
    assert_index_exact()

    Submission.objects.filter(pk=first.pk).update(status="withdrawn")  # "known" stays
    update_lists([first.pk])
    assert index_rows(the_list.pk) == rows
    assert_index_exact()


def test_an_update_recomputes_the_flags_of_a_shared_key() -> None:
    """A text added under a key the list has for another text, and a text removed from a
    shared key: the list's index is refreshed whole, so the flags are exact."""
    from rankings.maintenance.builder import build_lists, update_lists
    from rankings.models import ListEntry, ListSearchText, RankedList
    from submissions.models import Submission

    world = World()
    isc99 = world.release("ISC99", date(2099, 6, 1))
    world.submission(isc99, 5.0, system="Staying")
    build_lists()
    the_list = RankedList.objects.get(release=isc99, list_type__slug="historical")

    # The key the next run's text will have, already held by another text (forced).
    sub = world.submission(isc99, 6.0, system="Colliding")
    key = hash_of("colliding")
    ListSearchText.objects.create(
        ranked_list=the_list, search_key=key, search_text="not an entry's text", shared=False
    )
    update_lists([sub.pk])
    assert_index_exact()  # the forced row is gone, no flag left

    # A shared key loses one of its texts: the other's flag goes with it.
    entry = ListEntry.objects.get(ranked_list=the_list, submission=sub)
    ListSearchText.objects.filter(ranked_list=the_list, search_key=entry.search_key).update(
        shared=True
    )
    ListSearchText.objects.create(
        ranked_list=the_list, search_key=entry.search_key, search_text="another", shared=True
    )
    Submission.objects.filter(pk=sub.pk).update(status="withdrawn")
    update_lists([sub.pk])
    assert_index_exact()


def hash_of(system: str) -> int:
    """The search key of an entry of World's with this system name (as PostgreSQL computes)."""
    from django.db import connection

    text = "\n".join(["ranking university", system, "vendor", "lustre", ""])
    with connection.cursor() as cursor:
        cursor.execute("SELECT hashtextextended(%s, 0)", [text])
        return cursor.fetchone()[0]
