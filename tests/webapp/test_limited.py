"""validation.limited: the checks' child process returns its result, or the parent learns
which limit stopped it; nothing of the child outlives the call."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from validation.limited import ChildFailed, LimitExceeded, Limits, run_limited

pytestmark = pytest.mark.timeout(60)
GENEROUS = Limits(wall_s=30, cpu_s=30, memory_bytes=256 << 20)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_result_comes_back(tmp_path: Path) -> None:
    assert (
        run_limited(lambda: {"pid": os.getpid(), "data": [1.5] * 1000}, GENEROUS, tmp_path)["data"]
        == [1.5] * 1000
    )


def test_child_runs_in_another_process_with_temp_files_in_the_sandbox(tmp_path: Path) -> None:
    def work() -> tuple[int, str]:
        import tempfile

        with tempfile.NamedTemporaryFile(delete=False) as handle:
            return os.getpid(), handle.name

    pid, name = run_limited(work, GENEROUS, tmp_path)
    assert pid != os.getpid() and not _alive(pid)  # reaped
    assert Path(name).parent == tmp_path


def test_wall_clock_limit_kills_the_child(tmp_path: Path) -> None:
    # 600 s of work: without the limit, the test's 60 s timeout would fail it
    with pytest.raises(LimitExceeded, match=r"the time limit of 0\.5 s was exceeded"):
        run_limited(lambda: time.sleep(600), Limits(0.5, 30, 256 << 20), tmp_path)


def test_cpu_limit(tmp_path: Path) -> None:
    def spin() -> None:
        while True:
            pass

    with pytest.raises(LimitExceeded, match="CPU time limit of 1 s"):
        run_limited(spin, Limits(wall_s=30, cpu_s=1, memory_bytes=256 << 20), tmp_path)


def test_memory_limit(tmp_path: Path) -> None:
    def hog() -> int:
        return len(bytearray(512 << 20))

    with pytest.raises(LimitExceeded, match="the memory limit of 64 MiB was exceeded"):
        run_limited(hog, Limits(wall_s=30, cpu_s=30, memory_bytes=64 << 20), tmp_path)
    assert run_limited(lambda: len(bytearray(16 << 20)), GENEROUS, tmp_path) == 16 << 20


def test_exceptions(tmp_path: Path) -> None:
    def broken() -> Any:
        raise KeyError("phase")

    with pytest.raises(ChildFailed, match="KeyError: 'phase'"):
        run_limited(broken, GENEROUS, tmp_path)

    def full_disk() -> Any:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left on device"):  # retried by the task
        run_limited(full_disk, GENEROUS, tmp_path)

    def crash() -> Any:
        os.kill(os.getpid(), 11)

    with pytest.raises(ChildFailed, match="SIGSEGV"):
        run_limited(crash, GENEROUS, tmp_path)
