"""docker/suite.Dockerfile against the install it claims to package, without a container engine.

The runtime stage must be exactly what `make install DESTDIR=` produced in the build stage
(plus the demo INI), so the Dockerfile is read instruction by instruction: the build stage's
`make ... install PREFIX= DESTDIR=` is run here with the same PREFIX into a temporary DESTDIR
(the suite built with the current MPI, IOSCORE_MPI, which is also the image's MPI build-arg);
every path the runtime stage names (CMD, PATH, MANPATH, COPY targets) must exist in that tree;
the Debian packages its runtime stage installs for that MPI must own every shared library the
installed binary needs (this machine is Debian like the image); and the staged binary must
name the MPI it was built with.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from suite_helpers import MPI, MPI_ENV, REPO_ROOT, SUITE_DIR

pytestmark = pytest.mark.mpi

DOCKERFILE = REPO_ROOT / "docker" / "suite.Dockerfile"
# in the base image (Essential), so never among the packages a stage installs
BASE_PACKAGES = {"libc6"}


@dataclass
class Stage:
    base: str
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [rest for word, rest in self.instructions if word == keyword]


def stages() -> dict[str, Stage]:
    """The Dockerfile's stages by name, each instruction with its continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    found: dict[str, Stage] = {}
    current: Stage | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word == "FROM":
            base, _, name = rest.partition(" AS ")
            current = found[name.strip()] = Stage(base.strip(), name.strip())
        elif current is not None:
            current.instructions.append((word, rest.strip()))
    return found


def make_install(stage: Stage) -> dict[str, str]:
    """PREFIX, DESTDIR and CC of the build stage's `make -C suite ... install` (one RUN)."""
    runs = [shlex.split(r) for r in stage.all("RUN") if r.startswith("make ")]
    assert len(runs) == 1, runs
    words = runs[0]
    assert words[:3] == ["make", "-C", "suite"] and "install" in words, words
    return dict(w.split("=", 1) for w in words if "=" in w)


def packages(stage: Stage, mpi: str) -> set[str]:
    """What the stage's apt-get installs for MPI: its `mpi) var="..."` case plus the fixed ones."""
    (script,) = [r for r in stage.all("RUN") if "apt-get install" in r]
    case = re.search(rf"\b{mpi}\) \w+=\"([^\"]+)\"", script)
    assert case, f"no case for MPI={mpi}"
    fixed = script.split("--no-install-recommends", 1)[1].split("&&")[0].split()
    return set(case.group(1).split()) | {w for w in fixed if not w.startswith("$")}


def owner(library: Path) -> str:
    """The Debian package of a library, by the path ldd gave or the file it links to (with
    /lib merged into /usr/lib dpkg knows only one of them)."""
    for path in (library, library.resolve()):
        done = subprocess.run(["dpkg", "-S", str(path)], capture_output=True, text=True)
        if done.returncode == 0:
            return done.stdout.split(":", 1)[0]
    raise AssertionError(f"no Debian package owns {library}")


@pytest.fixture(scope="module")
def staged() -> Iterator[tuple[Path, str]]:
    """(DESTDIR, PREFIX) of the build stage's install, done here with the current MPI's build."""
    build = stages()["build"]
    options = make_install(build)
    assert options["CC"] == "mpicc.$MPI" and options["DESTDIR"] == "/staging"
    with tempfile.TemporaryDirectory(prefix="ioscore-image-", dir="/dev/shm") as tmp:
        done = subprocess.run(
            [
                *("make", "-s", "-C", str(SUITE_DIR), *MPI.make_args(), "install"),
                *(f"PREFIX={options['PREFIX']}", f"DESTDIR={tmp}"),
            ],
            capture_output=True,
            text=True,
            env=MPI_ENV,
            timeout=900,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        yield Path(tmp), options["PREFIX"]


def test_the_runtime_stage_is_the_staged_install_and_the_demo_ini(
    staged: tuple[Path, str],
) -> None:
    destdir, prefix = staged
    runtime = stages()["runtime"]
    assert runtime.base == stages()["build"].base  # the libraries it was built against
    copies = [shlex.split(c) for c in runtime.all("COPY")]
    from_build = [c for c in copies if c[0].startswith("--from=")]
    assert from_build == [["--from=build", "/staging/", "/"]]  # all of DESTDIR, nothing else
    image = {str(p.relative_to(destdir)) for p in destdir.rglob("*")}
    for source, target in (c for c in copies if not c[0].startswith("--from=")):
        assert (REPO_ROOT / source).is_file(), source
        assert target.startswith(prefix + "/"), target  # beside the install, not over it
        assert target.lstrip("/") not in image, f"{target} overwrites an installed file"
        image.add(target.lstrip("/"))

    (cmd,) = runtime.all("CMD")
    argv = json.loads(cmd)
    assert argv[0] == "mpiexec"  # Open MPI's and hydra's both take -n
    assert [a for a in argv if a.startswith("/")] == [
        f"{prefix}/bin/ioscore-suite",
        f"{prefix}/share/ioscore/examples/docker-demo.ini",
    ]
    for path in argv:
        if path.startswith("/"):
            assert path.lstrip("/") in image, path
    env = " ".join(runtime.all("ENV"))
    assert f"PATH={prefix}/bin:" in env and f"MANPATH={prefix}/share/man:" in env
    assert f"{prefix}/bin/ioscore-find".lstrip("/") in image
    assert f"{prefix}/share/man/man1".lstrip("/") in image


def test_the_runtime_packages_provide_every_library_the_binary_needs(
    staged: tuple[Path, str],
) -> None:
    destdir, prefix = staged
    binary = destdir / prefix.lstrip("/") / "bin" / "ioscore-suite"
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic.stdout)
    assert any(name.startswith(MPI.linked) for name in needed), needed
    resolved = dict(
        re.findall(
            r"^\s*(\S+) => (\S+)", subprocess.check_output(["ldd", str(binary)], text=True), re.M
        )
    )
    runtime = packages(stages()["runtime"], MPI.name)
    build = packages(stages()["build"], MPI.name)
    assert not {"gcc", "make"} & runtime and not [p for p in runtime if p.endswith("-dev")]
    for name in needed:
        package = owner(Path(resolved[name]))
        assert package in runtime | BASE_PACKAGES, f"{name} is in {package}, not installed"
    assert {"python3", "make", "gcc"} <= build  # what `make install` (man pages) runs


def test_the_staged_binary_names_its_mpi(staged: tuple[Path, str]) -> None:
    destdir, prefix = staged
    binary = destdir / prefix.lstrip("/") / "bin" / "ioscore-suite"
    done = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, env=MPI_ENV, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert f"MPI: {MPI.library}" in done.stdout
