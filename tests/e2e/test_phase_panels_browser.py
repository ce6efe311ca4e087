"""The run page's phase panels as Chromium draws them: a real IO500 archive run (imported from
the corpus with its per-rank CSVs) shows a readable panel per scored phase, each with its own
time axis and unit, ticks printed as the site prints numbers, and the write phases' stonewall
and wear-out end; a real suite run adds per-host lines on demand and the p99 latency per
second; a list entry with only the published numbers says so and draws no chart."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import SCORED_PHASES, load_run
from tests.fixtures.tiny_suite import tiny_suite_results
from tests.webapp.portal_runs import store_run

from .conftest import chromium_page

pytestmark = [pytest.mark.urls("tests.e2e.test_rankings_browser"), pytest.mark.browser]

# University of Virginia's Afton (WEKA, ISC24): the C app's result files and a per-rank CSV
# for every phase but find; IOR stonewall -D 300 with wear-out, mdtest -W 300.
ARCHIVE_ID = 704
ARCHIVE_RUN = "University of Virginia/Afton/WEKA/2024/submission-704/results/2024.04.29-15.48.29"
GIB = 1024**3

# Everything drawn in each panel, read back from plotly.
PANELS = """() => {
 const edges = (el) => { const r = el.getBoundingClientRect();
                         return [r.left, r.top, r.right, r.bottom]; };
 return Array.from(document.querySelectorAll('[data-phase-panel]')).map(fig => {
  const gd = fig.querySelector('.panel-plot');
  const full = gd._fullLayout || {};
  const texts = (sel) => Array.from(gd.querySelectorAll(sel)).map(t => t.textContent);
  return {
    phase: fig.getAttribute('data-phase-panel'),
    source: fig.getAttribute('data-source'),
    caption: fig.querySelector('figcaption').textContent,
    traces: (gd.data || []).map(t => ({ name: t.name, x: Array.from(t.x || []),
      y: Array.from(t.y || []), visible: t.visible, yaxis: t.yaxis || 'y' })),
    xticks: texts('.xtick text'), yticks: texts('.ytick text'), y2ticks: texts('.y2tick text'),
    box: edges(gd),
    legend: full.showlegend && gd.querySelector('g.legend')
      ? edges(gd.querySelector('g.legend')) : null,
    shapes: (full.shapes || []).map(s => s.x0),
    notes: (full.annotations || []).map(a => a.text),
    labels: Array.from(gd.querySelectorAll('g.annotation')).map(edges),
    plot: (() => { const s = full._size, r = gd.getBoundingClientRect();
                   return [r.left + s.l, r.top + s.t, r.left + s.l + s.w, r.top + s.t + s.h]; })(),
  };
 });
}"""

TICK = re.compile(r"^(0|-?[\d,]+(\.\d+)?\u00a0(GiB/s|MiB/s|kIOPS|ops/s|s|ms|µs))$")


def _readable(label: str) -> bool:
    """A tick as the site prints a measured value: 0, or three significant digits (integer
    digits kept, thousands separated) and a unit; never 1e+06 or 994.45."""
    from portal.templatetags.formatting import with_unit

    if not TICK.match(label):
        return False
    if label == "0":
        return True
    number, unit = label.split("\u00a0")
    return with_unit(float(number.replace(",", "")), unit) == label


def _apart(a: list[float], b: list[float]) -> bool:
    """Two boxes (left, top, right, bottom) that do not overlap."""
    return a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5


def _labels_clear(panel: dict[str, Any]) -> None:
    """The marks' labels: inside the chart, apart from each other and from the legend; the
    stonewall's above the plot, where it cannot hide the rate."""
    labels, box = panel["labels"], panel["box"]
    assert len(labels) == len(panel["notes"]), panel["phase"]
    for label in labels:
        assert box[0] - 0.5 <= label[0] and label[2] <= box[2] + 0.5, panel["phase"]
        assert box[1] - 0.5 <= label[1] and label[3] <= box[3] + 0.5, panel["phase"]
        if panel["legend"]:
            assert _apart(label, panel["legend"]), panel["phase"]
    assert all(_apart(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :])
    stonewall = labels[panel["notes"].index("stonewall")]
    assert stonewall[3] <= panel["plot"][1] + 0.5, (panel["phase"], stonewall, panel["plot"])


def _panels(page: Any) -> dict[str, dict[str, Any]]:
    drawn: list[dict[str, Any]] = page.evaluate(PANELS)
    return {p["phase"]: p for p in drawn}


def _rank_csv_sum(path: Path, column: str) -> tuple[float, float]:
    """(sum of a per-rank rate column, longest runtime) straight from the C app's CSV."""
    with path.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("rank", "").strip().isdigit()]
    if column == "throughput":
        return sum(float(r[column]) for r in rows), max(
            float(r["runtime-with-openclose"]) for r in rows
        )
    rate, time = column, column.replace("rate-", "time-")
    return sum(float(r[rate]) for r in rows), max(float(r[time]) for r in rows)


