"""`ioscore upload --acceptance` against the real service (pytest-django's live server on the
test PostgreSQL database): real `ioscore-suite ior|mdtest` results of a plan go in as the
site's private acceptance history; the service's verdict comes back in the same answer."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.cli import main
from tests.webapp.acceptance_helpers import acceptance_results

pytestmark = [pytest.mark.mpi, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with acceptance_results("ioscore-cli-acceptance-") as path:
        yield path


def args(server: str, token: str, path: Path, *extra: str) -> list[str]:
    return ["upload", "--acceptance", str(path), "--server", server, "--token", token, *extra]


def test_upload_acceptance_run_and_again(
    live_server: Any,
    cast: Any,
    media_root: Path,
    results: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from acceptance.models import AcceptanceRun
    from accounts.models import ApiToken
    from submissions.models import StorageSystem

    system = StorageSystem.objects.create(site=cast.site, name="scratch", fs_type="Lustre")
    _token, raw = ApiToken.issue(cast.submitter, cast.site, "cli")
    notes = tmp_path / "notes.txt"
    notes.write_text("caches dropped between the write and the read\n", encoding="utf-8")
    extra = ("--label", "cli run", "--notes", str(notes), "--storage-system", str(system.pk))
    assert main(args(live_server.url, raw, results, *extra)) == 0
    out, err = capsys.readouterr()
    run = AcceptanceRun.objects.get()
    assert f"acceptance run {run.pk}: 3 test(s), FAIL (2 of 4 targets failed)" in out
    assert f"/acceptance/runs/{run.pk}/" in out
    assert "local check: 4 acceptance launch(es) read" in err
    assert (run.label, run.storage_system_id) == ("cli run", system.pk)
    assert run.notes == "caches dropped between the write and the read"
    assert run.report and run.plan_name == "TU scratch acceptance"

    # The directory packs to the same bytes: the service answers with the stored run.
    assert main(args(live_server.url, raw, results, *extra)) == 0
    assert f"acceptance run {run.pk}: 3 test(s)" in capsys.readouterr().out
    assert AcceptanceRun.objects.count() == 1


def test_local_check_refuses_before_uploading(
    live_server: Any,
    cast: Any,
    media_root: Path,
    results: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from acceptance.models import AcceptanceRun
    from accounts.models import ApiToken

    _token, raw = ApiToken.issue(cast.submitter, cast.site, "cli")
    broken = tmp_path / "broken"
    shutil.copytree(results, broken)
    victim = sorted((broken / "ior-fpp").rglob("result.json"))[0]
    victim.write_text(victim.read_text().replace('"score": ', '"score": NaN, "x": ', 1))
    assert main(args(live_server.url, raw, broken)) == 2
    assert "unreadable" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no results here")
    assert main(args(live_server.url, raw, empty)) == 2
    assert "no acceptance result.json" in capsys.readouterr().err
    assert main(args(live_server.url, "ios_wrong", results)) == 3
    assert "upload refused (HTTP 401)" in capsys.readouterr().err
    assert not AcceptanceRun.objects.exists()


def test_acceptance_options_need_acceptance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["upload", str(tmp_path), "--server", "http://127.0.0.1:9", "--token", "t", "--label", "x"]
    )
    assert code == 2 and "need --acceptance" in capsys.readouterr().err
