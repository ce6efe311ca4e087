"""The service's acceptance intake takes launches in the summary form: real
`ioscore-suite ior|mdtest` runs of 4 ranks above a rank-detail threshold of 2, uploaded as a
results archive. (Without --rank-detail-full: the archive reader refuses every .gz member as
a nested archive, the suite's ranks-*.csv.gz included.)"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from accounts.models import ApiToken
from tests.fixtures.acceptance_suite import launch, scratch

from .acceptance_helpers import pack

pytestmark = [pytest.mark.mpi, pytest.mark.django_db]
SUMMARY = ["--rank-detail-threshold", "2"]


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with scratch("ioscore-webapp-acc-summary-") as root:
        results, data = root / "results", root / "data"
        for folder in ("ior-summary", "mdtest-summary"):
            (results / folder).mkdir(parents=True)
        (data / "md").mkdir(parents=True)
        ior = ["-F", "-b", "256k", "-t", "64k", "-w", "-r", "-i", "2", *SUMMARY]
        launch(results / "ior-summary", "ior", [*ior, "-o", str(data / "f")], np=4)
        mdtest = ["-n", "10", "-u", "-i", "2", *SUMMARY, "-d", str(data / "md")]
        launch(results / "mdtest-summary", "mdtest", mdtest, np=4)
        yield results


@pytest.fixture
def client(cast: Any, media_root: Path) -> APIClient:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def test_a_summary_form_archive_is_stored_with_its_statistics(
    client: APIClient, results: Path
) -> None:
    ior_doc = json.loads(next(results.glob("ior-summary/**/result.json")).read_text())
    assert ior_doc["rank_detail"]["form"] == "summary"
    assert ior_doc["phases"][0]["rank_summary"]["count"] == 4
    archive = SimpleUploadedFile("results.tar.gz", pack(results))
    response = client.post("/api/v1/acceptance/runs/", {"archive": archive}, format="multipart")
    assert response.status_code == 201, response.content
    run = AcceptanceRun.objects.get(pk=response.json()["id"])
    tests = {t.name: t for t in run.tests.all()}
    assert set(tests) == {"ior-summary", "mdtest-summary"}
    assert tests["ior-summary"].procs == 4
    write = tests["ior-summary"].operations.get(operation="write")
    scores = [p["score"] for p in ior_doc["phases"] if p["name"].startswith("ior-write-")]
    assert len(scores) == 2 and write.values == pytest.approx(scores)
    create = tests["mdtest-summary"].operations.get(operation="file-write")
    assert len(create.values) == 2 and all(v > 0 for v in create.values)
