"""The suite on separate hosts and a distributed file system: node detection, the read shift
across hosts, per-node cache drops, the cache lesson, mdtest and find, and a slow node named.

Ranks are traced with strace (openat, execve) so that what a rank read, and which node wrote
it, is seen in the system calls rather than taken from the suite's own word.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.testbed import launch, lifecycle
from ioscore.testbed.layout import MOUNT_POINT, Bed
from tests.suite.suite_helpers import FILE_LIMIT_KIB, SUITE_BIN
from tests.testbed.bed_helpers import bed_cli, drop_caches, mpirun, report_json, suite_on_bed

pytestmark = pytest.mark.mpi

RANKS = 4  # two on each of the bed's two nodes


@pytest.fixture
def scratch(bed: Bed) -> Iterator[tuple[Path, Path]]:
    """(data directory on the bed's file system, result directory in RAM), both removed after."""
    with tempfile.TemporaryDirectory(prefix="ioscore-bed-results-", dir="/dev/shm") as results:
        data = Path(tempfile.mkdtemp(prefix="ioscore-bed-data-", dir=MOUNT_POINT.parent))
        data.rmdir()  # a name only: the data directory lives on the bed's file system
        data = MOUNT_POINT / data.name
        yield data, Path(results)
        bed_cli("exec", "node1", "--", "rm", "-rf", str(data))


def _traced_suite(trace_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """ioscore-suite ARGS on the bed, each rank's opens traced into trace_dir/trace.<rank>
    (a seccomp filter stops the ranks at openat alone, not at every sched_yield they make
    while they wait in MPI)."""
    wrapper = (
        f"ulimit -f {FILE_LIMIT_KIB} && exec strace -f --seccomp-bpf -qq -e trace=openat "
        f'-o {trace_dir}/trace.$OMPI_COMM_WORLD_RANK "$0" "$@"'
    )
    return mpirun(RANKS, "bash", "-c", wrapper, str(SUITE_BIN), *args)


def _rank_reads(trace: str, pattern: str) -> set[int]:
    """Numbers of the files matching `<pattern>.NNNNNNNN` that a trace opened read-only."""
    found = set()
    for line in trace.splitlines():
        match = re.search(rf'openat\(.*"[^"]*{pattern}\.(\d{{8}})", (O_RDONLY[^,)]*)', line)
        if match and "O_CREAT" not in match.group(2):
            found.add(int(match.group(1)))
    return found


def test_standard_run_across_nodes_reads_what_another_node_wrote(bed: Bed, scratch) -> None:
    data, results = scratch
    ini = results / "run.ini"
    drops = results / "drops"
    ini.write_text(
        f"[global]\ndatadir = {data}\nresultdir = {results}/out\ndrop-caches = TRUE\n"
        # the bed's command, after a line naming the node it ran on
        f"drop-caches-cmd = sh -c 'hostname >> {drops} && {lifecycle.DROP_CACHES_CMD}'\n"
        "[debug]\nstonewall-time = 1\n"
        "[ior-easy]\ntransferSize = 256k\nblockSize = 8m\n"
        "[ior-hard]\nsegmentCount = 40\n[mdtest-easy]\nn = 60\n[mdtest-hard]\nn = 60\n"
    )
    traces = results / "traces"
    traces.mkdir()
    _traced_suite(traces, str(ini))

    (run_dir,) = (results / "out").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert result["nodes"] == 2 and result["procs"] == RANKS
    assert result["hosts"] == ["node1", "node2"]
    phases = {p["name"]: p for p in result["phases"]}
    host_of = {r["rank"]: r["host"] for r in phases["ior-easy-write"]["ranks"]}
    assert host_of == {0: "node1", 1: "node1", 2: "node2", 3: "node2"}

    for rank in range(RANKS):
        trace = (traces / f"trace.{rank}").read_text()
        read = _rank_reads(trace, "ior_file_easy")
        assert read, f"rank {rank} opened no ior-easy file to read"
        # ior-easy-read reads what a rank of the *other* node wrote (shift = ranks per node)
        assert (rank + 2) % RANKS in read
        assert all(host_of[writer] != host_of[rank] for writer in read - {rank})
        # result.json says the same: the file each rank read, written on another host
        assert phases["ior-easy-read"]["data_ranks"][rank] == (rank + 2) % RANKS
    for name in ("ior-easy-read", "ior-hard-read"):
        read_from = phases[name]["data_ranks"]
        assert all(host_of[w] != host_of[r] for r, w in enumerate(read_from)), (name, read_from)
    # the random read goes two nodes on (IO500's rule): on two nodes, back to the writer's
    assert phases["ior-rnd4K-easy-read"]["data_ranks"] == list(range(RANKS))
    assert phases["ior-easy-write"]["data_ranks"] == list(range(RANKS))

    # drop-caches ran on every rank, so on every node, before each I/O phase
    dropped_on = drops.read_text().split()
    assert set(dropped_on) == {"node1", "node2"}
    assert (
        dropped_on.count("node1") == dropped_on.count("node2") >= 2 * 10
    )  # two ranks a node, every I/O phase

    for name in ("mdtest-easy-write", "mdtest-hard-write", "mdtest-easy-delete", "find"):
        assert phases[name]["ran"] and phases[name]["items"] > 0, name
    # the find scans every file the metadata phases made (what it matches depends on the
    # one-second timestamps of MooseFS: files made in the timestamp's second are not newer)
    made = phases["mdtest-easy-write"]["items"] + phases["mdtest-hard-write"]["items"]
    assert int(phases["find"]["extra"]["scanned"]) >= made
    # the scores recompute from the phases, as the service will recompute them
    report = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "validate", str(run_dir), "--json"],
        capture_output=True,
        text=True,
    )
    (checked,) = json.loads(report.stdout)["runs"]
    assert checked["recomputed"]["total"] == pytest.approx(result["scores"]["total"], rel=1e-3)


