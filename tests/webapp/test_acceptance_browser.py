"""In Chromium, under the site's Content-Security-Policy: a member's history page draws one
plotly chart per test and operation (mean, ± stddev band, target line) with no script error or
policy violation, marks the run where a 30 % drop starts, and the user's HTML report runs
sandboxed in an opaque origin."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from tests.e2e.conftest import REPO_ROOT, chromium_page

from .acceptance_helpers import acceptance_results, pack
from .test_acceptance_alerts import DROP, api_client, upload_series

pytestmark = [pytest.mark.mpi, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with acceptance_results("ioscore-webapp-acceptance-browser-") as path:
        yield path


@pytest.fixture(scope="module")
def archives(results: Path) -> list[bytes]:
    return [pack(results), pack(results, {"notes.txt": b"second run"})]


@pytest.fixture
def page(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # see tests/e2e/conftest.py
    with chromium_page(1300, 900) as tab:
        yield tab


def _log_in(page: Any, live_server: Any, cast: Any) -> None:
    """As the site's submitter, landing on the acceptance index."""
    page.goto(f"{live_server.url}/accounts/login/?next=/acceptance/")
    page.fill("input[name=username]", cast.submitter.username)
    page.fill("input[name=password]", cast.password)
    page.click("button[type=submit]")
    page.wait_for_url("**/acceptance/")
    page.console_errors.clear()  # the login page's favicon.ico (not this app's page)


def test_history_charts_and_sandboxed_report(
    page: Any, live_server: Any, cast: Any, media_root: Path, archives: list[bytes]
) -> None:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    ids = []
    for archive in archives:
        response = api.post(
            "/api/v1/acceptance/runs/",
            {"archive": SimpleUploadedFile("r.tgz", archive)},
            format="multipart",
        )
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])

    _log_in(page, live_server, cast)
    page.goto(f"{live_server.url}/acceptance/sites/{cast.site.pk}/")
    page.wait_for_selector("#acceptance-chart-0 .main-svg")
    charts = page.locator(".charts figure")
    assert charts.count() >= 10  # ior-fpp write/read, ior-pair write/read, mdtest's operations
    first = page.locator("#acceptance-chart-0")
    assert "ior-fpp · write" in page.locator(".charts figure h3").first.text_content()
    # lower and upper edge of the stddev band, the means, the target line
    assert first.locator(".scatterlayer .trace").count() == 4
    legend = sorted(first.locator(".legendtext").all_text_contents())
    assert legend == ["mean", "target", "± 1 stddev"]
    # one mean marker and one target dash per run
    assert first.locator(".scatterlayer .trace .points path").count() == 2 * len(ids)
    assert page.locator("table.targets td.fail").count() == 2 * len(ids)
    assert not page.js_errors and not page.console_errors, (page.js_errors, page.console_errors)
    artifacts = Path(os.environ.get("IOSCORE_TEST_ARTIFACTS", REPO_ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(artifacts / "acceptance-history.png"), full_page=True)

    page.goto(f"{live_server.url}/acceptance/runs/{ids[0]}/")
    assert page.locator("h1").text_content().startswith(f"Acceptance run {ids[0]}")
    assert "read >= 1,000 TB/s" in page.locator("main").text_content()
    page.screenshot(path=str(artifacts / "acceptance-run.png"), full_page=True)
    assert not page.js_errors and not page.console_errors, (page.js_errors, page.console_errors)

    page.goto(f"{live_server.url}/acceptance/runs/{ids[0]}/report/")
    report = page.frame_locator("iframe.report-frame")
    assert report.locator("h1").text_content() == "acceptance report"
    inner = next(f for f in page.frames if f != page.main_frame)
    assert inner.evaluate("self.origin") == "null"  # opaque origin: no cookies, no site API
    assert any("cookie" in e.lower() or "sandbox" in e.lower() for e in page.js_errors)
    page.js_errors.clear()


def test_the_history_chart_marks_the_run_where_a_drop_starts(
    page: Any, live_server: Any, cast: Any, media_root: Path, results: Path
) -> None:
    from acceptance.models import AcceptanceRun

    ids = upload_series(api_client(cast), results, [1.0, 1.0, 1.0, DROP, DROP])
    # one run a day, as a site tests its system (the five uploads ran the same suite once)
    first = timezone.now() - timedelta(days=len(ids))
    for day, pk in enumerate(ids):
        AcceptanceRun.objects.filter(pk=pk).update(started=first + timedelta(days=day))

    _log_in(page, live_server, cast)
    page.goto(f"{live_server.url}/acceptance/sites/{cast.site.pk}/")
    rows = page.locator("table.alerts tr[data-alert]")
    drop = rows.filter(has_text="ior-fpp").filter(has_text="write")
    assert drop.count() == 1
    assert f"#{ids[3]}" in drop.text_content()
    assert "30% below the median of the previous runs" in drop.text_content()

    figure = page.locator('figure[data-series="ior-fpp|write"]')
    figure.locator(".main-svg").first.wait_for()
    assert "regression alert" in figure.locator(".legendtext").all_text_contents()
    markers = figure.evaluate(
        """f => { const gd = f.querySelector('.js-plotly-plot');
                  const t = gd.data.find(d => d.name === 'regression alert');
                  const mean = gd.data.find(d => d.name === 'mean');
                  return { alert: t.x.length, at: mean.x.indexOf(t.x[0]),
                           y: t.y[0], ys: mean.y }; }"""
    )
    assert markers["alert"] == 1 and markers["at"] == 3  # the fourth run, not the fifth
    assert markers["y"] == pytest.approx(DROP * markers["ys"][0], rel=1e-6)
    assert not page.js_errors and not page.console_errors, (page.js_errors, page.console_errors)
    artifacts = Path(os.environ.get("IOSCORE_TEST_ARTIFACTS", REPO_ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    figure.scroll_into_view_if_needed()
    figure.screenshot(path=str(artifacts / "acceptance-alert-chart.png"))
    page.locator("#h-alerts").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "acceptance-alert-history.png"))
