"""`ioscore run CONFIG --ranks N [--ppn M] [--scheduler ...] [--dry-run]`.

Renders ioscore/templates/<scheduler>.sh (package data) with string.Template (every value
shell-quoted; the launch words from ioscore.launchers, --launcher), shows it with --dry-run,
otherwise runs it (local) or submits it (sbatch, qsub, flux batch).

The run's timestamp is chosen here and passed to the suite (--timestamp), so the run directory
is known before the job starts: the job script is written there as job.sh and submitted from
there, and the job tees everything it prints into job.out beside it. An upload needs both
(LEADERBOARD-RULES §9.3), so `ioscore upload RUN_DIR` works on what this command produced.
"""

from __future__ import annotations

import argparse
import json
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

from ioscore import launchers
from ioscore.acceptance.plan import Plan, PlanError, PlanTest, load_plan
from ioscore.launchers import Launcher, LauncherError
from ioscore.results import ResultFormatError
from ioscore.results.parse_ini import get_option, parse_ini

SCHEDULERS = ("local", "slurm", "pbs", "flux")
SUBMIT_COMMANDS = {"slurm": ["sbatch"], "pbs": ["qsub"], "flux": ["flux", "batch"]}
TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "templates"


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "run", help="render and run/submit a benchmark job or an acceptance plan"
    )
    parser.add_argument(
        "config",
        type=Path,
        metavar="CONFIG",
        help="the benchmark INI file, or an acceptance plan (PLAN.toml)",
    )
    parser.add_argument("--ranks", type=int, help="total MPI ranks (INI runs; a plan has a layout)")
    parser.add_argument("--ppn", type=int, help="ranks per node (default: all on one node)")
    parser.add_argument("--scheduler", choices=SCHEDULERS, default="local")
    launchers.add_argument(parser)
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
    parser.add_argument(
        "--results",
        type=Path,
        help="plan runs: results directory (default: the plan's `results`, else "
        "./acceptance-<plan name>-<timestamp>)",
    )
    parser.add_argument(
        "--layout",
        metavar="NODESxPPN",
        help="plan runs: run every test on this layout instead of the plan's (e.g. 1x2 "
        "for a trial on one node)",
    )
    parser.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="plan runs: override a [vars] value (repeatable)",
    )
    parser.add_argument(
        "--datadir",
        type=Path,
        help="plan runs: the data directory ($DIR) instead of the plan's; it must exist",
    )
    parser.add_argument(
        "--keep-data",
        action="store_true",
        help="plan runs: keep the data the plan wrote (default: removed when the plan ends)",
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


def _check_job_options(
    scheduler: str, job_name: str, partition: str | None, account: str | None
) -> None:
    if scheduler not in SCHEDULERS:
        raise RunError(f"unknown scheduler {scheduler!r}; choose one of {', '.join(SCHEDULERS)}")
    if not job_name.replace("-", "").replace("_", "").isalnum():
        raise RunError("--job-name may only hold letters, digits, '-' and '_'")
    if any(ch in (partition or "") + (account or "") for ch in " \n'\"$`;"):
        raise RunError("--partition/--account must not contain spaces or shell characters")


def _read_template(scheduler: str, template_dir: Path) -> tuple[Path, Template]:
    template_file = template_dir / f"{scheduler}.sh"
    try:
        return template_file, Template(template_file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RunError(f"cannot read template {template_file}: {exc.strerror}") from None


def layout_values(ranks: int, ppn: int | None, launcher: Launcher, local: bool) -> dict[str, str]:
    """ranks, ppn, nodes and the launch words of one launch (ppn None: all on one node)."""
    try:
        launch = launcher.argv(ranks, ppn, local=local)
    except LauncherError as exc:
        raise RunError(str(exc)) from None
    per_node = ppn if ppn is not None else ranks
    return {
        "ranks": str(ranks),
        "ppn": str(per_node),
        "nodes": str(math.ceil(ranks / per_node)),
        "launch": shlex.join(launch),
    }


def _choose_launcher(name: str | None, scheduler: str, suite: str) -> Launcher:
    try:
        return launchers.choose(name, scheduler, suite)
    except LauncherError as exc:
        raise RunError(str(exc)) from None


def _job_values(
    scheduler: str, walltime: str, job_name: str, partition: str | None, account: str | None
) -> dict[str, str]:
    return {
        "job_name": job_name,
        "walltime": walltime,
        "walltime_minutes": str(_walltime_minutes(walltime)),
        "scheduler_extra": _extra_directives(scheduler, partition, account),
    }


def _substitute(template_file: Path, template: Template | str, values: dict[str, str]) -> str:
    try:
        return (template if isinstance(template, Template) else Template(template)).substitute(
            values
        )
    except (KeyError, ValueError) as exc:
        raise RunError(f"template {template_file} is broken: {exc}") from None


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
    launcher: Launcher | None = None,
) -> str:
    """The job script; the suite gets --timestamp (now, unless suite_args carry one).
    Without `launcher`, the scheduler's own or the suite's MPI's (ioscore.launchers)."""
    _check_job_options(scheduler, job_name, partition, account)
    launcher = launcher or _choose_launcher(None, scheduler, suite)
    layout = layout_values(ranks, ppn, launcher, scheduler == "local")
    template_file, template = _read_template(scheduler, template_dir)
    config = config.resolve()
    suite_args = list(suite_args or [])
    if timestamp_of(suite_args) is None:
        suite_args += ["--timestamp", timestamp or time.strftime("%Y.%m.%d-%H.%M.%S")]
    run_dir = run_dir_of(config, timestamp_of(suite_args) or "")
    values = {
        **_job_values(scheduler, walltime, job_name, partition, account),
        **layout,
        "workdir": shlex.quote(str(config.parent)),
        "config": shlex.quote(str(config)),
        "suite": shlex.quote(suite),
        "suite_args": " ".join(shlex.quote(a) for a in suite_args),
        "resultdir": shlex.quote(result_dir_of(config)),
        "keep_job_files": Template(KEEP_JOB_FILES).substitute(run_dir=shlex.quote(run_dir)),
    }
    return _substitute(template_file, template, values)


def render_plan_script(
    scheduler: str,
    plan: Plan,
    results_root: Path,
    suite: str,
    walltime: str = "02:00:00",
    job_name: str = "ioscore",
    partition: str | None = None,
    account: str | None = None,
    template_dir: Path = TEMPLATE_DIR,
    keep_data: bool = False,
    launcher: Launcher | None = None,
) -> str:
    """One job running an acceptance plan's tests in order, each part its own launch.

    The scheduler's template supplies the job header and the launch line (the line naming
    ${suite}); every part renders that line with its program, arguments, layout and
    --resultdir RESULTS_ROOT/TEST/PART. A read part follows its write part only when the write
    succeeded, after the plan's cache-drop command (its outcome is recorded beside the read's
    results in drop_caches.txt). A failed launch does not stop the later tests; the job's
    exit status counts the failed launches.

    The plan writes only where its user said: a data directory that does not exist stops the
    job (it is not created), and the entries the plan added to it are removed when the plan
    ends unless `keep_data` (entries that were there before stay, as does a results
    directory inside it).
    """
    _check_job_options(scheduler, job_name, partition, account)
    launcher = launcher or _choose_launcher(None, scheduler, suite)
    local = scheduler == "local"
    template_file, template = _read_template(scheduler, template_dir)
    lines = template.template.splitlines()
    launch_at = [i for i, line in enumerate(lines) if "${suite}" in line]
    if len(launch_at) != 1:
        raise RunError(f"template {template_file}: expected one launch line naming ${{suite}}")
    head, launch_line, tail = lines[: launch_at[0]], lines[launch_at[0]], lines[launch_at[0] + 1 :]
    root = results_root.resolve()
    # The job asks for the largest test's nodes and ranks per node; each launch says its own.
    nodes = max(test.nodes for test in plan.tests)
    ppn = max(test.ppn for test in plan.tests)
    layout = layout_values(nodes * ppn, ppn, launcher, local)
    common = {
        **_job_values(scheduler, walltime, job_name, partition, account),
        **layout,
        "workdir": shlex.quote(plan.datadir),
        "config": shlex.quote(str(plan.path.resolve())),
        "suite": shlex.quote(suite),
        "suite_args": "",
        "resultdir": shlex.quote(str(root)),
        "keep_job_files": Template(KEEP_JOB_FILES).substitute(run_dir=shlex.quote(str(root))),
    }
    header = []
    for line in head:
        if line.startswith("cd ${workdir}"):  # the launches run in the plan's datadir
            header.append(
                "[ -d ${workdir} ] || { echo 'ioscore: ERROR: the data directory does not "
                "exist (not created; make it or give --datadir DIR):' ${workdir} >&2; exit 2; }"
            )
        header.append(line)
    datadir = Path(plan.datadir)
    before = shlex.quote(str(root / "data-before.txt"))
    body = [
        "failed=0",
        f"echo {shlex.quote(f'ioscore: plan {plan.name}: {len(plan.tests)} tests')}",
        f"ls -A > {before}  # in the data directory: what the plan finds there stays",
    ]
    if root.is_relative_to(datadir.resolve()) and root != datadir.resolve():
        inside = root.relative_to(datadir.resolve()).parts[0]
        body.append(f"echo {shlex.quote(inside)} >> {before}  # the results stay")
    for number, test in enumerate(plan.tests, 1):
        values = {**common, **layout_values(test.ranks, test.ppn, launcher, local)}
        body += ["", f"# test {number}: {test.name}", f"echo {shlex.quote(f'== test {test.name}')}"]
        body += _test_lines(test, root, launch_line, values, template_file)
    if not keep_data:
        body += [
            "",
            "# the data the plan wrote: the entries it added to the data directory",
            "ls -A | while IFS= read -r entry; do",
            f'  grep -qxF -- "$entry" {before} || rm -rf -- "./$entry"',
            "done",
            f"echo {shlex.quote(f'ioscore: removed the data the plan wrote in {plan.datadir}')}"
            " '(--keep-data keeps it)'",
        ]
    body += ["", 'echo "ioscore: plan finished: $failed launch(es) failed"']
    # Only the template's own lines are templates: plan text ($DIR, $$) goes in verbatim.
    return (
        _substitute(template_file, "\n".join(header), common)
        + "\n"
        + "\n".join(body)
        + "\n"
        + _substitute(template_file, "\n".join(tail), common)
        + '\nexit "$((failed > 0))"\n'
    )


def _test_lines(
    test: PlanTest, root: Path, launch_line: str, values: dict[str, str], template_file: Path
) -> list[str]:
    """A test's launches: each later part nested in `if` on the earlier one's success."""
    lines: list[str] = []
    depth = 0
    for index, part in enumerate(test.parts):
        part_dir = root / test.name / part.role
        args = [*part.args, "--resultdir", str(part_dir)]
        launch = _substitute(
            template_file,
            launch_line,
            {**values, "config": part.program, "suite_args": shlex.join(args)},
        ).strip()
        pad = "  " * depth
        lines += [f"{pad}mkdir -p {shlex.quote(d)}" for d in part.make_dirs]
        if part.drop_caches_before is not None:
            record = shlex.quote(str(part_dir / "drop_caches.txt"))
            lines += [
                f"{pad}mkdir -p {shlex.quote(str(part_dir))}",
                f"{pad}if {{",
                f"{pad}  {part.drop_caches_before}",
                f"{pad}}}; then",
                f"{pad}  echo {shlex.quote('dropped: ' + part.drop_caches_before)} > {record}",
                f"{pad}else",
                f"{pad}  echo {shlex.quote('FAILED: ' + part.drop_caches_before)} > {record}",
                f"{pad}  echo 'ioscore: WARNING: the cache drop failed; the read may hit caches'",
                f"{pad}fi",
            ]
        if index + 1 < len(test.parts):  # the next part reads what this one wrote
            lines.append(f"{pad}if {launch}; then")
            depth += 1
        else:
            lines.append(f"{pad}{launch} || failed=$((failed + 1))")
    for level in range(depth, 0, -1):
        pad = "  " * (level - 1)
        lines += [f"{pad}else", f"{pad}  failed=$((failed + 1))", f"{pad}fi"]
    return lines


def handle(args: argparse.Namespace) -> int:
    if args.config.suffix == ".toml":
        return handle_plan(args)
    if args.ranks is None:
        print("ioscore run: --ranks is required for an INI configuration", file=sys.stderr)
        return 2
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
            launcher=_choose_launcher(args.launcher, args.scheduler, args.suite),
        )
        run_dir = Path(run_dir_of(args.config.resolve(), timestamp))
    except (RunError, ResultFormatError) as exc:
        print(f"ioscore run: {exc}", file=sys.stderr)
        return 2
    if _show(args, script):
        return 0
    return execute(args.scheduler, script, run_dir)


