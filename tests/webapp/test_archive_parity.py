"""The CLI and the service refuse exactly the same archives, for the same reason.

One implementation (``ioscore.results.archive``) with limits passed in: the service passes its
settings, whose defaults are the library's, which the CLI uses. Each hostile archive below is
judged three ways: ``ioscore validate --upload`` (the CLI's real entry point), the upload
request's check (``archive_safety.inspect``) and the validation worker's unpacking
(``archive_safety.extract``). All three must agree, and each refusal must name the hostile
part (so the set really exercises every rule, not one rule thirty times).
"""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ioscore.cli import main as ioscore_main
from ioscore.results.archive import ArchiveLimits
from submissions import archive_safety

from .test_archive_safety import _member, _zip

REPO_ROOT = Path(__file__).resolve().parents[2]
RESULT = (REPO_ROOT / "suite/schema/examples/short-run-np2.result.json").read_bytes()
GOOD = {"run/result.json": RESULT}
RANK_FILE = gzip.compress(
    b"rank,host,start,first_done,end,items,bytes,rate,verify_errors,io_error\n"
)
DEFAULTS = ArchiveLimits()


def _tar(
    files: dict[str, bytes],
    extra: Callable[[tarfile.TarFile], None] | None = None,
    mode: str = "w:gz",
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode, errors="surrogateescape") as archive:  # type: ignore[call-overload]
        for name, content in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
        if extra is not None:
            extra(archive)
    return buffer.getvalue()


