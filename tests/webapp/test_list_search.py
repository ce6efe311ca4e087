"""The list views' search and filters: exactly the right entries, whatever the
case or the characters typed, on the page, the API and ``ListRows`` alike; the stored search
text follows every rename; deep pages in the same order as the display query."""

from __future__ import annotations

from datetime import date
from typing import Any
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse

from .test_rankings import World, build
from .test_rankings import urlpatterns as urlpatterns  # mounted by the urls marker

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

# system, institution, storage vendor, fs type, client nodes
SYSTEMS = [
    ("Alpha 100%", "École Polytechnique", "DDN", "Lustre", 4),
    ("under_score Box", "Ranking University", "IBM", "Spectrum Scale", 16),
    ('O\'Brien "Quoted" Cluster', "Ranking University", "ddn", "lustre", 64),
    ("Beta", "Back\\slash Lab", "Vendor", "DAOS", 256),
    ("Gamma", "Ranking University", "HPE", "BeeGFS", 1024),
]


@pytest.fixture
def searchable() -> dict[str, int]:
    """One published list (SC19) with an entry per ``SYSTEMS`` row; system name -> id."""
    from submissions.models import SystemDescription

    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    ids = {}
    for n, (system, institution, vendor, fs_type, nodes) in enumerate(SYSTEMS):
        sub = world.submission(sc19, 10.0 - n, system=system, nodes=nodes)
        SystemDescription.objects.filter(submission=sub).update(
            institution=institution, storage_vendor=vendor, fs_type=fs_type, fs_name=f"fs{n}"
        )
        ids[system] = sub.pk
    build()
    return ids


def matching(query: str, **more: Any) -> list[int]:
    """Submission ids the historical SC19 list shows for this query string, in order: the
    same through the list's stored search texts (as the views search) as by a LIKE on every
    entry's text."""
    from rankings.listview import ListRows, ViewState
    from rankings.models import ListEntry, RankedList

    state = ViewState.from_query(QueryDict(query, mutable=True))
    assert not state.errors, state.errors
    the_list = RankedList.objects.get(release__acronym="SC19", list_type__slug="historical")
    entries = ListEntry.objects.filter(ranked_list=the_list)
    results = []
    for list_id in (None, the_list.pk):
        rows = ListRows(entries, state, list_id=list_id)
        shown = [e.submission_id for e in rows[0 : max(1, len(rows))]]
        assert len(shown) == rows.count()
        results.append(shown)
    assert results[0] == results[1], query
    return results[1]


def q(text: str) -> str:
    return urlencode({"q": text})


def test_search_is_case_insensitive_and_matches_parts_of_words(searchable: dict[str, int]) -> None:
    alpha = searchable["Alpha 100%"]
    assert matching(q("alpha")) == [alpha]
    assert matching(q("LPHA 1")) == [alpha]
    assert matching(q("école")) == [alpha]  # institution, non-ASCII, lower-cased
    assert matching(q("ÉCOLE POLY")) == [alpha]
    assert matching(q("ddn")) == [alpha, searchable['O\'Brien "Quoted" Cluster']]  # vendor
    assert matching(q("spectrum")) == [searchable["under_score Box"]]  # fs type
    assert matching(q("fs3")) == [searchable["Beta"]]  # fs name
    assert matching(q("no such thing")) == []


def test_search_takes_wildcards_quotes_and_backslashes_literally(
    searchable: dict[str, int],
) -> None:
    assert matching(q("%")) == [searchable["Alpha 100%"]]
    assert matching(q("100%")) == [searchable["Alpha 100%"]]
    assert matching(q("_")) == [searchable["under_score Box"]]
    assert matching(q("a_p")) == []  # "_" is not "any character" ("alp" would match)
    assert matching(q("a%a")) == []  # nor is "%" ("alpha")
    quoted = searchable['O\'Brien "Quoted" Cluster']
    assert matching(q("o'brien")) == [quoted]
    assert matching(q('"quoted"')) == [quoted]
    assert matching(q("k\\s")) == [searchable["Beta"]]
    assert matching(q("\\")) == [searchable["Beta"]]


