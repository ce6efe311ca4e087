"""`ioscore run CONFIG --ranks N [--ppn M] [--scheduler ...] [--dry-run]`.

Renders runners/templates/<scheduler>.sh with string.Template (every value shell-quoted), shows
it with --dry-run, otherwise runs it (local) or submits it (sbatch, qsub, flux batch) and says
where the results will appear (the config's resultdir plus the run's timestamp).
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from string import Template
from typing import Any

from ioscore.results import ResultFormatError
from ioscore.results.parse_ini import get_option, parse_ini

SCHEDULERS = ("local", "slurm", "pbs", "flux")
SUBMIT_COMMANDS = {"slurm": ["sbatch"], "pbs": ["qsub"], "flux": ["flux", "batch"]}
TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "templates"


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("run", help="render and run/submit a benchmark job")
    parser.add_argument("config", type=Path, metavar="CONFIG", help="the benchmark INI file")
    parser.add_argument("--ranks", type=int, required=True, help="total MPI ranks")
    parser.add_argument("--ppn", type=int, help="ranks per node (default: all on one node)")
    parser.add_argument("--scheduler", choices=SCHEDULERS, default="local")
    parser.add_argument("--dry-run", action="store_true", help="print the job script only")
    parser.add_argument("--suite", default="ioscore-suite", help="path of the suite binary")
    parser.add_argument("--walltime", default="02:00:00", help="HH:MM:SS (batch schedulers)")
    parser.add_argument("--job-name", default="ioscore")
    parser.add_argument("--partition", help="Slurm partition / PBS queue / Flux queue")
    parser.add_argument("--account", help="account/project to charge")
    parser.add_argument("--script-out", type=Path, help="also write the job script here")
    parser.add_argument(
        "--suite-arg",
        action="append",
        default=[],
        dest="suite_args",
        help="extra argument for the suite (repeatable)",
    )
    parser.set_defaults(handler=handle)


class RunError(Exception):
    pass


def _walltime_minutes(walltime: str) -> int:
    parts = walltime.split(":")
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        raise RunError(f"--walltime must be HH:MM:SS, got {walltime!r}")
    numbers = [int(p) for p in parts]
    while len(numbers) < 3:
        numbers.insert(0, 0)
    hours, minutes, seconds = numbers
    return max(1, math.ceil((hours * 3600 + minutes * 60 + seconds) / 60))


def _extra_directives(scheduler: str, partition: str | None, account: str | None) -> str:
    lines = []
    if scheduler == "slurm":
        lines += [f"#SBATCH --partition={partition}"] if partition else []
        lines += [f"#SBATCH --account={account}"] if account else []
    elif scheduler == "pbs":
        lines += [f"#PBS -q {partition}"] if partition else []
        lines += [f"#PBS -A {account}"] if account else []
    elif scheduler == "flux":
        lines += [f"#flux: -q {partition}"] if partition else []
        lines += [f"#flux: --setattr=bank={account}"] if account else []
    return "\n".join(lines)


def result_dir_of(config: Path) -> str:
    """Where the suite writes results: [global] resultdir (default ./results), from workdir."""
    parsed = parse_ini(config)
    resultdir = get_option(parsed, "global", "resultdir") or "./results"
    if not os.path.isabs(resultdir):
        resultdir = str((config.parent / resultdir).resolve())
    return resultdir


def render_script(
    scheduler: str,
    config: Path,
    ranks: int,
    ppn: int | None,
    suite: str,
    walltime: str = "02:00:00",
    job_name: str = "ioscore",
    partition: str | None = None,
    account: str | None = None,
    suite_args: list[str] | None = None,
    template_dir: Path = TEMPLATE_DIR,
) -> str:
    if scheduler not in SCHEDULERS:
        raise RunError(f"unknown scheduler {scheduler!r}; choose one of {', '.join(SCHEDULERS)}")
    if ranks < 1:
        raise RunError("--ranks must be >= 1")
    per_node = ppn if ppn is not None else ranks
    if per_node < 1:
        raise RunError("--ppn must be >= 1")
    if not job_name.replace("-", "").replace("_", "").isalnum():
        raise RunError("--job-name may only hold letters, digits, '-' and '_'")
    if any(ch in (partition or "") + (account or "") for ch in " \n'\"$`;"):
        raise RunError("--partition/--account must not contain spaces or shell characters")
    template_file = template_dir / f"{scheduler}.sh"
    try:
        template = Template(template_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunError(f"cannot read template {template_file}: {exc.strerror}") from None
    config = config.resolve()
    mpirun_flags = "--oversubscribe"
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        mpirun_flags += " --allow-run-as-root"  # Open MPI refuses root without it
    if ppn is not None:
        mpirun_flags += f" --map-by ppr:{per_node}:node"
    values = {
        "job_name": job_name,
        "ranks": str(ranks),
        "ppn": str(per_node),
        "nodes": str(math.ceil(ranks / per_node)),
        "walltime": walltime,
        "walltime_minutes": str(_walltime_minutes(walltime)),
        "workdir": shlex.quote(str(config.parent)),
        "config": shlex.quote(str(config)),
        "suite": shlex.quote(suite),
        "suite_args": " ".join(shlex.quote(a) for a in (suite_args or [])),
        "resultdir": shlex.quote(result_dir_of(config)),
        "mpirun": "mpirun",
        "mpirun_flags": mpirun_flags,
        "scheduler_extra": _extra_directives(scheduler, partition, account),
    }
    try:
        return template.substitute(values)
    except (KeyError, ValueError) as exc:
        raise RunError(f"template {template_file} is broken: {exc}") from None


def handle(args: argparse.Namespace) -> int:
    suite_args = list(args.suite_args)
    try:
        if not args.config.is_file():
            raise RunError(f"{args.config}: no such config file")
        script = render_script(
            args.scheduler,
            args.config,
            args.ranks,
            args.ppn,
            args.suite,
            args.walltime,
            args.job_name,
            args.partition,
            args.account,
            suite_args,
        )
    except (RunError, ResultFormatError) as exc:
        print(f"ioscore run: {exc}", file=sys.stderr)
        return 2
    if args.script_out:
        args.script_out.write_text(script, encoding="utf-8")
    if args.dry_run:
        print(script, end="")
        return 0
    resultdir = result_dir_of(args.config)
    with tempfile.TemporaryDirectory(prefix="ioscore-job-") as temp:
        script_path = Path(temp) / f"ioscore-{args.scheduler}.sh"
        script_path.write_text(script, encoding="utf-8")
        if args.scheduler == "local":
            print(f"ioscore run: running locally; results will appear in {resultdir}/<timestamp>")
            return subprocess.call(["bash", str(script_path)])
        command = SUBMIT_COMMANDS[args.scheduler]
        if shutil.which(command[0]) is None:
            print(
                f"ioscore run: {command[0]} not found: is {args.scheduler} available here? "
                "Use --dry-run --script-out FILE to keep the script.",
                file=sys.stderr,
            )
            return 2
        done = subprocess.run([*command, str(script_path)], capture_output=True, text=True)
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        if done.returncode != 0:
            print(f"ioscore run: {' '.join(command)} failed ({done.returncode})", file=sys.stderr)
            return 2
        print(f"ioscore run: submitted; results will appear in {resultdir}/<timestamp>")
        return 0
