"""The suite's find phase and ioscore-find agree on the same tree.

The suite runs with its two mdtest delete phases switched off, so the mdtest files it scanned
during its find phase are still there afterwards; the ior files and the data-directory marker
are removed by the suite's own cleanup. ioscore-find then scans the remaining tree with the
IO500 predicate and must report the same matches (they are all mdtest-hard files) and exactly
the files that are left (the mdtest-easy and mdtest-hard items of result.json).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from suite_helpers import MPI_ENV, Workspace, only_result_dir, run_suite, small_ini

from tests.mpi_launch import MPI

REPO_ROOT = Path(__file__).resolve().parents[2]
FIND_BIN = MPI.bin("ioscore-find")

pytestmark = pytest.mark.mpi


@pytest.mark.parametrize("nranks", [1, 2])
def test_suite_find_phase_agrees_with_ioscore_find(
    suite_bin: Path, workspace: Workspace, nranks: int
) -> None:
    keep_mdtest = "[mdtest-easy-delete]\nrun = FALSE\n[mdtest-hard-delete]\nrun = FALSE\n"
    ini = workspace.write_ini(small_ini(workspace, stonewall=1, extra=keep_mdtest))
    run_suite(nranks, str(ini), "--timestamp", "agree", check=True, timeout=120)
    resdir = only_result_dir(workspace)
    doc = json.loads((resdir / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    suite_found = phases["find"]["extra"]["found"]
    suite_scanned = phases["find"]["extra"]["scanned"]
    mdtest_files = phases["mdtest-easy-write"]["items"] + phases["mdtest-hard-write"]["items"]

    datadir = workspace.data / "agree"
    on_disk = sum(len(files) for _, _, files in os.walk(datadir))
    assert on_disk == mdtest_files  # what the suite scanned minus its cleaned-up files
    assert suite_scanned > mdtest_files

    proc = subprocess.run(
        [
            *MPI.launch(nranks),
            str(FIND_BIN),
            str(datadir),
            "-newer",
            str(resdir / "timestampfile"),
            "-size",
            "3901c",
            "-name",
            "*01*",
            "-q",
        ],
        capture_output=True,
        text=True,
        env=MPI_ENV,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    matched = re.search(r"^MATCHED (\d+)/(\d+)$", proc.stdout, re.MULTILINE)
    assert matched, proc.stdout
    assert int(matched.group(1)) == suite_found > 0
    assert int(matched.group(2)) == mdtest_files
