"""load_path on archives: safe extraction, clear errors, temporary directory cleaned up."""

from __future__ import annotations

import io
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from ioscore.results import ArchiveLimits, ResultFormatError, load_path

from .conftest import DEV, SC25_RUN


def _tar_of(run_dir: Path, target: Path, prefix: str = "sub/") -> Path:
    with tarfile.open(target, "w:gz") as tar:
        for path in sorted(run_dir.iterdir()):
            tar.add(path, arcname=prefix + path.name)
    return target


def _temp_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("ioscore-unpack-*")}


def test_tar_gz_of_a_real_run(tmp_path: Path) -> None:
    before = _temp_dirs()
    archive = _tar_of(DEV / SC25_RUN, tmp_path / "run.tar.gz")
    runs = load_path(archive)
    assert len(runs) == 1
    assert runs[0].version == "io500-sc25"
    assert runs[0].source == str(archive / "sub" / "result_summary.txt")
    assert _temp_dirs() == before  # the extraction directory is gone


def test_zip_with_macos_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted((DEV / SC25_RUN).iterdir()):
            zf.write(path, f"r/{path.name}")
            zf.writestr(f"__MACOSX/r/._{path.name}", b"\x00\x05\x16\x07")
        zf.writestr("r/._result_summary.txt", b"\x00\x05\x16\x07")
    runs = load_path(archive)
    assert [r.version for r in runs] == ["io500-sc25"]


def test_directory_input(tmp_path: Path) -> None:
    runs = load_path(DEV / "642")
    assert len(runs) == 2  # a submission with two runs


def _tar_with(tmp_path: Path, member: tarfile.TarInfo, data: bytes = b"") -> Path:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.addfile(member, io.BytesIO(data) if data else None)
    return archive


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [
        ("../escape.txt", tarfile.REGTYPE, "'..'"),
        ("/etc/evil", tarfile.REGTYPE, "absolute path"),
        ("link", tarfile.SYMTYPE, "links are not allowed"),
        ("hard", tarfile.LNKTYPE, "links are not allowed"),
        ("fifo", tarfile.FIFOTYPE, "device or FIFO"),
    ],
)
def test_unsafe_members_are_refused(tmp_path: Path, name: str, kind: bytes, message: str) -> None:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = "/etc/passwd" if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE) else ""
    data = b"x" if kind == tarfile.REGTYPE else b""
    member.size = len(data)
    archive = _tar_with(tmp_path, member, data)
    with pytest.raises(ResultFormatError, match=message):
        load_path(archive)
    assert not (tmp_path / "escape.txt").exists()


def test_zip_traversal_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../../evil.txt", b"x")
    with pytest.raises(ResultFormatError, match=r"'\.\.'"):
        load_path(archive)


def test_count_and_size_limits(tmp_path: Path) -> None:
    archive = _tar_of(DEV / SC25_RUN, tmp_path / "run.tgz")
    with pytest.raises(ResultFormatError, match="more than 2 files and directories"):
        load_path(archive, ArchiveLimits(max_entries=2))
    with pytest.raises(ResultFormatError, match="archive expands to more than 10000 bytes"):
        load_path(archive, ArchiveLimits(max_total_bytes=10_000))


def test_truncated_archive(tmp_path: Path) -> None:
    archive = _tar_of(DEV / SC25_RUN, tmp_path / "run.tar.gz")
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    with pytest.raises(ResultFormatError, match="corrupt or truncated"):
        load_path(archive)


def test_not_an_archive(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("x", encoding="utf-8")
    with pytest.raises(ResultFormatError, match="not a directory or an archive"):
        load_path(text)
    with pytest.raises(ResultFormatError, match="no such file"):
        load_path(tmp_path / "missing.tgz")


def test_archive_without_runs(tmp_path: Path) -> None:
    archive = tmp_path / "empty.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("readme.txt", b"nothing here")
    with pytest.raises(ResultFormatError, match="no run found"):
        load_path(archive)


def test_error_inside_archive_names_the_member(tmp_path: Path) -> None:
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("r/result_summary.txt", "IO500 version io500-sc25 (standard)\ngarbage\n")
    with pytest.raises(ResultFormatError) as info:
        load_path(archive)
    assert info.value.path == str(archive / "r" / "result_summary.txt")
    assert info.value.line == 2


def test_zip_symlink_refused(tmp_path: Path) -> None:
    archive = tmp_path / "link.zip"
    info = zipfile.ZipInfo("r/result_summary.txt")
    info.external_attr = (0o120777) << 16  # S_IFLNK
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(info, "/etc/passwd")
    with pytest.raises(ResultFormatError, match="links are not allowed"):
        load_path(archive)


def test_directories_count_as_entries_and_match_the_service(tmp_path: Path) -> None:
    # One owner for the limits: the service reads its defaults from ArchiveLimits, so an
    # archive `ioscore validate --upload` accepts is one the service accepts.
    archive = tmp_path / "dirs.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for i in range(5):
            info = tarfile.TarInfo(f"sub/d{i}")
            info.type = tarfile.DIRTYPE
            tar.addfile(info)
    with pytest.raises(ResultFormatError, match="more than 4 files and directories"):
        load_path(archive, ArchiveLimits(max_entries=4))
    assert ArchiveLimits().max_entries == 10_000
    assert ArchiveLimits().max_ratio == 200.0


def test_tar_cut_inside_its_last_header_is_refused(tmp_path: Path) -> None:
    whole = io.BytesIO()
    with tarfile.open(fileobj=whole, mode="w") as tar:
        for name in ("sub/a.txt", "sub/b.txt"):
            info = tarfile.TarInfo(name)
            info.size = 3
            tar.addfile(info, io.BytesIO(b"abc"))
    archive = tmp_path / "cut.tar"
    archive.write_bytes(whole.getvalue()[: 1024 + 300])  # inside the second header
    with pytest.raises(ResultFormatError, match="corrupt or truncated"):
        load_path(archive)