def test_real_archive_run_shows_a_readable_panel_per_phase(
    browser_page: Any, live_server: Any, corpus_dir: Path, artifacts_dir: Path
) -> None:
    from submissions.models import Submission

    submission = Submission.objects.exclude(run_dir="").get(io500_id=ARCHIVE_ID)
    page = browser_page
    page.set_default_timeout(60_000)  # the machine may be shared with other test runs
    page.goto(f"{live_server.url}/results/{submission.pk}/")
    page.wait_for_selector("body[data-panels=ready]")
    panels = _panels(page)
    assert sorted(panels) == sorted(SCORED_PHASES)  # 12, no timestamp step
    for name, panel in panels.items():
        rate = panel["traces"][0]
        assert rate["name"] == "all ranks" and len(rate["x"]) >= 2, name
        assert max(rate["y"]) > 0, name
        assert rate["x"] == sorted(rate["x"]), name
        assert len(panel["xticks"]) >= 2 and len(panel["yticks"]) >= 3, name
        for label in panel["xticks"] + panel["yticks"]:
            assert _readable(label), f"{name}: tick {label!r}"
        assert "0" not in panel["xticks"]  # the corner's 0 is the rate axis's
        assert all(t.endswith("\u00a0s") for t in panel["xticks"] if t), name
        # the time axis runs to a labelled tick at or past the phase's end
        last = float(panel["xticks"][-1].split("\u00a0")[0].replace(",", ""))
        assert last >= rate["x"][-1], name
    # find writes no per-rank times: its mean rate, flat over the phase's 122.1 s.
    assert panels["find"]["source"] == "mean"
    assert panels["find"]["traces"][0]["y"][0] == pytest.approx(1132.44731)
    assert panels["find"]["traces"][0]["x"][-1] == pytest.approx(122.107, abs=1e-3)
    assert "recorded only its total and time" in panels["find"]["caption"]
    # The others: the sum of the rates of the ranks still running, from the per-rank CSVs.
    run_dir = corpus_dir / "io500-archive-dev" / ARCHIVE_RUN
    for name, column, divisor in (
        ("ior-easy-write", "throughput", GIB),
        ("ior-hard-read", "throughput", GIB),
        ("mdtest-easy-write", "rate-File creation", 1000.0),
        ("mdtest-hard-stat", "rate-File stat", 1000.0),
    ):
        panel = panels[name]
        assert panel["source"] == "ranks", name
        total, longest = _rank_csv_sum(run_dir / f"{name}.csv", column)
        rate = panel["traces"][0]
        assert rate["y"][0] == pytest.approx(total / divisor, rel=1e-6), name
        assert rate["y"][-1] == 0 and rate["x"][-1] == pytest.approx(longest, rel=1e-6), name
        assert "Estimated from each rank's runtime" in panel["caption"], name
    assert panels["ior-easy-write"]["yticks"][-1].endswith("GiB/s")
    assert panels["mdtest-easy-write"]["yticks"][-1].endswith("kIOPS")
    # Write phases: the stonewall at 300 s (IOR -D 300, mdtest -W 300) and the wear-out end
    # at the phase's end as result.txt gives it (t_delta).
    for name, t_delta in (
        ("ior-easy-write", 672.5086),
        ("mdtest-easy-write", 314.5639),
        ("ior-hard-write", 1160.1708),
        ("mdtest-hard-write", 306.2030),
    ):
        panel = panels[name]
        assert panel["shapes"] == [pytest.approx(300.0), pytest.approx(t_delta, abs=1e-3)], name
        assert panel["notes"] == ["stonewall", "wear-out end"], name
        assert "stonewall at 300" in panel["caption"], name
        _labels_clear(panel)
    for name in ("find", "ior-easy-read", "mdtest-easy-stat", "mdtest-hard-delete"):
        assert panels[name]["shapes"] == [], name
    assert page.locator("#panel-hosts").count() == 0  # the CSVs name no host
    section = page.locator("#phase-panels")
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(artifacts_dir / "phase-panels-archive-run.png"))
    page.set_viewport_size({"width": 390, "height": 900})
    page.reload()
    page.wait_for_selector("body[data-panels=ready]")
    assert int(page.evaluate("() => document.documentElement.scrollWidth")) <= 390
    page.locator("[data-phase-panel=ior-easy-write]").screenshot(
        path=str(artifacts_dir / "phase-panels-archive-run-phone.png")
    )