def test_the_cache_lesson_is_named_without_the_shift_and_not_with_it(bed: Bed, scratch) -> None:
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    common = ["ior", "-w", "-r", "-e", "-F", "-t", "1m", "-b", "8m", "-o", f"{data}/t"]
    same = suite_on_bed(RANKS, *common, "--resultdir", str(results / "same")).stdout
    shifted = suite_on_bed(RANKS, *common, "-C", "--resultdir", str(results / "shifted")).stdout
    assert "nodes               : 2" in same
    assert re.search(r"read +\[client-cache\] read of data written by this node", same), same
    assert "[client-cache]" not in shifted
    assert re.search(r"read +\[server-cache\] read of data written by another node", shifted)


PLAN = """\
name = "on the test bed"
datadir = "{data}"
# as `srun --ntasks-per-node=1`: one process on each node, each naming its node
drop_caches = "mpirun --map-by ppr:1:node -np 2 sh -c 'hostname >> {drops} && {drop}'"
[layout]
nodes = 2
ppn = 2
[[test]]
name = "fpp"
command = "ior -w -F -C -e -k -t 1m -b 4m -o $DIR/f"
read = "ior -r -F -C -e -k -t 1m -b 4m -o $DIR/f"
targets = ["write >= 1 MiB/s", "read >= 1 MiB/s"]
"""


