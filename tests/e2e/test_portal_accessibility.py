"""axe-core (vendored: tests/e2e/vendor/axe-4.10.3.min.js, MPL-2.0, checked by its sha256) on
the portal's pages in Chromium, at 1280 and 375 px: no serious or critical WCAG 2 A/AA
violation on the public pages (real IO500 corpus), the login page, a submitter's pages and
the error pages."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser]

AXE = Path(__file__).parent / "vendor" / "axe-4.10.3.min.js"
AXE_SHA256 = "880970c081707360e64f34cea25ff91892f5bc95675b0776925b9709dd8a68bb"
WIDTHS = (1280, 375)
BLOCKING = {"serious", "critical"}


def _axe_source() -> str:
    data = AXE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == AXE_SHA256, f"{AXE} is not the pinned axe-core"
    return data.decode("utf-8")


def violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical violations of WCAG 2.0/2.1 A and AA rules on the page as shown.
    axe runs through the DevTools protocol (``evaluate``), which the page's CSP does not
    govern, so the site keeps its no-inline-script policy."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source())
    found = page.evaluate(
        """async () => {
             const result = await axe.run(document, {
               runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']},
               resultTypes: ['violations']});
             return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.slice(0, 5).map(n => n.target.join(' '))})); }"""
    )
    return [v for v in found if v["impact"] in BLOCKING]


def _check(page: Any, url: str, charts: bool = False) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        if charts:
            page.wait_for_selector("body[data-charts=ready]")
        found = violations(page)
        assert not found, f"{url} at {width} px: {found}"


def test_public_pages_have_no_serious_violations(browser_page: Any, live_server: Any) -> None:
    page = browser_page
    top = page.request.get(f"{live_server.url}/api/v1/lists/SC25/research/entries/?limit=3").json()
    ids = ",".join(str(e["submission_id"]) for e in top["results"])
    first = ids.split(",")[0]
    for path, charts in (
        ("/", False),
        ("/lists/", False),
        ("/lists/SC25/research/", False),
        (f"/results/{first}/", True),
        (f"/compare/?ids={ids}", True),
        ("/trends/", True),
        ("/accounts/login/", False),
        ("/no/such/page/", False),
    ):
        _check(page, live_server.url + path, charts)


def test_submitter_pages_have_no_serious_violations(
    live_server: Any, cast: Any, open_release: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from submissions.models import PhaseResult, Status, Submission

    from .conftest import chromium_page

    submission = Submission.objects.create(
        release=open_release,
        owner=cast.submitter,
        site=cast.site,
        status=Status.VALIDATION_FAILED,
        score_total=1.5,
        score_bw=2.25,
        score_md=1.0,
    )
    PhaseResult.objects.create(
        submission=submission, name="ior-easy-write", value=2.25, unit="GiB/s", time=301.5
    )
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_page() as page:
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(cast.submitter.username)
        page.get_by_label("Password").fill(cast.password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{live_server.url}/")
        for path, charts in (
            ("/submissions/mine/", False),
            ("/accounts/tokens/", False),
            (f"/submissions/{submission.pk}/", True),
            ("/review/", False),  # the styled 403
        ):
            _check(page, live_server.url + path, charts)
