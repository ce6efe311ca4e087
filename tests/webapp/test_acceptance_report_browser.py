"""In Chromium: an uploaded acceptance report that tries to navigate the page it is shown in
(``top.location = ...``) or open a window leaves the reader where they are. The report page
frames it in a sandbox without allow-top-navigation or allow-popups, and the report's own
response is never rendered as a page of its own (where it could navigate its tab)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from acceptance.models import AcceptanceRun
from tests.e2e.conftest import REPO_ROOT, chromium_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The report says what became of each attempt in #outcome once its script has run.
ESCAPING_REPORT = b"""<!doctype html><html><body><h1>acceptance report</h1>
<p id="outcome">script not run</p>
<script>
var said = [];
try { top.location = "/lists/?phished=top"; said.push("top asked"); }
catch (e) { said.push("top refused: " + e.name); }
try { var w = window.open("/lists/?phished=popup"); said.push(w ? "popup opened" : "no popup"); }
catch (e) { said.push("popup refused: " + e.name); }
document.getElementById("outcome").textContent = said.join("; ");
</script></body></html>
"""


@pytest.fixture
def page(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # see tests/e2e/conftest.py
    with chromium_page(1100, 800) as tab:
        yield tab


def _run_with_report(cast: Any, media_root: Path) -> AcceptanceRun:
    stored = media_root / "acceptance" / "escaping-report.html"
    stored.parent.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(ESCAPING_REPORT)
    return AcceptanceRun.objects.create(
        site=cast.site,
        uploaded_by=cast.submitter,
        archive_sha256="0" * 64,
        report=str(stored.relative_to(media_root)),
        report_size=len(ESCAPING_REPORT),
    )


def test_a_report_that_navigates_the_top_page_stays_put(
    page: Any, live_server: Any, cast: Any, media_root: Path
) -> None:
    run = _run_with_report(cast, media_root)
    browser = Client()
    browser.force_login(cast.submitter)
    page.context.add_cookies(
        [{"name": "sessionid", "value": browser.cookies["sessionid"].value, "url": live_server.url}]
    )
    escapes: list[str] = []
    page.on("request", lambda req: escapes.append(req.url) if "phished" in req.url else None)
    popups: list[Any] = []
    page.on("popup", lambda popup: popups.append(popup))

    report_page = f"{live_server.url}/acceptance/runs/{run.pk}/report/"
    page.goto(report_page)
    page.wait_for_load_state("networkidle")
    assert not escapes and not popups, (escapes, popups)
    assert page.url == report_page
    frame = page.frame_locator("iframe.report-frame")
    assert frame.locator("h1").text_content() == "acceptance report"
    outcome = frame.locator("#outcome")
    outcome.filter(has_not_text="script not run").wait_for()  # the report's script has run
    page.wait_for_load_state("networkidle")
    assert not escapes and not popups, (escapes, outcome.text_content())
    assert page.url == report_page
    assert page.locator("h1").text_content().startswith(f"Report of acceptance run {run.pk}")
    inner = next(f for f in page.frames if f != page.main_frame)
    assert inner.evaluate("self.origin") == "null"  # opaque origin: no cookies, no site API
    artifacts = Path(os.environ.get("IOSCORE_TEST_ARTIFACTS", REPO_ROOT / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(artifacts / "acceptance-report-framed.png"), full_page=True)

    # Opened as a tab of its own, the report's bytes are a download, never a page that runs.
    content = f"{live_server.url}/acceptance/runs/{run.pk}/report/content/"
    with page.expect_download() as download:
        page.evaluate("url => { location.href = url; }", content)
    assert download.value.suggested_filename == f"acceptance-run-{run.pk}-report.html"
    page.wait_for_load_state("networkidle")
    assert page.url == report_page and not escapes, escapes
