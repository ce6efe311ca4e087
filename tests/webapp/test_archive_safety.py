"""Hostile archives: each is refused with its own message, through the real upload API,
and nothing is written outside the media directory (and nothing stays inside it either)."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken
from submissions import archive_safety
from submissions.models import Submission

from .helpers import files_under, tar_gz

GOOD = {"run/result_summary.txt": b"IO500 version io500-sc25\n"}


def _member(name: str, kind: bytes, linkname: str = "") -> Any:
    def add(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = linkname
        archive.addfile(info)

    return add


def _zip(entries: dict[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = 0o120777 << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _bomb() -> bytes:
    return tar_gz({"run/result_summary.txt": b"\0" * (8 << 20)})


def _nested() -> bytes:
    return tar_gz({**GOOD, "run/inner.tar.gz": tar_gz(GOOD)})


def _nested_disguised() -> bytes:
    return tar_gz({**GOOD, "run/inner.txt": tar_gz(GOOD)})


def _many_files() -> bytes:
    return tar_gz({f"run/f{i}.txt": b"x" for i in range(30)})


def _truncated() -> bytes:
    whole = tar_gz({f"run/f{i}.txt": bytes(range(256)) * 40 * (i + 1) for i in range(5)})
    return whole[: len(whole) // 2]


HOSTILE = {
    "traversal": (lambda: tar_gz({**GOOD, "../../escape.txt": b"pwned"}), "path traversal"),
    "absolute": (lambda: tar_gz({**GOOD, "/tmp/ioscore-absolute.txt": b"pwned"}), "absolute path"),
    "symlink": (
        lambda: tar_gz(GOOD, _member("run/link", tarfile.SYMTYPE, "/etc/passwd")),
        "links are not allowed",
    ),
    "hardlink": (
        lambda: tar_gz(GOOD, _member("run/hard", tarfile.LNKTYPE, "/etc/passwd")),
        "links are not allowed",
    ),
    "device": (lambda: tar_gz(GOOD, _member("run/dev", tarfile.CHRTYPE)), "device or FIFO"),
    "fifo": (lambda: tar_gz(GOOD, _member("run/fifo", tarfile.FIFOTYPE)), "device or FIFO"),
    "zip-symlink": (lambda: _zip(GOOD, symlink="run/link"), "links are not allowed"),
    "zip-traversal": (lambda: _zip({**GOOD, "../evil.txt": b"x"}), "path traversal"),
    "too-many-files": (_many_files, "too many entries"),
    "too-many-bytes": (lambda: tar_gz({"run/big.txt": b"a" * 300_000}), "more than"),
    "bomb": (_bomb, "compression ratio"),
    "nested": (_nested, "nested archives"),
    "nested-disguised": (_nested_disguised, "nested archives"),
    "not-an-archive": (lambda: b"just some text, not an archive", "not a .tar.gz"),
    "truncated": (lambda: _truncated(), "corrupt or truncated"),
}


@pytest.fixture
def small_limits(settings: Any) -> None:
    settings.IOSCORE_ARCHIVE_MAX_FILES = 20
    settings.IOSCORE_ARCHIVE_MAX_BYTES = 64 << 20
    settings.IOSCORE_ARCHIVE_MAX_RATIO = 50


@pytest.mark.django_db
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_rejected_by_upload_api(
    case: str,
    cast: Any,
    open_release: Any,
    media_root: Path,
    tmp_path: Path,
    settings: Any,
    small_limits: None,
) -> None:
    build, expected = HOSTILE[case]
    if case == "too-many-bytes":
        settings.IOSCORE_ARCHIVE_MAX_BYTES = 200_000
    _token, raw = ApiToken.issue(cast.submitter, cast.site)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    before_media = files_under(media_root)
    probe = [
        Path("/tmp/ioscore-absolute.txt"),
        media_root.parent / "escape.txt",
        media_root.parent.parent / "escape.txt",
    ]

    response = client.post(
        "/api/v1/submissions/",
        {
            "archive": _upload(build(), f"{case}.tar.gz"),
        },
        format="multipart",
    )

    assert response.status_code == 400, response.content
    message = response.json()["error"]["message"]
    assert expected in message, message
    assert response.json()["error"]["fields"] == {"archive": [message]}
    assert Submission.objects.count() == 0
    assert files_under(media_root) == before_media  # nothing stored, temp file removed
    assert not any(p.exists() for p in probe)


def _upload(content: bytes, name: str) -> Any:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type="application/gzip")


@pytest.mark.parametrize("case", ["traversal", "absolute", "symlink", "device", "nested"])
def test_extract_never_writes_outside_destination(case: str, tmp_path: Path) -> None:
    archive = tmp_path / "upload.bin"
    archive.write_bytes(HOSTILE[case][0]())
    destination = tmp_path / "sandbox" / "x"
    (tmp_path / "sandbox").mkdir()
    with pytest.raises(archive_safety.UnsafeArchive):
        archive_safety.extract(archive, destination, archive_safety.Limits())
    outside = {p for p in tmp_path.rglob("*") if destination not in p.parents}
    assert outside == {archive, tmp_path / "sandbox", destination}


def test_safe_archive_extracts_regular_files_and_skips_macos_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "ok.tgz"
    archive.write_bytes(
        tar_gz(
            {
                **GOOD,
                "__MACOSX/run/._result_summary.txt": b"junk",
                "run/._x": b"junk",
                "run/sub/config.ini": b"[global]\n",
            }
        )
    )
    members = archive_safety.extract(archive, tmp_path / "out", archive_safety.Limits())
    assert sorted(str(m.name) for m in members) == ["run/result_summary.txt", "run/sub/config.ini"]
    assert (tmp_path / "out/run/result_summary.txt").read_bytes() == GOOD["run/result_summary.txt"]
    assert not (tmp_path / "out/__MACOSX").exists()


def test_zip_archive_is_accepted(tmp_path: Path) -> None:
    archive = tmp_path / "ok.zip"
    archive.write_bytes(_zip(GOOD))
    members = archive_safety.inspect(archive, archive_safety.Limits())
    assert [str(m.name) for m in members] == ["run/result_summary.txt"]
