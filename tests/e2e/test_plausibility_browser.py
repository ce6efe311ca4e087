"""In Chromium: a real archive run whose reads exceed its declared client network shows the
warning with the arithmetic on the committee's run page and the note on the public page; a
site's series of uploaded IO500 runs with a 30 % drop carries the regression marker on the
history chart of that phase, and nowhere else. Screenshots go to the test artifacts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from submissions.models import Status
from tests.webapp.io500_series import DROP, PHASE, storage_system, store_series
from tests.webapp.plausibility_runs import store_beyond_network

from .conftest import chromium_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ARITHMETIC = (
    "ior-easy-read moved 39.5 GB/s = 36.8 GiB/s, 1.58 times what the client network can "
    "carry: 2 client nodes x (1 x 100 Gbit/s), as declared for the run's client nodes "
    "(200 Gbit/s) = 25.0 GB/s = 23.3 GiB/s"
)


@pytest.fixture
def page(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # see tests/e2e/conftest.py
    with chromium_page(1300, 900) as tab:
        yield tab
    assert not tab.js_errors, tab.js_errors


def _login(page: Any, live_server: Any, user: Any, password: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    page.console_errors.clear()  # the login page's favicon.ico (not the pages under test)


def test_a_read_beyond_the_client_network_is_warned_with_its_arithmetic(
    page: Any, live_server: Any, cast: Any, open_release: Any, corpus_dir: Path, artifacts_dir: Path
) -> None:
    open_release.release_date = date.today() - timedelta(days=1)  # public once accepted
    open_release.save(update_fields=["release_date"])
    submission = store_beyond_network(
        corpus_dir, cast.submitter, cast.site, open_release, Status.ACCEPTED
    )

    page.goto(f"{live_server.url}/results/{submission.pk}/")
    section = page.locator("#plausibility")
    assert section.locator("[data-plausibility=warning]").count() == 0
    note = section.locator('[data-plausibility=note][data-phase="ior-easy-read"]')
    assert note.is_visible() and ARITHMETIC in note.text_content()
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(artifacts_dir / "plausibility-public.png"))

    _login(page, live_server, cast.reviewer, cast.password)
    page.goto(f"{live_server.url}/submissions/{submission.pk}/")
    section = page.locator("#plausibility")
    warning = section.locator('[data-plausibility=warning][data-phase="ior-easy-read"]')
    assert warning.is_visible()
    text = " ".join(warning.text_content().split())
    assert text.startswith("Needs a reviewer's look: ior-easy-read beyond the declared hardware")
    assert ARITHMETIC in text
    limits = section.locator("#plausibility-limits tbody tr")
    assert limits.count() == 2  # client and server network; no device speed declared
    assert "25.0 GB/s = 23.3 GiB/s" in limits.first.text_content().replace("\xa0", " ")
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(artifacts_dir / "plausibility-reviewer.png"))
    page.screenshot(path=str(artifacts_dir / "plausibility-reviewer-page.png"), full_page=True)

    page.goto(f"{live_server.url}/review/{submission.pk}/")
    review = page.locator("#plausibility [data-plausibility=warning]")
    assert review.count() == 2  # ior-easy-write (35.0 GiB/s) and ior-easy-read
    page.locator("#plausibility").screenshot(path=str(artifacts_dir / "plausibility-review.png"))
    assert not page.console_errors, page.console_errors


def test_the_history_chart_marks_the_io500_run_where_the_drop_starts(
    page: Any, live_server: Any, cast: Any, open_release: Any, corpus_dir: Path, artifacts_dir: Path
) -> None:
    system = storage_system(cast.site)
    runs = store_series(corpus_dir, cast, open_release, system, [1.0, 1.0, 1.0, DROP, DROP])
    _login(page, live_server, cast.submitter, cast.password)
    page.goto(f"{live_server.url}/acceptance/sites/{cast.site.pk}/")
    row = page.locator("table.alerts tr[data-alert]")
    assert row.count() == 1
    assert f"IO500 #{runs[3].pk}" in row.text_content()
    assert "30% below the median of the previous runs" in row.text_content()

    figure = page.locator(f'figure[data-series="IO500|{PHASE}"]')
    figure.locator(".main-svg").first.wait_for()
    legend = sorted(figure.locator(".legendtext").all_text_contents())
    assert legend == ["regression alert", "value"]  # one value per run: no stddev band
    traces = figure.locator(".scatterlayer .trace")
    assert traces.count() == 2
    assert traces.first.locator(".points path").count() == 5  # the five runs
    assert traces.last.locator(".points path").count() == 1  # one triangle: the fourth run
    # the score fell 4.4 %: its chart has no marker
    score = page.locator('figure[data-series="IO500|score"]')
    score.locator(".main-svg").first.wait_for()
    assert "regression alert" not in score.locator(".legendtext").all_text_contents()
    figure.scroll_into_view_if_needed()
    figure.screenshot(path=str(artifacts_dir / "io500-alert-chart.png"))
    page.screenshot(path=str(artifacts_dir / "io500-alert-history.png"), full_page=True)
    assert not page.console_errors, page.console_errors
