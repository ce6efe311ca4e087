"""What a test bed is: its members (client nodes and servers), their addresses and its paths.

One test bed runs on a machine at a time: its bridge, namespace names and address range are
fixed, so that `down` can find everything of it from the names alone, even when `up` was killed
before it wrote its state. The state file records the choices `up` made (sizes, the data
directory) for `status`, `mpirun` and `down`.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BRIDGE = "iosbed0"
# The test bed's own range: only addresses of the namespaces it creates are ever used.
SUBNET = ipaddress.ip_network("10.213.47.0/24")
NETNS_PREFIX = "iosbed-"
RUN_DIR = Path("/run/ioscore-testbed")
NETNS_DIR = Path("/run/netns")
# What `up` makes when not told otherwise (the CLI's defaults too).
DEFAULT_NODES = 4
DEFAULT_SERVERS = 3
DEFAULT_SIZE_GIB = 2.0
DEFAULT_DATA_DIR = Path("/dev/shm/ioscore-testbed")
DEFAULT_CACHE_MODE = "YES"  # mfscachemode: file data in each node's page cache, as Lustre's
# a node's I/O to an unreachable server fails after this long; long enough that the nodes,
# sharing this machine's cores with the servers, see no spurious errors
DEFAULT_IO_TIMEOUT_S = 90
MOUNT_POINT = RUN_DIR / "fs"
STATE_FILE = RUN_DIR / "state.json"

MASTER = "mds"
CLIENT_PORT = 9421  # mfsmaster's port for clients
CHUNK_PORT = 9422  # mfschunkserver's port
MAX_NODES = 64
MAX_SERVERS = 16


class TestbedError(RuntimeError):
    """A step of the test bed failed, or it was asked for something it does not have; the
    message is one line for the user."""


@dataclass(frozen=True)
class Member:
    """One namespace of the bed: a client node, the metadata server or a chunk server."""

    name: str  # host name inside the member, and the suffix of its namespace names
    role: str  # "node" | "master" | "chunkserver"
    address: str

    @property
    def netns(self) -> str:
        return NETNS_PREFIX + self.name

    @property
    def net_ns(self) -> Path:
        """The pin of its network namespace (where `ip netns` keeps it)."""
        return NETNS_DIR / self.netns

    @property
    def pinned(self) -> bool:
        """Its network and mount namespaces still exist (a killed `up` may have made neither)."""
        return self.net_ns.exists() and self.mount_ns.exists()

    @property
    def host_link(self) -> str:
        """The root-namespace end of the member's veth (its other end is eth0 inside)."""
        return f"ibv-{self.name}"[:15]

    @property
    def mount_ns(self) -> Path:
        return RUN_DIR / "ns" / f"{self.name}.mnt"

    @property
    def uts_ns(self) -> Path:
        return RUN_DIR / "ns" / f"{self.name}.uts"

    @property
    def config_dir(self) -> Path:
        return RUN_DIR / "etc" / self.name


@dataclass
class Bed:
    nodes: int
    servers: int
    data_dir: str
    size_gib: float
    cache_mode: str
    io_timeout_s: int
    started: str = ""
    status: str = "starting"  # "starting" until every member is up, then "up"
    pids: dict[str, int] = field(default_factory=dict)

    @property
    def bridge_address(self) -> str:
        return str(SUBNET.network_address + 1)

    @property
    def master(self) -> Member:
        return Member(MASTER, "master", str(SUBNET.network_address + 10))

    @property
    def chunkservers(self) -> list[Member]:
        return [
            Member(f"cs{i}", "chunkserver", str(SUBNET.network_address + 10 + i))
            for i in range(1, self.servers + 1)
        ]

    @property
    def client_nodes(self) -> list[Member]:
        return [
            Member(f"node{i}", "node", str(SUBNET.network_address + 100 + i))
            for i in range(1, self.nodes + 1)
        ]

    @property
    def members(self) -> list[Member]:
        return [self.master, *self.chunkservers, *self.client_nodes]

    def member(self, name: str) -> Member:
        for member in self.members:
            if member.name == name:
                return member
        names = ", ".join(m.name for m in self.members)
        raise TestbedError(f"no member {name!r} in the test bed (it has {names})")

    def chunk_dir(self, server: Member) -> Path:
        return Path(self.data_dir) / server.name

    def chunk_disk(self, server: Member) -> Path:
        """Where the server's own disk (a loop-mounted ext4 image) is mounted: its chunks."""
        return self.chunk_dir(server) / "hdd"

    @property
    def master_dir(self) -> Path:
        return Path(self.data_dir) / MASTER

    def save(self) -> None:
        STATE_FILE.parent.mkdir(parents=True, exist_ok=True)
        tmp = STATE_FILE.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2) + "\n")
        tmp.replace(STATE_FILE)

    @classmethod
    def load(cls) -> Bed | None:
        try:
            raw: dict[str, Any] = json.loads(STATE_FILE.read_text())
            return cls(**raw)
        except FileNotFoundError:
            return None
        except (ValueError, TypeError):  # damaged: `down` still removes what it finds by name
            return None
