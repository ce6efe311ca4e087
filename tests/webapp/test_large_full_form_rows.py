"""A full-form result above the rank-detail threshold (a run with the suite's
threshold raised) is stored in the summary form the suite itself writes there, so its pages
read bounded rows whatever the rank count; the run's file, kept in the archive, is named as
the place of every rank. Rows stored in the full form before are rewritten the same way by
migration submissions 0010; up to the threshold nothing changes."""

from __future__ import annotations

import importlib
import io
import json
import pickle
import re
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client

from ioscore.results import RANK_DETAIL_THRESHOLD, synthetic
from ioscore.results.parse_json import parse_result_json_text
from ioscore.results.stragglers import phase_spread
from submissions.models import PhaseResult, Status, Submission
from submissions.run_rows import library_phase, phase_rows, rank_fields
from validation.pipeline import Context, evaluate

from .portal_runs import store_run

pytestmark = pytest.mark.django_db
ABOVE, PPN, SLOW_HOST = RANK_DETAIL_THRESHOLD + 4, 100, 7
NAMED_MAX = 2 * synthetic.EXTREME_RANKS
BACKFILL = importlib.import_module("migrations.submissions.0010_summarise_large_full_form_phases")


def _document(ranks: int) -> dict[str, Any]:
    return synthetic.full_document(ranks, ppn=PPN, slow_hosts=(SLOW_HOST,))


def _rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    """What the worker stores of the document, after the database's JSON round trip."""
    run = parse_result_json_text(json.dumps(document), "run/result.json")
    return [json.loads(json.dumps(row)) for row in phase_rows(run)]