def test_search_never_matches_across_two_fields(searchable: dict[str, int]) -> None:
    """The stored text separates its fields with a newline; a typed one is a space."""
    assert matching(q("Beta")) == [searchable["Beta"]]
    assert matching(q("beta\nback")) == []
    assert matching(q("gamma\n")) == [searchable["Gamma"]]  # trailing control characters go


def test_search_for_a_release_acronym_lists_its_entries(searchable: dict[str, int]) -> None:
    assert matching(q("sc19")) == list(searchable.values())


def test_a_very_long_search_is_cut_and_answered(searchable: dict[str, int], client: Any) -> None:
    from rankings.listview import MAX_SEARCH_LENGTH, ViewState

    state = ViewState.from_query(QueryDict(q("alpha" + "x" * 100_000)))
    assert len(state.q) == MAX_SEARCH_LENGTH and state.q.startswith("alphax")
    long = "a" * 50_000
    page = client.get(reverse("rankings:ranked-list", args=["SC19", "historical"]), {"q": long})
    assert page.status_code == 200
    assert page.content.decode().count("<tr data-submission=") == 0
    api = client.get(reverse("rankings:api-list-entries", args=["SC19", "historical"]), {"q": long})
    assert api.status_code == 200 and api.json()["count"] == 0


def test_filters_select_exactly_the_matching_entries(searchable: dict[str, int]) -> None:
    ids = searchable
    ddn = [ids["Alpha 100%"], ids['O\'Brien "Quoted" Cluster']]
    assert matching("fs=LUSTRE") == ddn  # either spelling finds both
    assert matching("vendor=Ddn") == ddn
    assert matching("nodes_min=16&nodes_max=256") == [
        ids["under_score Box"],
        ids['O\'Brien "Quoted" Cluster'],
        ids["Beta"],
    ]
    assert matching("year=2019") == list(ids.values())
    assert matching("year=2020") == []
    assert matching("fs=lustre&nodes_min=10&q=cluster") == [ids['O\'Brien "Quoted" Cluster']]
    assert matching("q=university&sort=client_nodes&dir=desc") == [
        ids["Gamma"],
        ids['O\'Brien "Quoted" Cluster'],
        ids["under_score Box"],
    ]


def test_page_and_api_show_the_same_entries_for_a_search(
    searchable: dict[str, int], client: Any
) -> None:
    for query in ({"q": "ddn"}, {"q": "_", "fs": "spectrum scale"}, {"q": "SC19", "sort": "md"}):
        api = client.get(
            reverse("rankings:api-list-entries", args=["SC19", "historical"]), query
        ).json()
        page = client.get(reverse("rankings:ranked-list", args=["SC19", "historical"]), query)
        shown = page.content.decode().count("<tr data-submission=")
        assert api["count"] == shown == len(api["results"]) == len(matching(urlencode(query)))


def test_search_text_follows_a_rename_and_a_rebuild() -> None:
    from rankings.models import ListEntry
    from submissions.models import SystemDescription

    world = World()
    future = world.release("ISC99", date(2099, 6, 1))  # its lists are drafts: rebuilt
    sub = world.submission(future, 5.0, system="Old Name")
    build()
    entries = ListEntry.objects.filter(submission=sub)
    assert entries.exists()
    assert {e.search_text for e in entries} == {"ranking university\nold name\nvendor\nlustre\n"}
    # A canonicalisation rewrites the columns with UPDATE (canonical_rows).
    entries.update(storage_vendor="DataDirect Networks")
    assert all("\ndatadirect networks\n" in e.search_text for e in entries.all())
    # A rebuild after the description changed.
    SystemDescription.objects.filter(submission=sub).update(system="Brand-New Name")
    build()
    texts = set(ListEntry.objects.filter(submission=sub).values_list("search_text", flat=True))
    assert texts and all("\nbrand-new name\n" in t for t in texts)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "sort=release",
        "sort=level&dir=desc",
        "sort=institution",
        "sort=find",
        "q=university",
        "q=university&sort=institution&dir=desc",
        "q=a&sort=level",
        "fs=lustre&sort=release",
        "nodes_min=10&sort=find",
        "vendor=ddn&sort=md&dir=asc",
        "q=no-such-system",
    ],
)
def test_slices_match_the_display_query(searchable: dict[str, int], query: str) -> None:
    """``ListRows`` picks a page's ids first; the rows and order are the display query's."""
    from rankings.listview import ListRows, ViewState, entry_queryset
    from rankings.models import ListEntry

    state = ViewState.from_query(QueryDict(query))
    entries = ListEntry.objects.filter(ranked_list__list_type__slug="historical")
    expected = [e.pk for e in entry_queryset(entries, state, records=True)]
    rows = ListRows(entries, state, records=True)
    assert rows.count() == len(expected)
    for start, stop in ((0, 2), (2, 4), (4, 50), (0, 50)):
        page = rows[start:stop]
        assert [e.pk for e in page] == expected[start:stop]
        assert all(hasattr(e, "io500_id") and hasattr(e, "origin_date") for e in page)


