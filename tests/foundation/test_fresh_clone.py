"""The README's path on a new machine: a clone with no ../shared beside it and no
DATABASE_URL sets itself up, builds the suite, creates its embedded database, migrates and
imports the IO500 sample carried in the repository (the demo's own data step), and its test
run says that the full-corpus tests were skipped and why.

It clones the committed HEAD (not uncommitted changes) into a temporary directory; set-up
installs from the pip cache, so the test is bounded (minutes) rather than quick."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SETUP_TIMEOUT_S = 900
STEP_TIMEOUT_S = 600

pytestmark = pytest.mark.fresh_clone


def _run(
    args: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    parent = tmp_path_factory.mktemp("fresh")  # nothing beside the clone: no shared/
    target = parent / "ioscore"
    cloned = subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(REPO_ROOT), str(target)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert cloned.returncode == 0, cloned.stderr
    assert not (parent / "shared").exists()
    return target


@pytest.fixture(scope="module")
def fresh_env(clone: Path) -> dict[str, str]:
    """The environment of a new user: none of this session's service settings."""
    drop = ("DATABASE_URL", "IOSCORE_", "DJANGO_", "VIRTUAL_ENV", "PYTHONPATH", "SECRET_KEY")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    )
    env["IOSCORE_VAR"] = str(clone / "var")
    return env


@pytest.fixture(scope="module")
def set_up(clone: Path, fresh_env: dict[str, str]) -> Iterator[Path]:
    done = _run(["make", "setup", "suite"], clone, fresh_env, SETUP_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (clone / ".venv" / "bin" / "ioscore").exists()
    assert (clone / "suite" / "build" / "ioscore-suite").exists()
    yield clone
    _run(["scripts/demo.sh", "stop"], clone, fresh_env, 120)


def test_demo_data_step_imports_the_sample_in_the_repository(
    set_up: Path, fresh_env: dict[str, str]
) -> None:
    done = _run(["scripts/demo.sh", "data"], set_up, fresh_env, STEP_TIMEOUT_S)
    output = done.stdout + done.stderr
    assert "from " + str(set_up / "examples" / "io500-sample") in output
    assert "(the small sample in the repository)" in output
    assert done.returncode == 0, output[-4000:]
    assert (set_up / "var" / "pgdata" / "PG_VERSION").exists()  # the embedded server
    assert "created release" in output


def test_full_corpus_tests_skip_and_say_so(set_up: Path, fresh_env: dict[str, str]) -> None:
    env = dict(fresh_env, IOSCORE_INSECURE_DEV_KEY="1")
    done = _run(
        [".venv/bin/pytest", "tests/cli/test_upload_command.py", "-q", "-p", "no:cacheprovider"],
        set_up,
        env,
        STEP_TIMEOUT_S,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "passed" not in output.splitlines()[-1]  # every test there needs the corpus
    assert "skipped" in output.splitlines()[-1]
    assert "full IO500 corpus" in output and ": ABSENT" in output
    assert "tests/cli/test_upload_command.py: 0 ran" in output
