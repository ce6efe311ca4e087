"""The archive's large per-rank CSVs: Aurora's 62,400 processes import in the
suite's summary form (above the rank-detail threshold), plot as a distribution with a bounded
page, and the straggler finding names the slow ranks; up to the threshold nothing changes.

The data is the dev archive's Aurora DAOS run (2,080 ranks) with its CSVs extended in their
exact format (``archive_rank_csvs``); the test skips without ``../shared/data``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from ioscore.results import RANK_DETAIL_THRESHOLD
from submissions.models import Submission

from .archive_rank_csvs import ARCHIVE_LARGEST, AURORA, AURORA_RANKS, aurora_archive

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(not AURORA.is_dir(), reason=f"the IO500 dev archive is not at {AURORA}"),
]
EXTERNAL_ID = "io500:694"
# The rate column of each phase's CSV, read here independently of the library's parser.
RATE_COLUMN = {
    "ior-easy-write": "throughput",
    "ior-hard-write": "throughput",
    "ior-easy-read": "throughput",
    "ior-hard-read": "throughput",
    "mdtest-easy-write": "rate-File creation",
    "mdtest-hard-write": "rate-File creation",
    "mdtest-easy-stat": "rate-File stat",
    "mdtest-hard-stat": "rate-File stat",
    "mdtest-hard-read": "rate-File read",
    "mdtest-easy-delete": "rate-File removal",
    "mdtest-hard-delete": "rate-File removal",
}
NAMED_MAX = 32  # the summary form names at most 16 slowest and 16 fastest ranks


def _import(root: Path) -> Submission:
    call_command("import_io500", str(root), stdout=io.StringIO())
    return Submission.objects.get(external_id=EXTERNAL_ID)


def _rates(run_dir: Path, phase: str) -> list[float]:
    with (run_dir / f"{phase}.csv").open() as handle:
        rows = csv.DictReader(handle)
        return [float(r[RATE_COLUMN[phase]]) for r in rows if r["rank"].isdigit()]


def _nearest_rank(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[round(percent / 100 * (len(ordered) - 1))]


def _chart_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', page)
    assert found, "the result page carries its chart data"
    data: dict[str, Any] = json.loads(found[1])
    return data


def test_aurora_scale_csvs_import_as_a_summary_named_and_plotted(tmp_path: Path) -> None:
    slow = range(40_000, 40_012)  # one node's ranks at a fifth of the rate
    run_dir = aurora_archive(tmp_path, ARCHIVE_LARGEST, slow)
    run = _import(tmp_path)
    phases = {p.name: p for p in run.phases.all()}
    for name in RATE_COLUMN:
        phase = phases[name]
        summary = phase.rank_summary
        assert summary is not None, name
        assert summary["count"] == ARCHIVE_LARGEST, name
        assert 0 < len(phase.ranks) <= NAMED_MAX, name
        assert sum(summary["histogram_counts"]) == ARCHIVE_LARGEST, name
        assert summary["hosts"] == [], "the archive's CSVs name no host"
        rates = _rates(run_dir, name)
        tolerance = max(summary["quantile_rel_error"], 1e-12)
        for key, value in summary["quantiles"]["rate"].items():
            assert value == pytest.approx(_nearest_rank(rates, float(key[1:])), rel=tolerance)
        assert set(slow) <= set(summary["slowest"]), f"{name}: the slow ranks are named"
        assert set(slow) <= {r["rank"] for r in phase.ranks}, name

    response = Client().get(f"/results/{run.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="spread"' in page and 'id="summary-note"' in page
    spread = {entry["phase"]: entry for entry in _chart_data(page)["spread"]}
    assert set(spread) == set(RATE_COLUMN)
    for name, entry in spread.items():
        assert entry["summary"]["count"] == ARCHIVE_LARGEST
        assert len(entry["summary"]["counts"]) == len(entry["summary"]["edges"]) - 1
        assert len(entry["ranks"]) <= NAMED_MAX
        flagged = {flag["rank"] for flag in entry["flags"]}
        assert set(slow) <= flagged, f"{name}: the straggler finding names the slow node"
    assert "40000 (host unknown)" in page


def test_the_page_does_not_grow_with_the_rank_count(tmp_path: Path) -> None:
    sizes = {}
    for ranks in (RANK_DETAIL_THRESHOLD + 1, ARCHIVE_LARGEST):
        root = tmp_path / str(ranks)
        aurora_archive(root, ranks, range(4_000, 4_012))
        run = _import(root)  # the same submission, updated in place
        assert all(
            p.rank_summary["count"] == ranks for p in run.phases.all() if p.name in RATE_COLUMN
        )
        response = Client().get(f"/results/{run.pk}/")
        assert response.status_code == 200
        sizes[ranks] = len(response.content)
    stored = list(run.phases.order_by("pk").values_list("pk", "ranks", "rank_summary"))
    again = _import(root)  # a second import changes nothing
    assert list(again.phases.order_by("pk").values_list("pk", "ranks", "rank_summary")) == stored
    small, large = sizes[RANK_DETAIL_THRESHOLD + 1], sizes[ARCHIVE_LARGEST]
    # 15x the ranks; what may differ is bounded by the named ranks (<= 32 per phase), e.g.
    # how many of them are stragglers with a table row.
    assert large < 1.1 * small, sizes


def test_up_to_the_threshold_every_rank_is_kept(tmp_path: Path) -> None:
    real = aurora_archive(tmp_path / "real", AURORA_RANKS)
    run = _import(tmp_path / "real")
    phase = run.phases.get(name="ior-easy-write")
    assert phase.rank_summary is None
    assert [r["rank"] for r in phase.ranks] == list(range(AURORA_RANKS))
    assert set(phase.ranks[0]) == {"rank", "start", "end", "rate"}  # only what the CSV holds
    assert phase.ranks[5]["rate"] == _rates(real, "ior-easy-write")[5]

    aurora_archive(tmp_path / "edge", RANK_DETAIL_THRESHOLD)
    run = _import(tmp_path / "edge")
    for phase in run.phases.filter(name__in=RATE_COLUMN):
        assert phase.rank_summary is None, phase.name
        assert len(phase.ranks) == RANK_DETAIL_THRESHOLD, phase.name
