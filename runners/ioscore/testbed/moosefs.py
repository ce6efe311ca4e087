"""The bed's distributed file system: Debian's MooseFS, servers and client mounts.

A metadata server (`mfsmaster`, Lustre's MDS) and chunk servers (`mfschunkserver`, its OSSs)
each listen on their namespace's address only (MooseFS refuses 127.0.0.1 for its servers). Every
client node mounts the file system with `mfsmount` at the same path in its own mount namespace.
Files get one copy (goal 1), so each chunk lives on exactly one chunk server, as a file's
stripes live on its OSTs, and a slow or stopped server shows in the ranks whose data it holds.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from ioscore.testbed.layout import CLIENT_PORT, MOUNT_POINT, RUN_DIR, Bed, Member
from ioscore.testbed.system import TestbedError, run, run_in


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def master_config(bed: Bed) -> Path:
    master = bed.master
    data = bed.master_dir
    data.mkdir(parents=True, exist_ok=True)
    if not (data / "metadata.mfs").exists():
        (data / "metadata.mfs").write_text("MFSM NEW")  # a fresh, empty file system
    etc = master.config_dir
    exports = _write(etc / "mfsexports.cfg", ["* / rw,alldirs,maproot=0"])
    topology = _write(etc / "mfstopology.cfg", [])
    return _write(
        etc / "mfsmaster.cfg",
        [
            "WORKING_USER = root",
            "WORKING_GROUP = root",
            f"DATA_PATH = {data}",
            f"EXPORTS_FILENAME = {exports}",
            f"TOPOLOGY_FILENAME = {topology}",
            f"MATOML_LISTEN_HOST = {master.address}",
            f"MATOCS_LISTEN_HOST = {master.address}",
            f"MATOCL_LISTEN_HOST = {master.address}",
            # a stopped chunk server is noticed within seconds, not the default minute
            "MATOCS_TIMEOUT = 5",
            # a removed file's chunks are deleted within seconds (the default loop takes five
            # minutes), so a bed sized for one run can run many in a row
            "CHUNKS_LOOP_MIN_TIME = 1",
            "CHUNKS_SOFT_DEL_LIMIT = 1000",
            "CHUNKS_HARD_DEL_LIMIT = 2000",
        ],
    )


def store_mib(bed: Bed) -> int:
    return max(256, int(bed.size_gib * 1024 / bed.servers))


def make_store(bed: Bed, server: Member) -> None:
    """The chunk server's disk: an ext4 image of its share of --size-gib, loop-mounted in the
    server's own mount namespace. A file system of its own is the size cap (MooseFS counts a
    shared file system's other files as used) and what a real server has."""
    image = bed.chunk_dir(server) / "disk.img"
    hdd = bed.chunk_disk(server)
    hdd.mkdir(parents=True, exist_ok=True)
    with image.open("wb") as handle:
        handle.truncate(store_mib(bed) * 2**20)  # sparse: takes room only as chunks arrive
    run(["mkfs.ext4", "-q", "-F", "-m", "0", "-L", server.name, str(image)])
    run_in(server, ["mount", "-o", "loop", str(image), str(hdd)])


def _chunkserver_cfg(server: Member) -> Path:
    return server.config_dir / "mfschunkserver.cfg"


def chunkserver_config(bed: Bed, server: Member) -> Path:
    hdd_cfg = _write(server.config_dir / "mfshdd.cfg", [str(bed.chunk_disk(server))])
    return _write(
        _chunkserver_cfg(server),
        [
            "WORKING_USER = root",
            "WORKING_GROUP = root",
            f"DATA_PATH = {bed.chunk_dir(server)}",
            f"HDD_CONF_FILENAME = {hdd_cfg}",
            "HDD_LEAVE_SPACE_DEFAULT = 0",
            f"MASTER_HOST = {bed.master.address}",
            f"BIND_HOST = {server.address}",
            f"CSSERV_LISTEN_HOST = {server.address}",
            "MASTER_RECONNECTION_DELAY = 1",
        ],
    )


