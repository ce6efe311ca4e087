"""`ioscore run CONFIG --ranks N [--ppn M] [--scheduler ...] [--dry-run]`.

Renders runners/templates/<scheduler>.sh with string.Template (every value shell-quoted), shows
it with --dry-run, otherwise runs it (local) or submits it (sbatch, qsub, flux batch).

The run's timestamp is chosen here and passed to the suite (--timestamp), so the run directory
is known before the job starts: the job script is written there as job.sh and submitted from
there, and the job tees everything it prints into job.out beside it. An upload needs both
(leaderboard spec §9.3), so `ioscore upload RUN_DIR` works on what this command produced.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys
import time
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


def run_dir_of(config: Path, timestamp: str) -> str:
    """The run's own directory: resultdir/<timestamp>, or resultdir itself when the config
    says timestamp-resultdir = FALSE (the suite's rule)."""
    parsed = parse_ini(config)
    flag = (get_option(parsed, "global", "timestamp-resultdir") or "TRUE").strip().upper()
    resultdir = result_dir_of(config)
    return resultdir if flag in ("FALSE", "0", "NO") else os.path.join(resultdir, timestamp)


def timestamp_of(suite_args: list[str]) -> str | None:
    """A --timestamp the user already passes to the suite, if any."""
    for i, arg in enumerate(suite_args):
        if arg.startswith("--timestamp="):
            return arg.split("=", 1)[1]
        if arg == "--timestamp" and i + 1 < len(suite_args):
            return suite_args[i + 1]
    return None


# Rendered into every template: keep the job script and all it prints with the results.
KEEP_JOB_FILES = """\
run_dir=$run_dir
mkdir -p "$$run_dir"
if [ ! -s "$$run_dir/job.sh" ] && [ -f "$$0" ]; then cp -- "$$0" "$$run_dir/job.sh"; fi
exec > >(tee -a "$$run_dir/job.out") 2>&1
tee_pid=$$!
trap 'status=$$?; exec >&- 2>&-; wait "$$tee_pid" || true; exit "$$status"' EXIT"""


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
    timestamp: str | None = None,
) -> str:
    """The job script; the suite gets --timestamp (now, unless suite_args carry one)."""
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
    suite_args = list(suite_args or [])
    if timestamp_of(suite_args) is None:
        suite_args += ["--timestamp", timestamp or time.strftime("%Y.%m.%d-%H.%M.%S")]
    run_dir = run_dir_of(config, timestamp_of(suite_args) or "")
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
        "suite_args": " ".join(shlex.quote(a) for a in suite_args),
        "resultdir": shlex.quote(result_dir_of(config)),
        "keep_job_files": Template(KEEP_JOB_FILES).substitute(run_dir=shlex.quote(run_dir)),
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
    timestamp = timestamp_of(suite_args) or time.strftime("%Y.%m.%d-%H.%M.%S")
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
            timestamp=timestamp,
        )
        run_dir = Path(run_dir_of(args.config.resolve(), timestamp))
    except (RunError, ResultFormatError) as exc:
        print(f"ioscore run: {exc}", file=sys.stderr)
        return 2
    if args.script_out:
        args.script_out.write_text(script, encoding="utf-8")
    if args.dry_run:
        print(script, end="")
        return 0
    command = ["bash"] if args.scheduler == "local" else SUBMIT_COMMANDS[args.scheduler]
    if shutil.which(command[0]) is None:
        print(
            f"ioscore run: {command[0]} not found: is {args.scheduler} available here? "
            "Use --dry-run --script-out FILE to keep the script.",
            file=sys.stderr,
        )
        return 2
    job_script = run_dir / "job.sh"
    if job_script.exists():
        print(
            f"ioscore run: {job_script} already exists (an earlier run with the same "
            "directory); not overwriting it",
            file=sys.stderr,
        )
        return 2
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        job_script.write_text(script, encoding="utf-8")
    except OSError as exc:
        print(f"ioscore run: cannot write {job_script}: {exc.strerror}", file=sys.stderr)
        return 2
    where = f"results, job.sh and job.out will appear in {run_dir}"
    if args.scheduler == "local":
        print(f"ioscore run: running locally; {where}", flush=True)
        return subprocess.call([*command, str(job_script)])
    done = subprocess.run([*command, str(job_script)], capture_output=True, text=True)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        print(f"ioscore run: {' '.join(command)} failed ({done.returncode})", file=sys.stderr)
        return 2
    print(f"ioscore run: submitted; {where}")
    return 0
