"""`ioscore report` on a real suite run (table, JSON, HTML rendered in headless Chromium with the
network blocked) and on a real IO500 corpus run without per-rank data; bad input exits 2."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import find_runs, load_run
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
                " traces: d.data.length, points: d.data.map(t => (t.y || []).length)}))"
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
    titles = [c["title"] for c in charts]
    # Two throughput charts (GiB/s and kIOPS phases), one rank chart per measured phase.
    assert sum(t.startswith("Aggregate") for t in titles) == 2
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
    assert "Per-rank data is absent" in page and "js-plotly-plot" not in page


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
