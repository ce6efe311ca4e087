"""In the browser, under the service's Content-Security-Policy: pages and the API docs load
with no policy violation, and markup in a submitter-chosen name is drawn as text in the
chart legend, never as a link or bold text."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from tests.webapp.test_rankings import World, build

from .conftest import chromium_page

HOSTILE_NAME = '<a href="javascript:alert(1)">evil</a><b>bold</b>'


@pytest.fixture
def page(
    live_server: Any, transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # see conftest.browser_page
    with chromium_page(1200, 900) as tab:
        yield tab


def _problems(page: Any) -> list[str]:
    return [*page.js_errors, *page.console_errors]


def test_markup_in_a_system_name_is_text_in_the_legend(page: Any, live_server: Any) -> None:
    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    hostile = world.submission(sc19, 4.0, system=HOSTILE_NAME)
    other = world.submission(sc19, 3.0)
    build()

    page.goto(f"{live_server.url}/compare/?ids={hostile.pk},{other.pk}")
    page.wait_for_selector("#radar .legend")
    legend = page.locator("#radar .legend").text_content()
    assert HOSTILE_NAME in legend  # every character shown as typed
    assert page.locator("#radar .legend a").count() == 0  # no live link
    assert page.locator("#radar .legend [style*='bold']").count() == 0
    assert not _problems(page), _problems(page)


def test_api_docs_render_under_the_policy(page: Any, live_server: Any) -> None:
    response = page.goto(f"{live_server.url}/api/v1/docs/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("text=ioscore API")
    # Redoc's "by Redocly" logo comes from their CDN: blocked, as it should be; the browser's
    # favicon request is a 404. Nothing else may fail: no blocked script, no script error.
    unexpected = [
        p for p in _problems(page) if "cdn.redoc.ly" not in p and "status of 404" not in p
    ]
    assert not unexpected, unexpected
