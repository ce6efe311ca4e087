"""A run withdrawn after its list was published leaves the list's statistics (trends, list
sizes, the best per release) as soon as the lists are updated, and the change log records its
removal as "withdrawn" without repeating its numbers."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest
from django.urls import reverse

from .test_rankings import World, build

pytestmark = pytest.mark.django_db

WITHDRAWN_SCORE = 987.654  # an unmistakable number: the best on the list


@pytest.fixture
def scene(cast: Any) -> dict[str, Any]:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    kept = [world.submission(sc19, score, system=f"Kept {score}") for score in (3.0, 5.0, 7.0)]
    gone = world.submission(sc19, WITHDRAWN_SCORE, system="Withdrawn Machine")
    build()
    return {"kept": kept, "gone": gone}


def _withdraw(submission: Any) -> None:
    from rankings.maintenance.builder import update_lists

    # After publication the withdrawal reaches the lists as every status change does.
    submission.status = "withdrawn"
    submission.save()
    update_lists([submission.pk])


def _statistic(slug: str, metric: str = "score") -> Any:
    from rankings.models import ListStatistic

    return ListStatistic.objects.get(
        ranked_list__release__acronym="SC19", ranked_list__list_type__slug=slug, metric=metric
    )


def test_a_withdrawn_run_leaves_statistics_and_trends(client: Any, scene: dict[str, Any]) -> None:
    from rankings.models import ListState, RankedList

    full = RankedList.objects.get(release__acronym="SC19", list_type__slug="full")
    assert full.state == ListState.PUBLISHED
    assert _statistic("full").list_best == WITHDRAWN_SCORE  # before: it is the list's best
    trends = reverse("rankings:trends") + "?list=full"
    assert str(WITHDRAWN_SCORE) in client.get(trends).content.decode()

    _withdraw(scene["gone"])

    score = _statistic("full")
    assert score.list_count == 3 and score.count == 3
    assert score.list_best == score.maximum == 7.0 and score.best_submission_id != scene["gone"].pk
    for metric in ("bw", "md", "ior-easy-write"):
        assert _statistic("full", metric).list_best == 7.0, metric
    page = client.get(trends).content.decode()
    assert str(WITHDRAWN_SCORE) not in page and "Withdrawn Machine" not in page
    payload = json.loads(page.split('type="application/json">')[1].split("</script>")[0])
    assert str(WITHDRAWN_SCORE) not in json.dumps(payload)  # in no series of the chart


def test_the_change_log_says_withdrawn_without_its_numbers(
    client: Any, scene: dict[str, Any]
) -> None:
    from rankings.models import Correction

    _withdraw(scene["gone"])
    build(correction_reason="the submitter withdrew the run")
    recorded = Correction.objects.filter(submission=scene["gone"])
    assert recorded.exists()
    assert all(c.kind == "withdrawn" and c.old_value is None for c in recorded)
    page = client.get(reverse("rankings:changelog", args=["SC19"])).content.decode()
    assert "Entry withdrawn" in page and "the submitter withdrew the run" in page
    assert str(WITHDRAWN_SCORE) not in page and "987.65" not in page


def test_a_full_build_restates_a_run_withdrawn_behind_its_back(scene: dict[str, Any]) -> None:
    from submissions.models import Submission

    Submission.objects.filter(pk=scene["gone"].pk).update(status="withdrawn")  # no signal
    assert _statistic("full").list_best == WITHDRAWN_SCORE
    build()  # without a reason: the published list keeps the entry until a correction
    assert _statistic("full").list_best == 7.0 and _statistic("full").list_count == 3
