"""docker-compose deployment and the front-door commands stay true."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def _compose_config(
    *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    compose = shutil.which("docker-compose")
    if compose is None:
        pytest.fail("docker-compose is not installed (scripts/system-packages.sh test installs it)")
    return subprocess.run(
        [compose, "-f", str(REPO_ROOT / "docker-compose.yml"), "config", *extra],
        cwd=REPO_ROOT,
        env=env if env is not None else dict(os.environ, IOSCORE_SECRET_KEY="test"),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_compose_file_validates() -> None:
    proc = _compose_config("-q")
    assert proc.returncode == 0, proc.stderr


def test_compose_has_every_service_the_deployment_needs() -> None:
    proc = _compose_config("--services")
    assert proc.returncode == 0, proc.stderr
    services = set(proc.stdout.split())
    assert {"db", "broker", "web", "worker", "beat", "suite"} <= services


def test_compose_refuses_to_start_without_a_secret_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "IOSCORE_SECRET_KEY"}
    proc = _compose_config("-q", env=env)
    assert proc.returncode != 0
    assert "IOSCORE_SECRET_KEY" in proc.stderr


def test_readme_starts_with_the_two_commands_and_make_knows_them() -> None:
    readme = (REPO_ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    first_commands = [line.split("#")[0].strip() for line in blocks[0].splitlines() if line.strip()]
    assert first_commands == ["make demo", "make test"]
    makefile = (REPO_ROOT / "Makefile").read_text()
    for target in ("demo", "test", "lint", "stop"):
        assert re.search(rf"^{target}:", makefile, re.M), target


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test$", ci, re.M)


def test_every_python_requirement_is_pinned() -> None:
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (REPO_ROOT / name).read_text().splitlines():
            line = line.strip()
            if not line or line.startswith(("#", "-r")):
                continue
            assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[A-Za-z0-9_.+\-]+", line), f"{name}: {line}"


def test_system_packages_script_names_the_apt_line_when_not_root(tmp_path: Path) -> None:
    # A fake dpkg-query that reports nothing installed, and a non-root id.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "id").write_text("#!/bin/sh\necho 1000\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    proc = subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / "system-packages.sh"), "demo"],
        env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}"),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 1
    assert (
        "sudo apt-get update && sudo apt-get install -y openmpi-bin libopenmpi-dev" in proc.stderr
    )
