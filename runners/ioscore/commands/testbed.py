"""`ioscore testbed`: a pretend cluster on this machine (client nodes in namespaces, MooseFS,
Open MPI across them) to try the suite "on a cluster" without one, and to test it there.

    ioscore testbed up [--nodes K] [--servers M] [--dir DIR] [--size-gib N]
    ioscore testbed status [--json]
    ioscore testbed mpirun [--placement block|cyclic] [--nodes K] [mpirun args] -- PROGRAM ARGS
    ioscore testbed exec NODE -- CMD
    ioscore testbed slow NODE|SERVER RATE | --clear
    ioscore testbed stop-server SERVER / start-server SERVER
    ioscore testbed down
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from ioscore.testbed import launch, lifecycle
from ioscore.testbed.layout import (
    DEFAULT_CACHE_MODE,
    DEFAULT_DATA_DIR,
    DEFAULT_IO_TIMEOUT_S,
    DEFAULT_NODES,
    DEFAULT_SERVERS,
    DEFAULT_SIZE_GIB,
)
from ioscore.testbed.system import TestbedError, inside


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "testbed",
        help="a pretend cluster on this machine: nodes, MooseFS, MPI across them",
        description="A pretend cluster on one machine: K client nodes (network, UTS and mount "
        "namespaces with their own host names and their own mount of one MooseFS file system), "
        "a metadata server and M chunk servers, all on one bridge; needs root and FUSE.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    p = actions.add_parser("up", help="bring the test bed up")
    p.add_argument(
        "--nodes", type=int, default=DEFAULT_NODES, help=f"client nodes (default {DEFAULT_NODES})"
    )
    p.add_argument(
        "--servers",
        type=int,
        default=DEFAULT_SERVERS,
        help=f"chunk servers (default {DEFAULT_SERVERS})",
    )
    p.add_argument(
        "--dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="where the servers keep their data: an empty or new directory "
        f"(default {DEFAULT_DATA_DIR})",
    )
    p.add_argument(
        "--size-gib",
        type=float,
        default=DEFAULT_SIZE_GIB,
        help=f"capacity of all chunk servers (default {DEFAULT_SIZE_GIB:g})",
    )
    p.add_argument(
        "--cache-mode",
        choices=("YES", "AUTO", "NO", "DIRECT"),
        default=DEFAULT_CACHE_MODE,
        help="mfsmount's mfscachemode on the nodes; YES keeps file data in each node's page "
        f"cache, as Lustre clients do (default {DEFAULT_CACHE_MODE})",
    )
    p.add_argument(
        "--io-timeout",
        type=int,
        default=DEFAULT_IO_TIMEOUT_S,
        help="seconds before a node's I/O to an unreachable server fails with EIO instead of "
        f"waiting (mfstimeout; default {DEFAULT_IO_TIMEOUT_S})",
    )
    p.set_defaults(handler_action=_up)

    p = actions.add_parser("status", help="what is up: nodes, servers, mount, launch settings")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(handler_action=_status)

    p = actions.add_parser(
        "mpirun",
        help="run an MPI program over the nodes",
        description="mpirun over the test bed's nodes: [--placement block|cyclic] [--nodes K] "
        "[mpirun args, -np N required] -- PROGRAM ARGS. Ranks are spread evenly over the "
        "nodes: block puts consecutive ranks on one node, cyclic deals them round-robin.",
    )
    p.add_argument("--placement", choices=sorted(launch.PLACEMENTS), default="block")
    p.add_argument("--nodes", type=int, default=None, help="use the first K nodes (default all)")
    p.set_defaults(handler_action=_mpirun, passthrough=True, words=[])

    p = actions.add_parser(
        "exec",
        help="run a command on one node or server",
        description="ioscore testbed exec NODE -- CMD ARGS: run CMD in NODE's namespaces.",
    )
    p.add_argument("member", metavar="NODE")
    p.set_defaults(handler_action=_exec, passthrough=True, words=[])

    p = actions.add_parser("slow", help="slow a node's or server's link (both directions)")
    p.add_argument("member", metavar="NODE|SERVER")
    p.add_argument("rate", nargs="?", help="e.g. 100mbit, 1gbit, 50MB/s, 200MiB/s")
    p.add_argument("--clear", action="store_true", help="back to full speed")
    p.set_defaults(handler_action=_slow)

    for name, verb in (("stop-server", "stop"), ("start-server", "start")):
        p = actions.add_parser(name, help=f"{verb} one chunk server")
        p.add_argument("server", metavar="SERVER")
        p.set_defaults(handler_action=_server, verb=verb)

    p = actions.add_parser("down", help="remove everything of the test bed")
    p.set_defaults(handler_action=_down)

    parser.set_defaults(handler=_dispatch)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.handler_action(args))
    except TestbedError as exc:
        print(f"ioscore testbed: {exc}", file=sys.stderr)
        return 2


def _up(args: argparse.Namespace) -> int:
    bed = lifecycle.up(
        args.nodes, args.servers, args.dir, args.size_gib, args.cache_mode, args.io_timeout
    )
    print(
        f"test bed up: {bed.nodes} nodes ({', '.join(n.name for n in bed.client_nodes)}), "
        f"{bed.servers} chunk servers, MooseFS at {lifecycle.MOUNT_POINT} on every node"
    )
    print("  try: ioscore testbed mpirun -np 8 -- hostname")
    return 0


def _status(args: argparse.Namespace) -> int:
    shown = lifecycle.status(lifecycle.require_bed())
    if args.json:
        print(json.dumps(shown, indent=2))
        return 0
    print(f"test bed {shown['status']} since {shown['started']}, subnet {shown['subnet']}")
    print(f"  file system: MooseFS at {shown['mount']} on every node (cache {shown['cache_mode']})")
    print(f"  server data: {shown['data_dir']} (capacity {shown['size_gib']:g} GiB)")
    for member in shown["nodes"] + shown["servers"]:
        extra = []
        if member.get("running") is False:
            extra.append("STOPPED")
        if member["slowed_to_bit_per_s"]:
            extra.append(f"slowed to {member['slowed_to_bit_per_s'] / 1e6:g} Mbit/s")
        note = f"  ({', '.join(extra)})" if extra else ""
        print(f"  {member['role']:<12} {member['name']:<8} {member['address']}{note}")
    print(f"  drop-caches-cmd for an INI: {shown['drop_caches_cmd']}")
    return 0


def _split(words: list[str]) -> tuple[list[str], list[str]]:
    if "--" not in words:
        raise TestbedError("give the program after --, e.g. -np 8 -- hostname")
    at = words.index("--")
    return words[:at], words[at + 1 :]


def _mpirun(args: argparse.Namespace) -> int:
    bed = lifecycle.require_bed()
    mpirun_args, program = _split(args.words)
    argv = launch.mpirun_argv(bed, mpirun_args, program, placement=args.placement, nodes=args.nodes)
    return subprocess.call(argv, env={**os.environ, **launch.MPI_ENV})


def _exec(args: argparse.Namespace) -> int:
    bed = lifecycle.require_bed()
    member = bed.member(args.member)
    # argparse drops the `--` once NODE is read; a command's own words may follow it
    command = args.words[1:] if args.words[:1] == ["--"] else args.words
    if not command:
        raise TestbedError("usage: ioscore testbed exec NODE -- CMD ARGS")
    return subprocess.call([*inside(member), *command])


def _slow(args: argparse.Namespace) -> int:
    if args.clear == (args.rate is not None):
        raise TestbedError("give a RATE, or --clear")
    print(lifecycle.slow(lifecycle.require_bed(), args.member, args.rate))
    return 0


def _server(args: argparse.Namespace) -> int:
    bed = lifecycle.require_bed()
    act = lifecycle.stop_server if args.verb == "stop" else lifecycle.start_server
    print(act(bed, args.server))
    return 0


def _down(args: argparse.Namespace) -> int:
    removed = lifecycle.down()
    if not removed:
        print("no test bed was up; nothing to remove")
    for what in removed:
        print(f"removed {what}")
    return 0
