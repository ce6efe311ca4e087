"""The compare page: one bar chart per unit (ior phases in GiB/s, metadata phases in kIOPS)
and the three scores each on an axis of its own, with the submissions' real values.

Runs on the real sample of the IO500 archive carried in the repository.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from rankings.phases import PHASES, unit
from submissions.models import PhaseResult, Submission

pytestmark = pytest.mark.django_db
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "io500-sample"


def _chart_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', html, re.S)
    assert match, "the page carries no chart data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def _picked(n: int) -> list[Submission]:
    with_all_phases = [
        s
        for s in Submission.objects.order_by("pk")
        if PhaseResult.objects.filter(submission=s, name__in=PHASES).count() == len(PHASES)
    ]
    assert len(with_all_phases) >= n
    return with_all_phases[:n]


def test_one_chart_per_unit_with_the_submissions_values() -> None:
    call_command("import_io500", str(SAMPLE), stdout=io.StringIO())
    subs = _picked(3)
    response = Client().get(reverse("rankings:compare"), {"ids": ",".join(str(s.pk) for s in subs)})
    assert response.status_code == 200
    html = response.content.decode()
    for chart in ("bars-bw", "bars-md", "bars-scores"):
        assert f'id="{chart}"' in html
    bars = _chart_data(html)["bars"]

    assert (bars["bw"]["title"], bars["bw"]["unit"]) == ("bandwidth (GiB/s)", "GiB/s")
    assert (bars["md"]["title"], bars["md"]["unit"]) == ("metadata rate (kIOPS)", "kIOPS")
    assert {unit(p) for p in bars["bw"]["phases"]} == {"GiB/s"}
    assert {unit(p) for p in bars["md"]["phases"]} == {"kIOPS"}
    assert sorted(bars["bw"]["phases"] + bars["md"]["phases"]) == sorted(PHASES)
    for key in ("bw", "md"):
        group = bars[key]
        assert len(group["traces"]) == 3
        for trace, sub in zip(group["traces"], subs, strict=True):
            assert trace["name"].startswith(f"#{sub.pk} ")
            stored = dict(sub.phases.values_list("name", "value"))
            assert trace["values"] == [stored[p] for p in group["phases"]]

    scores = bars["scores"]
    assert [p["title"] for p in scores["panels"]] == ["Score", "BW (GiB/s)", "MD (kIOPS)"]
    for trace, sub in zip(scores["traces"], subs, strict=True):
        assert trace["values"] == [sub.score_total, sub.score_bw, sub.score_md]


def test_a_single_pick_draws_nothing_and_says_why() -> None:
    call_command("import_io500", str(SAMPLE), stdout=io.StringIO())
    (sub,) = _picked(1)
    html = Client().get(reverse("rankings:compare"), {"ids": str(sub.pk)}).content.decode()
    assert "pick at least 2 submissions to compare" in html