def test_list_only_entry_says_only_published_numbers_exist(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    from django.db.models import Count

    from submissions.models import Source, Submission

    page = browser_page
    imported = Submission.objects.filter(source=Source.IO500_IMPORT, run_dir="", status="accepted")
    list_row = imported.annotate(n=Count("phases")).filter(n=0).order_by("pk").first()
    website = imported.annotate(n=Count("phases")).filter(n=12).order_by("pk").first()
    assert list_row is not None and website is not None
    page.goto(f"{live_server.url}/results/{list_row.pk}/")
    page.wait_for_selector("body[data-charts=ready]")
    note = page.locator("#published-only").inner_text()
    assert note.startswith("Only the published numbers exist for this entry.")
    assert "the score, bandwidth and metadata figures above" in note
    main = page.locator("main").inner_text()
    assert "No phase results stored" not in main
    for absent in ("#radar", "[data-phase-panel]", "#phase-table", "#spread", ".js-plotly-plot"):
        assert page.locator(absent).count() == 0, absent
    page.screenshot(path=str(artifacts_dir / "phase-panels-list-only.png"), full_page=True)
    # A website record: its phase values and the radar, but no run files, so no panels.
    page.goto(f"{live_server.url}/results/{website.pk}/")
    page.wait_for_selector("body[data-charts=ready]")
    assert "phase results below are the ones the IO500 website published" in (
        page.locator("#published-only").inner_text()
    )
    assert page.locator("#phase-table tbody tr").count() == 12
    assert page.locator("#radar .main-svg").count() >= 1
    assert page.locator("[data-phase-panel]").count() == 0


@pytest.fixture
def two_host_run() -> Iterator[Path]:
    """A real suite run on 2 ranks placed on two pretend nodes (one rank each)."""
    with tiny_suite_results("ioscore-panels-e2e-", ("--simulate-ppn", "1")) as results:
        yield next(results.rglob("result.json")).parent


@pytest.mark.mpi
def test_suite_run_panels_with_hosts_and_p99(
    live_server: Any,
    cast: Any,
    open_release: Any,
    two_host_run: Path,
    artifacts_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.utils import timezone

    from submissions.models import Status

    # Released yesterday: the accepted run is public.
    open_release.release_date = timezone.now().date() - timedelta(days=1)
    open_release.save(update_fields=["release_date"])
    run = load_run(two_host_run)
    submission = store_run(two_host_run, cast.submitter, cast.site, open_release, Status.ACCEPTED)
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_page() as page:
        page.set_default_timeout(60_000)  # the machine may be shared with other test runs
        page.goto(f"{live_server.url}/results/{submission.pk}/")
        page.wait_for_selector("body[data-panels=ready]")
        panels = _panels(page)
        assert set(SCORED_PHASES) <= set(panels)
        for name, panel in panels.items():
            for label in panel["xticks"] + panel["yticks"] + panel["y2ticks"]:
                assert _readable(label), f"{name}: tick {label!r}"
        rnd = panels["ior-rnd4K-easy-read"]
        # The rate line and a hidden line per pretend node, then the p99 on the right axis.
        names = [t["name"] for t in rnd["traces"]]
        assert names == ["all ranks", "vm#node0", "vm#node1", "p99 latency"]
        assert [t["visible"] for t in rnd["traces"][1:3]] == [False, False]
        assert rnd["traces"][3]["yaxis"] == "y2" and rnd["y2ticks"]
        recorded = run.phases["ior-rnd4K-easy-read"].timeseries["latency"]["p99"]
        assert rnd["traces"][3]["y"] == pytest.approx([v * 1e6 for v in recorded])  # µs
        assert rnd["y2ticks"][-1].endswith("µs")
        # Its legend (the rate and the p99) is drawn inside the panel, not above it.
        legend, box = rnd["legend"], rnd["box"]
        assert legend is not None and legend[2] > legend[0]
        assert box[0] - 0.5 <= legend[0] and legend[2] <= box[2] + 0.5
        assert box[1] - 0.5 <= legend[1] and legend[3] <= box[3] + 0.5
        # Its stonewall (1 s, reached: the ranks wore out after it) is marked.
        assert rnd["notes"] == ["stonewall", "wear-out end"]
        assert rnd["shapes"][0] == pytest.approx(1.0)
        _labels_clear(rnd)
        # The write phases finished before their 1 s stonewall and say so.
        assert "stonewall at 1 s not reached" in panels["ior-easy-write"]["caption"]
        page.locator("#panel-hosts").click()
        page.wait_for_function(
            "document.getElementById('panel-hosts').getAttribute('aria-pressed') === 'true'"
        )
        shown = _panels(page)["ior-rnd4K-easy-read"]["traces"]
        assert [t["visible"] for t in shown[1:3]] == [True, True]
        # Per host sums to the aggregate in every bucket.
        for i, total in enumerate(shown[0]["y"]):
            assert shown[1]["y"][i] + shown[2]["y"][i] == pytest.approx(total, rel=1e-9)
        page.locator("#phase-panels").screenshot(
            path=str(artifacts_dir / "phase-panels-suite-run-hosts.png")
        )
        table = page.locator("#latency-table")
        assert table.locator("thead th").all_inner_texts()[3:] == [
            "p50",
            "p90",
            "p99",
            "p99.9",
            "p99.99",
            "max",
        ]
        row = table.locator("tr", has_text="ior-rnd4K-easy-read").inner_text().split("\t")
        assert row[1] == "read" and all(cell.strip() != "\u2013" for cell in row[3:])
        table.screenshot(path=str(artifacts_dir / "phase-panels-latency-table.png"))
        assert not page.js_errors and not page.console_errors, page.console_errors
