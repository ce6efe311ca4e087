"""The key queries of the pages use their indexes (the plans at 100,000 submissions
are printed by ``bench/service_scale.py``).

Two kinds of check, named in each test:
* planner's choice: a database of realistic shape (1,200 accepted runs with their 12 phases,
  lists of 1,200 entries), ANALYZEd, and the plan PostgreSQL picks by itself must name the
  index and scan no big table sequentially;
* usable: ``SET enable_seqscan = off`` only shows that the query *can* use the index (the
  planner's preference on a small table proves nothing), for the indexes whose queries are
  the same shape as one checked by the planner's choice.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

RUNS = 1200
LISTS = 4


@pytest.fixture
def populated() -> list[Any]:
    """Accepted runs with phases, and ``LISTS`` lists holding all of them; then ANALYZE."""
    from django.db import connection

    from accounts.models import Site
    from rankings.models import ListEntry, ListState, RankedList
    from rankings.phases import PHASE_FIELDS, PHASES, unit
    from submissions.models import ListType, PhaseResult, Release, Submission

    rng = random.Random(21)
    site = Site.objects.create(name="Scale University", abbreviation="SU")
    releases = [
        Release.objects.create(
            acronym=f"R{n}", release_date=day, submission_deadline=day - timedelta(days=8)
        )
        for n, day in enumerate([date(2023, 5, 23), date(2023, 11, 14), date(2024, 5, 14)])
    ]
    runs = []
    for n in range(RUNS):
        bw, md = math.exp(rng.gauss(3, 1.5)), math.exp(rng.gauss(5, 1.5))
        runs.append(
            Submission(
                release=releases[n % len(releases)],
                site=site,
                status="accepted",
                score_bw=bw,
                score_md=md,
                score_total=math.sqrt(bw * md),
                score_valid=True,
                submitted_at=datetime(2023, 1, 1, tzinfo=UTC) + timedelta(minutes=n),
            )
        )
    runs = Submission.objects.bulk_create(runs)
    PhaseResult.objects.bulk_create(
        [
            PhaseResult(
                submission=run,
                name=p,
                order=i,
                value=(run.score_bw if unit(p) == "GiB/s" else run.score_md) * rng.random(),
                unit=unit(p),
            )
            for run in runs
            for i, p in enumerate(PHASES)
        ],
        batch_size=5000,
    )
    types = list(ListType.objects.order_by("order")[:LISTS])
    ordered = sorted(runs, key=lambda r: -r.score_total)
    lists = []
    for list_type in types:
        the_list = RankedList.objects.create(
            release=releases[-1], list_type=list_type, state=ListState.PUBLISHED
        )
        lists.append(the_list)
        ListEntry.objects.bulk_create(
            [
                ListEntry(
                    ranked_list=the_list,
                    submission=run,
                    position=pos,
                    rank=pos,
                    bw_rank=pos,
                    md_rank=pos,
                    score=run.score_total,
                    bw=run.score_bw,
                    md=run.score_md,
                    submitted_at=run.submitted_at,
                    origin_release=run.release,
                    fs_type=rng.choice(["Lustre", "DAOS", "BeeGFS"]),
                    **{f: run.score_bw for f in PHASE_FIELDS},
                )
                for pos, run in enumerate(ordered, start=1)
            ],
            batch_size=5000,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return lists


def plan_of(sql: str, params: Any = (), seqscan: bool = True) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        if not seqscan:
            cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        if not seqscan:
            cursor.execute("SET LOCAL enable_seqscan = on")
    return plan


def captured_selects(call: Any) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    # A UNION of sliced queries starts with "(SELECT", a list's filtered scan with "WITH".
    return [
        q["sql"]
        for q in captured.captured_queries
        if q["sql"].lstrip("(").startswith(("SELECT", "WITH"))
    ]


def test_the_indexes_exist() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes")
        indexes = {name: sql.replace('"', "") for name, sql in cursor.fetchall()}
    assert "(name, value DESC NULLS LAST)" in indexes["rankings_phaseresult_name_value"]
    for name, column in (
        ("entry_list_position", "position"),
        ("entry_list_score", "score DESC"),
        ("entry_list_bw", "bw DESC"),
        ("entry_list_md", "md DESC"),
    ):
        assert f"(ranked_list_id, {column})" in indexes[name], name
    from rankings.models import SORTED_COLUMNS, ListEntry

    for field in SORTED_COLUMNS:  # a sorted page walks one (listview._walked_ids)
        sql = indexes[f"entry_sort_{field}"]
        column = ListEntry._meta.get_field(field).column
        assert f"(ranked_list_id, {column}, position) INCLUDE (id" in sql, sql


def test_no_list_index_holds_a_rank() -> None:
    """An accepted run changes the ranks of every entry below it: those updates stay in
    their pages (HOT, rankings migration 0009) only while no index holds a rank."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT a.attname FROM pg_index i "
            "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) "
            "WHERE i.indrelid = 'rankings_listentry'::regclass"
        )
        indexed = {name for (name,) in cursor.fetchall()}
    assert "position" in indexed and "bw" in indexed  # the query reads index columns
    assert not indexed & {"rank", "bw_rank", "md_rank"}, indexed