def test_a_plan_with_a_separate_read_launch_and_a_cache_drop_runs_on_the_bed(
    bed: Bed, scratch
) -> None:
    """`ioscore run PLAN` from a node of the bed: its job's plain mpirun launches over both
    nodes (the bed's launch settings as Open MPI's environment), the cache drop runs once on
    each node between the write and the read launch, and the read reads the other node's
    files."""
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    drops = results / "drops"
    plan = results / "plan.toml"
    drop = lifecycle.DROP_CACHES_CMD.replace('"', "")  # inside the plan's double quotes
    plan.write_text(PLAN.format(data=data, drops=drops, drop=drop.removeprefix("sh -c ")))
    # The job runs on node1, where the data directory is; its mpirun is started from the
    # machine's namespaces, as the bed's own launches are (a node cannot enter another), in
    # the job's directory on the nodes.
    wrapper = results / "bin" / "mpirun"
    wrapper.parent.mkdir()
    here = f"/proc/{os.getpid()}/ns"  # this test's namespaces: the machine's
    wrapper.write_text(
        f"#!/bin/sh\nexec nsenter --mount={here}/mnt --net={here}/net --uts={here}/uts -- "
        f'{shutil.which("mpirun")} --wdir "$PWD" "$@"\n'
    )
    wrapper.chmod(0o755)
    env = [f"{k}={v}" for k, v in launch.mpi_environment(bed, RANKS).items()]
    job = (
        f"ulimit -f {FILE_LIMIT_KIB} && PATH={wrapper.parent}:$PATH exec env {' '.join(env)} "
        f"{sys.executable} -m ioscore.cli run {plan} --results {results}/out --suite {SUITE_BIN}"
    )
    done = bed_cli("exec", "node1", "--", "bash", "-c", job, check=False, timeout=400)
    out = results / "out"
    assert done.returncode == 0, done.stdout + done.stderr + (out / "job.out").read_text()
    assert "plan finished: 0 launch(es) failed" in (out / "job.out").read_text()
    assert sorted(drops.read_text().split()) == ["node1", "node2"]
    assert (out / "fpp/read/drop_caches.txt").read_text().startswith("dropped: mpirun")

    for part in ("write", "read"):
        result = json.loads((out / "fpp" / part / "result.json").read_text())
        assert result["hosts"] == ["node1", "node2"] and result["procs"] == RANKS, part
    (read_phase,) = json.loads((out / "fpp/read/result.json").read_text())["phases"]
    assert read_phase["data_ranks"] == [2, 3, 0, 1]  # each rank reads the other node's file

    (test,) = report_json(out)["tests"]
    assert (
        test["passed"]
        and test["valid"]
        and [t["passed"] for t in test["targets"]]
        == [
            True,
            True,
        ]
    )
    ops = {op["key"]: op for op in test["operations"]}
    assert ops["write"]["part"] == "write" and ops["read"]["part"] == "read"
    assert "cache drop dropped: mpirun" in ops["read"]["measured"]
    assert any("another node" in note for note in ops["read"]["notes"]), ops["read"]["notes"]


def test_mdtest_on_the_distributed_file_system_counts_every_item(bed: Bed, scratch) -> None:
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    shown = suite_on_bed(
        RANKS, "mdtest", "-n", "40", "-F", "-u", "-d", str(data), "--resultdir", str(results)
    ).stdout
    assert "launched with 4 total task(s) on 2 node(s)" in shown, shown
    assert "\n4 tasks, 160 files\n" in shown, shown  # mdtest -F counts files only
    result = json.loads((results / "result.json").read_text())
    assert result["hosts"] == ["node1", "node2"]
    items = {p["name"].rsplit("-", 1)[0]: p["items"] for p in result["phases"]}
    for operation in ("file-write", "file-stat", "file-read", "file-delete"):
        assert items[f"mdtest-{operation}"] == 160, items


def test_a_slowed_node_is_named_by_the_straggler_findings(bed: Bed, scratch) -> None:
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    bed_cli("slow", "node2", "24mbit")
    try:
        suite_on_bed(
            RANKS,
            *("ior", "-w", "-r", "-F", "-C", "-t", "1m", "-b", "6m"),
            *("-o", f"{data}/t", "--resultdir", str(results)),
        )
    finally:
        bed_cli("slow", "node2", "--clear")
    (test,) = report_json(results)["tests"]
    flagged = {
        (op["label"], flag["rank"], flag["host"])
        for op in test["operations"]
        for flag in op["stragglers"]
        if flag["reason"].startswith("work rate")
    }
    # the read comes through the node's link (-C: from the servers, not the page cache);
    # the write lands in the client's write-back cache, so only the read is judged
    reads = {(rank, host) for label, rank, host in flagged if label == "read"}
    assert reads == {(2, "node2"), (3, "node2")}, flagged


