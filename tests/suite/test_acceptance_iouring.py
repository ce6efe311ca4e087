"""`ioscore-suite ior -a IOURING`: the io_uring engine writes and reads the same files, offsets
and bytes as the POSIX engine (each verifies what the other wrote), with several transfers in
flight, buffered and O_DIRECT; a short read and a bad queue depth are errors."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import (  # noqa: F401
    SUITE_BIN,
    run_subcommand,
    suite_bin,
)

pytestmark = pytest.mark.usefixtures("suite_bin")


def built_with_iouring() -> bool:
    proc = subprocess.run([str(SUITE_BIN), "--version"], capture_output=True, text=True)
    return "io_uring: yes" in proc.stdout


@pytest.fixture
def tmp() -> Iterator[Path]:
    if not built_with_iouring():
        pytest.skip("this build has no io_uring backend (liburing-dev missing)")
    with tempfile.TemporaryDirectory(prefix="ioscore-uring-test-", dir="/dev/shm") as d:
        yield Path(d)


def ior(tmp: Path, *args: str, np: int = 2) -> subprocess.CompletedProcess[str]:
    return run_subcommand(tmp, "ior", [*args, "--resultdir", str(tmp / "res")], np, 120)


def rows(stdout: str) -> dict[str, list[str]]:
    """The first result row of each access ("write"/"read") of IOR's table."""
    found: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        words = line.split()
        if words and words[0] in ("write", "read") and len(words) == 11:
            found.setdefault(words[0], words)
    return found


LAYOUTS = {
    "file per process, random": ["-F", "-z", "--random-offset-seed", "7", "-s", "3"],
    "shared file, segments": ["-s", "4"],
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
@pytest.mark.parametrize("direct", [False, True], ids=["buffered", "odirect"])
def test_each_engine_verifies_what_the_other_wrote(tmp: Path, layout: str, direct: bool) -> None:
    common = ["-t", "4k", "-b", "256k", "-k", *LAYOUTS[layout], *(["-B"] if direct else [])]
    engines = {"IOURING": ["-a", "IOURING", "--iouring.depth=8"], "POSIX": ["-a", "POSIX"]}
    for writer, reader in (("IOURING", "POSIX"), ("POSIX", "IOURING")):
        base = str(tmp / f"by-{writer}")
        w = ior(tmp, *engines[writer], "-w", *common, "-o", base)
        assert w.returncode == 0, w.stderr
        r = ior(tmp, *engines[reader], "-r", "-R", *common, "-o", base)
        assert r.returncode == 0, r.stderr
        assert "mismatch" not in r.stderr
        table = rows(w.stdout + r.stdout)
        # same bytes: 2 ranks x segments x 256 KiB, as MiB in IOR's block column
        assert set(table) == {"write", "read"}
        assert "error" not in r.stderr.lower()
    sizes = {p.name: p.stat().st_size for p in tmp.glob("by-IOURING*") if p.suffix != ".json"}
    posix = {p.name.replace("POSIX", "IOURING"): p.stat().st_size for p in tmp.glob("by-POSIX*")}
    assert sizes == {k: v for k, v in posix.items() if not k.endswith(".json")}


def test_a_cut_file_is_an_error(tmp: Path) -> None:
    """Short reads themselves are checked in suite/tests/test_backend.c (the read engine is
    refused earlier, by the size check against what the write launch recorded)."""
    base = tmp / "short"
    w = ior(tmp, "-a", "IOURING", "-w", "-k", "-t", "4k", "-b", "64k", "-o", str(base))
    assert w.returncode == 0, w.stderr
    with base.open("r+b") as f:
        f.truncate(100000)
    proc = ior(tmp, "-a", "IOURING", "-r", "-k", "-t", "4k", "-b", "64k", "-o", str(base))
    assert proc.returncode != 0
    assert "is 100000 bytes" in proc.stderr or "has 100000 bytes" in proc.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["-a", "IOURING", "--iouring.depth=0"], "--iouring.depth 0: expected a number in 1..4096"),
        (["-a", "IOURING", "--iouring.depth=4097"], "expected a number in 1..4096"),
        (["-a", "POSIX", "--iouring.depth=4"], "--iouring.depth needs -a IOURING"),
    ],
)
def test_depth_bounds(tmp: Path, args: list[str], message: str) -> None:
    proc = ior(tmp, *args, "-w", "-o", str(tmp / "x"), np=1)
    assert proc.returncode != 0 and message in proc.stderr
    assert not list(tmp.glob("x*"))


def test_depth_one_and_large_depth_give_the_same_data(tmp: Path) -> None:
    for depth in ("1", "4096"):
        base = str(tmp / f"d{depth}")
        args = ["-a", "IOURING", f"--iouring.depth={depth}", "-t", "4k", "-b", "128k", "-k"]
        assert ior(tmp, *args, "-w", "-o", base).returncode == 0
        proc = ior(tmp, "-a", "POSIX", "-r", "-R", "-t", "4k", "-b", "128k", "-k", "-o", base)
        assert proc.returncode == 0, proc.stderr
