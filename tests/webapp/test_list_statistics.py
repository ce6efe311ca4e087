"""The trends statistics stored with each list (``rankings.maintenance.list_statistics``): equal
to what the entries give, written whenever a list's entries are (full build, incremental
update, correction), filled for lists stored before them, and what the trends page draws.
"""

from __future__ import annotations

import io
import json
import re
import statistics
from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from .test_rankings import World

pytestmark = pytest.mark.django_db


def _row(sid: int, origin: int, value: float | None, **fields: Any) -> SimpleNamespace:
    from rankings.maintenance.list_statistics import METRIC_FIELDS

    values: dict[str, float | None] = {field: None for field in METRIC_FIELDS.values()}
    values.update(score=value, bw=value, md=value)
    values.update(fields)
    return SimpleNamespace(
        submission_id=sid,
        origin_release_id=origin,
        submitted_at=datetime(2024, 1, 1, sid % 24, tzinfo=UTC),
        system=f"S{sid}",
        institution="Uni",
        **values,
    )


def test_quantiles_interpolate_as_plotly_linear_and_numpy_default() -> None:
    from rankings.maintenance.list_statistics import quantile

    for values in ([1.0, 2.0], [3.0, 1.0, 7.0, 5.0, 2.0], [0.5, 9.0, 9.0, 10.0, 40.0, 41.0]):
        ordered = sorted(values)
        assert [quantile(ordered, f) for f in (0.25, 0.5, 0.75)] == pytest.approx(
            statistics.quantiles(ordered, n=4, method="inclusive")
        )
    assert quantile([4.0], 0.25) == quantile([4.0], 0.75) == 4.0


def test_boxes_of_known_values_count_only_new_positive_entries() -> None:
    from rankings.maintenance.list_statistics import compute
    from rankings.models import RankedList

    the_list = RankedList(release_id=2)  # unsaved: compute reads only its release
    rows = [
        _row(1, 2, 10.0),
        _row(2, 2, 40.0),
        _row(3, 2, 20.0),
        _row(4, 2, 30.0),
        _row(5, 2, 0.0),  # a failed phase: counted, not drawn
        _row(6, 1, 1000.0),  # carried from an earlier release: not new
        _row(7, 2, None),  # no value at all
    ]
    by_metric = {s.metric: s for s in compute(the_list, rows)}
    score = by_metric["score"]
    assert (score.count, score.not_drawn) == (4, 1)
    assert (score.minimum, score.q1, score.median, score.q3, score.maximum) == (
        10.0,
        17.5,
        25.0,
        32.5,
        40.0,
    )
    assert score.best_submission_id == 2 and score.best_name == "S2 (Uni)"
    assert by_metric["find"].count == 0 and by_metric["find"].median is None
    assert len(by_metric) == 15  # score, BW, MD and the 12 phases

    single = {s.metric: s for s in compute(the_list, [_row(9, 2, 3.5)])}
    assert (single["md"].minimum, single["md"].median, single["md"].maximum) == (3.5, 3.5, 3.5)
    assert single["md"].count == 1 and single["md"].best_submission_id == 9

    empty = compute(the_list, [])
    assert all(s.count == 0 and s.not_drawn == 0 and s.maximum is None for s in empty)


def _stored(release: str, slug: str, metric: str = "score") -> Any:
    from rankings.models import ListStatistic

    return ListStatistic.objects.get(
        ranked_list__release__acronym=release, ranked_list__list_type__slug=slug, metric=metric
    )


def _expected(release: str, slug: str, field: str = "score") -> tuple[int, list[float]]:
    """(count, [min, q1, median, q3, max]) recomputed from the stored entries."""
    from rankings.models import ListEntry

    values = sorted(
        v
        for v, origin, own in ListEntry.objects.filter(
            ranked_list__release__acronym=release, ranked_list__list_type__slug=slug
        ).values_list(field, "origin_release_id", "ranked_list__release_id")
        if origin == own and v is not None and v > 0
    )
    if not values:
        return 0, []
    quartiles = (
        statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 else values * 3
    )
    return len(values), [values[0], *quartiles, values[-1]]


