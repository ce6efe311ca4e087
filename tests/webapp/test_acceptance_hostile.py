"""Hostile acceptance uploads: every one is a 400 naming the problem (never a 5xx, never the
server's paths), bounded work, and nothing stored or half-created."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun, AcceptanceTest
from accounts.models import ApiToken
from submissions.models import StorageSystem

from .acceptance_helpers import acceptance_results, result_files
from .helpers import files_under, tar_gz

pytestmark = [pytest.mark.mpi, pytest.mark.django_db]


@pytest.fixture(scope="module")
def good_json() -> Iterator[dict[str, Any]]:
    """One real `ioscore-suite ior` result.json (ior-fpp: -w -r -i 3), as a document."""
    with acceptance_results("ioscore-webapp-acceptance-hostile-") as results:
        yield json.loads(result_files(results)["ior-fpp"].read_text())


@pytest.fixture
def client(cast: Any, media_root: Path) -> Iterator[APIClient]:
    global BEFORE
    BEFORE = files_under(media_root)  # the session's media dir holds earlier tests' files
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    yield api


BEFORE: set[Path] = set()


def post(client: APIClient, archive: bytes | None = None, **fields: Any) -> Any:
    data = dict(fields)
    if archive is not None:
        data["archive"] = SimpleUploadedFile("results.tar.gz", archive)
    return client.post("/api/v1/acceptance/runs/", data, format="multipart")


def with_result(text: str | bytes) -> bytes:
    raw = text.encode() if isinstance(text, str) else text
    return tar_gz({"results/ior-fpp/result.json": raw})


def mutated(document: dict[str, Any], change: Callable[[dict[str, Any]], None]) -> str:
    copy = json.loads(json.dumps(document))
    change(copy)
    return json.dumps(copy)


def set_score(value: Any) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        doc["phases"][0]["score"] = value

    return change


def refused(response: Any, media_root: Path, *needles: str) -> str:
    assert response.status_code == 400, response.content
    message = response.json()["error"]["message"]
    for needle in needles:
        assert needle in message, message
    assert str(media_root) not in message and "/sandbox" not in message
    assert not AcceptanceRun.objects.exists() and not AcceptanceTest.objects.exists()
    assert files_under(media_root) <= BEFORE  # nothing stored, staging and spool removed
    return str(message)


def test_the_unmodified_document_is_accepted(client: APIClient, good_json: dict[str, Any]) -> None:
    """The hostile cases below differ from this accepted upload only in what they break."""
    assert post(client, with_result(json.dumps(good_json))).status_code == 201


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        ('{"schema": "ioscore-result/1", "phases": [', ("ior-fpp/result.json",)),
        (b"\xff\xfe not utf-8", ("ior-fpp/result.json",)),
        ("[1, 2, 3]", ("not a JSON object",)),
    ],
    ids=["truncated-json", "not-utf8", "not-an-object"],
)
def test_bad_json(
    client: APIClient, media_root: Path, content: str | bytes, needles: tuple[str, ...]
) -> None:
    refused(post(client, with_result(content)), media_root, *needles)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (set_score(float("nan")), "NaN"),
        (set_score(float("inf")), "Infinity"),
        (set_score(-1.0), "score"),
        (set_score("fast"), "score"),
    ],
    ids=["nan", "infinity", "negative", "text"],
)
def test_non_finite_or_wrong_numbers(
    client: APIClient, media_root: Path, good_json: dict[str, Any], change: Any, needle: str
) -> None:
    refused(post(client, with_result(mutated(good_json, change))), media_root, needle)


def test_huge_numbers(client: APIClient, media_root: Path, good_json: dict[str, Any]) -> None:
    text = mutated(good_json, set_score(1.0)).replace('"score": 1.0', '"score": 1e400', 1)
    refused(post(client, with_result(text)), media_root, "ior-fpp/result.json")
    huge_int = mutated(good_json, lambda d: d["phases"][0].update(items=10**30))
    refused(post(client, with_result(huge_int)), media_root, "ior-fpp/result.json")


def test_wrong_mode(client: APIClient, media_root: Path, good_json: dict[str, Any]) -> None:
    # An IO500 run (mode standard) is not an acceptance run: nothing acceptable is left.
    standard = mutated(good_json, lambda d: d.update(mode="standard"))
    refused(post(client, with_result(standard)), media_root, "no acceptance result.json")
    bogus = mutated(good_json, lambda d: d.update(mode="fio"))
    refused(post(client, with_result(bogus)), media_root, "ior-fpp/result.json")
    foreign = mutated(good_json, lambda d: d["phases"][0].update(name="mdtest-file-write-0"))
    refused(post(client, with_result(foreign)), media_root, "does not belong to mode ior")


def test_unfinished_launch(client: APIClient, media_root: Path, good_json: dict[str, Any]) -> None:
    aborted = mutated(good_json, lambda d: d.update(finished=False, aborted=True))
    refused(post(client, with_result(aborted)), media_root, "aborted")


def test_zip_bomb(client: APIClient, media_root: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as bomb:
        bomb.writestr("results/ior-fpp/result.json", b"0" * (64 << 20))
    assert len(buffer.getvalue()) < 200_000
    refused(post(client, buffer.getvalue()), media_root, "archive rejected")


def test_unsafe_or_broken_archives(client: APIClient, media_root: Path) -> None:
    refused(post(client, b"certainly not an archive"), media_root, "archive rejected")

    def traversal(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("../../etc/evil")
        info.size = 1
        archive.addfile(info, io.BytesIO(b"x"))

    refused(post(client, tar_gz({}, traversal)), media_root, "archive rejected")

    def link(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("results/ior-fpp/result.json")
        info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(info)

    refused(post(client, tar_gz({}, link)), media_root, "archive rejected")
    refused(post(client, tar_gz({"results/README": b"no results"})), media_root, "no acceptance")


def test_bad_fields(
    client: APIClient, media_root: Path, cast: Any, good_json: dict[str, Any]
) -> None:
    archive = with_result(json.dumps(good_json))
    refused(post(client), media_root, "either 'archive'")
    both = {"results": [SimpleUploadedFile("a.json", json.dumps(good_json).encode())]}
    refused(post(client, archive, **both), media_root, "either 'archive'")
    refused(post(client, archive, label="two\nlines"), media_root, "label")
    refused(post(client, archive, notes="bell \x07"), media_root, "notes")
    other = StorageSystem.objects.create(site=cast.other_site, name="theirs", fs_type="GPFS")
    refused(post(client, archive, storage_system=other.pk), media_root, "storage_system")
    refused(post(client, archive, storage_system=2**40), media_root)
    refused(post(client, archive, label="x" * 201), media_root, "label")
    same = [
        SimpleUploadedFile("ior.json", json.dumps(good_json).encode()),
        SimpleUploadedFile("ior.json", json.dumps(good_json).encode()),
    ]
    refused(post(client, results=same), media_root, "two files are named ior.json")


def test_listing_parameters(client: APIClient) -> None:
    for query in ("site=abc", "storage_system=-1", "site=99999999999", "limit=zz"):
        response = client.get(f"/api/v1/acceptance/runs/?{query}")
        assert response.status_code in (200, 400), query
    assert client.get("/api/v1/acceptance/runs/?site=abc").status_code == 400
    assert client.get("/api/v1/acceptance/runs/?offset=99999999999").status_code == 400


HUGE = "9" * 30


@pytest.mark.parametrize(
    "path",
    [
        f"/acceptance/runs/{HUGE}/",
        f"/acceptance/runs/{HUGE}/report/",
        f"/acceptance/runs/{HUGE}/archive/",
        f"/acceptance/sites/{HUGE}/",
        f"/acceptance/sites/1/systems/{HUGE}/",
        f"/api/v1/acceptance/runs/{HUGE}/",
        f"/api/v1/acceptance/sites/{HUGE}/history/",
    ],
)
def test_huge_ids_in_paths_are_404(cast: Any, path: str) -> None:
    from django.test import Client

    browser = Client(raise_request_exception=False)
    browser.force_login(cast.admin)  # sees every site: the lookups really run
    assert browser.get(path).status_code == 404, path


@pytest.mark.parametrize("value", [HUGE, "-1", "1e309", "x" * 3000, "' OR 1=1 --"])
def test_hostile_query_values_are_4xx_or_ignored(client: APIClient, cast: Any, value: str) -> None:
    for name in ("site", "storage_system", "limit", "offset"):
        response = client.get("/api/v1/acceptance/runs/", {name: value})
        assert response.status_code in (200, 400), (name, value, response.status_code)
    history = client.get(
        f"/api/v1/acceptance/sites/{cast.site.pk}/history/", {"storage_system": value}
    )
    assert history.status_code == 400


def test_staging_left_by_a_killed_worker_is_removed(
    client: APIClient, media_root: Path, good_json: dict[str, Any]
) -> None:
    import os
    import time

    from acceptance.intake import ABANDONED_AFTER_S

    sandbox = media_root / "sandbox"
    old, recent = sandbox / "acceptance-old", sandbox / "acceptance-recent"
    for staging in (old, recent):
        (staging / "tree").mkdir(parents=True)
    past = time.time() - ABANDONED_AFTER_S - 60
    os.utime(old, (past, past))
    assert post(client, with_result(json.dumps(good_json))).status_code == 201
    assert not old.exists() and recent.is_dir()  # a live request's staging stays
    shutil.rmtree(recent)


def test_one_unreadable_launch_among_good_ones(
    client: APIClient, media_root: Path, good_json: dict[str, Any]
) -> None:
    """The history keeps whole runs: a broken launch beside good ones is named, not dropped."""
    nan = mutated(good_json, set_score(float("nan")))
    archive = tar_gz(
        {
            "results/ior-fpp/result.json": json.dumps(good_json).encode(),
            "results/ior-bad/result.json": nan.encode(),
        }
    )
    message = refused(post(client, archive), media_root, "1 unreadable launch(es): ")
    assert "results/ior-bad/result.json" in message and "leave a failed launch out" in message


def test_oversized_uploads_are_413_as_for_submissions(
    client: APIClient, cast: Any, media_root: Path, settings: Any
) -> None:
    """The service's one upload limit (submissions.upload_limit) stops the body while it
    streams in, for the API and the form alike."""
    settings.IOSCORE_UPLOAD_MAX_BYTES = 64 << 10
    body = bytes(range(256)) * (1 << 10)  # 256 KiB
    response = post(client, body)
    assert response.status_code == 413
    assert response.json()["error"]["message"] == f"archive larger than {64 << 10} bytes"
    from django.test import Client

    browser = Client()
    browser.force_login(cast.submitter)
    form = browser.post(
        "/acceptance/upload/",
        {"archive": SimpleUploadedFile("r.tgz", body), "site": cast.site.pk},
    )
    assert form.status_code == 413 and b"archive larger than 65536 bytes" in form.content
    assert files_under(media_root) <= BEFORE and not AcceptanceRun.objects.exists()


def test_result_files_beyond_the_in_request_bound(
    client: APIClient, media_root: Path, good_json: dict[str, Any], monkeypatch: Any
) -> None:
    from acceptance import loading

    text = json.dumps(good_json).encode()
    bound = len(text) * 3 // 2  # one file fits, two do not
    monkeypatch.setattr(loading, "MAX_TOTAL_RESULT_BYTES", bound)
    archive = tar_gz({"results/a/result.json": text, "results/b/result.json": text})
    refused(post(client, archive), media_root, f"result.json files add up to more than {bound}")
    monkeypatch.setattr(loading, "MAX_RESULT_FILES", 1)
    refused(post(client, archive), media_root, "more than 1 result.json files")


def test_long_test_names_stay_distinct(client: APIClient, good_json: dict[str, Any]) -> None:
    long = "t" * 250
    text = json.dumps(good_json).encode()
    archive = tar_gz({f"results/{long}a/result.json": text, f"results/{long}b/result.json": text})
    response = post(client, archive)
    assert response.status_code == 201, response.content
    names = sorted(AcceptanceTest.objects.values_list("name", flat=True))
    assert names == ["t" * 200, "t" * 198 + "~2"]
