"""A summary-form phase (above the rank-detail threshold) as Chromium draws it on the
result page: the rate histogram of every rank, its p5/p50/p95 lines and the named stragglers,
no script errors. The run is the dev archive's Aurora run with its per-rank CSVs extended just
past the threshold (``tests/webapp/archive_rank_csvs.py``)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from ioscore.results import RANK_DETAIL_THRESHOLD
from submissions.models import Submission
from tests.webapp.archive_rank_csvs import AURORA, aurora_archive

from .conftest import chromium_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not AURORA.is_dir(), reason=f"the IO500 dev archive is not at {AURORA}"),
]
SLOW = range(3_000, 3_012)
SPREAD = """() => {
  const gd = document.getElementById('spread');
  return { title: gd._fullLayout.title.text,
           data: gd.data.map(t => ({ type: t.type, name: t.name, x: t.x, y: t.y })) };
}"""


def test_a_summary_phase_draws_its_histogram_and_stragglers(
    transactional_db: None,
    live_server: Any,
    media_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ranks = RANK_DETAIL_THRESHOLD + 1
    aurora_archive(tmp_path, ranks, SLOW)
    call_command("import_io500", str(tmp_path), stdout=io.StringIO())
    run = Submission.objects.get(external_id="io500:694")
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_page() as page:
        page.goto(f"{live_server.url}/results/{run.pk}/")
        page.wait_for_selector("body[data-charts=ready]")
        page.select_option("#spread-phase", label="ior-easy-write (12 stragglers)")
        figure = page.evaluate(SPREAD)
        assert not page.js_errors, page.js_errors
    assert f"ior-easy-write: {ranks} ranks by rate" in figure["title"]
    bars, *lines, stragglers = figure["data"]
    assert bars["type"] == "bar" and sum(bars["y"]) == ranks
    assert [line["name"] for line in lines] == ["p5", "p50", "p95"]
    assert stragglers["name"] == "stragglers" and len(stragglers["x"]) == len(SLOW)
