"""Data verification, --cleanup, abort handling and refusals of the suite.

The byte-flip test uses the suite's pause-dir hook (an IO500 debug option that invalidates
the run): rank 0 waits before a phase while <pause-dir>/<phase> exists, so the test can change
a data file between the write and the read phase exactly like silent corruption would.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import (
    MPI_ENV,
    SCHEMA_PATH,
    SUITE_BIN,
    Workspace,
    only_result_dir,
    run_suite,
    small_ini,
)

from tests.mpi_launch import MPI

pytestmark = pytest.mark.mpi


def start_suite(np: int, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*MPI.launch(np), str(SUITE_BIN), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=MPI_ENV,
        start_new_session=True,
    )


def wait_for_pause(ws: Workspace, phase: str, proc: subprocess.Popen[str]) -> Path:
    """Waits until rank 0 is held before `phase`; returns the result directory."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for result_txt in ws.results.glob("*/result.txt"):
            if f"Checking for pause file {ws.root / 'pause' / phase}" in result_txt.read_text():
                return result_txt.parent
        time.sleep(0.05)
    raise AssertionError(f"the run never paused before {phase}")


def flip_byte(path: Path, offset: int) -> None:
    with path.open("r+b") as f:
        f.seek(offset)
        old = f.read(1)
        f.seek(offset)
        f.write(bytes([old[0] ^ 0xFF]))


