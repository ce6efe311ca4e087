"""`make install` / `make uninstall` of the suite, built the way a Cray site builds it: `CC=cc`,
where `cc` wraps the MPI's compiler wrapper, no pkg-config (ZLIB=no), into a build directory of
its own, installed under a DESTDIR staging root."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from suite_helpers import MPI, MPI_ENV, SUITE_DIR

pytestmark = pytest.mark.mpi

PREFIX = "/opt/ioscore"
INSTALLED = sorted(
    [
        "bin/ioscore-find",
        "bin/ioscore-suite",
        "share/ioscore/schema/ioscore-result-1.schema.json",
        "share/man/man1/ioscore-find.1",
        "share/man/man1/ioscore-suite.1",
    ]
)


@dataclass
class Install:
    build: Path
    root: Path  # DESTDIR
    make: list[str]

    @property
    def prefix(self) -> Path:
        return self.root / PREFIX.lstrip("/")

    def files(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.prefix)) for p in self.prefix.rglob("*") if not p.is_dir()
        )


def make(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(
        ["make", "-s", "-j2", "-C", str(SUITE_DIR), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, f"make {args}\n{done.stdout}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed() -> Iterator[Install]:
    with tempfile.TemporaryDirectory(prefix="ioscore-install-", dir="/dev/shm") as tmp:
        bindir = Path(tmp) / "wrapper-bin"
        bindir.mkdir()
        wrapper = shutil.which(MPI.cc or "mpicc")
        assert wrapper, f"no {MPI.cc or 'mpicc'}"
        # Cray's convention: `cc` is the MPI wrapper. A script, not a symlink: Open MPI's
        # wrapper reads its configuration by the name it is called with (cc-wrapper-data.txt)
        (bindir / "cc").write_text(f'#!/bin/sh\nexec {wrapper} "$@"\n')
        (bindir / "cc").chmod(0o755)
        env = {**MPI_ENV, "PATH": f"{bindir}:{os.environ['PATH']}"}
        build = Path(tmp) / "build"
        args = ["CC=cc", f"BUILD={build}", "ZLIB=no", f"PREFIX={PREFIX}"]
        args.append(f"DESTDIR={tmp}/root")
        make([*args, "install"], env)
        yield Install(build, Path(tmp) / "root", args)
        make([*args, "uninstall"], env)
        assert not (Path(tmp) / "root" / PREFIX.lstrip("/") / "share" / "ioscore").exists()
        assert not [p for p in (Path(tmp) / "root").rglob("*") if not p.is_dir()]


def test_install_puts_programs_man_pages_and_schema_under_prefix(installed: Install) -> None:
    assert installed.files() == INSTALLED
    schema = SUITE_DIR / "schema" / "ioscore-result-1.schema.json"
    assert (installed.prefix / INSTALLED[2]).read_bytes() == schema.read_bytes()
    for program in ("ioscore-find", "ioscore-suite"):
        assert os.access(installed.prefix / "bin" / program, os.X_OK)


def test_installed_suite_names_its_mpi(installed: Install) -> None:
    suite = installed.prefix / "bin" / "ioscore-suite"
    done = subprocess.run(
        [*MPI.launch(1), str(suite), "--version"], capture_output=True, text=True, env=MPI_ENV
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith(f"MPI: {MPI.library}")
    # the wrapper `cc` compiled it against the MPI; ZLIB=no: the program itself needs no zlib
    # (the MPI library may)
    needed = subprocess.run(["readelf", "-d", str(suite)], capture_output=True, text=True).stdout
    assert "[libz.so" not in needed
    assert ("[libmpich.so" if MPI.name == "mpich" else "[libmpi.so") in needed


def test_man_pages_carry_the_programs_own_option_text(installed: Install) -> None:
    suite_page = (installed.prefix / "share/man/man1/ioscore-suite.1").read_text()
    find_page = (installed.prefix / "share/man/man1/ioscore-find.1").read_text()
    assert suite_page.startswith(".TH IOSCORE-SUITE 1 ")
    assert find_page.startswith(".TH IOSCORE-FIND 1 ")
    # --help's options, --list's INI table and --version's MPI line, as the program prints them
    help_text = subprocess.run(
        [str(installed.build / "ioscore-suite"), "--help"],
        capture_output=True,
        text=True,
        env=MPI_ENV,
    ).stdout
    for line in help_text.splitlines()[1:]:
        assert line.replace("\\", "\\e") in suite_page
    assert "stonewall-time       int     default=300" in suite_page
    assert ".SH CONFIGURATION" in suite_page and "\nMPI: " in suite_page
    assert "--range-split=any" in find_page and ".SH CONFIGURATION" not in find_page
    # man(1) renders it (where man is installed)
    if shutil.which("man"):
        page = installed.prefix / "share/man/man1/ioscore-find.1"
        shown = subprocess.run(
            ["man", "-l", str(page)],
            capture_output=True,
            text=True,
            env={**MPI_ENV, "MANWIDTH": "100"},
        )
        assert shown.returncode == 0 and "ioscore-find - parallel find" in shown.stdout
