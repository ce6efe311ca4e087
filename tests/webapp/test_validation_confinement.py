"""The checks' child holds nothing it does not need: no secrets in its environment, none of
the worker's open files or sockets, no network, and no file outside its sandbox but the
archive and the code it runs."""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from validation.limited import Limits, run_limited

pytestmark = pytest.mark.timeout(60)
GENEROUS = Limits(wall_s=30, cpu_s=30, memory_bytes=256 << 20)
SECRETS = {
    "DATABASE_URL": "postgresql://ioscore:hunter2@127.0.0.1:5432/x",
    "SECRET_KEY": "not-for-the-child",
    "EMAIL_HOST_PASSWORD": "smtp-secret",
}


@pytest.fixture
def box() -> Iterator[Path]:
    """A sandbox any user can reach (as the media dir of a deployment), beside private files."""
    top = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ioscore-confine-"))
    top.chmod(0o755)
    sandbox = top / "sandbox"
    sandbox.mkdir(mode=0o700)
    try:
        yield sandbox
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_environment_has_no_secrets(box: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    env: dict[str, str] = run_limited(lambda: dict(os.environ), GENEROUS, box)
    assert not set(SECRETS) & set(env)
    assert not any(value in " ".join(env.values()) for value in SECRETS.values())
    assert env["TMPDIR"] == env["HOME"] == str(box)


def test_no_open_file_or_socket_of_the_worker(box: Path, tmp_path: Path) -> None:
    private = (tmp_path / "worker-file").open("w")
    sock = socket.socket()
    try:
        opened = {private.fileno(), sock.fileno()}

        def descriptors() -> dict[int, str]:
            fds = {}
            for fd in range(4096):  # /proc is out of the child's reach: ask each number
                try:
                    mode = os.fstat(fd).st_mode
                except OSError:
                    continue
                fds[fd] = "socket" if stat.S_ISSOCK(mode) else "chr" if stat.S_ISCHR(mode) else "?"
            return fds

        fds = run_limited(descriptors, GENEROUS, box)
    finally:
        private.close()
        sock.close()
    assert not opened & set(fds)
    assert fds[0] == "chr"  # /dev/null
    assert len([fd for fd in fds if fd > 2]) == 1  # the result pipe
    assert "socket" not in [kind for fd, kind in fds.items() if fd > 2]


def _connect() -> str:
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=3).close()
    except OSError as exc:
        return type(exc).__name__
    return "connected"


@pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace needs privileges")
def test_no_network(box: Path) -> None:
    assert _connect() == "connected"  # the database of the test run is there for the worker
    assert run_limited(_connect, GENEROUS, box) != "connected"


def test_no_file_outside_the_sandbox_but_the_archive(
    box: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the worker's import path: not the repository's root that pytest adds
    repo = Path(__file__).resolve().parents[2]
    worker_path = [p for p in sys.path if Path(p or ".").resolve() not in (repo, repo / "tests")]
    monkeypatch.setattr(sys, "path", worker_path)
    outside = box.parent / "secret_key"
    outside.write_text("k" * 50)
    outside.chmod(0o644)  # even a file everyone may read
    archive = box.parent / "archive.tgz"
    archive.write_bytes(b"archive bytes")
    parent = os.getpid()

    def probe() -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, path in {
            "outside": outside,
            "worker environment": Path(f"/proc/{parent}/environ"),
            "listing": box.parent,
        }.items():
            try:
                result[name] = os.listdir(path) if path.is_dir() else path.read_bytes()
            except PermissionError:
                result[name] = "refused"
        try:
            (box.parent / "planted").write_text("x")
            result["write outside"] = "written"
        except PermissionError:
            result["write outside"] = "refused"
        result["archive"] = archive.read_bytes()
        with tempfile.NamedTemporaryFile(delete=False) as handle:
            handle.write(b"spill")
            result["spilled"] = handle.name
        import json.tool  # a module not loaded before: the code stays importable

        result["imported"] = json.tool.__name__
        import ioscore  # the results library, an editable install outside sys.path

        fresh = sorted(
            f"ioscore.{p.stem}"
            for p in Path(ioscore.__file__).parent.glob("*.py")
            if f"ioscore.{p.stem}" not in sys.modules and p.stem != "__main__"
        )
        for name in fresh[:3]:
            importlib.import_module(name)
        result["library"] = fresh[:3]
        return result

    seen = run_limited(probe, GENEROUS, box, readable=(archive,))
    if seen["outside"] != "refused":
        pytest.skip("this kernel has no Landlock: files are not restricted (stated)")
    for name in ("outside", "worker environment", "listing", "write outside"):
        assert seen[name] == "refused", name
    assert not (box.parent / "planted").exists()
    assert seen["archive"] == b"archive bytes"
    assert Path(seen["spilled"]).read_bytes() == b"spill" and Path(seen["spilled"]).parent == box
    assert seen["imported"] == "json.tool"
    assert seen["library"]  # imported in the child, not before