def _nearest_rank(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[round(percent / 100 * (len(ordered) - 1))]


def test_a_large_full_form_run_is_stored_as_the_suite_summarises_it() -> None:
    document = _document(ABOVE)
    stored = _rows(document)
    as_suite_writes = _rows(synthetic.summarised(document))
    assert [r["name"] for r in stored] == [r["name"] for r in as_suite_writes]
    for ours, suites in zip(stored, as_suite_writes, strict=True):
        name = ours["name"]
        assert ours["rank_summary"]["full_file"] == "result.json", name
        assert {**ours["rank_summary"], "full_file": None} == suites["rank_summary"], name
        assert ours["ranks"] == suites["ranks"], name
        assert ours["timeseries"] == suites["timeseries"], name
        assert ours["timeseries"]["per_rank"] == [] and ours["timeseries"]["aggregate"], name
        assert len(ours["ranks"]) <= NAMED_MAX, name


def test_the_stored_summary_describes_every_rank() -> None:
    document = _document(ABOVE)
    by_name = {p["name"]: p for p in document["phases"]}
    found_slow_host = False
    for row in _rows(document):
        summary, ranks = row["rank_summary"], by_name[row["name"]]["ranks"]
        assert summary["count"] == ABOVE == sum(summary["histogram_counts"]), row["name"]
        rates = [r["rate"] for r in ranks]
        for percent in (0, 5, 50, 95, 100):
            assert summary["quantiles"]["rate"][f"p{percent}"] == _nearest_rank(rates, percent)
        slowest = sorted(ranks, key=lambda r: (r["rate"], r["rank"]))[: synthetic.EXTREME_RANKS]
        assert summary["slowest"] == [r["rank"] for r in slowest]
        assert sum(host["ranks"] for host in summary["hosts"]) == ABOVE
        spread = phase_spread(library_phase(PhaseResult(**row)))
        found_slow_host |= f"node{SLOW_HOST:05d}" in {f.host for f in spread.host_stragglers}
    assert found_slow_host, "the slow host is found from what was stored"


def test_up_to_the_threshold_every_rank_is_kept() -> None:
    for row in _rows(_document(RANK_DETAIL_THRESHOLD)):
        assert row["rank_summary"] is None, row["name"]
        assert len(row["ranks"]) == RANK_DETAIL_THRESHOLD, row["name"]
        assert len(row["timeseries"]["per_rank"]) == RANK_DETAIL_THRESHOLD, row["name"]


def test_the_validation_child_hands_the_worker_the_stored_form(
    open_release: Any, tmp_path: Path
) -> None:
    """The checks read every rank in the limited child; what crosses to the worker (pickled)
    is the run as it is stored, not a 100,000-rank model."""
    content = json.dumps(_document(ABOVE)).encode()
    archive = tmp_path / "run.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        member = tarfile.TarInfo("run/result.json")
        member.size = len(content)
        tar.addfile(member, io.BytesIO(content))
    context = Context(open_release, "research", False, None, None)
    sandbox = tmp_path / "sandbox"  # the task makes it, below the media directory
    sandbox.mkdir()
    outcome = evaluate(archive, sandbox, context)
    assert outcome.run is not None, [issue.message for issue in outcome.issues]
    assert outcome.run_dir == "run"
    for phase in outcome.run.phases.values():
        if phase.rank_summary is not None or phase.ranks:
            assert phase.rank_summary is not None and phase.rank_summary.count == ABOVE
            assert phase.rank_summary.full_file == "result.json"
            assert len(phase.ranks) <= NAMED_MAX, phase.name
            assert not (phase.timeseries or {}).get("per_rank"), phase.name
    assert len(pickle.dumps(outcome)) < len(content) / 20


def _chart_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', page)
    assert found, "the page carries its chart data"
    data: dict[str, Any] = json.loads(found[1])
    return data


def test_the_pages_of_a_large_full_form_run_show_the_summary(
    cast: Any, open_release: Any, tmp_path: Path
) -> None:
    (tmp_path / "result.json").write_text(json.dumps(_document(ABOVE)))
    run = store_run(tmp_path, cast.submitter, cast.site, open_release, Status.ACCEPTED)
    reviewer, owner = Client(), Client()
    reviewer.force_login(cast.reviewer)
    owner.force_login(cast.submitter)
    for client, path in ((reviewer, f"/results/{run.pk}/"), (owner, f"/submissions/{run.pk}/")):
        response = client.get(path)
        assert response.status_code == 200, path
        page = response.content.decode()
        note = page.split('id="summary-note"', 1)[1].split("</p>", 1)[0]
        assert "<code>result.json</code>" in note, path
        spread = _chart_data(page)["spread"]
        assert spread and all(s["summary"]["count"] == ABOVE for s in spread), path
        assert all(len(s["ranks"]) <= NAMED_MAX for s in spread), path


def _old_full_form_rows(submission: Submission, document: dict[str, Any]) -> None:
    """The document's phases as rows were stored before: every rank, no summary."""
    run = parse_result_json_text(json.dumps(document), "run/result.json")
    for order, (name, phase) in enumerate(run.phases.items()):
        PhaseResult.objects.create(
            submission=submission,
            name=name,
            order=order,
            value=phase.value,
            unit=phase.unit,
            time=phase.time,
            **rank_fields(phase),
        )


def test_the_migration_summarises_rows_stored_in_the_full_form(
    cast: Any, open_release: Any
) -> None:
    def submission(run_format: str) -> Submission:
        return Submission.objects.create(
            release=open_release, owner=cast.submitter, site=cast.site, run_format=run_format
        )

    large, small = _document(ABOVE), _document(64)
    large_run, small_run = submission("ioscore-json"), submission("ioscore-json")
    _old_full_form_rows(large_run, large)
    _old_full_form_rows(small_run, small)
    small_before = list(small_run.phases.values("pk", "ranks", "rank_summary", "timeseries"))
    assert all(len(p.ranks) == ABOVE for p in large_run.phases.all())

    with connection.schema_editor() as editor:
        BACKFILL.summarise(apps, editor)

    wanted = {row["name"]: row for row in _rows(large)}
    for phase in large_run.phases.all():
        expected = wanted[phase.name]
        assert phase.rank_summary == expected["rank_summary"], phase.name
        assert phase.ranks == expected["ranks"], phase.name
        assert phase.timeseries == expected["timeseries"], phase.name
    assert list(small_run.phases.values("pk", "ranks", "rank_summary", "timeseries")) == (
        small_before
    )
    with connection.schema_editor() as editor:  # a second run finds nothing left to do
        BACKFILL.summarise(apps, editor)
    assert {p.name: p.rank_summary for p in large_run.phases.all()} == {
        name: row["rank_summary"] for name, row in wanted.items()
    }
