"""The MPI-IO backend (`API = MPIIO`, `collective`, IOR hints files) and backend refusals.

Whole runs under mpirun with ior-easy and ior-hard on MPI-IO, independent and collective; their
outputs must agree with each other exactly as the POSIX runs' do (the cross-checks are the ones
of test_integration). A byte flipped between write and read is caught by MPI-IO verification.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite_helpers import Workspace, only_result_dir, run_helper, run_suite, small_ini
from test_integration import HARD_SEGMENTS, XFERS_PER_RANK, check_ior_csv, check_mdtest_csv
from test_verify_and_safety import flip_byte, start_suite, stop, wait_for_pause

pytestmark = pytest.mark.mpi

IOR_PHASES = ("ior-easy-write", "ior-easy-read", "ior-hard-write", "ior-hard-read")


def mpiio_ini(
    ws: Workspace, *, collective: bool, shared_easy: bool = False, extra: str = ""
) -> str:
    text = small_ini(
        ws,
        ior_easy="API = MPIIO\n" + ("filePerProc = FALSE\n" if shared_easy else ""),
        extra=extra,
    )
    hard = f"[ior-hard]\nAPI = MPIIO\ncollective = {'TRUE' if collective else 'FALSE'}\n"
    return text.replace("[ior-hard]\n", hard, 1)


@pytest.mark.parametrize(
    ("nranks", "collective", "shared_easy"),
    [(2, False, False), (2, True, True), (4, False, True), (4, True, False)],
)
def test_mpiio_run_outputs_agree(
    suite_bin: Path, workspace: Workspace, nranks: int, collective: bool, shared_easy: bool
) -> None:
    ini = workspace.write_ini(mpiio_ini(workspace, collective=collective, shared_easy=shared_easy))
    run_suite(nranks, str(ini), "--timestamp", "mpiio", "-q", check=True, timeout=120)
    resdir = only_result_dir(workspace)
    doc = json.loads((resdir / "result.json").read_text())
    assert doc["finished"] and not doc["aborted"] and doc["procs"] == nranks
    phases = {p["name"]: p for p in doc["phases"]}
    for name in IOR_PHASES:
        phase = phases[name]
        assert phase["verify_errors"] == 0 and len(phase["ranks"]) == nranks
        assert phase["items"] == sum(r["items"] for r in phase["ranks"])
        assert phase["bytes"] == sum(r["bytes"] for r in phase["ranks"])
        check_ior_csv(resdir, phase, nranks)
        log = (resdir / f"{name}.txt").read_text()
        assert "-a MPIIO" in log
        assert (" -c " in log) == (collective and name.startswith("ior-hard")), name
    # every transfer written was read back and verified
    for name in ("ior-easy-write", "ior-easy-read"):
        assert phases[name]["bytes"] == nranks * XFERS_PER_RANK * 65536
    for name in ("ior-hard-write", "ior-hard-read"):
        assert phases[name]["items"] == nranks * HARD_SEGMENTS
    for phase in doc["phases"]:
        if phase["name"].startswith("mdtest"):
            check_mdtest_csv(resdir, phase, nranks)
    summary = (resdir / "result_summary.txt").read_text()
    printed = {
        parts[1]: parts[2]
        for parts in (line.split() for line in summary.splitlines())
        if parts[0] == "[RESULT]"
    }
    for name in IOR_PHASES:
        assert printed[name] == f"{phases[name]['score']:f}"
    assert f"TOTAL {doc['scores']['total']:f} [INVALID]" in summary
    assert not (workspace.data / "mpiio").exists()  # MPI_File_delete cleaned up


@pytest.mark.parametrize("collective", [False, True])
def test_mpiio_flipped_byte_is_caught(
    suite_bin: Path, workspace: Workspace, collective: bool
) -> None:
    pause = workspace.root / "pause"
    pause.mkdir()
    (pause / "ior-hard-read").touch()
    text = mpiio_ini(workspace, collective=collective)
    ini = workspace.write_ini(text.replace("[debug]\n", f"[debug]\npause-dir = {pause}\n", 1))
    proc = start_suite(2, str(ini), "--timestamp", "flip", "--simulate-ppn", "1")
    try:
        wait_for_pause(workspace, "ior-hard-read", proc)
        # record 3 of rank 0 (offset (3*2 + 0) * 47008), read by rank 1
        flip_byte(workspace.data / "flip" / "ior-hard" / "file", 6 * 47008 + 1000)
        (pause / "ior-hard-read").unlink()
        _out, err = proc.communicate(timeout=90)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    hard = phases["ior-hard-read"]
    assert hard["verify_errors"] == 1 and not hard["valid"]
    assert [r["verify_errors"] for r in hard["ranks"]] == [0, 1]
    assert "data mismatch in" in err and f"at offset {6 * 47008}" in err
    assert phases["ior-easy-read"]["verify_errors"] == 0


def test_hints_file_is_read_and_a_missing_one_refused(
    suite_bin: Path, workspace: Workspace
) -> None:
    hints = workspace.root / "hints"
    hints.write_text("IOR_HINT__MPI__romio_cb_write=enable\nIOR_HINT__MPI__cb_nodes=1\n")
    api = f"MPIIO --mpiio.hintsFileName={hints}"
    text = small_ini(workspace, ior_easy=f"API = {api}\n")
    ini = workspace.write_ini(text)
    run_suite(2, str(ini), "--timestamp", "hints", "-q", check=True, timeout=120)
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    assert all(p["verify_errors"] == 0 for p in doc["phases"])
    hints.unlink()
    workspace.write_ini(
        text.replace(f"datadir = {workspace.data}", f"datadir = {workspace.root}/d2")
    )
    proc = run_helper(str(ini), "--timestamp", "nohints")
    assert proc.returncode == 2
    assert f"MPI-IO hints file {hints}: No such file or directory" in proc.stderr
    assert not (workspace.root / "d2").exists()


@pytest.mark.parametrize(
    ("api", "message"),
    [
        ("DFS --dfs.pool=tank --dfs.cont=c", "backend 'DFS'"),
        ("IME", "IME native client"),
        ("POSIX --posix.gpfs.finegrainwritesharing", "GPFS client library"),
        ("POSIX --posix.lustre.stripecount=4", "liblustreapi"),
    ],
)
def test_unavailable_backends_refused_before_io(
    suite_bin: Path, workspace: Workspace, api: str, message: str
) -> None:
    ini = workspace.write_ini(small_ini(workspace, ior_easy=f"API = {api}\n"))
    proc = run_helper(str(ini))
    assert proc.returncode == 2
    assert "[ior-easy-write] API: " in proc.stderr and message in proc.stderr
    assert "needs a build against" in proc.stderr
    assert not workspace.data.exists() and not workspace.results.exists()


def test_collective_on_posix_warns_and_runs_independent(
    suite_bin: Path, workspace: Workspace
) -> None:
    text = small_ini(workspace, global_extra="api = DUMMY")
    ini = workspace.write_ini(text.replace("[ior-hard]\n", "[ior-hard]\ncollective = TRUE\n", 1))
    proc = run_helper(str(ini), "--timestamp", "c", "-q")
    assert proc.returncode == 0, proc.stderr
    assert "[ior-hard-write] collective = TRUE: collective I/O is not available with API DUMMY" in (
        proc.stderr
    )
    log = (only_result_dir(workspace) / "ior-hard-write.txt").read_text()
    assert " -c " not in log


def test_list_shows_backend_options(suite_bin: Path) -> None:
    out = run_helper("--list").stdout
    assert "--mpiio.hintsFileName=FILE" in out and "--posix.odirect" in out
    assert "DFS" in out and "libdfs" in out


def test_dry_run_describes_collective_mpiio(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(mpiio_ini(workspace, collective=True))
    out = run_suite(2, str(ini), "--dry-run", check=True).stdout
    assert "[ior-hard-write]  api: MPIIO" in out
    assert "collective MPI-IO: MPI_File_write_at_all" in out
    assert "collective MPI-IO: MPI_File_read_at_all" in out
    assert not workspace.data.exists() and not workspace.results.exists()


def test_mpiio_error_stops_the_run_without_hanging(suite_bin: Path, workspace: Workspace) -> None:
    """The shared file vanishes before a collective read: every rank fails the open, no hang."""
    pause = workspace.root / "pause"
    pause.mkdir()
    (pause / "ior-hard-read").touch()
    text = mpiio_ini(workspace, collective=True)
    ini = workspace.write_ini(text.replace("[debug]\n", f"[debug]\npause-dir = {pause}\n", 1))
    proc = start_suite(2, str(ini), "--timestamp", "gone")
    try:
        wait_for_pause(workspace, "ior-hard-read", proc)
        (workspace.data / "gone" / "ior-hard" / "file").unlink()
        (pause / "ior-hard-read").unlink()
        _out, err = proc.communicate(timeout=60)
    finally:
        stop(proc)
    assert proc.returncode == 3, err
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    hard = {p["name"]: p for p in doc["phases"]}["ior-hard-read"]
    assert not hard["valid"] and doc["aborted"]
    assert any("No such file or directory" in r for r in hard["invalid_reasons"]), hard


def test_ini_hints_file_name_reaches_the_backend(suite_bin: Path, workspace: Workspace) -> None:
    """`hintsFileName` (isc20/sc20 key) is the hints file of the phase's MPI-IO backend."""
    hints = workspace.root / "hints"
    text = mpiio_ini(workspace, collective=True).replace(
        "[ior-hard]\n", f"[ior-hard]\nhintsFileName = {hints}\n", 1
    )
    ini = workspace.write_ini(text)
    proc = run_helper(str(ini), "--timestamp", "nohints")
    assert proc.returncode == 2  # refused before I/O: the file does not exist
    assert f"MPI-IO hints file {hints}: No such file or directory" in proc.stderr
    assert not workspace.data.exists()
    hints.write_text("IOR_HINT__MPI__romio_cb_write=enable\n")
    run_suite(2, str(ini), "--timestamp", "hints", "-q", check=True, timeout=120)
