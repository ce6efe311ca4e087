"""What the suite leaves on storage: unique data and no stale bytes.

* With dataPacketType = incompressible or random, no two transfers, mdtest-hard files or 4 KiB
  blocks of a run are identical, so deduplicating storage cannot inflate the result (the
  default `timestamp` type repeats itself, as the reference does: the same check finds that).
* mdtest-hard files-per-dir spreads the files over mdtest's directory loops.
* A writer starts from an empty file: rerunning in a reused (marked) data directory after a
  longer run leaves files of exactly the new size.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import Counter
from pathlib import Path

import pytest
from suite_helpers import Workspace, run_helper, run_suite, small_ini

pytestmark = pytest.mark.mpi

NRANKS = 2
EASY_XFER, EASY_BLOCK = 65536, 2 * 1024 * 1024  # small_ini
HARD_RECORD, HARD_SEGMENTS, MD_FILES = 47008, 40, 120
# everything is written (a 300 s stonewall is never reached by these sizes); rnd4K would read
# for the whole stonewall, and the data must survive the run to be inspected
KEEP = "[ior-rnd4K-easy-read]\nrun = FALSE\n[mdtest-hard-delete]\nrun = FALSE\n"


def chunks(path: Path, size: int) -> list[bytes]:
    data = path.read_bytes()
    assert len(data) % size == 0, path
    return [data[i : i + size] for i in range(0, len(data), size)]


def digests(pieces: list[bytes]) -> Counter[str]:
    return Counter(hashlib.sha256(p).hexdigest() for p in pieces)


@pytest.mark.parametrize("packet", ["incompressible", "random", "timestamp"])
def test_no_two_transfers_or_files_are_identical(
    suite_bin: Path, workspace: Workspace, packet: str
) -> None:
    ini = workspace.write_ini(
        small_ini(workspace, stonewall=300, global_extra=f"dataPacketType = {packet}", extra=KEEP)
    )
    run_suite(NRANKS, str(ini), "--timestamp", "u", "--keep-data", "-q", check=True, timeout=120)
    data = workspace.data / "u"
    easy_files = sorted((data / "ior-easy").glob("ior_file_easy.*"))
    assert len(easy_files) == NRANKS
    transfers = [c for f in easy_files for c in chunks(f, EASY_XFER)]
    records = chunks(data / "ior-hard" / "file", HARD_RECORD)
    md_files = [p.read_bytes() for p in (data / "mdtest-hard").rglob("file.mdtest.*")]
    blocks = [c for f in easy_files for c in chunks(f, 4096)]
    assert len(transfers) == NRANKS * EASY_BLOCK // EASY_XFER
    assert len(records) == NRANKS * HARD_SEGMENTS
    assert len(md_files) == NRANKS * MD_FILES and {len(m) for m in md_files} == {3901}
    everything = digests(transfers + records + md_files)
    repeated = {h: n for h, n in everything.items() if n > 1}
    easy_bytes = b"".join(transfers)
    compressed = len(zlib.compress(easy_bytes, 6)) / len(easy_bytes)
    if packet == "timestamp":
        # the reference's default: every transfer of a rank holds the same bytes
        assert len(digests(transfers)) == NRANKS and len(digests(md_files)) == NRANKS
        assert compressed < 0.5
    else:
        assert not repeated, f"{len(repeated)} repeated transfers/files"
        assert max(digests(blocks).values()) == 1
        assert compressed > 0.99  # and a compressing store gains nothing either


@pytest.mark.parametrize(("api", "fpp"), [("POSIX", True), ("POSIX", False), ("MPIIO", True)])
def test_reused_directory_after_longer_run_has_exact_sizes(
    suite_bin: Path, workspace: Workspace, api: str, fpp: bool
) -> None:
    def run(tag: str, block_mib: int, segments: int) -> None:
        text = small_ini(
            workspace,
            stonewall=300,
            global_extra=f"timestamp-datadir = FALSE\napi = {api}",
            ior_easy=f"filePerProc = {'TRUE' if fpp else 'FALSE'}\n",
            extra="[ior-rnd4K-easy-read]\nrun = FALSE\n",
        )
        text = text.replace("blockSize = 2m", f"blockSize = {block_mib}m")
        text = text.replace("segmentCount = 40", f"segmentCount = {segments}")
        ini = workspace.write_ini(text)
        run_suite(NRANKS, str(ini), "--timestamp", tag, "--keep-data", "-q", check=True)

    run("longer", 4, 80)
    run("shorter", 2, 40)
    easy = workspace.data / "ior-easy"
    if fpp:
        sizes = {p.name: p.stat().st_size for p in easy.glob("ior_file_easy.*")}
        assert sizes == {f"ior_file_easy.{r:08d}": 2 * 1024 * 1024 for r in range(NRANKS)}
    else:
        assert (easy / "ior_file_easy").stat().st_size == NRANKS * 2 * 1024 * 1024
    assert (workspace.data / "ior-hard" / "file").stat().st_size == 40 * NRANKS * HARD_RECORD


def test_files_per_dir_spreads_files_as_mdtest_does(suite_bin: Path, workspace: Workspace) -> None:
    """-I=40 with n = 120: three directory loops test-dir.0-<k> of 40 files per rank each."""
    ini = workspace.write_ini(
        small_ini(workspace, extra=KEEP).replace(
            "[mdtest-hard]\n", "[mdtest-hard]\nfiles-per-dir = 40\n"
        )
    )
    run_suite(NRANKS, str(ini), "--timestamp", "fpd", "--keep-data", "-q", check=True)
    hard = workspace.data / "fpd" / "mdtest-hard"
    assert sorted(p.name for p in hard.iterdir()) == [f"test-dir.0-{k}" for k in range(3)]
    for k in range(3):
        names = {p.name for p in (hard / f"test-dir.0-{k}" / "mdtest_tree.0").iterdir()}
        assert names == {f"file.mdtest.{r}.{i}" for r in range(NRANKS) for i in range(40)}
    resdir = next(workspace.results.iterdir())
    doc = json.loads((resdir / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    # every file was stat'ed and read back (and verified) across the three directories
    for name in ("mdtest-hard-write", "mdtest-hard-stat", "mdtest-hard-read"):
        assert phases[name]["items"] == NRANKS * MD_FILES and phases[name]["verify_errors"] == 0
    assert "files-per-dir is set" in " ".join(doc["invalid_reasons"])
    assert " -I=40 " in (resdir / "mdtest-hard-write.txt").read_text()
    # --cleanup knows the extra directories
    run_suite(1, str(ini), "--cleanup", "--timestamp", "fpd", check=True)
    assert not (workspace.data / "fpd").exists()


def test_files_per_dir_must_divide_n(suite_bin: Path, workspace: Workspace) -> None:
    text = small_ini(workspace).replace("[mdtest-hard]\n", "[mdtest-hard]\nfiles-per-dir = 50\n")
    proc = run_helper(str(workspace.write_ini(text)))
    assert proc.returncode == 2 and "files-per-dir must divide n" in proc.stderr
    assert not workspace.data.exists()
