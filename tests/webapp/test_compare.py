"""The compare page: one bar chart per unit (ior phases in GiB/s, metadata phases in kIOPS)
and the three scores each on an axis of its own, with the submissions' real values.

Runs on the real sample of the IO500 archive carried in the repository.
"""

from __future__ import annotations

import io
import json
import re
from html import unescape
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


# --- what differed ------------------------------------------------------------------------------


def _differed(html: str) -> dict[str, dict[str, list[str]]]:
    """group -> row label -> the row's cells (one per run, then the phases for options)."""
    section = html[html.index('id="what-differed"') : html.index('id="h-diff"')]
    groups: dict[str, dict[str, list[str]]] = {}
    for group, body in re.findall(r'data-group="([^"]+)">.*?<tbody>(.*?)</tbody>', section, re.S):
        rows = {}
        for label, cells in re.findall(r'<th scope="row">(.*?)</th>(.*?)</tr>', body, re.S):
            label = re.sub(r"</?code>", "", label)
            values = [
                re.sub(r"<[^>]+>", "", c).strip()
                for c in re.findall(r"<td[^>]*>(.*?)</td>", cells, re.S)
            ]
            rows[unescape(label)] = [unescape(v) for v in values]
        groups[group] = rows
    return groups


def _phases_touched(section: str) -> list[str]:
    """The rule written out: a phase's own section, a prefix of phase names, or every phase."""
    if section.lower() in ("global", "debug"):
        return ["every phase"]
    return [p for p in PHASES if p == section.lower() or p.startswith(section.lower() + "-")]


def test_compare_lists_the_options_fields_and_versions_that_differ() -> None:
    call_command("import_io500", str(SAMPLE), stdout=io.StringIO())
    configured = [s for s in _picked(10) if s.config]
    first, second = next(
        (a, b)
        for i, a in enumerate(configured)
        for b in configured[i + 1 :]
        if a.config != b.config
    )
    html = (
        Client()
        .get(reverse("rankings:compare"), {"ids": f"{first.pk},{second.pk}"})
        .content.decode()
    )
    groups = _differed(html)
    options = groups["configuration-options"]
    expected = {}
    for section in {*first.config, *second.config}:
        keys = {*first.config.get(section, {}), *second.config.get(section, {})}
        for key in keys:
            values = [s.config.get(section, {}).get(key) for s in (first, second)]
            shown = ["not set" if v in (None, "") else str(v) for v in values]
            if shown[0] != shown[1]:
                expected[f"[{section}] {key}"] = [
                    *shown,
                    ", ".join(_phases_touched(section)) or "\u2013",  # a dash: no phase
                ]
    assert expected, "the two runs' configurations differ"
    assert options == expected
    described = [s.system_description for s in (first, second)]
    fields = groups.get("system-description", {}) | groups.get("software-versions", {})
    for label, values in fields.items():
        assert len(values) == 2 and values[0] != values[1], label
    if first.benchmark_version != second.benchmark_version:
        assert fields["Benchmark version"] == [
            first.benchmark_version or "not set",
            second.benchmark_version or "not set",
        ]
    if described[0].total_procs != described[1].total_procs:
        assert fields["Total procs"] == [str(d.total_procs) for d in described]


def test_an_option_touches_the_phases_its_section_names() -> None:
    from rankings.differences import EVERY_PHASE, touched_phases

    phases = [*PHASES, "ior-rnd4K-easy-read"]
    assert touched_phases("ior-easy", phases) == ("ior-easy-write", "ior-easy-read")
    assert touched_phases("IOR-Hard-Write", phases) == ("ior-hard-write",)
    assert touched_phases("mdtest-hard", phases) == (
        "mdtest-hard-write",
        "mdtest-hard-stat",
        "mdtest-hard-read",
        "mdtest-hard-delete",
    )
    assert touched_phases("ior-rnd4K", phases) == ("ior-rnd4K-easy-read",)
    assert touched_phases("global", phases) == touched_phases("debug", phases) == (EVERY_PHASE,)
    assert touched_phases("find", phases) == ("find",)
    assert touched_phases("run", phases) == ()
