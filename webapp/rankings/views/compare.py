"""Side-by-side comparison of 2 to ``MAX_COMPARE`` submissions: values, ratios, charts and
what differed between them (``differences``)."""

from __future__ import annotations

from collections import defaultdict
from functools import partial

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from ioscore_site.finite_json import finite
from ioscore_site.whole_numbers import whole_number
from submissions import public_version
from submissions.models import PhaseResult, Submission

from .. import charts, page_cache
from ..differences import differences
from ..phases import PHASES, unit
from ..visibility import visible_submissions

MAX_COMPARE = 6


def _parse_ids(text: str) -> list[int]:
    ids: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        number = whole_number(part)
        if number is None:
            raise ValueError(f"parameter 'ids': {part!r} is not a submission id")
        if number not in ids:
            ids.append(number)
    return ids


# The query parameters the page reads (its cache key holds these alone).
COMPARE_PARAMS = ("ids", "pick", "baseline")


def compare(request: HttpRequest) -> HttpResponseBase:
    # Everything shown (the runs, their phases, the best of all public runs) is public
    # results: one version covers it.
    return page_cache.serve(
        request,
        "compare",
        [public_version.current()],
        lambda: _render_compare(request),
        params=page_cache.read_params(request, COMPARE_PARAMS),
    )


def _render_compare(request: HttpRequest) -> HttpResponse:
    error = ""
    try:
        # ?ids=1,2,3 (permalinks) or repeated ?pick= (the list page's checkboxes)
        ids = _parse_ids(",".join([request.GET.get("ids", ""), *request.GET.getlist("pick")]))
    except ValueError as exc:
        ids, error = [], str(exc)
    if len(ids) > MAX_COMPARE:
        error = f"pick at most {MAX_COMPARE} submissions (got {len(ids)})"
        ids = ids[:MAX_COMPARE]
    found = {
        s.pk: s
        for s in visible_submissions(request.user)
        .filter(pk__in=ids)
        .select_related("release", "site", "client_system", "system_description")
    }
    missing = [i for i in ids if i not in found]
    if missing:
        error = "not found or not public: " + ", ".join(f"#{i}" for i in missing)
    subs = [found[i] for i in ids if i in found]
    if not error and 0 < len(subs) < 2:
        error = "pick at least 2 submissions to compare"
    values: dict[int, dict[str, float]] = defaultdict(dict)
    ran: dict[str, None] = {}  # every phase of the runs, in run order (an option's phases)
    for sid, name, value in (
        PhaseResult.objects.filter(submission__in=subs)
        .order_by("order")
        .values_list("submission_id", "name", "value")
    ):
        ran[name] = None
        if name in PHASES:
            values[sid][name] = value
    baseline_id = _int_or_none(request.GET.get("baseline"))
    baseline = next((s for s in subs if s.pk == baseline_id), subs[0] if subs else None)
    labels = {s.pk: charts.submission_label(s) for s in subs}
    metrics = [("score", "Score", ""), ("bw", "BW", "GiB/s"), ("md", "MD", "kIOPS")]
    ratio_rows = []
    for key, label, metric_unit in metrics:
        ratio_rows.append(
            charts.ratio_row(
                label,
                metric_unit,
                subs,
                baseline,
                partial(_metric_of, key),
            )
        )
    for phase in PHASES:
        ratio_rows.append(
            charts.ratio_row(phase, unit(phase), subs, baseline, partial(_phase_of, values, phase))
        )
    history_best = charts.history_best(visible_submissions(request.user))
    series = [(labels[s.pk], values[s.pk]) for s in subs]
    chart_data = {
        "radar": charts.radar_payload(series, None, history_best, ""),
        "bars": charts.bars_payload(
            series, [{m: _metric_of(m, s) for m in ("score", "bw", "md")} for s in subs]
        ),
        "ids": [s.pk for s in subs],
    }
    return render(
        request,
        "rankings/compare.html",
        {
            "nav": "compare",
            "error": error,
            "subs": subs,
            "labels": labels,
            "baseline": baseline,
            "ratio_rows": ratio_rows,
            "diff_rows": charts.description_diff(subs),
            "differences": differences(subs, [*PHASES, *(p for p in ran if p not in PHASES)]),
            "chart_data": finite(chart_data),
            "ids_text": ",".join(str(s.pk) for s in subs) or request.GET.get("ids", ""),
            "max_compare": MAX_COMPARE,
        },
    )


def _metric_of(metric: str, submission: Submission) -> float | None:
    return {"score": submission.score_total, "bw": submission.score_bw, "md": submission.score_md}[
        metric
    ]


def _phase_of(
    values: dict[int, dict[str, float]], phase: str, submission: Submission
) -> float | None:
    return values[submission.pk].get(phase)


def _int_or_none(text: str | None) -> int | None:
    return whole_number(text) if text else None
