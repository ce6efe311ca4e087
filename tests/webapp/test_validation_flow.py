"""Upload -> a real Celery worker validates -> states, issues, phases and scores are right,
for real IO500 corpus runs packed into archives (LEADERBOARD-RULES §7, §9)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions.models import Status, Submission

from .helpers import QUESTIONNAIRE, corpus_archive, example_system, tar_gz, wait_for_status
from .plausibility_runs import slow_client_network

pytestmark = [pytest.mark.celery, pytest.mark.django_db(transaction=True)]
DONE = {Status.UNDER_REVIEW, Status.VALIDATION_FAILED}


def _client(cast: Any) -> APIClient:
    _token, raw = ApiToken.issue(cast.submitter, cast.site, "test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return client


def _upload(
    client: APIClient,
    archive: bytes,
    name: str = "run.tar.gz",
    system: Any = None,
    questionnaire: Any = None,
) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    data: dict[str, Any] = {"archive": SimpleUploadedFile(name, archive)}
    if system is not None:
        data["system"] = json.dumps(system)
    if questionnaire is not None:
        data["questionnaire"] = json.dumps(questionnaire)
    return client.post("/api/v1/submissions/", data, format="multipart")


def _upload_corpus_run(
    client: APIClient, corpus: Path, submission_id: str, **run_fields: Any
) -> dict[str, Any]:
    """A corpus run with job files, a system description (run fields overridden) and the
    questionnaire: a complete upload."""
    body: dict[str, Any] = _upload(
        client,
        corpus_archive(corpus, submission_id),
        system=example_system(**run_fields),
        questionnaire=QUESTIONNAIRE,
    ).json()
    return body


def _published_total(corpus: Path, submission_id: str) -> float:
    with (corpus / "io500-submissions" / "index.csv").open(newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["submission_id"] == submission_id)
    return float(row["score_total"])


def _status(client: APIClient, submission_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v1/submissions/{submission_id}/status/")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def test_complete_corpus_run_reaches_review(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    response = _upload(
        client,
        corpus_archive(corpus_dir, "760"),
        system=example_system(client_nodes=13, procs_per_node=24),
        questionnaire=QUESTIONNAIRE,
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"id", "status", "url", "status_url", "duplicate"}
    assert body["duplicate"] is False and body["status"] == Status.SUBMITTED
    assert body["status_url"].endswith(f"/api/v1/submissions/{body['id']}/status/")

    assert wait_for_status(body["id"], DONE) == Status.UNDER_REVIEW
    status = _status(client, body["id"])
    assert status["status"] == Status.UNDER_REVIEW
    assert [i for i in status["issues"] if i["severity"] == "invalid"] == []
    for issue in status["issues"]:
        assert set(issue) == {"rule", "severity", "message", "expected", "actual", "phase"}

    submission = Submission.objects.get(pk=body["id"])
    assert submission.release == open_release
    assert submission.benchmark_version == "io500-sc25"
    assert submission.procs == 312
    assert submission.score_total == pytest.approx(_published_total(corpus_dir, "760"), rel=1e-3)
    names = set(submission.phases.values_list("name", flat=True))
    assert {"ior-easy-write", "mdtest-hard-delete", "find"} <= names
    assert submission.run_dir == "sub-760/results/2025.11.03-14.51.48"
    assert submission.system_description.total_procs == 312
    assert submission.system_description.fs_type == "Lustre"
    assert submission.questionnaire.claimed_level == "fully_reproducible"
    history = list(submission.transitions.values_list("from_status", "to_status"))
    assert history == [
        ("draft", "submitted"),
        ("submitted", "validating"),
        ("validating", "under_review"),
    ]
    assert submission.validation_attempts == 1


def test_procs_mismatch_is_a_review_warning(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    body = _upload_corpus_run(client, corpus_dir, "760", client_nodes=10, procs_per_node=24)
    assert wait_for_status(body["id"], DONE) == Status.UNDER_REVIEW
    issues = {i["rule"]: i for i in _status(client, body["id"])["issues"]}
    assert issues["procs-nodes-ppn"]["severity"] == "warning"
    assert issues["procs-nodes-ppn"]["expected"] == 240
    assert issues["procs-nodes-ppn"]["actual"] == 312


def test_dfs_api_on_a_system_declared_lustre_is_a_warning(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    """Rule 9.17 with the declared family from the system description (real DAOS run 776)."""
    client = _client(cast)
    body = _upload_corpus_run(client, corpus_dir, "776", fs_family="Lustre")
    wait_for_status(body["id"], DONE)
    found = [
        i for i in _status(client, body["id"])["issues"] if i["rule"] == "api-matches-fs-family"
    ]
    assert [(i["severity"], i["expected"], i["actual"]) for i in found] == [
        ("warning", "DAOS", "Lustre")
    ]


def test_a_read_beyond_the_declared_client_network_is_a_review_warning(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    """The worker compares the phases with the uploaded description's hardware (real SC25
    run 762: 35.0 and 36.8 GiB/s through 2 x 100 Gbit/s = 23.3 GiB/s), with the arithmetic."""
    client = _client(cast)
    body = _upload(
        client,
        corpus_archive(corpus_dir, "762"),
        system=slow_client_network(),
        questionnaire=QUESTIONNAIRE,
    ).json()
    assert wait_for_status(body["id"], DONE) == Status.UNDER_REVIEW  # warnings, not failures
    found = {
        i["phase"]: i
        for i in _status(client, body["id"])["issues"]
        if i["rule"] == "hardware-plausible"
    }
    assert sorted(found) == ["ior-easy-read", "ior-easy-write"]
    assert all(i["severity"] == "warning" for i in found.values())
    assert found["ior-easy-read"]["message"].startswith(
        "ior-easy-read moved 39.5 GB/s = 36.8 GiB/s, 1.58 times what the client network can "
        "carry: 2 client nodes x (1 x 100 Gbit/s), as declared for the run's client nodes "
        "(200 Gbit/s) = 25.0 GB/s = 23.3 GiB/s."
    )


def test_bare_upload_fails_on_missing_job_files_and_metadata(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    body = _upload(client, corpus_archive(corpus_dir, "760", with_job_files=False)).json()
    assert wait_for_status(body["id"], DONE) == Status.VALIDATION_FAILED
    invalid = {
        i["rule"] for i in _status(client, body["id"])["issues"] if i["severity"] == "invalid"
    }
    assert invalid == {
        "archive-job-script",
        "archive-job-output",
        "system-description",
        "questionnaire",
    }
    # The run itself was still parsed and scored, so the submitter sees the numbers.
    assert Submission.objects.get(pk=body["id"]).phases.count() >= 12


def test_legacy_bash_run_is_only_valid_as_historic_import(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    body = _upload_corpus_run(client, corpus_dir, "4", client_nodes=10, procs_per_node=1)
    assert wait_for_status(body["id"], DONE) == Status.VALIDATION_FAILED
    invalid = [i for i in _status(client, body["id"])["issues"] if i["severity"] == "invalid"]
    assert [i["rule"] for i in invalid] == ["version-accepted"]
    assert "historic" in invalid[0]["message"]


def test_incomplete_metadata_names_the_keys(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    client = _client(cast)
    system = example_system(client_nodes="thirteen")
    del system["site"]["country"]
    answers = {**QUESTIONNAIRE, "caching": "page cache only"}
    body = _upload(
        client, corpus_archive(corpus_dir, "760"), system=system, questionnaire=answers
    ).json()
    assert wait_for_status(body["id"], DONE) == Status.VALIDATION_FAILED
    messages = sorted(
        i["message"] for i in _status(client, body["id"])["issues"] if i["severity"] == "invalid"
    )
    assert messages == [
        "caching (Caching): at least 10 words needed, got 3: 'page cache only'",
        "run.client_nodes: 'thirteen' is not of type 'integer'",
        "site: 'country' is a required property",
    ]


def test_two_runs_in_one_archive_must_be_picked(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any
) -> None:
    from .helpers import JOB_FILES, corpus_files

    files = {
        **corpus_files(corpus_dir, "760", "a/"),
        **corpus_files(corpus_dir, "762", "b/"),
        **JOB_FILES,
    }
    client = _client(cast)
    body = _upload(
        client, tar_gz(files), system=example_system(), questionnaire=QUESTIONNAIRE
    ).json()
    assert wait_for_status(body["id"], DONE) == Status.VALIDATION_FAILED
    selection = [i for i in _status(client, body["id"])["issues"] if i["rule"] == "run-selection"]
    assert len(selection) == 1 and "several runs" in selection[0]["message"]
    assert len(selection[0]["actual"]) == 2


def test_duplicate_upload_is_the_same_submission(
    cast: Any, open_release: Any, corpus_dir: Path, validation_queue: Any, media_root: Path
) -> None:
    client = _client(cast)
    archive = corpus_archive(corpus_dir, "762")
    first = _upload(client, archive, "first.tgz").json()
    second = _upload(client, archive, "renamed.tar.gz")
    assert second.status_code == 200
    assert second.json()["duplicate"] is True
    assert second.json()["id"] == first["id"]
    assert second.json()["url"] == first["url"]
    assert Submission.objects.count() == 1
    stored = Submission.objects.get()
    assert (media_root / stored.archive).read_bytes() == archive  # stored unchanged
    import hashlib

    assert stored.archive_sha256 == hashlib.sha256(archive).hexdigest()
    assert stored.archive_name == "first.tgz"
    wait_for_status(first["id"], DONE)