def test_flipped_bytes_are_caught(suite_bin: Path, workspace: Workspace) -> None:
    pause = workspace.root / "pause"
    pause.mkdir()
    for phase in ("ior-easy-read", "mdtest-hard-read"):
        (pause / phase).touch()
    ini = workspace.write_ini(small_ini(workspace, debug_extra=f"pause-dir = {pause}"))
    # two simulated nodes: rank 1 reads what rank 0 wrote (IOR shift 1)
    proc = start_suite(2, str(ini), "--timestamp", "flip", "--simulate-ppn", "1")
    try:
        wait_for_pause(workspace, "ior-easy-read", proc)
        data = workspace.data / "flip"
        flip_byte(data / "ior-easy" / "ior_file_easy.00000000", 3 * 65536 + 17)
        (pause / "ior-easy-read").unlink()
        wait_for_pause(workspace, "mdtest-hard-read", proc)
        hard_file = data / "mdtest-hard" / "test-dir.0-0" / "mdtest_tree.0" / "file.mdtest.1.7"
        flip_byte(hard_file, 3900)  # the last byte of the 3901-byte pattern
        (pause / "mdtest-hard-read").unlink()
        _out, err = proc.communicate(timeout=60)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    resdir = only_result_dir(workspace)
    doc = json.loads((resdir / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    easy = phases["ior-easy-read"]
    assert easy["verify_errors"] == 1 and not easy["valid"]
    assert [r["verify_errors"] for r in easy["ranks"]] == [0, 1]  # rank 1 read rank 0's file
    assert "1 data verification errors" in easy["invalid_reasons"]
    hard = phases["mdtest-hard-read"]
    assert hard["verify_errors"] == 1 and not hard["valid"]
    for name in ("ior-hard-read", "ior-easy-write", "mdtest-hard-write"):
        assert phases[name]["verify_errors"] == 0
    assert "data mismatch in" in err and "ior_file_easy.00000000" in err
    summary = (resdir / "result_summary.txt").read_text()
    assert "ior-easy-read" in summary and " seconds [INVALID]" in summary
    txt = (resdir / "result.txt").read_text()
    assert "; ERROR INVALID 1 data verification errors" in txt
    assert "; ERROR INVALID pause-dir is set" in txt


def _descendants(pid: int) -> list[int]:
    """Every process below PID, by parenthood (/proc/N/stat's ppid)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        below = children.get(todo.pop(), [])
        found += below
        todo += below
    return found


def rank_pids(launcher: int) -> list[int]:
    """The ranks the launcher process started: Open MPI forks them itself, hydra through a proxy
    that puts each rank in a session of its own, so they are found by parenthood and name."""
    ranks = []
    for pid in _descendants(launcher):
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == SUITE_BIN.name[:15]:
                ranks.append(pid)
        except OSError:
            continue
    return sorted(ranks)


def stop(proc: subprocess.Popen[str]) -> None:
    """Kill a launch that is still running: its ranks (outside its session under hydra) first."""
    if proc.poll() is not None:
        return
    for pid in _descendants(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_killed_rank_stops_run_and_cleanup_removes_only_ours(
    suite_bin: Path, workspace: Workspace
) -> None:
    pause = workspace.root / "pause"
    pause.mkdir()
    (pause / "mdtest-easy-stat").touch()
    ini = workspace.write_ini(small_ini(workspace, debug_extra=f"pause-dir = {pause}"))
    proc = start_suite(2, str(ini), "--timestamp", "killed")
    try:
        resdir = wait_for_pause(workspace, "mdtest-easy-stat", proc)
        pids = rank_pids(proc.pid)
        assert len(pids) == 2
        os.kill(pids[-1], signal.SIGKILL)  # one rank dies
        proc.communicate(timeout=60)
    finally:
        stop(proc)
    assert proc.returncode != 0  # the other rank was stopped too
    doc = json.loads((resdir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["finished"] is False and doc["valid"] is False
    assert [p["name"] for p in doc["phases"]] == [
        "ior-easy-write",
        "mdtest-easy-write",
        "timestamp",
        "ior-hard-write",
        "mdtest-hard-write",
        "find",
        "ior-easy-read",
    ]
    assert "[mdtest-easy-stat]" in (resdir / "result.txt").read_text()

    # canaries: one inside a directory we created, one beside our data, one in resdir
    data = workspace.data / "killed"
    tree = data / "mdtest-easy" / "test-dir.0-0" / "mdtest_tree.0.0"
    created = sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file())
    assert any("file.mdtest.1." in name for name in created)
    (tree / "notes.txt").write_text("user file")
    (workspace.data / "beside.txt").write_text("user file")
    (resdir / "mine.txt").write_text("user file")
    (tree / "file.mdtest.x.1").write_text("not one of our names")

    clean = run_suite(1, str(ini), "--cleanup", "--timestamp", "killed", check=True)
    assert "--cleanup removed" in clean.stdout
    left = sorted(str(p.relative_to(workspace.data)) for p in workspace.data.rglob("*"))
    assert left == [
        "beside.txt",
        "killed",
        "killed/mdtest-easy",
        "killed/mdtest-easy/test-dir.0-0",
        "killed/mdtest-easy/test-dir.0-0/mdtest_tree.0.0",
        "killed/mdtest-easy/test-dir.0-0/mdtest_tree.0.0/file.mdtest.x.1",
        "killed/mdtest-easy/test-dir.0-0/mdtest_tree.0.0/notes.txt",
    ]
    assert (resdir / "mine.txt").is_file() and (resdir / "result.json").is_file()
    assert not list(resdir.glob("*.stonewall"))


def test_cleanup_after_keep_data(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(small_ini(workspace))
    run_suite(2, str(ini), "--timestamp", "kept", "--keep-data", check=True)
    data = workspace.data / "kept"
    assert (data / "ior-easy" / "ior_file_easy.00000001").is_file()
    assert (data / "ior-hard" / "file").stat().st_size == 2 * 40 * 47008
    canary = data / "ior-easy" / "canary"
    canary.write_text("keep me")
    run_suite(2, str(ini), "--cleanup", "--timestamp", "kept", check=True)
    left = sorted(str(p.relative_to(workspace.data)) for p in workspace.data.rglob("*"))
    assert left == ["kept", "kept/ior-easy", "kept/ior-easy/canary"]


def test_cleanup_refuses_a_directory_without_marker(suite_bin: Path, workspace: Workspace) -> None:
    foreign = workspace.data / "other"
    (foreign / "ior-easy").mkdir(parents=True)
    (foreign / "ior-easy" / "ior_file_easy.00000000").write_text("not ours")
    ini = workspace.write_ini(small_ini(workspace))
    proc = run_suite(1, str(ini), "--cleanup", "--timestamp", "other")
    assert proc.returncode == 2
    assert "has no .ioscore-data marker" in proc.stderr
    assert (foreign / "ior-easy" / "ior_file_easy.00000000").read_text() == "not ours"


def test_refuses_non_empty_data_dir(suite_bin: Path, workspace: Workspace) -> None:
    workspace.data.mkdir()
    (workspace.data / "precious.dat").write_text("do not touch")
    ini = workspace.write_ini(small_ini(workspace, global_extra="timestamp-datadir = FALSE"))
    proc = run_suite(1, str(ini))
    assert proc.returncode == 2
    assert "is not empty (found 'precious.dat')" in proc.stderr
    assert sorted(p.name for p in workspace.data.iterdir()) == ["precious.dat"]
    assert not workspace.results.exists()


def test_accepts_precreated_top_directories(suite_bin: Path, workspace: Workspace) -> None:
    """Sites may create (and stripe) the four top-level directories in advance."""
    for name in ("ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard"):
        (workspace.data / name).mkdir(parents=True)
    ini = workspace.write_ini(small_ini(workspace, global_extra="timestamp-datadir = FALSE"))
    run_suite(1, str(ini), check=True)
    assert not workspace.data.exists()  # ours to remove once empty: the marker made it ours


def test_missing_parent_is_a_clear_error(suite_bin: Path, workspace: Workspace) -> None:
    blocker = workspace.root / "plainfile"
    blocker.write_text("")
    ini = workspace.write_ini(
        f"[global]\ndatadir = {workspace.data}\nresultdir = {blocker}/results\n"
    )
    proc = run_suite(1, str(ini))
    assert proc.returncode == 2
    assert f"cannot create result directory {blocker}/results/" in proc.stderr
    assert "Not a directory" in proc.stderr


def test_permission_denied_is_a_clear_error(suite_bin: Path, workspace: Workspace) -> None:
    locked = workspace.root / "locked"
    locked.mkdir(mode=0o500)
    ini = workspace.write_ini(
        f"[global]\ndatadir = {locked}/data\nresultdir = {workspace.results}\n"
    )
    # root ignores mode bits; without capabilities it is bound by them like any user
    cmd = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", str(SUITE_BIN), str(ini)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=MPI_ENV, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert f"cannot create data directory {locked}/data/" in proc.stderr
    assert "Permission denied" in proc.stderr


def test_no_space_stops_the_run_cleanly(suite_bin: Path, workspace: Workspace) -> None:
    """A 1 MiB tmpfs (in a private mount namespace) fills up during ior-easy-write."""
    small = workspace.root / "small"
    small.mkdir()
    ini = workspace.write_ini(
        small_ini(workspace).replace(f"datadir = {workspace.data}", f"datadir = {small}")
    )
    script = (
        f"mount -t tmpfs -o size=1m tmpfs {small} && "
        f"{shlex.join(MPI.launch(2))} {SUITE_BIN} {ini} --timestamp full"
    )
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=MPI_ENV,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    if "mount" in proc.stderr and "permission denied" in proc.stderr.lower():
        pytest.skip("tmpfs mounts are not permitted here")
    assert proc.returncode != 0
    assert "No space left on device" in proc.stderr
    resdir = only_result_dir(workspace)
    doc = json.loads((resdir / "result.json").read_text())
    assert doc["aborted"] and not doc["valid"]
    assert [p["name"] for p in doc["phases"]] == ["ior-easy-write"]
    assert any("No space left on device" in r for r in doc["phases"][0]["invalid_reasons"])
    assert "; ERROR INVALID run stopped after ior-easy-write" in (resdir / "result.txt").read_text()


def test_dummy_backend_runs_every_phase_without_io(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(small_ini(workspace, global_extra="api = DUMMY"))
    run_suite(2, str(ini), "--timestamp", "dry", check=True)
    doc = json.loads((only_result_dir(workspace) / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    assert len(phases) == 14
    assert phases["ior-easy-write"]["bytes"] == 2 * 32 * 65536
    assert phases["mdtest-hard-read"]["items"] == 2 * 120
    assert "backend DUMMY has no namespace to scan" in phases["find"]["invalid_reasons"]
    assert not (workspace.data / "dry").exists()


def test_odirect_on_ext4(suite_bin: Path, workspace: Workspace) -> None:
    """O_DIRECT for ior-easy only (BENCHMARK-RULES §8.3) on a real block file system: a 64 MiB ext4
    image loop-mounted in a private mount namespace (the machine's own disk is nearly full)."""
    image, mnt = workspace.root / "ext4.img", workspace.root / "mnt"
    mnt.mkdir()
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", str(image)], check=True)
    ws = Workspace(mnt, mnt / "data", workspace.root / "results", workspace.root / "c.ini")
    ini = ws.write_ini(small_ini(ws, ior_easy="API = POSIX --posix.odirect"))
    script = (
        f"mount -o loop {image} {mnt} || exit 97; "
        f"{shlex.join(MPI.launch(2))} {SUITE_BIN} {ini} --timestamp od"
    )
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=MPI_ENV,
        timeout=90,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode == 97:
        pytest.skip(f"loop mounts are not permitted here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((only_result_dir(ws) / "result.json").read_text())
    phases = {p["name"]: p for p in doc["phases"]}
    assert "-a POSIX --posix.odirect" in phases["ior-easy-write"]["extra"]["result_keys"]["exe"]
    assert "--posix.odirect" not in phases["ior-hard-write"]["extra"]["result_keys"]["exe"]
    assert phases["ior-easy-read"]["verify_errors"] == 0
    assert phases["ior-easy-read"]["bytes"] == 2 * 2 * 1024 * 1024
