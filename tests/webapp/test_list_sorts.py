"""A list sorted by any column, both ways, gives the rows of a plain Python sort of its
entries: nulls last, ties in list order (position), on every page, filtered or not.

The whole list's pages are read as ordered index walks (``listview._walked_ids``: the
valued rows then the null ones, the computed keys one value at a time), a filtered view
through one scan (``ListRows._scan``), and downloads through ``_ordered``: all three must
agree with the sort below, which knows nothing of how they read.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

ENTRIES = 130
PER_PAGE = 25
VENDORS = ["ddn", "DDN", "acme", "bolt"]  # two spellings of one vendor


@pytest.fixture
def the_list() -> Any:
    """One list of ``ENTRIES`` runs whose every sortable column has ties and, where the
    column allows it, nulls; two of its releases share a date; one level is unknown."""
    from accounts.models import Site
    from rankings.maintenance import list_index
    from rankings.maintenance.ranking import metric_ranks
    from rankings.models import ListEntry, ListState, RankedList
    from rankings.phases import PHASE_FIELDS
    from submissions.models import LEVEL_ORDER, ListType, Release, Submission

    rng = random.Random(4)
    site = Site.objects.create(name="Sort University", abbreviation="SO")
    days = [date(2022, 6, 1), date(2023, 6, 1), date(2023, 6, 1), date(2024, 6, 1)]
    releases = [
        Release.objects.create(
            acronym=f"S{n}", release_date=day, submission_deadline=day - timedelta(days=8)
        )
        for n, day in enumerate(days)
    ]
    runs = Submission.objects.bulk_create(
        Submission(
            release=rng.choice(releases),
            site=site,
            status="accepted",
            score_bw=1.0,
            score_md=1.0,
            score_total=1.0,
            score_valid=True,
            submitted_at=datetime(2023, 1, 1, tzinfo=UTC) + timedelta(minutes=n),
        )
        for n in range(ENTRIES)
    )
    built = RankedList.objects.create(
        release=releases[-1],
        list_type=ListType.objects.order_by("order").first(),
        state=ListState.PUBLISHED,
    )

    def maybe(value: Any) -> Any:
        return None if rng.random() < 0.2 else value

    bws = [rng.choice([0.5, 3.0]) for _ in runs]
    mds = [float(rng.randint(1, 5)) for _ in runs]
    # The BW and MD ranks are what the builder stores: competition ranks of BW and MD.
    bw_ranks, md_ranks = metric_ranks(bws), metric_ranks(mds)
    ListEntry.objects.bulk_create(
        ListEntry(
            ranked_list=built,
            submission=run,
            position=position * 10,  # gapped, as a stable order key may be
            rank=position,
            bw_rank=bw_ranks[position - 1],
            md_rank=md_ranks[position - 1],
            score=rng.choice([1.0, 2.5, 4.0]),
            bw=bws[position - 1],
            md=mds[position - 1],
            submitted_at=run.submitted_at,
            origin_release=run.release,
            institution=rng.choice(["inst a", "inst b"]),
            system=f"system{rng.randint(1, 6):02d}",
            storage_vendor=rng.choice(VENDORS),
            fs_type=rng.choice(["lustre", "gpfs", "Lustre"]),
            client_nodes=maybe(rng.choice([10, 100, 200])),
            total_procs=maybe(rng.randint(1, 4) * 64),
            level=rng.choice([*LEVEL_ORDER, "", "not-a-level"]),
            **{name: maybe(float(rng.randint(1, 8))) for name in PHASE_FIELDS},
        )
        for position, run in enumerate(runs, start=1)
    )
    list_index.refresh([built.pk])
    return built


def python_order(the_list: Any, key: str, descending: bool) -> list[int]:
    """The ids of the list's entries sorted as the view says, in Python: text compared as
    PostgreSQL collates it (its order of the distinct values), everything else as is."""
    from django.db import connection

    from rankings.listview import COLUMNS
    from submissions.models import LEVEL_ORDER

    entries = list(the_list.entries.select_related("origin_release"))
    name = COLUMNS[key].sort

    def value(entry: Any) -> Any:
        if name == "origin_date":
            return entry.origin_release.release_date
        if name == "level_order":
            return LEVEL_ORDER.index(entry.level) if entry.level in LEVEL_ORDER else -1
        return getattr(entry, name)

    values = {value(e) for e in entries} - {None}
    if all(isinstance(v, str) for v in values):
        with connection.cursor() as cursor:
            cursor.execute("SELECT v FROM unnest(%s::text[]) AS v ORDER BY v", [sorted(values)])
            collated = {text: n for n, (text,) in enumerate(cursor.fetchall())}
    else:
        collated = {v: v for v in values}
    valued = sorted((e for e in entries if value(e) is not None), key=lambda e: e.position)
    valued.sort(key=lambda e: collated[value(e)], reverse=descending)  # stable: ties by position
    missing = sorted((e for e in entries if value(e) is None), key=lambda e: e.position)
    return [e.pk for e in valued + missing]


def pages(the_list: Any, query: str) -> tuple[int, list[int]]:
    """The count and every page's ids, as the list page reads them (a paginator over
    ``ListRows``, one per request)."""
    from django.core.paginator import Paginator
    from django.http import QueryDict

    from rankings.listview import ListRows, ViewState

    ids: list[int] = []
    number, count = 1, None
    while count is None or len(ids) < count:
        state = ViewState.from_query(QueryDict(f"{query}&per_page={PER_PAGE}&page={number}"))
        assert not state.errors, state.errors
        rows = ListRows(the_list.entries.all(), state, list_id=the_list.pk)
        page = Paginator(rows, state.per_page).get_page(state.page)
        count = page.paginator.count
        shown = [e.pk for e in page.object_list]
        assert shown, (query, number)
        ids += shown
        number += 1
    return count, ids


def sort_keys() -> list[str]:
    from rankings.listview import COLUMNS

    return list(COLUMNS)


@pytest.mark.parametrize("key", sort_keys())
def test_every_sort_both_ways_matches_a_python_sort(the_list: Any, key: str) -> None:
    from django.http import QueryDict

    from rankings.listview import ListRows, ViewState, entry_queryset

    for way in ("asc", "desc"):
        expected = python_order(the_list, key, way == "desc")
        query = f"sort={key}&dir={way}"
        assert pages(the_list, query) == (ENTRIES, expected), query
        state = ViewState.from_query(QueryDict(query))
        # Slices across a part's end (valued / null rows, one date / the next) and the
        # whole list in one read, as downloads and the API's last page ask.
        rows = ListRows(the_list.entries.all(), state, list_id=the_list.pk)
        for start, stop in ((0, 7), (37, 61), (99, 140), (120, None), (200, 210)):
            assert [e.pk for e in rows[start:stop]] == expected[start:stop], (query, start)
        download = entry_queryset(the_list.entries.all(), state, list_id=the_list.pk)
        assert [e.pk for e in download] == expected, query


@pytest.mark.parametrize("key", ["find", "client_nodes", "vendor", "release", "level", "bw_rank"])
def test_filtered_sorts_match_a_python_sort(the_list: Any, key: str) -> None:
    """A filtered view keeps the same order among the entries it keeps, and its count."""
    from rankings.models import ListEntry

    kept = {
        e.pk
        for e in ListEntry.objects.filter(ranked_list=the_list)
        if e.storage_vendor.casefold() == "ddn" and (e.client_nodes or 0) >= 100
    }
    assert 10 < len(kept) < ENTRIES - 10
    for way in ("asc", "desc"):
        expected = [pk for pk in python_order(the_list, key, way == "desc") if pk in kept]
        query = f"sort={key}&dir={way}&vendor=Ddn&nodes_min=100"
        assert pages(the_list, query) == (len(kept), expected), query


def test_the_vendor_filter_finds_every_spelling_through_the_list_choices(the_list: Any) -> None:
    """The vendor compared with the list's stored spellings of it (an indexed equality)
    keeps what a case-blind compare of every entry keeps; a vendor the list lacks, none."""
    from django.http import QueryDict

    from rankings.listview import ListRows, ViewState

    for vendor in ("ddn", "DDN", "dDn", "Acme", "nobody"):
        state = ViewState.from_query(QueryDict(f"vendor={vendor}"))
        by_choices = ListRows(the_list.entries.all(), state, list_id=the_list.pk)
        by_compare = ListRows(the_list.entries.all(), state)
        assert [e.pk for e in by_choices[:]] == [e.pk for e in by_compare[:]], vendor
        assert by_choices.count() == by_compare.count()
        assert (by_choices.count() > 0) == (vendor != "nobody")


def test_a_sorted_page_walks_the_column_index(the_list: Any) -> None:
    """Usable: a page sorted by a column reads that column's list index in order, stopping
    at the page's end, both ways (the planner's choice at 100,000 entries is printed by
    bench/list_rows_ab.py --compare sorts)."""
    from django.db import connection
    from django.http import QueryDict
    from django.test.utils import CaptureQueriesContext

    from rankings.listview import ListRows, ViewState

    for query, index in (
        ("sort=find&dir=desc", "entry_sort_find"),
        ("sort=find&dir=asc", "entry_sort_find"),
        ("sort=vendor&dir=desc", "entry_sort_storage_vendor"),
        ("sort=score&dir=asc", "entry_list_score"),
        ("sort=bw_rank&dir=asc", "entry_list_bw"),  # a rank is read through its metric
        ("sort=md_rank&dir=desc", "entry_list_md"),
    ):
        state = ViewState.from_query(QueryDict(query))
        with CaptureQueriesContext(connection) as captured:
            ListRows(the_list.entries.all(), state, list_id=the_list.pk)[0:25]
        sql = captured.captured_queries[0]["sql"]
        assert "NULLS" not in sql and "LIMIT 25" in sql, sql
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("SET LOCAL enable_sort = off")
            cursor.execute("EXPLAIN " + sql)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert index in plan and "Seq Scan" not in plan, plan
        nodes = [line.strip().removeprefix("->").strip() for line in plan.splitlines()]
        assert not any(node.startswith("Sort  (") for node in nodes), plan  # only Incremental
