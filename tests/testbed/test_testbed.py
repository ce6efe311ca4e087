"""The pretend cluster itself, driven through `ioscore testbed` as a user would: nodes with host
names and mounts of their own, MPI across them, link shaping, chunk servers stopped and
started, and a `down` that leaves nothing behind."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ioscore.testbed import lifecycle, moosefs
from ioscore.testbed.layout import BRIDGE, MOUNT_POINT, NETNS_PREFIX, RUN_DIR, Bed
from ioscore.testbed.system import missing_requirement
from tests.testbed.bed_helpers import bed_cli, mpirun

pytestmark = pytest.mark.mpi


def test_each_node_has_its_host_name_and_its_own_mount_of_one_file_system(bed: Bed) -> None:
    names = [bed_cli("exec", n.name, "--", "hostname").stdout.strip() for n in bed.client_nodes]
    assert names == ["node1", "node2"]
    for node in bed.client_nodes:
        mounts = bed_cli("exec", node.name, "--", "cat", "/proc/self/mounts").stdout
        assert re.search(rf"^\S+ {MOUNT_POINT} fuse ", mounts, re.M), mounts
    # the root namespace sees no mount: page caches and mounts are the nodes' own
    assert str(MOUNT_POINT) not in Path("/proc/self/mounts").read_text()
    written = MOUNT_POINT / "written-on-node1"
    bed_cli("exec", "node1", "--", "sh", "-c", f"echo hello > {written}")
    seen = bed_cli("exec", "node2", "--", "cat", str(written)).stdout
    bed_cli("exec", "node2", "--", "rm", str(written))
    assert seen == "hello\n"


def test_status_json_names_nodes_servers_mount_and_launch_settings(bed: Bed) -> None:
    shown = json.loads(bed_cli("status", "--json").stdout)
    assert shown["status"] == "up"
    assert [(n["hostname"], n["address"]) for n in shown["nodes"]] == [
        ("node1", "10.213.47.101"),
        ("node2", "10.213.47.102"),
    ]
    assert [s["name"] for s in shown["servers"]] == ["mds", "cs1", "cs2"]
    assert all(s["running"] for s in shown["servers"] if s["role"] == "chunkserver")
    assert shown["mount"] == str(MOUNT_POINT)
    assert "plm_rsh_agent" in shown["launch"]["mpirun_settings"]
    assert Path(shown["launch"]["rsh_agent"]).is_file()


def test_a_second_up_is_refused_with_what_is_running(bed: Bed) -> None:
    again = bed_cli("up", check=False)
    assert again.returncode == 2
    assert "a test bed is up (2 nodes, 2 chunk servers" in again.stderr
    assert again.stderr.count("\n") == 1  # one line, no traceback


@pytest.mark.parametrize(
    ("placement", "expected"),
    [("block", ["node1", "node1", "node2", "node2"]), ("cyclic", ["node1", "node2"] * 2)],
)
def test_mpirun_spreads_ranks_block_or_cyclic(bed: Bed, placement: str, expected: list) -> None:
    shown = mpirun(
        4, "sh", "-c", 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"', placement=placement
    ).stdout
    hosts = dict(line.split() for line in shown.split("\n") if line.strip())
    assert [hosts[str(rank)] for rank in range(4)] == expected


def test_an_unknown_member_is_named_with_the_members_there_are(bed: Bed) -> None:
    for words in (["exec", "nodeX", "--", "true"], ["slow", "nodeX", "10mbit"]):
        refused = bed_cli(*words, check=False)
        assert refused.returncode == 2
        assert refused.stderr == (
            "ioscore testbed: no member 'nodeX' in the test bed "
            "(it has mds, cs1, cs2, node1, node2)\n"
        )


def test_slow_shapes_both_ends_of_a_link_and_clear_restores_it(bed: Bed) -> None:
    said = bed_cli("slow", "node2", "80mbit").stdout
    try:
        assert "node2: link slowed to 80 Mbit/s" in said
        inside = bed_cli("exec", "node2", "--", "tc", "qdisc", "show", "dev", "eth0").stdout
        assert re.search(r"tbf .*rate 80Mbit", inside), inside
        shown = json.loads(bed_cli("status", "--json").stdout)
        rates = {n["name"]: n["slowed_to_bit_per_s"] for n in shown["nodes"]}
        assert rates == {"node1": None, "node2": 80_000_000}
    finally:
        bed_cli("slow", "node2", "--clear")
    assert json.loads(bed_cli("status", "--json").stdout)["nodes"][1]["slowed_to_bit_per_s"] is None
    refused = bed_cli("slow", "node2", "fast", check=False)
    assert refused.returncode == 2 and "rate 'fast'" in refused.stderr


def test_stop_and_start_a_chunk_server(bed: Bed) -> None:
    server = bed.member("cs2")
    assert "cs2 stopped" in bed_cli("stop-server", "cs2").stdout
    try:
        assert not moosefs.chunkserver_running(server)
        assert "already stopped" in bed_cli("stop-server", "cs2").stdout
    finally:
        assert "cs2 started" in bed_cli("start-server", "cs2").stdout
    assert moosefs.chunkserver_running(server)
    refused = bed_cli("stop-server", "node1", check=False)
    assert refused.returncode == 2 and "node1 is not a chunk server" in refused.stderr


def test_unprivileged_user_is_told_root_is_needed_in_one_line() -> None:
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    proc = subprocess.run(
        [*as_nobody, sys.executable, "-m", "ioscore.cli", "testbed", "up"],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PYTHONPATH": str(Path(lifecycle.__file__).resolve().parents[2])},
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        "ioscore testbed: the test bed needs root (network, UTS and mount namespaces, "
        "FUSE mounts)\n"
    )


def test_down_leaves_no_namespace_mount_link_process_or_data(bed: Bed) -> None:
    """Runs last in this module: takes the session's bed down and checks what is left."""
    data = Path(bed.data_dir)
    said = bed_cli("down").stdout
    assert "removed bridge iosbed0" in said
    assert not [n for n in _netns() if n.startswith(NETNS_PREFIX)]
    links = subprocess.run(["ip", "-br", "link"], capture_output=True, text=True).stdout
    assert BRIDGE not in links and "ibv-" not in links
    assert moosefs.bed_processes() == []
    assert "ioscore-testbed" not in Path("/proc/self/mounts").read_text()
    assert not data.exists() and not RUN_DIR.exists()
    assert lifecycle.leftovers() == []
    assert bed_cli("down").stdout == "no test bed was up; nothing to remove\n"


def test_down_after_a_killed_up_leaves_nothing(tmp_path: Path) -> None:
    """`up` killed half-way (some members made, no state of "up"): `down` still removes all."""
    reason = missing_requirement()
    if reason:
        pytest.skip(reason)
    if lifecycle.leftovers():
        pytest.skip("a test bed is up on this machine")
    data = Path("/dev/shm") / f"ioscore-killed-up-{tmp_path.name}"
    cmd = [sys.executable, "-m", "ioscore.cli", "testbed", "up", "--dir", str(data)]
    starting = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len([n for n in _netns() if n.startswith(NETNS_PREFIX)]) < 3:
        assert starting.poll() is None, "up ended before it could be killed"
        assert time.monotonic() < deadline, "up made no namespaces in 60 s"
        time.sleep(0.02)
    starting.kill()
    starting.wait()
    assert Bed.load() is not None and Bed.load().status == "starting"
    said = bed_cli("down").stdout
    assert "removed netns iosbed-mds" in said
    assert lifecycle.leftovers() == [] and not data.exists() and not RUN_DIR.exists()


def _netns() -> list[str]:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
