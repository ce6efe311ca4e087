"""A submitter fills the guided upload form in Chromium: errors beside the fields, the form
filled from real `ioscore sysinfo` output and then from a complete description (repeated
groups added in place, the chosen archive kept), a group added and removed, the questionnaire
answered, and the upload stored exactly as the schema's document. Screenshots are kept in
$IOSCORE_TEST_ARTIFACTS."""

from __future__ import annotations

import json
import platform
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.webapp.helpers import JOB_FILES, QUESTIONNAIRE, example_system, tar_gz
from tests.webapp.test_upload_form import _sysinfo_output

from .conftest import chromium_page


@pytest.fixture
def page(
    live_server: Any, transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """A Chromium tab at the width the upload form is designed for (1280 px)."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # see conftest.browser_page
    with chromium_page(1280, 900) as tab:
        yield tab


def _field(page: Any, name: str) -> Any:
    return page.locator(f'[name="{name}"]')


def log_in_as(page: Any, base: str, user: Any) -> None:
    """A session for ``user`` (the login page is another test's subject)."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base}])


def test_submitter_fills_the_guided_upload_form(
    page: Any,
    live_server: Any,
    cast: Any,
    open_release: Any,
    tmp_path: Path,
    artifacts_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from submissions import intake
    from submissions.models import Submission

    queued: list[int] = []  # the form is under test here, not the validation worker
    monkeypatch.setattr(intake, "enqueue_validation", queued.append)
    outside: list[str] = []
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(live_server.url) else None,
    )
    base = live_server.url
    log_in_as(page, base, cast.submitter)
    page.goto(f"{base}/submissions/new/")

    # nothing filled in: the server names the problems beside the fields
    page.click('button.sf-primary:has-text("Upload")')
    page.wait_for_selector("text=Nothing was stored")
    institution = page.locator(".sf-field", has=_field(page, "sys-site.institution"))
    assert "required" in institution.locator(".sf-error").inner_text()
    purpose = page.locator(".sf-field", has=_field(page, "q-purpose"))
    assert "answer missing" in purpose.locator(".sf-error").inner_text()
    page.screenshot(path=str(artifacts_dir / "upload-form-errors.png"), full_page=True)
    page.locator("#sf-site").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "upload-form-errors-site.png"))
    # the refused post is answered 400, which Chromium reports; nothing else may be
    assert [e for e in page.console_errors if "status of 400" not in e] == []
    page.console_errors.clear()

    # at a phone's width the form reflows: nothing wider than the screen
    page.set_viewport_size({"width": 390, "height": 844})
    widest = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('form.sf-form *')]"
        ".map(e => e.getBoundingClientRect().right))"
    )
    assert widest <= 390, widest
    page.locator("#sf-client_node_groups").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "upload-form-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    archive = tmp_path / "run.tgz"
    archive.write_bytes(tar_gz({"run/result.json": b"{}", **JOB_FILES}))
    page.set_input_files('input[name="archive"]', str(archive))

    # real sysinfo output fills what it detects, in place
    page.fill('textarea[name="system"]', _sysinfo_output(tmp_path))
    page.click("#sf-prefill")
    assert "Filled" in page.locator("#sf-status").inner_text()
    kernel = _field(page, "sys-client_node_groups.0.kernel_version").input_value()
    assert kernel == platform.release()

    # a complete description: a second server group appears, filled
    page.fill('textarea[name="system"]', json.dumps(example_system()))
    page.click("#sf-prefill")
    assert _field(page, "sys-server_groups.1.role").input_value() == "OSS"
    assert _field(page, "sys-server_groups.1.media.0.usable_capacity.unit").input_value() == "TB"
    assert _field(page, "sys-submitter.acknowledgements.rules_followed").is_checked()
    assert institution.locator(".sf-error").count() == 0  # filled: the complaint is gone

    # add a third group, then remove it again
    page.click("#sf-server_groups > button.sf-add")
    assert _field(page, "sys-server_groups.2.role").input_value() == ""
    assert page.locator("#sf-server_groups-2 > legend").inner_text().startswith("Server group 3")
    page.click("#sf-server_groups-2 > button.sf-remove")
    assert _field(page, "sys-server_groups.2.role").count() == 0

    for key, answer in QUESTIONNAIRE.items():
        if key != "expected_level":
            page.fill(f'textarea[name="q-{key}"]', answer)
    page.check("#q-level-fully_reproducible")
    page.select_option('select[name="site"]', str(cast.site.pk))
    page.screenshot(path=str(artifacts_dir / "upload-form-filled.png"), full_page=True)
    page.locator("#sf-server_groups").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "upload-form-server-groups.png"))
    # the form's own pages: no script errors and no console errors (the submission page it
    # leads to has its own tests)
    assert not page.js_errors and not page.console_errors, [*page.js_errors, *page.console_errors]
    page.click('button.sf-primary:has-text("Upload")')
    page.wait_for_url(f"{base}/submissions/*/")

    submission = Submission.objects.get()
    assert queued == [submission.pk]
    stored = submission.system_description.data
    expected = example_system()
    expected["submitter"] = {
        k: v for k, v in expected["submitter"].items() if k not in ("name", "email")
    }
    assert stored == expected
    assert submission.questionnaire.answers == QUESTIONNAIRE
    assert submission.archive_name == "run.tgz"
    page.screenshot(path=str(artifacts_dir / "upload-form-submitted.png"), full_page=True)
    assert not page.js_errors, page.js_errors
    assert not outside, outside
