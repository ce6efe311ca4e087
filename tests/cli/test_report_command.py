"""`ioscore report` on a real suite run (table, JSON, HTML rendered in headless Chromium with the
network blocked), on a real IO500 corpus run without per-rank data and on a real IO500 archive
run with its per-rank CSVs (a readable panel per phase); bad input exits 2."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import SCORED_PHASES, find_runs, load_run, phase_panels
from tests.cli.conftest import DEV
from tests.fixtures.tiny_suite import tiny_suite_results

Cli = Callable[..., subprocess.CompletedProcess[str]]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
IO500_RUN = DEV / "760"  # io500-sc25 result_summary.txt + result.txt, one run below results/
# The C app's result files with a per-rank CSV for every phase but find (ISC24).
ARCHIVE_RUN = (
    DEV.parents[1]
    / "io500-archive-dev/University of Virginia/Afton/WEKA/2024/submission-704"
    / "results/2024.04.29-15.48.29"
)
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")
def suite_results() -> Iterator[Path]:
    with tiny_suite_results("ioscore-report-") as results:
        yield results


def test_report_prints_every_phase_and_writes_html(suite_results: Path, ioscore_cli: Cli) -> None:
    done = ioscore_cli("report", str(suite_results))
    assert done.returncode == 0, done.stderr
    (run_dir,) = find_runs(suite_results)
    run = load_run(run_dir)
    lines = done.stdout.splitlines()
    for name in run.phases:
        row = next(line for line in lines if line.startswith(name + " "))
        assert " 2 " in row  # two ranks with per-rank data
    assert "Per-rank data is absent" not in done.stdout
    assert (run_dir / "report.html").is_file()


def test_report_json_matches_the_result(
    suite_results: Path, ioscore_cli: Cli, tmp_path: Path
) -> None:
    target = tmp_path / "r.html"
    done = ioscore_cli("report", str(suite_results), "--json", "--html", str(target))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    (run_dir,) = find_runs(suite_results)
    run = load_run(run_dir)
    assert document["per_rank_data"] is True and document["html"] == str(target)
    assert [p["phase"] for p in document["phases"]] == list(run.phases)
    for row in document["phases"]:
        phase = run.phases[row["phase"]]
        assert row["score"] == phase.value and row["ranks"] == 2
        assert row["rate_min"] <= row["rate_median"] <= row["rate_max"]


def _render(html_file: Path, screenshot: Path | None = None) -> dict[str, Any]:
    """Open the report offline in headless Chromium; return chart traces and blocked requests."""
    from playwright.sync_api import Route, sync_playwright

    blocked: list[str] = []

    def block(route: Route) -> None:
        blocked.append(route.request.url)
        route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.route(lambda url: not url.startswith("file:"), block)
            page.goto(html_file.as_uri())
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length > 0")
            traces = page.evaluate(
                "() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                ".map(d => ({title: (d.layout.title || {}).text || '',"
                " traces: d.data.length, points: d.data.map(t => (t.y || []).length),"
                " panel: (d.closest('[data-phase-panel]') || {getAttribute: () => null})"
                ".getAttribute('data-phase-panel'),"
                " ticks: Array.from(d.querySelectorAll('.xtick text, .ytick text, .y2tick text'))"
                ".map(t => t.textContent)}))"
            )
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
        finally:
            browser.close()
    return {"charts": traces, "blocked": blocked}


def test_html_report_renders_offline_with_every_chart(
    suite_results: Path, ioscore_cli: Cli, tmp_path: Path
) -> None:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing (Debian package chromium)")
    target = tmp_path / "report.html"
    assert ioscore_cli("report", str(suite_results), "--html", str(target)).returncode == 0
    (run_dir,) = find_runs(suite_results)
    run = load_run(run_dir)
    shot = tmp_path / "report.png"
    rendered = _render(target, shot)
    assert rendered["blocked"] == []  # self-contained: nothing fetched from the network
    charts = rendered["charts"]
    # A panel per phase that measured something (the library's), one rank chart per phase.
    panels = [c for c in charts if c["panel"]]
    assert [c["panel"] for c in panels] == [
        p.phase for p in phase_panels(list(run.phases.values()))
    ]
    assert all(c["title"] == c["panel"] for c in panels) and len(panels) >= 12
    assert all(_readable_ticks(c["ticks"]) for c in panels)
    measured = [p.name for p in run.phases.values() if any(r.items for r in p.ranks)]
    assert len(measured) >= 12
    for name in measured:
        chart = next(c for c in charts if c["title"].startswith(f"{name}: work rate per rank"))
        assert chart["points"] == [2], name
    assert all(c["traces"] >= 1 and all(p > 0 for p in c["points"]) for c in charts)
    assert shot.stat().st_size > 10_000


def test_io500_run_reports_without_rank_data(ioscore_cli: Cli, tmp_path: Path) -> None:
    run_copy = tmp_path / "760"
    shutil.copytree(IO500_RUN, run_copy)
    done = ioscore_cli("report", str(run_copy))
    assert done.returncode == 0, done.stderr
    assert "Per-rank data is absent" in done.stdout
    (run_dir,) = find_runs(run_copy)
    run = load_run(run_dir)
    ior_easy = next(line for line in done.stdout.splitlines() if line.startswith("ior-easy-write"))
    assert f"{run.phases['ior-easy-write'].value:.6g}" in ior_easy
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "Per-rank data is absent" in page
    # No rank charts; each phase's panel is its mean over its time, and says so.
    assert "work rate per rank" not in page and "ranks by rate" not in page
    measured = [p for p in run.phases.values() if p.value > 0 and p.time]
    assert len(measured) >= 12 and page.count("data-phase-panel=") == len(measured)
    mean_only = "The phase&#x27;s mean rate: the run recorded only its total and time"
    assert page.count(mean_only) == len(measured)


def _readable_ticks(ticks: list[str]) -> bool:
    """Tick labels as the portal prints values: 0, or a number and a unit (no 1e+06)."""
    import re

    pattern = re.compile(r"^(0|[\d,]+(\.\d+)?\u00a0(GiB/s|MiB/s|kIOPS|ops/s|s|ms|µs))$")
    return bool(ticks) and all(pattern.match(t) for t in ticks)


def test_io500_archive_run_reports_a_panel_per_phase(ioscore_cli: Cli, tmp_path: Path) -> None:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing (Debian package chromium)")
    target = tmp_path / "report.html"
    done = ioscore_cli("report", str(ARCHIVE_RUN), "--html", str(target), timeout=120)
    assert done.returncode == 0, done.stderr
    ARTIFACTS.mkdir(exist_ok=True)
    rendered = _render(target, ARTIFACTS / "report-archive-run.png")
    assert rendered["blocked"] == []
    panels = {c["panel"]: c for c in rendered["charts"] if c["panel"]}
    assert sorted(panels) == sorted(SCORED_PHASES)
    for name, chart in panels.items():
        assert chart["title"] == name and chart["points"][0] >= 2, name
        assert _readable_ticks(chart["ticks"]), (name, chart["ticks"])
    page = target.read_text(encoding="utf-8")
    # From the per-rank CSVs (every phase but find), with the writes' stonewall and wear-out.
    assert page.count("Estimated from each rank&#x27;s runtime and mean rate") == 11
    assert page.count("stonewall at 300 s") == 4 and page.count("wear-out end at") == 4
    # the phase's times as the run page prints them: three significant digits, separated
    assert "673 s; stonewall at 300 s; wear-out end at 673 s" in page
    assert "1,160 s; stonewall at 300 s; wear-out end at 1,160 s" in page


@pytest.mark.parametrize("case", ["missing", "empty", "corrupt"])
def test_unreadable_input_exits_2_naming_it(case: str, ioscore_cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "run"
    if case != "missing":
        target.mkdir()
    if case == "corrupt":
        (target / "result.json").write_text(
            '{"schema": "ioscore-result/1",\n  "phases": [', "utf-8"
        )
    done = ioscore_cli("report", str(target))
    assert done.returncode == 2
    assert str(target) in done.stderr and "Traceback" not in done.stderr
    if case == "corrupt":
        assert f"{target / 'result.json'}:2:" in done.stderr  # file and line
    assert not (target / "report.html").exists()


def test_unwritable_html_target_exits_2(
    suite_results: Path, ioscore_cli: Cli, tmp_path: Path
) -> None:
    target = tmp_path / "no-such-dir" / "r.html"
    done = ioscore_cli("report", str(suite_results), "--html", str(target))
    assert done.returncode == 2
    assert str(target) in done.stderr and "Traceback" not in done.stderr