def test_a_slowed_chunk_server_is_named_by_throughput_per_server(bed: Bed, scratch) -> None:
    """Write (-k) at full speed, record where each rank's file lives, slow one chunk server,
    read in a separate launch after a cache drop, each rank another node's file (-C): the
    report names that server alone, attributing each read by the file result.json says it
    read."""
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    common = ["-e", "-F", "-t", "1m", "-b", "6m", "-o", f"{data}/t"]
    suite_on_bed(RANKS, "ior", "-w", "-k", *common, "--resultdir", str(results / "w"))
    probed = bed_cli(
        "exec",
        "node1",
        "--",
        sys.executable,
        "-m",
        "ioscore.cli",
        "layout",
        f"{data}/t.ioscore-test.json",
        "--resultdir",
        str(results / "r"),
    ).stdout
    assert "4 ranks' files on 2 servers (moosefs)" in probed, probed
    layout = json.loads((results / "r" / "layout.json").read_text())
    slow = bed.member("cs2").address
    assert any(f"{slow}:" in s for servers in layout["ranks"].values() for s in servers)
    bed_cli("slow", "cs2", "24mbit")
    try:
        drop_caches()
        suite_on_bed(RANKS, "ior", "-r", "-C", *common, "--resultdir", str(results / "r"))
    finally:
        bed_cli("slow", "cs2", "--clear")
    (read_phase,) = json.loads((results / "r" / "result.json").read_text())["phases"]
    assert read_phase["data_ranks"] == [2, 3, 0, 1]
    (test,) = report_json(results)["tests"]
    (read,) = [op for op in test["operations"] if op["key"] == "read"]
    named = {found["server"] for found in read["servers"] if found["slow"]}
    assert named == {f"{slow}:9422"}, read["servers"]


def test_a_stopped_chunk_server_gives_a_bounded_explained_failure(bed: Bed, scratch) -> None:
    """A read whose data sits on a stopped server fails within the bed's I/O timeout (the
    subprocess timeout is only a hang guard), names the ranks and files it could not read,
    and leaves nothing that removing the data directory cannot remove."""
    data, results = scratch
    bed_cli("exec", "node1", "--", "mkdir", "-p", str(data))
    common = ["-e", "-F", "-t", "1m", "-b", "4m", "-o", f"{data}/t"]
    suite_on_bed(RANKS, "ior", "-w", "-k", *common, "--resultdir", str(results / "w"))
    bed_cli(
        *("exec", "node1", "--", sys.executable, "-m", "ioscore.cli", "layout"),
        *(f"{data}/t.ioscore-test.json", "--resultdir", str(results / "r")),
    )
    layout = json.loads((results / "r" / "layout.json").read_text())["ranks"]
    manifest = bed_cli("exec", "node1", "--", "mfsfileinfo", f"{data}/t.ioscore-test.json").stdout
    # stop a server that holds some rank's file but not the manifest the read launch needs
    stopped = next(
        s
        for s in bed.chunkservers
        if f"{s.address}:" not in manifest
        and any(f"{s.address}:" in x for servers in layout.values() for x in servers)
    )
    lost = sorted(int(r) for r, servers in layout.items() if f"{stopped.address}:9422" in servers)
    bed_cli("stop-server", stopped.name)
    try:
        drop_caches()
        failed = suite_on_bed(
            RANKS,
            "ior",
            "-r",
            *common,
            "--resultdir",
            str(results / "r"),
            check=False,
            timeout=4 * bed.io_timeout_s + 120,
        )
    finally:
        bed_cli("start-server", stopped.name)
    assert failed.returncode != 0
    said = failed.stdout + failed.stderr
    for rank in lost:
        assert re.search(rf"rank \d+: .*t\.{rank:08d}.*Input/output error", said), said
    for rank in set(range(RANKS)) - set(lost):
        assert f"t.{rank:08d}: Input/output error" not in said
    # result.json: the phase invalid, every failed rank with its file
    (read_phase,) = json.loads((results / "r" / "result.json").read_text())["phases"]
    assert not read_phase["valid"]
    assert any("I/O errors on" in why for why in read_phase["invalid_reasons"])
    errors = {e["rank"]: e for e in read_phase["io_errors"]}
    assert sorted(read_phase["data_ranks"][r] for r in errors) == lost
    for rank, entry in errors.items():
        assert f"t.{read_phase['data_ranks'][rank]:08d}" in entry["error"]
        assert entry["host"] == ("node1" if rank < 2 else "node2")
    # the report names the stopped server from the probe's layout
    (test,) = report_json(results)["tests"]
    (read,) = [op for op in test["operations"] if op["key"] == "read"]
    assert not read["valid"]
    (found,) = read["io_errors"]
    assert found["suspect"] == f"{stopped.address}:9422", found
    assert sorted(f["data_rank"] for f in found["failed"]) == lost
    shown = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "report", str(results)],
        capture_output=True,
        text=True,
    ).stdout
    assert f"failed server: {stopped.address}:9422" in shown, shown
    bed_cli("exec", "node1", "--", "rm", "-rf", str(data))
    assert bed_cli("exec", "node1", "--", "ls", str(MOUNT_POINT)).stdout.split() == []