def test_best_phase_values_read_the_top_of_the_index(populated: list[Any]) -> None:
    """Planner's choice: the radar's history reference (result, run and compare pages)."""
    from django.contrib.auth.models import AnonymousUser

    from rankings import charts
    from rankings.visibility import visible_submissions

    public = visible_submissions(AnonymousUser())
    queries = captured_selects(lambda: charts.history_best(public))
    assert len(queries) == 1  # the 12 index walks in one statement
    plan = plan_of(queries[0])
    assert "rankings_phaseresult_name_value" in plan, plan
    assert "Sort" not in plan, plan  # the visible runs are probed by id, not materialised
    assert "Seq Scan on submissions_phaseresult" not in plan, plan
    # And the values are the maxima an aggregate would give.
    from django.db.models import Max

    from submissions.models import PhaseResult

    expected = dict(
        PhaseResult.objects.filter(submission__in=public)
        .values("name")
        .annotate(best=Max("value"))
        .values_list("name", "best")
    )
    assert charts.history_best(public) == expected


@pytest.mark.urls("tests.webapp.test_rankings")
def test_trends_reads_the_stored_statistics_not_the_entries(populated: list[Any]) -> None:
    """The page's numbers come from ``ListStatistic`` rows (a few per list), whose best equals
    the aggregate over every entry; whether a list has entries is an index probe."""
    from django.db.models import Max
    from django.test import Client

    from rankings.maintenance.list_statistics import fill_missing
    from rankings.models import RankedList
    from rankings.views.trends import _lists_with_entries

    lists = RankedList.objects.filter(pk__in=[rl.pk for rl in populated])
    assert fill_missing() == LISTS  # the fixture wrote the entries around the builder
    for field in ("score", "bw", "md", "find"):
        stored = dict(
            lists.filter(statistics__metric=field).values_list("pk", "statistics__list_best")
        )
        assert stored == dict(
            lists.annotate(best=Max(f"entries__{field}")).values_list("pk", "best")
        )
    queries = captured_selects(lambda: Client().get("/trends/?phase=find"))
    values_read = [q for q in queries if "rankings_listentry" in q and "EXISTS" not in q]
    assert values_read == [], values_read
    assert any("rankings_liststatistic" in q for q in queries)
    # Whether a list has entries: an index probe per list, not a count of every entry.
    # Usable only: with 4 lists each a quarter of the table, a sequential scan stopping at
    # the first row is the planner's right choice here; at 100,000 it picks the index.
    queries = captured_selects(lambda: _lists_with_entries(lists))
    assert len(queries) == 1 and "EXISTS" in queries[0] and "COUNT" not in queries[0]
    plan = plan_of(queries[0], seqscan=False)
    assert "Seq Scan on rankings_listentry" not in plan, plan
    assert [has for *_rest, has in _lists_with_entries(lists)] == [True] * LISTS


def test_list_page_rows_read_the_position_index_without_joining_submissions(
    populated: list[Any],
) -> None:
    """Planner's choice: the first page of a list in rank order; sorting by another column
    reads the list's entries only (no join to the submissions, which PostgreSQL hashed
    whole before sorting)."""
    from django.http import QueryDict

    from rankings.listview import ViewState, entry_queryset

    the_list = populated[0]
    first = entry_queryset(the_list.entries.all(), ViewState())[:50]
    sql, params = first.query.sql_with_params()
    plan = plan_of(sql, params)
    assert "entry_list_position" in plan, plan
    assert "Seq Scan on rankings_listentry" not in plan, plan
    assert "submissions_submission" not in sql

    by_find = entry_queryset(the_list.entries.all(), ViewState.from_query(QueryDict("sort=find")))
    sql, params = by_find[:50].query.sql_with_params()
    assert "submissions_submission" not in sql
    assert "Seq Scan on rankings_listentry" not in plan_of(sql, params)
    # Downloads and the API still carry the IO500 id.
    records = entry_queryset(the_list.entries.all(), ViewState(), records=True)
    assert all(hasattr(e, "io500_id") for e in records[:3])