def _show(args: argparse.Namespace, script: str) -> bool:
    """--script-out and --dry-run; True when the script must only be shown."""
    if args.script_out:
        args.script_out.write_text(script, encoding="utf-8")
    if args.dry_run:
        print(script, end="")
    return bool(args.dry_run)


def execute(scheduler: str, script: str, run_dir: Path) -> int:
    """Write job.sh into run_dir and run it (local) or submit it; one line on any problem."""
    command = ["bash"] if scheduler == "local" else SUBMIT_COMMANDS[scheduler]
    if shutil.which(command[0]) is None:
        print(
            f"ioscore run: {command[0]} not found: is {scheduler} available here? "
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
    if scheduler == "local":
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


def _overrides(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise PlanError(f"--var {pair!r}: expected NAME=VALUE")
        out[name] = value
    return out


def handle_plan(args: argparse.Namespace) -> int:
    """`ioscore run PLAN.toml`: the plan's tests as one job; results in one directory."""
    if args.ranks is not None or args.ppn is not None or args.suite_args:
        print(
            "ioscore run: --ranks/--ppn/--suite-arg do not apply to a plan "
            "(its [layout] and command lines say them)",
            file=sys.stderr,
        )
        return 2
    try:
        overrides = _overrides(args.var)
        if args.datadir is not None:
            overrides["datadir"] = str(args.datadir.absolute())
        plan = load_plan(args.config, overrides)
        if args.scheduler == "local" and not args.dry_run and not Path(plan.datadir).is_dir():
            raise PlanError(
                f"the data directory {plan.datadir} does not exist: it is not created "
                "(make it, or give --datadir DIR)"
            )
        if args.layout:
            _relayout(plan, args.layout)
        stamp = time.strftime("%Y.%m.%d-%H.%M.%S")
        default = f"acceptance-{_slug(plan.name)}-{stamp}"
        root = args.results or Path(plan.results or default)
        if not root.is_absolute():
            base = Path.cwd() if args.results or not plan.results else plan.path.parent
            root = base / root
        script = render_plan_script(
            args.scheduler,
            plan,
            root,
            args.suite,
            args.walltime,
            args.job_name,
            args.partition,
            args.account,
            keep_data=args.keep_data,
            launcher=_choose_launcher(args.launcher, args.scheduler, args.suite),
        )
    except (RunError, PlanError) as exc:
        print(f"ioscore run: {exc}", file=sys.stderr)
        return 2
    if _show(args, script):
        return 0
    try:
        root.mkdir(parents=True, exist_ok=True)
        plan_json = root / "plan.json"
        if not plan_json.exists():
            plan_json.write_text(json.dumps(plan.to_dict(), indent=2) + "\n", encoding="utf-8")
            shutil.copyfile(plan.path, root / "plan.toml")
    except OSError as exc:
        print(f"ioscore run: cannot write into {root}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return execute(args.scheduler, script, root)


def _relayout(plan: Plan, layout: str) -> None:
    nodes, sep, ppn = layout.lower().partition("x")
    if not sep or not nodes.isdigit() or not ppn.isdigit() or int(nodes) < 1 or int(ppn) < 1:
        raise PlanError(f"--layout {layout!r}: expected NODESxPPN, e.g. 2x64")
    plan.nodes, plan.ppn = int(nodes), int(ppn)
    for test in plan.tests:
        test.nodes, test.ppn = plan.nodes, plan.ppn


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)[:64].strip("-")
