"""The status page shows progress while validating and the issues afterwards; the
requeue sweep picks up submissions whose message was lost."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from submissions.models import Status, Submission

from .helpers import QUESTIONNAIRE, corpus_archive, example_system, wait_for_status

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]


def test_page_refreshes_while_validating_then_lists_issues(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    pending = Submission.objects.create(
        release=open_release, owner=cast.submitter, site=cast.site, status=Status.VALIDATING
    )
    page = browser.get(f"/submissions/{pending.pk}/").content.decode()
    assert '<meta http-equiv="refresh"' in page and "automatic checks running" in page

    response = browser.post(
        "/submissions/new/",
        {
            "archive": SimpleUploadedFile("run.tgz", corpus_archive(corpus_dir, "700")),
            "site": cast.site.pk,
            "target_list": "research",
            "system": json.dumps(example_system(client_nodes=10, procs_per_node=64)),
            "questionnaire": json.dumps(QUESTIONNAIRE),
        },
    )
    pk = int(response["Location"].rstrip("/").rsplit("/", 1)[1])
    assert wait_for_status(pk, {"under_review", "validation_failed"}) == Status.UNDER_REVIEW
    page = browser.get(f"/submissions/{pk}/").content.decode()
    assert '<meta http-equiv="refresh"' not in page
    assert "custom version: needs a committee whitelist" in page  # run 700: 37a8bd082d6c
    assert "Under review" in page


def test_requeue_picks_up_a_submission_whose_message_was_lost(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any, media_root: Path
) -> None:
    # A lost message: the row is in "submitted" but nothing was ever queued for it.
    archive = media_root / "archives" / "lost.tar.gz"
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(corpus_archive(corpus_dir, "762"))
    submission = Submission.objects.create(
        release=open_release,
        owner=cast.submitter,
        site=cast.site,
        status=Status.SUBMITTED,
        archive="archives/lost.tar.gz",
    )
    out = io.StringIO()
    call_command("requeue_validations", "--older-than", "0", stdout=out)
    assert out.getvalue().strip() == "queued 1 submission(s) for validation"
    # No system description or questionnaire was given, so the checks fail.
    assert (
        wait_for_status(submission.pk, {"under_review", "validation_failed"})
        == Status.VALIDATION_FAILED
    )
