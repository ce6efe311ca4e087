"""The run page's panel data and latency table as the server renders them (no browser): tick
labels printed by the portal's formatting, a figure per phase marked for scrapers, and the
latency percentiles per phase and operation, old power-of-two results included."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from ioscore.results import load_run
from tests.fixtures.tiny_suite import tiny_suite_results
from tests.results.test_latency import OLD_LATENCY  # as the suite wrote it: log2 buckets

from .portal_runs import store_run

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module")
def suite_run_dir() -> Iterator[Path]:
    with tiny_suite_results("ioscore-panels-page-", ("--simulate-ppn", "1")) as results:
        yield next(results.rglob("result.json")).parent


@pytest.fixture
def public_run(suite_run_dir: Path, cast: Any, open_release: Any) -> Any:
    from django.utils import timezone

    from submissions.models import Status

    open_release.release_date = timezone.now().date() - timedelta(days=1)
    open_release.save(update_fields=["release_date"])
    return store_run(suite_run_dir, cast.submitter, cast.site, open_release, Status.ACCEPTED)


def _chart_data(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_panels_and_latency_on_the_public_page(public_run: Any, suite_run_dir: Path) -> None:
    from portal.templatetags.formatting import with_unit

    run = load_run(suite_run_dir)
    page = Client().get(f"/results/{public_run.pk}/").content.decode()
    panels = _chart_data(page)["panels"]
    names = [p["phase"] for p in panels]
    assert set(names) >= {"ior-easy-write", "find", "ior-rnd4K-easy-read"}
    assert "timestamp" not in names
    # A marked figure per panel, in the same order, with its facts in words for readers
    # without scripts.
    assert re.findall(r'data-phase-panel="([^"]+)"', page) == names
    for panel in panels:
        for axis in ("x", "y", "y2"):
            spec = panel[axis]
            if spec is None:
                continue
            assert spec["labels"] == [
                with_unit(t, spec["unit"]) if t else "0" for t in spec["ticks"]
            ], (panel["phase"], axis)
            assert spec["range"] == [0, spec["ticks"][-1]]
        assert len(panel["t"]) == len(panel["rate"]) >= 2
        assert all(len(h["rate"]) == len(panel["t"]) for h in panel["hosts"])
    rnd = next(p for p in panels if p["phase"] == "ior-rnd4K-easy-read")
    assert [m["kind"] for m in rnd["marks"]] == ["stonewall", "wear-out end"]
    assert [h["host"] for h in rnd["hosts"]] == ["vm#node0", "vm#node1"]
    assert rnd["y2"] is not None and len(rnd["p99"]) == len(rnd["p99_t"]) >= 1
    assert 'id="panel-hosts"' in page  # the per-host toggle, since the run carries hosts
    # The latency table: a row per timed phase, six percentile columns.
    table = page.split('id="latency-table"', 1)[1].split("</table>", 1)[0]
    heads = re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', table)
    percentiles = ["p50", "p90", "p99", "p99.9", "p99.99", "max"]
    assert heads == ["Phase", "Operation", "Operations", *percentiles]
    timed = [p for p in run.phases.values() if (p.extra.get("latency") or {}).get("ops")]
    rows = re.findall(r'<th scope="row">([^<]+)</th>', table)
    assert rows == [p.name for p in timed] and len(rows) >= 12
    assert "power-of-two" not in table


def test_old_power_of_two_latency_shows_what_it_has(public_run: Any) -> None:
    phase = public_run.phases.get(name="mdtest-easy-stat")
    phase.extra = {**phase.extra, "latency": OLD_LATENCY}
    phase.save(update_fields=["extra"])
    page = Client().get(f"/results/{public_run.pk}/").content.decode()
    table = page.split('id="latency-table"', 1)[1].split("</table>", 1)[0]
    row = next(r for r in table.split("<tr") if '<th scope="row">mdtest-easy-stat<' in r)
    cells = re.findall(r'<td class="num">([^<]*)</td>', row)
    # operations, p50, p90, p99, p99.9, p99.99, max
    micro, milli, dash = "1.02\u00a0µs", "1.00\u00a0ms", "\u2013"
    assert cells == ["100", micro, micro, milli, dash, dash, milli]
    assert "power-of-two buckets" in row
    assert "p99.9 and p99.99 were not recorded" in page
