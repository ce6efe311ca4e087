"""Acceptance runs through the service: real `ioscore-suite ior|mdtest` results uploaded as a
plan's results directory (archive) or as separate result.json files; stored statistics agree
with the launches' own result.json; the history, run page, report and read API show them."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from accounts.models import ApiToken
from submissions.models import ClientSystem, StorageSystem

from .acceptance_helpers import HOSTILE_REPORT, acceptance_results, pack, result_files

pytestmark = [pytest.mark.mpi, pytest.mark.django_db]
GIB = float(1 << 30)


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with acceptance_results("ioscore-webapp-acceptance-") as path:
        yield path


@pytest.fixture
def client(cast: Any, media_root: Path) -> APIClient:
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


@pytest.fixture
def storage(cast: Any) -> StorageSystem:
    machine = ClientSystem.objects.create(site=cast.site, name="Cluster A")
    return StorageSystem.objects.create(
        site=cast.site, client_system=machine, name="scratch", fs_type="Lustre"
    )


def upload(client: APIClient, archive: bytes, **fields: Any) -> Any:
    data = {"archive": SimpleUploadedFile("results.tar.gz", archive), **fields}
    return client.post("/api/v1/acceptance/runs/", data, format="multipart")


def phase_scores(result_json: Path, prefix: str) -> list[float]:
    document = json.loads(result_json.read_text())
    return [p["score"] for p in document["phases"] if p["name"].startswith(prefix)]


def test_archive_upload_stores_each_test_with_the_launches_statistics(
    client: APIClient, results: Path, storage: StorageSystem, cast: Any
) -> None:
    archive = pack(results)
    response = upload(client, archive, storage_system=storage.pk, label="baseline")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["duplicate"] is False and body["tests"] == 3
    run = AcceptanceRun.objects.get(pk=body["id"])
    assert (run.site, run.storage_system, run.label) == (cast.site, storage, "baseline")
    assert run.report and run.report_size == len(HOSTILE_REPORT)
    tests = {t.name: t for t in run.tests.all()}
    assert set(tests) == {"ior-fpp", "ior-pair", "mdtest-create"}

    # ior-fpp: three iterations; stored in GiB/s exactly as the launch's phases scored them.
    write = tests["ior-fpp"].operations.get(operation="write")
    expected = phase_scores(result_files(results)["ior-fpp"], "ior-write-")
    assert len(expected) == 3 and write.unit == "GiB/s"
    assert write.values == pytest.approx(expected)
    assert write.mean == pytest.approx(statistics.fmean(expected))
    assert write.stddev == pytest.approx(statistics.pstdev(expected))  # IOR: population
    assert (write.minimum, write.maximum) == (
        pytest.approx(min(expected)),
        pytest.approx(max(expected)),
    )
    assert tests["ior-fpp"].commands[0].startswith("ior -F -C -e -g -b 256k")
    assert tests["ior-fpp"].procs == 2 and tests["ior-fpp"].program == "ior"

    # ior-pair: the -k write launch and the later read launch are one test with two parts.
    pair = tests["ior-pair"]
    assert len(pair.commands) == 2
    assert {op.operation for op in pair.operations.all()} == {"write", "read"}

    # mdtest: rates in ops/s (the launch's kIOPS x 1000), two iterations.
    create = tests["mdtest-create"].operations.get(operation="file-write")
    md_expected = [
        v * 1e3 for v in phase_scores(result_files(results)["mdtest-create"], "mdtest-file-write-")
    ]
    assert create.unit == "ops/s" and create.values == pytest.approx(md_expected)
    assert create.label == "File creation"  # as mdtest prints it

    # The plan's targets, judged by the library: one met per test, one missed by far, one
    # of a test that left no result.
    assert (body["verdict"], body["targets_total"], body["targets_failed"]) == ("FAIL", 4, 2)
    assert run.plan_name == "TU scratch acceptance"
    verdicts = {(t.test_name, t.text): t for t in run.targets.all()}
    met = verdicts[("ior-fpp", "write >= 1 MiB/s")]
    assert met.passed and met.unit == "GiB/s" and met.threshold == pytest.approx(1 / 1024)
    assert met.measured == pytest.approx(write.mean) and met.detail.startswith("PASS")
    missed = verdicts[("ior-fpp", "read >= 1,000 TB/s")]
    assert not missed.passed and missed.threshold == pytest.approx(1e15 / GIB)
    creates = verdicts[("mdtest-create", "creates >= 6,800/s".replace("6,800", "10"))]
    assert (
        creates.passed
        and creates.unit == "ops/s"
        and creates.measured == pytest.approx(create.mean)
    )
    absent = verdicts[("mdtest-hard", "creates >= 6,800/s")]
    assert not absent.passed and absent.measured is None
    assert (
        absent.detail
        == "FAIL: creates >= 6,800/s: the test has no file-write results (operations: none)"
    )

    # The same bytes again: the stored run, not a second one.
    again = upload(client, archive, storage_system=storage.pk, label="baseline")
    assert again.status_code == 200 and again.json() | {"duplicate": False} == body
    assert again.json()["duplicate"] is True
    assert AcceptanceRun.objects.count() == 1


def test_separate_result_files_and_report(client: APIClient, results: Path) -> None:
    files = result_files(results)
    data = {
        "results": [
            SimpleUploadedFile("ior-fpp.json", files["ior-fpp"].read_bytes()),
            SimpleUploadedFile("mdtest-create.json", files["mdtest-create"].read_bytes()),
        ],
        "report": SimpleUploadedFile("report.html", HOSTILE_REPORT),
        "notes": "OSS firmware 2.4; caches dropped between write and read",
    }
    response = client.post("/api/v1/acceptance/runs/", data, format="multipart")
    assert response.status_code == 201, response.content
    run = AcceptanceRun.objects.get(pk=response.json()["id"])
    assert sorted(run.tests.values_list("name", flat=True)) == ["ior-fpp", "mdtest-create"]
    assert response.json()["verdict"] == "" and run.targets_total == 0  # no plan, no targets
    assert run.notes.startswith("OSS firmware 2.4") and run.report_size == len(HOSTILE_REPORT)


def test_run_page_history_and_read_api(
    client: APIClient, results: Path, storage: StorageSystem, cast: Any
) -> None:
    first = upload(client, pack(results), storage_system=storage.pk, label="before").json()
    second = upload(
        client, pack(results, {"notes.txt": b"second run"}), storage_system=storage.pk
    ).json()
    assert first["id"] != second["id"]

    detail = client.get(f"/api/v1/acceptance/runs/{first['id']}/").json()
    assert [t["name"] for t in detail["tests"]] == ["ior-fpp", "ior-pair", "mdtest-create"]
    ops = {o["operation"]: o for o in detail["tests"][0]["operations"]}
    assert ops["write"]["iterations"] == 3 and ops["write"]["unit"] == "GiB/s"
    assert all(math.isfinite(ops["write"][k]) for k in ("mean", "stddev", "min", "max"))

    history = client.get(f"/api/v1/acceptance/sites/{cast.site.pk}/history/").json()
    write = next(s for s in history if (s["test"], s["operation"]) == ("ior-fpp", "write"))
    assert [p["run"] for p in write["points"]] == [first["id"], second["id"]]
    assert write["points"][0]["label"] == "before" and write["points"][0]["iterations"] == 3
    assert write["points"][0]["target"] == pytest.approx(1 / 1024)
    assert write["points"][0]["passed"] is True
    read = next(s for s in history if (s["test"], s["operation"]) == ("ior-fpp", "read"))
    assert read["points"][1]["passed"] is False
    filtered = client.get(
        f"/api/v1/acceptance/sites/{cast.site.pk}/history/?storage_system={storage.pk + 999}"
    ).json()
    assert filtered == []
    listed = client.get(f"/api/v1/acceptance/runs/?storage_system={storage.pk}").json()
    assert listed["count"] == 2

    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/runs/{first['id']}/")
    assert page.status_code == 200
    html = page.content.decode()
    for text in ("ior-fpp", "mdtest-create", "ior -F -C -e -g", "file-write", "before"):
        assert text in html
    site_page = browser.get(f"/acceptance/sites/{cast.site.pk}/systems/{storage.pk}/")
    assert site_page.status_code == 200
    text = site_page.content.decode()
    assert 'id="acceptance-series"' in text and "acceptance-chart-0" in text
    assert "plotly-4.1.1.min.js" in text and "acceptance/history.js" in text
    assert "read &gt;= 1,000 TB/s" in text and text.count(">FAIL<") >= 4  # 2 targets x 2 runs
    series = json.loads(
        text.split('id="acceptance-series" type="application/json">')[1].split("</script>")[0]
    )
    assert {(s["test"], s["operation"]) for s in series} >= {
        ("ior-fpp", "write"),
        ("mdtest-create", "file-write"),
    }


def test_report_is_served_sandboxed_never_in_the_sites_origin(
    client: APIClient, results: Path, cast: Any
) -> None:
    run_id = upload(client, pack(results)).json()["id"]
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/runs/{run_id}/report/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert HOSTILE_REPORT not in page.content  # the page frames the report, never holds it
    frame = page.content.decode().split("<iframe", 1)[1].split(">", 1)[0]
    assert 'sandbox="allow-scripts"' in frame  # no top navigation, popups or same origin
    assert f'src="/acceptance/runs/{run_id}/report/content/"' in frame

    shown = browser.get(f"/acceptance/runs/{run_id}/report/content/", HTTP_SEC_FETCH_DEST="iframe")
    assert shown.status_code == 200 and shown["Content-Disposition"].startswith("inline;")
    assert b"".join(shown.streaming_content) == HOSTILE_REPORT
    policy = shown["Content-Security-Policy"]
    assert policy.startswith("sandbox allow-scripts;")  # opaque origin: no cookies, no API
    assert "allow-same-origin" not in policy and "allow-top-navigation" not in policy
    assert "connect-src 'none'" in policy and "frame-ancestors 'self'" in policy
    assert "default-src 'none'" in policy and shown["X-Content-Type-Options"] == "nosniff"
    assert shown["X-Frame-Options"] == "SAMEORIGIN"
    # Opened as a page of its own (or by a client that does not say): never rendered.
    for dest in ("document", None):
        headers = {"HTTP_SEC_FETCH_DEST": dest} if dest else {}
        tab = browser.get(f"/acceptance/runs/{run_id}/report/content/", **headers)
        assert tab["Content-Disposition"].startswith("attachment;")
        assert tab["Content-Security-Policy"] == policy
    downloaded = browser.get(f"/acceptance/runs/{run_id}/report/?download=1")
    assert downloaded["Content-Disposition"].startswith("attachment;")
    assert downloaded["Content-Security-Policy"] == policy
    archive = browser.get(f"/acceptance/runs/{run_id}/archive/")
    assert archive["Content-Disposition"].startswith("attachment;")


def test_upload_form_for_site_members(results: Path, cast: Any, media_root: Path) -> None:
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    assert browser.get("/acceptance/upload/").status_code == 200
    response = browser.post(
        "/acceptance/upload/",
        {
            "archive": SimpleUploadedFile("r.tgz", pack(results)),
            "site": cast.site.pk,
            "label": "form",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = AcceptanceRun.objects.get(label="form")
    assert response["Location"] == f"/acceptance/runs/{run.pk}/"
    bad = browser.post(
        "/acceptance/upload/",
        {"archive": SimpleUploadedFile("r.tgz", b"not an archive"), "site": cast.site.pk},
    )
    assert bad.status_code == 400 and "archive rejected" in bad.content.decode()


def test_a_plan_that_does_not_parse_is_refused_naming_it(client: APIClient, results: Path) -> None:
    plan = (results / "plan.json").read_text().replace("creates >= 10/s", "creates >= 10 furlongs")
    response = upload(client, pack(results, {"plan.json": plan.encode()}))
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith("results/plan.json: ") and "unknown unit 'furlongs'" in message
    assert "/sandbox" not in message
    for hostile in ("{", '{"tests": 5}', '{"tests": [{"name": "ior-fpp", "targets": 5}]}'):
        response = upload(client, pack(results, {"plan.json": hostile.encode()}))
        assert response.status_code == 400, (hostile, response.content)
        assert "plan.json" in response.json()["error"]["message"]


def test_multimodality_hint_is_stored_per_operation(client: APIClient, results: Path) -> None:
    """One of three write iterations at a fifth of the others' speed (as after a failed
    router): the library's gap test calls it a second group, the run page says which."""
    document = json.loads(result_files(results)["ior-fpp"].read_text())
    document.pop("summary", None)  # the suite's printed summary would win over the phases
    writes = [p for p in document["phases"] if p["name"].startswith("ior-write-")]
    for phase, score in zip(writes, (5.0, 5.2, 1.0), strict=True):
        phase["score"] = score
    data = {"results": [SimpleUploadedFile("ior-fpp.json", json.dumps(document).encode())]}
    response = client.post("/api/v1/acceptance/runs/", data, format="multipart")
    assert response.status_code == 201, response.content
    run = AcceptanceRun.objects.get(pk=response.json()["id"])
    write = run.tests.get().operations.get(operation="write")
    assert write.values == pytest.approx([5.0, 5.2, 1.0])
    assert "per-iteration write values form two groups: 2 iterations at ~5" in write.hint
    assert write.hint.endswith("1 at ~1 GiB/s (iterations 2)")