def _box(stat: Any) -> tuple[int, list[Any]]:
    if not stat.count:
        return 0, []
    numbers = [stat.minimum, stat.q1, stat.median, stat.q3, stat.maximum]
    return stat.count, [pytest.approx(v) for v in numbers]


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
def built(world: World) -> dict[str, Any]:
    """Two releases of the current era: four Research runs in the first (scores 10..40), one
    new 10-node run in the second (its 10-node list has a single entry), no Production run
    (empty Production lists). Built as on 2023-01-01: the lists are drafts."""
    from rankings.maintenance.builder import build_lists

    made = {
        "ISC23": world.release("ISC23", date(2023, 5, 23)),
        "SC23": world.release("SC23", date(2023, 11, 14)),
    }
    for n, score in enumerate((10.0, 40.0, 20.0, 30.0)):
        world.submission(made["ISC23"], score, storage=world.storage(f"fs-{n}"), nodes=16)
    world.submission(made["SC23"], 50.0, storage=world.storage("fs-late"), nodes=10)
    build_lists(today=date(2023, 1, 1))
    return made


def test_built_lists_store_what_their_entries_give(built: dict[str, Any]) -> None:
    from rankings.maintenance.list_statistics import METRIC_FIELDS
    from rankings.models import ListStatistic, RankedList

    assert _box(_stored("ISC23", "historical")) == (4, [10.0, 17.5, 25.0, 32.5, 40.0])
    # SC23's Historical list carries the four and adds one: its box is the new run alone.
    assert _box(_stored("SC23", "historical")) == (1, [50.0] * 5)
    assert _stored("SC23", "historical").best_name.startswith("System ")
    # Empty list: a row per metric, nothing to draw.
    production = _stored("SC23", "production")
    assert production.count == 0 and production.maximum is None
    for ranked_list in RankedList.objects.all():
        rows = ListStatistic.objects.filter(ranked_list=ranked_list)
        assert {s.metric for s in rows} == set(METRIC_FIELDS)
        for stat in rows:
            field = METRIC_FIELDS[stat.metric]
            assert _box(stat) == _expected(
                ranked_list.release.acronym, ranked_list.list_type.slug, field
            )


def test_incremental_update_and_correction_rewrite_the_statistics(
    world: World, built: dict[str, Any]
) -> None:
    from rankings.maintenance.builder import build_lists, update_lists
    from rankings.models import ListState, RankedList

    late = world.submission(built["SC23"], 5.0, storage=world.storage("fs-new"), nodes=16)
    update_lists([late.pk], today=date(2023, 1, 1))
    assert _box(_stored("SC23", "historical")) == (2, [5.0, 16.25, 27.5, 38.75, 50.0])
    assert _box(_stored("ISC23", "historical")) == (4, [10.0, 17.5, 25.0, 32.5, 40.0])

    # A published list changes by correction only: the statistics follow the correction.
    RankedList.objects.filter(release=built["SC23"]).update(state=ListState.PUBLISHED)
    again = world.submission(built["SC23"], 70.0, storage=world.storage("fs-big"), nodes=16)
    build_lists(today=date(2024, 1, 1))  # stale, not written
    assert _stored("SC23", "historical").count == 2
    report = build_lists(today=date(2024, 1, 1), correction_reason="late run accepted")
    assert "SC23/historical" in report.corrected
    stat = _stored("SC23", "historical")
    assert _box(stat) == _expected("SC23", "historical") and stat.count == 3
    assert stat.maximum == 70.0 and stat.best_submission_id == again.pk


def test_build_lists_fills_lists_stored_without_statistics(built: dict[str, Any]) -> None:
    from django.core.management import call_command

    from rankings.models import ListStatistic, RankedList

    ListStatistic.objects.filter(ranked_list__release=built["ISC23"]).delete()
    call_command("build_lists", stdout=io.StringIO())
    assert _box(_stored("ISC23", "historical")) == (4, [10.0, 17.5, 25.0, 32.5, 40.0])
    assert ListStatistic.objects.count() == 15 * RankedList.objects.count()


def test_trends_page_draws_the_stored_boxes_and_not_every_value(built: dict[str, Any]) -> None:
    from rankings.models import RankedList

    RankedList.objects.update(state="published")  # visible to anonymous visitors
    html = Client().get(reverse("rankings:trends"), {"list": "historical"}).content.decode()
    match = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', html, re.S)
    assert match
    dist = json.loads(match.group(1))["distribution"]
    assert "values" not in dist
    boxes = dict(zip(dist["releases"], dist["boxes"], strict=True))
    isc23 = boxes["ISC23"]
    assert [isc23[k] for k in ("min", "q1", "median", "q3", "max")] == [
        10.0,
        17.5,
        25.0,
        32.5,
        40.0,
    ]
    assert isc23["count"] == 4
    assert isc23["best"]["id"] == _stored("ISC23", "historical").best_submission_id
    assert boxes["SC23"]["count"] == 1 and boxes["SC23"]["max"] == 50.0
