"""A run produced by our own C suite goes through the service: upload -> worker -> stored
phases with their per-rank rows and time series; the run is invalid by design (stonewall
1 s, short writes) and the service reports exactly the library's blocking rules."""

from __future__ import annotations

import gzip
import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Status, Submission
from tests.fixtures.tiny_suite import tiny_suite_results

from .helpers import JOB_FILES, QUESTIONNAIRE, example_system, tar_gz, wait_for_status

pytestmark = [pytest.mark.mpi, pytest.mark.celery, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def suite_results() -> Iterator[Path]:
    with tiny_suite_results("ioscore-webapp-suite-") as results:
        yield results


@pytest.fixture(scope="module")
def summary_results() -> Iterator[Path]:
    """The summary form (threshold 1 < 2 ranks) with every rank in ranks-<phase>.csv.gz."""
    extra = ("--rank-detail-threshold", "1", "--rank-detail-full")
    with tiny_suite_results("ioscore-webapp-summary-", extra_args=extra) as results:
        yield results


def _upload(results: Path, cast: Any) -> tuple[APIClient, int]:
    files = {
        f"upload/{p.relative_to(results)}": p.read_bytes()
        for p in results.rglob("*")
        if p.is_file()
    }
    files.update({f"upload/{name}": content for name, content in JOB_FILES.items()})
    assert any(name.endswith("result.json") for name in files)
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": SimpleUploadedFile("suite.tgz", tar_gz(files)),
            "system": json.dumps(example_system(client_nodes=1, procs_per_node=2)),
            "questionnaire": json.dumps(QUESTIONNAIRE),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return client, response.json()["id"]


def test_suite_run_is_validated_with_ranks_and_timeseries(
    suite_results: Path, cast: Any, open_release: Any, validation_queue: Any
) -> None:
    client, pk = _upload(suite_results, cast)
    assert wait_for_status(pk, {"under_review", "validation_failed"}) == Status.VALIDATION_FAILED
    invalid = {
        i["rule"]
        for i in client.get(f"/api/v1/submissions/{pk}/status/").json()["issues"]
        if i["severity"] == "invalid"
    }
    assert {"stonewall-time", "write-phase-min-runtime"} <= invalid
    assert not invalid & {
        "archive-job-script",
        "archive-job-output",
        "system-description",
        "questionnaire",
        "run-selection",
        "result-format",
    }

    submission = Submission.objects.get(pk=pk)
    assert submission.run_format == "ioscore-json"
    assert submission.procs == 2
    easy_write = submission.phases.get(name="ior-easy-write")
    assert sorted(row["rank"] for row in easy_write.ranks) == [0, 1]
    assert easy_write.timeseries is not None


def test_summary_form_upload_keeps_the_every_rank_files_in_the_archive_only(
    summary_results: Path, cast: Any, open_release: Any, validation_queue: Any
) -> None:
    """A summary-form run uploaded with its --rank-detail-full files: accepted for
    validation, its phases stored from result.json (rank_summary + the named ranks), the
    ranks-<phase>.csv.gz files kept in the stored archive and never read into the database:
    rows added to one here (ranks 2..4999) appear nowhere in the stored phase."""
    full = next(summary_results.rglob("ranks-ior-easy-write.csv.gz"))
    with gzip.open(full, "at", encoding="utf-8") as out:
        out.writelines(f"{r},ghost,0,1,1,1,1,1.0,0,0\n" for r in range(2, 5000))
    _client, pk = _upload(summary_results, cast)
    assert wait_for_status(pk, {"under_review", "validation_failed"}) == Status.VALIDATION_FAILED
    submission = Submission.objects.get(pk=pk)
    assert submission.run_format == "ioscore-json"
    easy_write = submission.phases.get(name="ior-easy-write")
    summary = easy_write.rank_summary
    assert summary is not None and summary["count"] == 2
    assert summary["full_file"] == "ranks-ior-easy-write.csv.gz"
    assert sorted(row["rank"] for row in easy_write.ranks) == [0, 1]
    with tarfile.open(Path(settings.MEDIA_ROOT) / submission.archive) as stored:
        member = next(m for m in stored.getmembers() if m.name.endswith(full.name))
        extracted = stored.extractfile(member)
        assert extracted is not None
        kept = gzip.decompress(extracted.read()).decode()
    assert kept == gzip.decompress(full.read_bytes()).decode()  # stored unchanged