def test_change_and_delete_a_run(
    client: APIClient, results: Path, storage: StorageSystem, cast: Any, media_root: Path
) -> None:
    archive = pack(results)
    run_id = upload(client, archive).json()["id"]
    url = f"/api/v1/acceptance/runs/{run_id}/"
    changed = client.patch(
        url, {"label": "after firmware 2.4", "storage_system": storage.pk}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert (changed.json()["label"], changed.json()["storage_system_id"]) == (
        "after firmware 2.4",
        storage.pk,
    )
    other = StorageSystem.objects.create(site=cast.other_site, name="theirs", fs_type="GPFS")
    assert client.patch(url, {"storage_system": other.pk}, format="json").status_code == 400
    assert client.patch(url, {"label": "a\nb"}, format="json").status_code == 400
    detached = client.patch(url, {"storage_system": None}, format="json").json()
    assert detached["storage_system_id"] is None and detached["label"] == "after firmware 2.4"

    # Another site uploads the very same bytes: its own run, sharing the stored file.
    _token, raw = ApiToken.issue(cast.other_submitter, cast.other_site)
    theirs = APIClient()
    theirs.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    their_id = upload(theirs, archive).json()["id"]
    assert their_id != run_id
    run = AcceptanceRun.objects.get(pk=run_id)
    files = [media_root / run.archive, media_root / run.report]
    assert all(path.is_file() for path in files)

    assert client.delete(url).status_code == 204
    assert client.get(url).status_code == 404
    assert all(path.is_file() for path in files)  # still the other site's
    assert theirs.delete(f"/api/v1/acceptance/runs/{their_id}/").status_code == 204
    assert not any(path.exists() for path in files)  # nobody's now


def test_change_and_delete_from_the_run_page(
    client: APIClient, results: Path, storage: StorageSystem, cast: Any
) -> None:
    run_id = upload(client, pack(results)).json()["id"]
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/runs/{run_id}/").content.decode()
    assert 'name="label"' in page and "Delete this run" in page
    saved = browser.post(
        f"/acceptance/runs/{run_id}/",
        {"label": "re-run", "notes": "new OSTs", "storage_system": storage.pk},
    )
    assert saved.status_code == 302
    run = AcceptanceRun.objects.get(pk=run_id)
    assert (run.label, run.notes, run.storage_system_id) == ("re-run", "new OSTs", storage.pk)
    bad = browser.post(f"/acceptance/runs/{run_id}/", {"label": "x" * 300})
    assert bad.status_code == 400
    unconfirmed = browser.post(f"/acceptance/runs/{run_id}/delete/")
    assert unconfirmed.status_code == 400 and AcceptanceRun.objects.filter(pk=run_id).exists()
    gone = browser.post(f"/acceptance/runs/{run_id}/delete/", {"confirm": "yes"})
    assert gone.status_code == 302 and gone["Location"] == f"/acceptance/sites/{cast.site.pk}/"
    assert not AcceptanceRun.objects.filter(pk=run_id).exists()


def test_runs_follow_a_committee_merge_of_storage_systems(
    client: APIClient, results: Path, storage: StorageSystem, cast: Any
) -> None:
    from submissions import storage_systems

    duplicate = StorageSystem.objects.create(site=cast.site, name="scratch2", fs_type="Lustre")
    run_id = upload(client, pack(results), storage_system=duplicate.pk).json()["id"]
    storage_systems.merge(duplicate, storage, cast.admin, "same file system, typed twice")
    for system in (storage, duplicate):  # the merged id resolves to the survivor
        listed = client.get(f"/api/v1/acceptance/runs/?storage_system={system.pk}").json()
        assert [run["id"] for run in listed["results"]] == [run_id]
        history = client.get(
            f"/api/v1/acceptance/sites/{cast.site.pk}/history/?storage_system={system.pk}"
        ).json()
        assert history and history[0]["points"][0]["run"] == run_id
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/sites/{cast.site.pk}/systems/{storage.pk}/").content.decode()
    assert f'href="/acceptance/runs/{run_id}/"' in page
    assert "scratch (Lustre)" in page and "scratch2 (Lustre)" not in page


def test_history_page_draws_the_newest_runs(
    client: APIClient, results: Path, cast: Any, monkeypatch: Any
) -> None:
    from acceptance import views

    older = upload(client, pack(results)).json()["id"]
    newer = upload(client, pack(results, {"notes.txt": b"again"})).json()["id"]
    AcceptanceRun.objects.filter(pk=older).update(started=timezone.now() - timedelta(days=30))
    monkeypatch.setattr(views, "PAGE_RUNS", 1)
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/acceptance/sites/{cast.site.pk}/").content.decode()
    assert "The newest 1 of 2 runs" in page
    assert f'href="/acceptance/runs/{newer}/"' in page
    assert f'href="/acceptance/runs/{older}/"' not in page


def test_history_as_csv(client: APIClient, results: Path, cast: Any) -> None:
    import csv
    import io

    run_id = upload(client, pack(results), label="=cmd|' /C calc'!A0").json()["id"]
    browser = pytest.importorskip("django.test").Client()
    browser.force_login(cast.submitter)
    response = browser.get(f"/acceptance/sites/{cast.site.pk}/history.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    write = next(r for r in rows if (r["test"], r["operation"]) == ("ior-fpp", "write"))
    run = AcceptanceRun.objects.get(pk=run_id)
    stored = run.tests.get(name="ior-fpp").operations.get(operation="write")
    assert float(write["mean"]) == pytest.approx(stored.mean) and write["iterations"] == "3"
    assert write["target"] and write["passed"] == "True"
    assert write["label"].startswith("'=")  # a spreadsheet shows it, never runs it
    assert {r["run"] for r in rows} == {str(run_id)}
    other = pytest.importorskip("django.test").Client()
    other.force_login(cast.other_submitter)
    assert other.get(f"/acceptance/sites/{cast.site.pk}/history.csv").status_code == 404