@pytest.mark.urls("tests.webapp.test_rankings")
def test_trends_page_is_computed_once_per_version_of_the_lists(
    populated: list[Any], client: Any
) -> None:
    """Anonymous views come from the cache until a visible list changes; signed-in users
    always get a computed page."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from rankings.models import RankedList

    cache.clear()

    def entry_reads(c: Any, path: str = "/trends/") -> int:
        with CaptureQueriesContext(connection) as captured:
            response = c.get(path)
        assert response.status_code == 200
        # Reads of the drawn numbers (the version key only asks EXISTS of each list and which
        # named best entries are hidden).
        return sum('"q1"' in q["sql"] for q in captured.captured_queries)

    assert entry_reads(client) > 0
    assert entry_reads(client) == 0  # cached
    assert entry_reads(client, "/trends/?phase=find") > 0  # another view, its own entry
    RankedList.objects.filter(pk=populated[0].pk).update(built_at=timezone.now())
    assert entry_reads(client) > 0  # a rebuilt list is a new version
    user = get_user_model().objects.create_user("reader", "reader@example.org", "pw-12345678")
    client.force_login(user)
    assert entry_reads(client) > 0 and entry_reads(client) > 0


def test_search_and_filters_stay_on_the_entry_table(populated: list[Any]) -> None:
    """A search tests the list's distinct texts (``list_index``) and then picks entries by
    key, and the filters compare plain entry columns, so the count and a page's ids can be
    answered from the list-order index, which carries them all (the key, not the text).
    Which index the planner picks depends on the list's size (on 1,200 entries it reads the
    rows; at 10,000 it scans entry_list_position only): bench/service_scale.py prints those
    plans. Without the list, a search is one LIKE on the stored search text."""
    from django.db import connection
    from django.db.models import CharField, Value
    from django.db.models.functions import Cast, Concat
    from django.http import QueryDict

    from rankings.listview import ListRows, ViewState
    from rankings.maintenance import list_index
    from rankings.models import ListEntry

    ListEntry.objects.update(system=Concat(Value("System "), Cast("submission_id", CharField())))
    list_index.refresh()  # as a canonical rename does after its UPDATE
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'entry_list_position'")
        carried = cursor.fetchone()[0].replace('"', "")
    assert carried.endswith(
        "(ranked_list_id, position) INCLUDE (id, fs_type, storage_vendor, client_nodes, level,"
        " origin_release_id, search_key)"
    ), carried
    the_list = populated[0]
    wanted = the_list.entries.order_by("position")[600].submission_id
    for query in (f"q=SYSTEM {wanted}", "fs=lustre&year=2024&level=none"):
        for list_id in (the_list.pk, None):
            state = ViewState.from_query(QueryDict(query))
            rows = ListRows(the_list.entries.all(), state, list_id=list_id)
            queries = captured_selects(lambda rows=rows: (rows.count(), rows[0:50]))
            on_entries = [sql for sql in queries if "rankings_listentry" in sql]
            # One scan gives the count and the page's ids; then the page's rows by id.
            assert len(on_entries) == 2 and "(SELECT count(*) FROM matching)" in on_entries[0], (
                queries
            )
            assert 0 < rows.count() < 1200
            scan = on_entries[0]
            assert "JOIN" not in scan, scan
            if query.startswith("q="):
                assert scan.count("LIKE") == (0 if list_id else 1) and "UPPER" not in scan, scan
                assert ('"search_key" = ANY(' in scan) == bool(list_id), scan
            assert "Seq Scan on rankings_listentry" not in plan_of(scan.replace("%", "%%"))
    found = {e.submission_id for e in rows_for(the_list, f"q=system {wanted}")}
    # "system 12" also finds "system 120" to "system 129"
    assert wanted in found and all(str(sid).startswith(str(wanted)) for sid in found), found
    state = ViewState.from_query(QueryDict(f"q=system {wanted}"))
    by_text = ListRows(the_list.entries.all(), state)
    assert found == {e.submission_id for e in by_text[0:50]}


def rows_for(the_list: Any, query: str) -> list[Any]:
    from django.http import QueryDict

    from rankings.listview import ListRows, ViewState

    state = ViewState.from_query(QueryDict(query))
    return ListRows(the_list.entries.all(), state, list_id=the_list.pk)[0:50]
