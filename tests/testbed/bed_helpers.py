"""Driving `ioscore testbed` from tests, as a user would from a shell."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.suite.suite_helpers import FILE_LIMIT_KIB, SUITE_BIN


def bed_cli(*args: str, check: bool = True, timeout: float = 180) -> subprocess.CompletedProcess:
    """`ioscore testbed ARGS`; with `check`, a failure fails the test with its output."""
    proc = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "testbed", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    if check:
        assert proc.returncode == 0, f"testbed {args}\n{proc.stdout}\n{proc.stderr}"
    return proc


def mpirun(
    np: int, *program: str, placement: str = "block", check: bool = True, timeout: float = 300
) -> subprocess.CompletedProcess:
    """PROGRAM on NP ranks spread over the bed's nodes."""
    return bed_cli(
        "mpirun",
        "--placement",
        placement,
        "-np",
        str(np),
        "--",
        *program,
        check=check,
        timeout=timeout,
    )


def suite_on_bed(np: int, *args: str, **kwargs) -> subprocess.CompletedProcess:
    """ioscore-suite ARGS on NP ranks of the bed, every rank under ulimit -f."""
    limited = ["bash", "-c", f'ulimit -f {FILE_LIMIT_KIB} && exec "$0" "$@"', str(SUITE_BIN)]
    return mpirun(np, *limited, *args, **kwargs)


def drop_caches() -> None:
    """Every node's page cache (the nodes share one kernel: one write drops them all)."""
    bed_cli("exec", "node1", "--", "sh", "-c", "sync && echo 3 > /proc/sys/vm/drop_caches")


def report_json(results: Path) -> dict[str, Any]:
    """`ioscore report RESULTS --json`, as a user's script reads it."""
    report = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "report", str(results), "--json"],
        capture_output=True,
        text=True,
    )
    return json.loads(report.stdout)
