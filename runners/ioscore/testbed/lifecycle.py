"""Bringing a test bed up and down, saying what it is, and breaking parts of it on purpose.

`up` records its state before it creates anything, and a failed or interrupted `up` removes
what it made; `down` finds everything of a bed by its fixed names, so it also cleans up after a
crash or a killed `up`, and says what it removed.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ioscore.testbed import launch, moosefs, network
from ioscore.testbed.layout import (
    BRIDGE,
    DEFAULT_CACHE_MODE,
    DEFAULT_DATA_DIR,
    DEFAULT_IO_TIMEOUT_S,
    DEFAULT_NODES,
    DEFAULT_SERVERS,
    DEFAULT_SIZE_GIB,
    MAX_NODES,
    MAX_SERVERS,
    MOUNT_POINT,
    NETNS_PREFIX,
    RUN_DIR,
    STATE_FILE,
    SUBNET,
    Bed,
    Member,
)
from ioscore.testbed.system import TestbedError, missing_requirement, run

# What the suite's drop-caches-cmd should be on the bed: all nodes share one kernel, so one
# write drops every node's page cache (the default goes through sudo, absent on most hosts).
DROP_CACHES_CMD = 'sh -c "sync && echo 3 > /proc/sys/vm/drop_caches"'


def leftovers() -> list[str]:
    """Parts of a bed present on this machine (none when no bed is up)."""
    found = []
    if STATE_FILE.exists():
        found.append(f"state {STATE_FILE}")
    found += [
        f"netns {name}"
        for name in run(["ip", "netns", "list"], check=False).split()
        if name.startswith(NETNS_PREFIX)
    ]
    if run(["ip", "link", "show", BRIDGE], check=False):
        found.append(f"bridge {BRIDGE}")
    found += [f"process {pid}" for pid, _ in moosefs.bed_processes()]
    return found


def up(
    nodes: int = DEFAULT_NODES,
    servers: int = DEFAULT_SERVERS,
    data_dir: Path = DEFAULT_DATA_DIR,
    size_gib: float = DEFAULT_SIZE_GIB,
    cache_mode: str = DEFAULT_CACHE_MODE,
    io_timeout_s: int = DEFAULT_IO_TIMEOUT_S,
) -> Bed:
    reason = missing_requirement()
    if reason:
        raise TestbedError(reason)
    if not 1 <= nodes <= MAX_NODES:
        raise TestbedError(f"--nodes {nodes}: from 1 to {MAX_NODES}")
    if not 1 <= servers <= MAX_SERVERS:
        raise TestbedError(f"--servers {servers}: from 1 to {MAX_SERVERS}")
    if not 1 <= io_timeout_s <= 3600:
        raise TestbedError(f"--io-timeout {io_timeout_s}: from 1 to 3600 s")
    if not 0.25 * servers <= size_gib <= 1024:
        raise TestbedError(f"--size-gib {size_gib}: from {0.25 * servers:g} (256 MiB a server)")
    running = Bed.load()
    if running is not None:
        raise TestbedError(
            f"a test bed is {running.status} ({running.nodes} nodes, {running.servers} chunk "
            f"servers, since {running.started}); `ioscore testbed down` first"
        )
    present = leftovers()
    if present:
        raise TestbedError(
            f"parts of a test bed are present ({', '.join(present)}); `ioscore testbed down` "
            "removes them"
        )
    data = data_dir.resolve()
    _check_data_dir(data, size_gib)

    bed = Bed(
        nodes=nodes,
        servers=servers,
        data_dir=str(data),
        size_gib=size_gib,
        cache_mode=cache_mode,
        io_timeout_s=io_timeout_s,
        started=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
    bed.save()  # first, so that `down` knows the data directory whatever happens next
    try:
        network.make_bridge(bed.bridge_address)
        for member in bed.members:
            network.make_member(member)
        moosefs.start_master(bed)
        for server in bed.chunkservers:
            moosefs.make_store(bed, server)
            moosefs.start_chunkserver(bed, server)
        for node in bed.client_nodes:
            moosefs.mount(bed, node)
        moosefs.wait_for_chunkservers(bed, servers)
        moosefs.set_file_policy(bed.client_nodes[0])
        launch.write_agent(bed)
    except BaseException:
        down()
        raise
    bed.status = "up"
    bed.save()
    return bed


def _check_data_dir(data: Path, size_gib: float) -> None:
    if data.exists() and not data.is_dir():
        raise TestbedError(f"--dir {data} is not a directory")
    if data.exists() and any(data.iterdir()):
        raise TestbedError(f"--dir {data} is not empty; give an empty or new directory")
    parent = data if data.exists() else data.parent
    if not parent.is_dir():
        raise TestbedError(f"--dir {data}: {parent} does not exist")
    free_gib = shutil.disk_usage(parent).free / 2**30
    if free_gib < size_gib:
        raise TestbedError(
            f"--dir {data} has {free_gib:.1f} GiB free, less than --size-gib {size_gib:g}"
        )


def down() -> list[str]:
    """Remove every part of the bed; what was removed (empty when nothing was up)."""
    bed = Bed.load()
    removed = moosefs.teardown(bed)
    removed += network.teardown()
    if bed is not None:
        data = Path(bed.data_dir)
        if data.is_dir():
            shutil.rmtree(data, ignore_errors=True)
            removed.append(f"data {data}")
    if RUN_DIR.exists():
        if MOUNT_POINT.is_mount():  # only ever mounted inside the nodes; never remove through it
            raise TestbedError(f"{MOUNT_POINT} is mounted in this namespace; unmount it first")
        shutil.rmtree(RUN_DIR, ignore_errors=True)
        removed.append(f"run directory {RUN_DIR}")
    return removed


def require_bed() -> Bed:
    bed = Bed.load()
    if bed is None:
        raise TestbedError("no test bed is up: `ioscore testbed up` first")
    if bed.status != "up":
        raise TestbedError(f"the test bed is {bed.status}, not up: `ioscore testbed down` first")
    return bed


def _member_status(member: Member) -> dict[str, Any]:
    rate = network.link_rate(member)
    shown: dict[str, Any] = {
        "name": member.name,
        "role": member.role,
        "hostname": member.name,
        "address": member.address,
        "netns": member.netns,
        "link": member.host_link,
        "slowed_to_bit_per_s": rate,
    }
    if member.role == "chunkserver":
        shown["running"] = moosefs.chunkserver_running(member)
    return shown


def status(bed: Bed) -> dict[str, Any]:
    return {
        "status": bed.status,
        "started": bed.started,
        "subnet": str(SUBNET),
        "bridge": {"name": BRIDGE, "address": bed.bridge_address},
        "file_system": "moosefs",
        "mount": str(MOUNT_POINT),
        "cache_mode": bed.cache_mode,
        "io_timeout_s": bed.io_timeout_s,
        "data_dir": bed.data_dir,
        "size_gib": bed.size_gib,
        "nodes": [_member_status(n) for n in bed.client_nodes],
        "servers": [_member_status(s) for s in [bed.master, *bed.chunkservers]],
        "hostfile_lines": [f"{n.address} slots=N" for n in bed.client_nodes],
        "launch": {
            "mpirun_settings": launch.launch_settings(bed),
            "rsh_agent": str(launch.AGENT),
            "environment": launch.MPI_ENV,
        },
        "drop_caches_cmd": DROP_CACHES_CMD,
    }


def slow(bed: Bed, name: str, rate: str | None) -> str:
    member = bed.member(name)
    if rate is None:
        network.unshape(member)
        return f"{name}: link at full speed"
    bits = network.parse_rate(rate)
    network.shape(member, bits)
    return f"{name}: link slowed to {bits / 1e6:g} Mbit/s ({bits / 8 / 2**20:.3g} MiB/s) each way"


def _chunkserver(bed: Bed, name: str) -> Member:
    member = bed.member(name)
    if member.role != "chunkserver":
        servers = ", ".join(s.name for s in bed.chunkservers)
        raise TestbedError(f"{name} is not a chunk server (they are {servers})")
    return member


def stop_server(bed: Bed, name: str) -> str:
    server = _chunkserver(bed, name)
    if not moosefs.chunkserver_running(server):
        return f"{name} is already stopped"
    moosefs.stop_chunkserver(server)
    return f"{name} stopped: its chunks are unreachable until start-server {name}"


def start_server(bed: Bed, name: str) -> str:
    server = _chunkserver(bed, name)
    if moosefs.chunkserver_running(server):
        return f"{name} is already running"
    moosefs.start_chunkserver(bed, server)
    return f"{name} started"
