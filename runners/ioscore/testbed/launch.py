"""MPI across the bed's client nodes: Open MPI started from the root namespace, its daemons
started inside each node by an rsh agent that enters the node's namespaces.

Ranks see the node's host name (UTS namespace), its own mount of the file system and talk TCP
over the bridge, so node detection, rank placement and the read shift meet separate hosts.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from pathlib import Path

from ioscore.testbed.layout import RUN_DIR, SUBNET, Bed
from ioscore.testbed.system import TestbedError, inside

AGENT = RUN_DIR / "rsh-agent"
PLACEMENTS = {"block": "slot", "cyclic": "node"}  # ours -> Open MPI's --map-by
_NP_FLAGS = ("-np", "-n", "--np", "-c")
# As root, Open MPI refuses to start without these.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def write_agent(bed: Bed) -> Path:
    """The rsh agent: `AGENT [options] HOST COMMAND...` runs COMMAND inside HOST's node."""
    cases = [
        f"  {node.address}|{node.name}) prefix=({shlex.join(inside(node))}) ;;"
        for node in bed.client_nodes
    ]
    AGENT.write_text(
        "\n".join(
            [
                "#!/bin/bash",
                "# Written by `ioscore testbed up`: Open MPI's rsh agent for the test bed.",
                "while [[ $1 == -* ]]; do shift; done  # ssh-style option words",
                "host=$1; shift",
                'case "$host" in',
                *cases,
                '  *) echo "ioscore testbed: $host is not a node of the test bed" >&2; exit 1 ;;',
                "esac",
                'exec "${prefix[@]}" bash -c "$*"',
                "",
            ]
        )
    )
    AGENT.chmod(0o755)
    return AGENT


def ranks_requested(mpirun_args: Sequence[str]) -> int:
    for i, word in enumerate(mpirun_args):
        for flag in _NP_FLAGS:
            value = None
            if word == flag and i + 1 < len(mpirun_args):
                value = mpirun_args[i + 1]
            elif word.startswith(flag + "="):
                value = word.split("=", 1)[1]
            if value is not None:
                if not value.isdigit() or int(value) < 1:
                    raise TestbedError(f"{flag} {value}: give a positive number of ranks")
                return int(value)
    raise TestbedError("give the number of ranks (-np N): the test bed spreads them over its nodes")


def hostfile(bed: Bed, ranks: int, nodes: int) -> Path:
    """A hostfile with `ceil(ranks / nodes)` slots on each of the first `nodes` nodes."""
    slots = math.ceil(ranks / nodes)
    path = RUN_DIR / f"hostfile-{nodes}x{slots}"
    path.write_text("".join(f"{n.address} slots={slots}\n" for n in bed.client_nodes[:nodes]))
    return path


def launch_settings(bed: Bed) -> list[str]:
    """What Open MPI needs to launch on the bed, besides a hostfile and a placement."""
    return [
        "--mca",
        "plm_rsh_agent",
        str(AGENT),
        "--mca",
        "plm_rsh_no_tree_spawn",
        "1",  # every daemon from the root namespace: a node cannot enter another
        "--mca",
        "btl",
        "tcp,self",
        # the nodes share this machine's cores with each other and with the file system's
        # daemons: a rank waiting in MPI must yield, not spin, or it starves the I/O it waits on
        "--mca",
        "mpi_yield_when_idle",
        "1",
        "--mca",
        "btl_tcp_if_include",
        str(SUBNET),
        "--mca",
        "oob_tcp_if_include",
        str(SUBNET),
    ]


def mpi_environment(bed: Bed, ranks: int, nodes: int | None = None) -> dict[str, str]:
    """The launch settings as Open MPI's environment variables, with a default hostfile: a
    plain `mpirun -np RANKS` under them (a job script of `ioscore run`) launches on the bed."""
    settings = launch_settings(bed)
    env = {
        f"OMPI_MCA_{name}": value
        for flag, name, value in zip(settings[::3], settings[1::3], settings[2::3], strict=True)
        if flag == "--mca"
    }
    env["OMPI_MCA_orte_default_hostfile"] = str(hostfile(bed, ranks, nodes or bed.nodes))
    return {**env, **MPI_ENV}


def mpirun_argv(
    bed: Bed,
    mpirun_args: Sequence[str],
    program: Sequence[str],
    *,
    placement: str = "block",
    nodes: int | None = None,
) -> list[str]:
    if not program:
        raise TestbedError("nothing to run: give the program after --")
    if placement not in PLACEMENTS:
        raise TestbedError(f"placement {placement!r}: block or cyclic")
    use = nodes or bed.nodes
    if not 1 <= use <= bed.nodes:
        raise TestbedError(f"--nodes {use}: the test bed has {bed.nodes} nodes")
    ranks = ranks_requested(mpirun_args)
    return [
        "mpirun",
        "--hostfile",
        str(hostfile(bed, ranks, use)),
        *launch_settings(bed),
        "--map-by",
        PLACEMENTS[placement],
        *mpirun_args,
        *program,
    ]