def _scans(queries: list[dict[str, str]]) -> list[str]:
    """The queries that test a list's entries against the search (by text or by key)."""
    return [
        q["sql"]
        for q in queries
        if "rankings_listentry" in q["sql"]
        and ("LIKE" in q["sql"] or '"search_key" = ANY(' in q["sql"])
    ]


def test_a_searched_page_counts_and_picks_its_rows_in_one_scan(
    searchable: dict[str, int], client: Any
) -> None:
    """A search tests every entry of the list: the page's count and its ids come from one
    such pass (the paginator's count used to be a second one), on the page and the API; a
    page past the end still shows the last page, an offset past the end nothing."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    university = matching("q=university")
    assert len(university) == 3
    page_url = reverse("rankings:ranked-list", args=["SC19", "historical"])
    api_url = reverse("rankings:api-list-entries", args=["SC19", "historical"])
    cache.clear()
    with CaptureQueriesContext(connection) as captured:
        page = client.get(page_url, {"q": "university", "per_page": 25})
    assert page.status_code == 200
    scans = _scans(captured.captured_queries)
    assert len(scans) == 1 and "(SELECT count(*) FROM matching)" in scans[0], scans
    assert page.content.decode().count("<tr data-submission=") == 3

    with CaptureQueriesContext(connection) as captured:
        api = client.get(api_url, {"q": "university", "limit": 2, "offset": 1}).json()
    assert len(_scans(captured.captured_queries)) == 1
    assert api["count"] == 3
    assert [r["submission_id"] for r in api["results"]] == university[1:3]

    past = client.get(page_url, {"q": "university", "page": 9})
    assert past.content.decode().count("<tr data-submission=") == 3
    beyond = client.get(api_url, {"q": "university", "offset": 50}).json()
    assert beyond["count"] == 3 and beyond["results"] == []


def test_the_whole_list_count_is_remembered_per_version_of_the_list(
    searchable: dict[str, int], client: Any
) -> None:
    """Re-sorting the whole list does not count it again until the list changes (a new
    version, or an entry hidden); a filtered view always counts what it matches."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from rankings.models import RankedList
    from submissions.models import Submission

    def counts(query: dict[str, str]) -> tuple[int, int]:
        with CaptureQueriesContext(connection) as captured:
            page = client.get(reverse("rankings:ranked-list", args=["SC19", "historical"]), query)
        assert page.status_code == 200
        shown = page.content.decode().count("<tr data-submission=")
        return sum("COUNT(" in q["sql"].upper() for q in captured.captured_queries), shown

    cache.clear()
    whole = counts({"sort": "find"})[0]
    assert whole > 0
    assert counts({"sort": "institution"}) == (whole - 1, 5)  # the same count, remembered
    assert counts({"sort": "system", "q": "university"})[1] == 3
    the_list = RankedList.objects.get(release__acronym="SC19", list_type__slug="historical")
    RankedList.objects.filter(pk=the_list.pk).update(built_at=timezone.now())
    assert counts({"sort": "md"})[0] == whole  # a rebuilt list is counted again
    Submission.objects.filter(pk=searchable["Beta"]).update(status="withdrawn")
    assert counts({"sort": "bw"})[1] == 4  # one entry hidden: another count
