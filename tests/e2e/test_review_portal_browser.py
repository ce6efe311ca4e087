"""A reviewer does the committee's job in Chromium: the queue, the review page with the run
beside its checks, a refused decision without a comment, then an accepted one; an admin closes
a release with a reason. Screenshots are kept in $IOSCORE_TEST_ARTIFACTS."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.utils import timezone

from . import test_upload_form_browser as upload_browser

page = upload_browser.page  # the same Chromium tab fixture (1280 px, live server, empty db)


def test_reviewer_accepts_from_the_queue(
    page: Any, live_server: Any, cast: Any, open_release: Any, artifacts_dir: Path
) -> None:
    from submissions.models import PhaseResult, Status, Submission
    from validation.models import ValidationIssue

    submission = Submission.objects.create(
        release=open_release,
        owner=cast.submitter,
        site=cast.site,
        status=Status.UNDER_REVIEW,
        submitted_at=timezone.now(),
        score_total=42.1,
        score_bw=12.0,
        score_md=147.7,
    )
    PhaseResult.objects.create(
        submission=submission, name="ior-easy-write", value=30.5, unit="GiB/s", time=330.2
    )
    ValidationIssue.objects.create(
        submission=submission,
        rule="version-accepted",
        severity="warning",
        message="custom version: needs a committee whitelist",
        expected=["io500-sc25"],
        actual="37a8bd082d6c",
    )
    base = live_server.url
    upload_browser.log_in_as(page, base, cast.reviewer)
    page.goto(f"{base}/review/")
    page.click(f"text=Review #{submission.pk}")
    page.wait_for_url(f"{base}/review/{submission.pk}/")
    assert "30.500 GiB/s" in page.locator("#rv-phases").inner_text()
    checks = page.locator(".rv-issues").inner_text()
    assert "37a8bd082d6c" in checks and "io500-sc25" in checks and "['" not in checks
    page.screenshot(path=str(artifacts_dir / "review-page.png"), full_page=True)

    page.check('input[name="action"][value="accept"]')
    page.click("text=Record decision")
    comment = page.locator(".sf-field", has=page.locator('[name="comment"]'))
    assert "This field is required." in comment.locator(".sf-error").inner_text()
    submission.refresh_from_db()
    assert submission.status == Status.UNDER_REVIEW
    assert [e for e in page.console_errors if "status of 400" not in e] == []
    page.console_errors.clear()

    page.check('input[name="action"][value="accept"]')
    page.fill('textarea[name="comment"]', "complete; the version is the SC25 tag plus a fix")
    page.click("text=Record decision")
    page.wait_for_url(f"{base}/review/")
    assert f"Submission {submission.pk}: accepted." in page.content()
    submission.refresh_from_db()
    assert submission.status == Status.ACCEPTED
    page.screenshot(path=str(artifacts_dir / "review-queue-after-accept.png"), full_page=True)
    assert not page.js_errors and not page.console_errors, [*page.js_errors, *page.console_errors]


def test_admin_closes_a_release_with_a_reason(
    page: Any, live_server: Any, cast: Any, open_release: Any, artifacts_dir: Path
) -> None:
    base = live_server.url
    upload_browser.log_in_as(page, base, cast.admin)
    page.goto(f"{base}/manage/releases/")
    page.click(f"text=Close {open_release.acronym}")
    assert "its submission deadline becomes" in page.locator("#mg-effect").inner_text()
    page.fill('textarea[name="reason"]', "the list for the BoF is being prepared")
    page.screenshot(path=str(artifacts_dir / "manage-confirm.png"), full_page=True)
    page.click('button:has-text("Confirm")')
    page.wait_for_url(f"{base}/manage/releases/")
    log = page.locator(".mg-log").inner_text()
    assert "closed for submissions" in log and "the list for the BoF is being prepared" in log
    open_release.refresh_from_db()
    assert not open_release.is_open()
    page.screenshot(path=str(artifacts_dir / "manage-releases.png"), full_page=True)
    assert not page.js_errors and not page.console_errors, [*page.js_errors, *page.console_errors]
