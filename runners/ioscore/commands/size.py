"""`ioscore size`: propose IOR -b/-s and mdtest -n for an acceptance test (see
ioscore.acceptance.sizing for the arithmetic) from a short probe run or existing results.

    ioscore size --probe-dir /lustre/scratch/me --ppn 64          # probe here, then propose
    ioscore size --from RESULTS/fpp/write --from RESULTS/md/run     # from acceptance results
    ioscore size ... --plan plan.toml --test fpp                    # write -b/-s/-n into it

The probe is a fixed-time IOR write (-D, wear-out) and a fixed-time mdtest create/remove on
--probe-dir with --probe-ranks ranks on this node, started by the launcher of the suite's MPI
(or --launcher); its files are removed afterwards. RAM is
this node's MemTotal (`ioscore sysinfo`'s probe) unless --ram says otherwise.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ioscore import launchers
from ioscore.acceptance.plan import PlanError, load_plan, update_test_options
from ioscore.acceptance.results import load_launch
from ioscore.acceptance.sizing import format_size, parse_size, size_ior, size_mdtest
from ioscore.commands.sysinfo import Probe, memory_info
from ioscore.launchers import LauncherError
from ioscore.results import ResultFormatError


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("size", help="propose IOR -b/-s and mdtest -n for acceptance tests")
    parser.add_argument(
        "--from",
        dest="sources",
        type=Path,
        action="append",
        default=[],
        metavar="RESULT",
        help="an ior and/or mdtest result (dir or result.json)",
    )
    parser.add_argument("--probe-dir", type=Path, help="run the probe here (on the file system)")
    parser.add_argument("--probe-ranks", type=int, default=2, help="probe ranks (this node)")
    parser.add_argument("--probe-seconds", type=int, default=10, help="probe stonewall (s)")
    parser.add_argument("--probe-block", default="4g", help="probe -b cap per rank (4g)")
    parser.add_argument("--probe-files", type=int, default=100000, help="probe mdtest -n cap")
    parser.add_argument("--suite", default="ioscore-suite", help="path of the suite binary")
    launchers.add_argument(parser)
    parser.add_argument("--ram", help="client RAM per node (e.g. 256g); default MemTotal here")
    parser.add_argument("--multiple", type=float, default=3.0, help="data per node >= K x RAM")
    parser.add_argument("--seconds", type=float, default=300.0, help="fixed-data test length")
    parser.add_argument("--ppn", type=int, help="ranks per node of the test (default: probe's)")
    parser.add_argument("--transfer", default="1m", help="IOR -t of the test (1m)")
    parser.add_argument("--plan", type=Path, help="write the proposal into this plan")
    parser.add_argument("--test", help="the plan's test to size (with --plan)")
    parser.add_argument("--json", action="store_true", help="print the proposal as JSON")
    parser.set_defaults(handler=handle)


class SizeError(Exception):
    pass


def _probe(args: argparse.Namespace) -> list[Path]:
    """Fixed-time IOR write and mdtest create/remove; returns their result directories."""
    if not args.probe_dir.is_dir():
        raise SizeError(f"--probe-dir {args.probe_dir}: no such directory")
    launcher = launchers.choose(args.launcher, "local", args.suite)
    if shutil.which(launcher.program) is None:
        raise SizeError(f"{launcher.program} not found: give --from RESULT instead of a probe")
    launch = launcher.argv(args.probe_ranks, None, local=True)
    work = Path(tempfile.mkdtemp(prefix="ioscore-size-probe-", dir=args.probe_dir))
    results = Path(tempfile.mkdtemp(prefix="ioscore-size-results-"))
    launches = {
        "ior": [
            "-F",
            "-e",
            "-g",
            "-w",
            "-t",
            args.transfer,
            "-b",
            args.probe_block,
            "-D",
            str(args.probe_seconds),
            "-O",
            "stoneWallingWearOut=1",
            "-o",
            str(work / "probe"),
        ],
        "mdtest": [
            "-n",
            str(args.probe_files),
            "-F",
            "-u",
            "-C",
            "-r",
            "-W",
            str(args.probe_seconds),
            "-d",
            str(work / "md"),
        ],
    }
    try:
        for program, program_args in launches.items():
            command = [
                *launch,
                args.suite,
                program,
                *program_args,
                "--resultdir",
                str(results / program),
            ]
            print(f"ioscore size: probe: {shlex.join(command)}", file=sys.stderr)
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
                raise SizeError(f"the {program} probe failed: {' / '.join(tail)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the probe's data only
    return [results / "ior", results / "mdtest"]


def _rates(sources: list[Path]) -> tuple[float | None, float | None, int | None]:
    """(write bandwidth per node B/s, file creation rate per rank /s, ranks per node)."""
    node_bw = rank_rate = ppn = None
    for source in sources:
        launch = load_launch(source)
        nodes = max(1, launch.nodes)
        ppn = ppn or max(1, launch.procs // nodes)
        if launch.mode == "ior" and "write" in launch.operations:
            node_bw = launch.operations["write"].stats().mean / nodes
        elif launch.mode == "mdtest" and "file-write" in launch.operations:
            rank_rate = launch.operations["file-write"].stats().mean / max(1, launch.procs)
    return node_bw, rank_rate, ppn


def proposal(args: argparse.Namespace, sources: list[Path]) -> dict[str, Any]:
    node_bw, rank_rate, probe_ppn = _rates(sources)
    if args.ram:
        ram = parse_size(args.ram)
    else:
        ram = memory_info(Probe())["net_capacity_bytes"]
        if not ram:
            raise SizeError("cannot read MemTotal from /proc/meminfo: give --ram")
    ppn = args.ppn or probe_ppn or 1
    ior = size_ior(ram, ppn, parse_size(args.transfer), node_bw, args.multiple, args.seconds)
    out: dict[str, Any] = {
        "ram_per_node": ram,
        "multiple": args.multiple,
        "seconds": args.seconds,
        "ppn": ppn,
        "probe_write_bw_per_node": node_bw,
        "probe_create_rate_per_rank": rank_rate,
        "ior": {
            "options": ior.options(),
            "segmented_options": ior.segmented_options(),
            "block": format_size(ior.block),
            "segments": ior.segments,
            "data_per_node": ior.per_node_bytes,
            "decided_by": "client RAM" if ior.by_cache else "test duration",
            "expected_seconds": ior.expected_seconds,
        },
        "mdtest": None,
        "assumption": "the probe's per-node bandwidth and per-rank create rate hold at the "
        "test's scale",
    }
    if rank_rate:
        out["mdtest"] = {
            "options": f"-n {size_mdtest(rank_rate, args.seconds)}",
            "n": size_mdtest(rank_rate, args.seconds),
        }
    return out


def handle(args: argparse.Namespace) -> int:
    if (args.plan is None) != (args.test is None):
        print("ioscore size: --plan and --test go together", file=sys.stderr)
        return 2
    if not args.sources and args.probe_dir is None:
        print("ioscore size: give --probe-dir DIR (probe run) or --from RESULT", file=sys.stderr)
        return 2
    cleanup: Path | None = None
    try:
        sources = list(args.sources)
        if not sources:
            sources = _probe(args)
            cleanup = sources[0].parent
        result = proposal(args, sources)
        if args.plan is not None:
            plan = load_plan(args.plan)
            test = next((t for t in plan.tests if t.name == args.test), None)
            if test is None:
                raise SizeError(f"{args.plan}: no test named {args.test!r}")
            if test.program == "ior":
                values = {"-b": result["ior"]["block"], "-s": "1", "-t": args.transfer}
            elif result["mdtest"]:
                values = {"-n": str(result["mdtest"]["n"])}
            else:
                raise SizeError("no mdtest rate to size -n from: probe or --from an mdtest run")
            update_test_options(args.plan, args.test, values)
            result["plan_updated"] = {"plan": str(args.plan), "test": args.test, **values}
    except (SizeError, ValueError, PlanError, ResultFormatError, LauncherError) as exc:
        print(f"ioscore size: {exc}", file=sys.stderr)
        return 2
    finally:
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    ior = result["ior"]
    print(
        f"client RAM {format_size(result['ram_per_node'])} per node, {result['ppn']} ranks "
        f"per node, data per node >= {result['multiple']:g} x RAM, ~{result['seconds']:g} s"
    )
    print(
        f"IOR:    {ior['options']}    (or {ior['segmented_options']}); "
        f"{format_size(ior['data_per_node'])} per node, decided by the {ior['decided_by']}"
    )
    if ior["expected_seconds"]:
        print(
            f"        expected ~{ior['expected_seconds']:.0f} s at the probe's "
            f"{result['probe_write_bw_per_node'] / (1 << 20):,.0f} MiB/s per node"
        )
    if result["mdtest"]:
        print(
            f"mdtest: {result['mdtest']['options']}    (files per rank, ~{result['seconds']:g} "
            f"s of creates at {result['probe_create_rate_per_rank']:,.0f}/s per rank)"
        )
    print(f"assumes {result['assumption']}")
    if "plan_updated" in result:
        print(f"updated {args.plan}: test {args.test}")
    return 0