def _truncated() -> bytes:
    whole = _tar({**GOOD, "run/padding.bin": bytes(range(256)) * 4000})
    return whole[: len(whole) // 2]


# name -> (archive bytes, file suffix, the refusal names this; None: accepted)
CASES: dict[str, tuple[Callable[[], bytes], str, str | None]] = {
    "good tar.gz": (lambda: _tar(GOOD), ".tar.gz", None),
    "good plain tar": (lambda: _tar(GOOD, mode="w"), ".tar", None),
    "good zip": (lambda: _zip(GOOD), ".zip", None),
    "macOS metadata ignored": (
        lambda: _tar({**GOOD, "__MACOSX/._x": b"\0", "run/._result.json": b"x"}),
        ".tgz",
        None,
    ),
    "too many files": (
        lambda: _tar({**GOOD, **{f"run/f{i}": b"x" for i in range(DEFAULTS.max_entries)}}),
        ".tar.gz",
        "too many entries",
    ),
    "ratio bomb": (
        lambda: _tar({**GOOD, "run/zeros.bin": bytes(8 << 20)}),
        ".tar.gz",
        "compression ratio above",
    ),
    "nested archive by name": (
        lambda: _tar({**GOOD, "run/inner.tar.gz": _tar(GOOD)}),
        ".tar.gz",
        "nested archives are not allowed",
    ),
    "nested archive disguised": (
        lambda: _tar({**GOOD, "run/inner.txt": _tar(GOOD)}),
        ".tar.gz",
        "nested archives are not allowed",
    ),
    "nested zip in zip": (
        lambda: _zip({**GOOD, "run/notes.dat": _zip(GOOD)}),
        ".zip",
        "nested archives are not allowed",
    ),
    "suite rank file (--rank-detail-full)": (
        lambda: _tar({**GOOD, "run/ranks-ior-rnd4K-easy-read.csv.gz": RANK_FILE}),
        ".tar.gz",
        None,
    ),
    "zip named as a rank file": (
        lambda: _tar({**GOOD, "run/ranks-ior-easy-write.csv.gz": _zip(GOOD)}),
        ".tar.gz",
        "nested archives are not allowed",
    ),
    "other .csv.gz": (
        lambda: _tar({**GOOD, "run/ior-easy-write.csv.gz": RANK_FILE}),
        ".tar.gz",
        "nested archives are not allowed",
    ),
    "deep path": (
        lambda: _tar({**GOOD, "run/" + "d/" * DEFAULTS.max_depth + "f": b"x"}),
        ".tar.gz",
        "nested deeper than",
    ),
    "long name": (
        lambda: _tar({**GOOD, "run/" + "n" * DEFAULTS.max_name_chars: b"x"}),
        ".tar.gz",
        "member path longer than",
    ),
    "non-UTF-8 name": (
        lambda: _tar({**GOOD, "run/caf\udce9.txt": b"x"}),
        ".tar.gz",
        "member names must be UTF-8",
    ),
    "symlink": (
        lambda: _tar(GOOD, _member("run/passwd", tarfile.SYMTYPE, "/etc/passwd")),
        ".tar.gz",
        "links are not allowed",
    ),
    "hardlink": (
        lambda: _tar(GOOD, _member("run/copy", tarfile.LNKTYPE, "run/result.json")),
        ".tar.gz",
        "links are not allowed",
    ),
    "zip symlink": (lambda: _zip(GOOD, "run/passwd"), ".zip", "links are not allowed"),
    "device": (
        lambda: _tar(GOOD, _member("run/null", tarfile.CHRTYPE)),
        ".tar.gz",
        "device or FIFO files are not allowed",
    ),
    "fifo": (
        lambda: _tar(GOOD, _member("run/pipe", tarfile.FIFOTYPE)),
        ".tar.gz",
        "device or FIFO files are not allowed",
    ),
    "absolute path": (
        lambda: _tar({**GOOD, "/tmp/ioscore-parity-escape": b"x"}),
        ".tar.gz",
        "absolute path not allowed",
    ),
    "drive letter": (lambda: _zip({**GOOD, "C:/x": b"x"}), ".zip", "absolute path not allowed"),
    "dot-dot": (
        lambda: _tar({**GOOD, "run/../../escape": b"x"}),
        ".tar.gz",
        "path traversal",
    ),
    "dot-dot in zip": (
        lambda: _zip({**GOOD, "../escape": b"x"}),
        ".zip",
        "path traversal",
    ),
    "listed twice": (
        lambda: _tar(GOOD, _dup),
        ".tar.gz",
        "run/result.json: listed twice in the archive",
    ),
    "file below a file": (
        lambda: _tar({**GOOD, "run/result.json/x": b"x"}),
        ".tar.gz",
        "run/result.json/x: conflicts with a file of the same name",
    ),
    "file where a directory is": (
        lambda: _zip({**GOOD, "run": b"x"}),
        ".zip",
        "run: conflicts with a directory of the same name",
    ),
    "truncated": (_truncated, ".tar.gz", "corrupt or truncated"),
    "not an archive": (lambda: b"just text\n" * 100, ".tar.gz", "unrecognised content"),
    "no files": (
        lambda: _tar({}, _member("run", tarfile.DIRTYPE)),
        ".tar.gz",
        "archive contains no files",
    ),
}


def _dup(archive: tarfile.TarFile) -> None:
    info = tarfile.TarInfo("run/result.json")
    info.size = 1
    archive.addfile(info, io.BytesIO(b"x"))


def _cli_verdict(archive: Path, capsys: pytest.CaptureFixture[str]) -> str | None:
    code = ioscore_main(["validate", "--upload", str(archive)])
    err = capsys.readouterr().err
    prefix = f"ioscore validate: unreadable: {archive}: "
    if code == 2 and err.startswith(prefix):
        return err[len(prefix) :].strip()
    assert "unreadable" not in err, err
    return None


def _service_verdicts(archive: Path, scratch: Path) -> tuple[str | None, str | None]:
    limits = archive_safety.Limits.from_settings()
    verdicts: list[str | None] = []
    for judge in (
        lambda: archive_safety.inspect(archive, limits),  # the upload request
        lambda: archive_safety.extract(archive, scratch / "unpacked", limits),  # the worker
    ):
        try:
            judge()
        except archive_safety.UnsafeArchive as exc:
            verdicts.append(str(exc))
        else:
            verdicts.append(None)
    return verdicts[0], verdicts[1]


def test_service_limits_default_to_the_clis(settings: Any) -> None:
    # Deployments may tighten them through the environment; the shipped defaults agree.
    assert archive_safety.Limits.from_settings() == ArchiveLimits()
    assert DEFAULTS.max_entries == settings.IOSCORE_ARCHIVE_MAX_FILES


@pytest.mark.parametrize("case", list(CASES))
def test_cli_and_service_refuse_the_same_archives(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make, suffix, expected = CASES[case]
    archive = tmp_path / f"upload{suffix}"
    archive.write_bytes(make())
    cli = _cli_verdict(archive, capsys)
    upload, worker = _service_verdicts(archive, tmp_path)
    assert cli == upload == worker, (cli, upload, worker)
    if expected is None:
        assert cli is None
    else:
        assert cli is not None and expected in cli, cli
    assert not Path("/tmp/ioscore-parity-escape").exists()