def start_master(bed: Bed) -> None:
    run_in(bed.master, ["mfsmaster", "-c", str(master_config(bed)), "-a", "start"])


def start_chunkserver(bed: Bed, server: Member) -> None:
    run_in(server, ["mfschunkserver", "-c", str(chunkserver_config(bed, server)), "start"])


def stop_chunkserver(server: Member) -> None:
    run_in(server, ["mfschunkserver", "-c", str(_chunkserver_cfg(server)), "stop"], timeout=60)


def chunkserver_running(server: Member) -> bool:
    config = str(_chunkserver_cfg(server))
    return any(config in cmdline for _, cmdline in bed_processes())


def wait_for_chunkservers(bed: Bed, count: int, timeout_s: float = 30.0) -> None:
    """Until the master counts `count` connected chunk servers (`mfscli` is not packaged, so
    a node's `df` of the mount is the witness: its size is the servers' sum)."""
    node = bed.client_nodes[0]
    expected_mib = count * store_mib(bed)
    deadline = time.monotonic() + timeout_s
    while True:
        shown = run_in(node, ["df", "-Pm", str(MOUNT_POINT)], check=False).split()
        total = int(shown[8]) if len(shown) > 8 and shown[8].isdigit() else 0
        if total >= expected_mib * 0.8:  # less the ext4 metadata
            return
        if time.monotonic() > deadline:
            raise TestbedError(
                f"{count} chunk server(s) did not register with the master in {timeout_s:.0f} s "
                f"(the file system shows {total} MiB of {expected_mib})"
            )
        time.sleep(0.3)


def mount(bed: Bed, node: Member) -> None:
    options = [
        f"mfsmaster={bed.master.address}",
        f"mfsport={CLIENT_PORT}",
        f"mfscachemode={bed.cache_mode}",
        f"mfstimeout={bed.io_timeout_s}",
    ]
    MOUNT_POINT.mkdir(parents=True, exist_ok=True)
    run_in(node, ["mfsmount", str(MOUNT_POINT), "-o", ",".join(options)])


def set_file_policy(node: Member) -> None:
    """Goal 1: every chunk on one server, so a file's data has one home to probe; no trash
    time: a removed file frees its space at once, as on a parallel file system."""
    run_in(node, ["mfssetgoal", "-r", "1", str(MOUNT_POINT)])
    run_in(node, ["mfssettrashtime", "-r", "0", str(MOUNT_POINT)])


def bed_processes() -> list[tuple[int, str]]:
    """MooseFS daemons of the bed: their command lines name its run directory (an `mfsmount`
    rewrites its own to 'mfsmount (mounted on: PATH)')."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if cmdline.startswith("mfs") and str(RUN_DIR) in cmdline:
            found.append((int(entry.name), cmdline.strip()))
    return found


def teardown(bed: Bed | None) -> list[str]:
    """Unmount every node, stop every server, then end whatever daemon of the bed is left."""
    nodes = bed.client_nodes if bed is not None else []
    removed = [f"mount on {node.name}" for node in nodes if _unmount(node, MOUNT_POINT)]
    for pid, cmdline in bed_processes():
        _end(pid)
        removed.append(f"process {pid} ({cmdline.split(' -c ')[0]})")
    if bed is not None:
        removed += [
            f"disk of {server.name}"
            for server in bed.chunkservers
            if _unmount(server, bed.chunk_disk(server))
        ]
    return removed


def _unmount(member: Member, path: Path) -> bool:
    """Unmount `path` in the member's mount namespace; False when there was nothing to
    unmount (`up` stopped before it, the mount died, or the namespace is gone)."""
    if not member.pinned:
        return False
    try:
        run_in(member, ["umount", str(path)])
    except TestbedError:
        return False
    return True


def _end(pid: int, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after the grace time; returns once the process is gone."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not Path(f"/proc/{pid}").exists() or _zombie(pid):
                return
            time.sleep(0.05)


def _zombie(pid: int) -> bool:
    try:
        return ") Z " in Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
