"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live server,
with the real IO500 corpus imported and the lists built. Screenshots go to
$IOSCORE_TEST_ARTIFACTS (default <repo>/test-artifacts)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
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


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    root = Path(os.environ.get("IOSCORE_TEST_ARTIFACTS", REPO_ROOT / "test-artifacts"))
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture
def loaded_corpus(transactional_db: None, corpus_dir: Path, media_root: Path) -> Path:
    """The colleague's importer loads the corpus as accepted submissions; then the lists."""
    import importlib

    from django.apps import apps
    from django.core.management import call_command

    from submissions.models import ListType

    if not ListType.objects.exists():
        # transactional_db flushes the rows the data migration seeded; seed them again.
        importlib.import_module("migrations.submissions.0002_list_types").seed(apps, None)
    call_command("import_io500", str(corpus_dir), verbosity=0)
    call_command("build_lists", verbosity=0)
    return corpus_dir


@contextmanager
def chromium_page(width: int = 1360, height: int = 900) -> Iterator[Any]:
    """A fresh Chromium page recording script errors (``js_errors``) and console errors,
    which include Content-Security-Policy violations (``console_errors``)."""
    if not CHROMIUM.exists() or shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.js_errors = []
        page.console_errors = []
        page.on("pageerror", lambda error: page.js_errors.append(str(error)))
        page.on(
            "console",
            lambda message: (
                page.console_errors.append(message.text) if message.type == "error" else None
            ),
        )
        try:
            yield page
        finally:
            context.close()
            browser.close()


@pytest.fixture
def browser_page(
    live_server: Any, loaded_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """A fresh Chromium page; the database is filled before the browser starts.

    Playwright's sync API keeps an event loop in this thread, which trips Django's
    async-safety check for the database calls the test itself makes; the live server runs in
    its own thread and is unaffected."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with chromium_page() as page:
        yield page
    assert not page.js_errors, f"JavaScript errors: {page.js_errors}"
