"""The API docs page renders with the network cut off: every request that does not go to the
test server is blocked, and the page must still show the documented endpoints (ReDoc from the
pinned drf-spectacular-sidecar files, no CDN, no web fonts)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

from .conftest import CHROMIUM, CHROMIUM_ARGS

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}


def test_docs_page_references_only_its_own_server() -> None:
    page = Client().get("/api/v1/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert re.findall(r"(?:src|href)=\"(https?:)?//", html) == []
    bundle = re.search(r'<script src="([^"]+)"', html)
    assert bundle and bundle.group(1).startswith("/static/drf_spectacular_sidecar/redoc/")
    assert Client().get(bundle.group(1)).status_code == 200


@pytest.mark.browser
def test_docs_render_in_chromium_with_external_requests_blocked(
    live_server: Any, artifacts_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    blocked: list[str] = []

    def only_local(route: Any) -> None:
        if urlsplit(route.request.url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1360, "height": 900})
            context.route("**/*", only_local)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(live_server.url + "/api/v1/docs/")
            # ReDoc has fetched the schema and drawn the title and the operations.
            page.get_by_role("heading", name=re.compile("ioscore API")).wait_for(timeout=30_000)
            page.get_by_text("/api/v1/submissions/", exact=False).first.wait_for()
            page.screenshot(path=str(artifacts_dir / "api-docs-offline.png"))
        finally:
            browser.close()
    assert blocked == [], f"the docs page asked the outside world for {blocked}"
    assert errors == []
