"""Acceptance plans end to end: validation, job scripts, a real local run on 2 ranks
on /dev/shm (ulimit -f), the report's pass/fail, and `ioscore size` with a real probe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ioscore.launchers import program_of
from ioscore.results import SCORED_PHASES
from tests.fixtures.acceptance_suite import SUITE, require_suite, scratch
from tests.suite.suite_helpers import FILE_LIMIT_KIB, MPI_ENV

PLAN = """\
name = "tiny local"
datadir = "{data}"
drop_caches = "sync"

[layout]
nodes = 1
ppn = 2

[vars]
block = "1m"
segments = 4

[[test]]
name = "fpp"
command = "ior -F -C -e -g -b ${{block}} -t 256k -s ${{segments}} -w -r -k -i 2 -o $DIR/IOR_file"
launch = "separate"
targets = ["write >= 1 MiB/s", "read >= 1000 TB/s"]

[[test]]
name = "md"
command = "mdtest -n 30 -F -u -i 2 -d $DIR/md"
targets = ["creates >= 1/s"]
"""


def cli(
    *args: str, cwd: Path | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """`ioscore ARGS` with every process under ulimit -f (the suite's launches inherit it)."""
    command = f'ulimit -f {FILE_LIMIT_KIB} && exec "$0" -m ioscore.cli "$@"'
    return subprocess.run(
        ["bash", "-c", command, sys.executable, *args],
        capture_output=True,
        text=True,
        env=MPI_ENV,
        cwd=cwd,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@contextmanager
def plan_results(prefix: str, plan_text: str) -> Iterator[Path]:
    """The results directory of `ioscore run PLAN` for ``plan_text`` (its ``{data}`` a scratch
    data directory), run with the suite under test."""
    require_suite()
    with scratch(prefix) as root:
        plan = root / "plan.toml"
        plan.write_text(plan_text.format(data=root / "data"))
        (root / "data").mkdir()
        done = cli("run", str(plan), "--results", str(root / "results"), "--suite", str(SUITE))
        assert done.returncode == 0, done.stdout + done.stderr
        yield root / "results"


def write_plan(root: Path, text: str | None = None) -> Path:
    plan = root / "plan.toml"
    plan.write_text(text if text is not None else PLAN.format(data=root / "data"))
    return plan


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("1000 TB/s", "1000 tb/s"), r"plan.toml:17: test\[1\]\.targets\[2\]: .*unknown unit"),
        (("${segments}", "${segs}"), r"plan.toml:15: test\[1\]\.command: unknown variable \$segs"),
        (('launch = "separate"', 'launch = "twice"'), r"plan.toml:16: test\[1\]\.launch"),
        (("ppn = 2", "ppn = 0"), r"plan.toml:\d+: ppn: expected a whole number"),
        (("mdtest -n 30", "fio -n 30"), r"test\[2\]\.command: .*start with ior, IOR or mdtest"),
        (('"creates >= 1/s"', '"write >= 1/s"'), r"write is not an operation of mdtest"),
        (('[[test]]\nname = "md"', '[[test]]\nname = "fpp"'), r"used twice"),
        (("-o $DIR", "--resultdir x -o $DIR"), r"--resultdir: set by `ioscore run`"),
        (("nodes = 1", "nodes = [1"), r"not valid TOML"),
        # a target no launch of the test can produce results for is refused, not left waiting
        (
            ('"read >= 1000 TB/s"', '"reread >= 1 MiB/s"'),
            r"targets\[2\]: 'reread >= 1 MiB/s': no reread results: .* set the target on 'read'",
        ),
        (
            ('"read >= 1000 TB/s"', '"readback >= 1 MiB/s"'),
            r"no readback results: the test's launches run read, write only",
        ),
    ],
)
def test_plan_errors_name_line_and_field(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    text = PLAN.format(data=tmp_path / "data")
    assert edit[0] in text
    plan = write_plan(tmp_path, text.replace(edit[0], edit[1], 1))
    done = cli("run", str(plan), "--dry-run")
    assert done.returncode == 2, done.stdout
    assert re.search(message, done.stderr), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("scheduler", "options", "launch"),
    [
        ("slurm", [], "srun --nodes=1 --ntasks=2 --ntasks-per-node=2 ioscore-suite ior"),
        ("pbs", ["--launcher", "mpich"], "{mpich} -n 2 -ppn 2 ioscore-suite ior"),
        ("flux", [], "flux run -N 1 -n 2 --tasks-per-node=2 ioscore-suite ior"),
        ("local", ["--launcher", "openmpi"], "{openmpi} --oversubscribe"),
    ],
)
def test_dry_run_is_one_job_with_separate_launches(
    tmp_path: Path, scheduler: str, options: list[str], launch: str
) -> None:
    plan = write_plan(tmp_path)
    done = cli("run", str(plan), "--scheduler", scheduler, *options, "--dry-run", "--results", "/r")
    assert done.returncode == 0, done.stderr
    script = done.stdout
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    launcher = launch.format(mpich=program_of("mpich"), openmpi=program_of("openmpi"))
    assert launcher in script
    launches = [line.strip() for line in script.splitlines() if "--resultdir" in line]
    dirs = [re.search(r"--resultdir (/r/\w+/\w+)", line) for line in launches]
    assert [m.group(1) for m in dirs if m] == ["/r/fpp/write", "/r/fpp/read", "/r/md/run"]
    write, read = launches[0], launches[1]
    # the write keeps its files, the read reads them with the writer's signature
    assert " -w " in write and " -k " in write and " -r " not in write
    assert " -r " in read and " -w " not in read
    signature = re.search(r"-G (\d+)", write).group(1)  # type: ignore[union-attr]
    assert f"-G {signature}" in read
    # the read runs only if the write succeeded, after the cache drop
    body = script[script.index(write) :]
    assert body.index("sync") < body.index(read)
    assert "drop_caches.txt" in body


def test_local_plan_runs_and_reports(tmp_path: Path) -> None:
    require_suite()
    with scratch("ioscore-acc-plan-") as root:
        plan = write_plan(root)
        (root / "data").mkdir()  # a plan never creates its data directory
        results = root / "results"
        done = cli("run", str(plan), "--results", str(results), "--suite", str(SUITE))
        assert done.returncode == 0, done.stdout + done.stderr
        assert (results / "plan.json").is_file() and (results / "job.sh").is_file()
        assert "plan finished: 0 launch(es) failed" in (results / "job.out").read_text()
        for part in ("fpp/write", "fpp/read", "md/run"):
            assert (results / part / "result.json").is_file(), part
        assert (results / "fpp/read/drop_caches.txt").read_text().startswith("dropped: sync")

        report = cli("report", str(results), "--json")
        assert report.returncode == 1, report.stderr  # one target fails
        doc = json.loads(report.stdout)
        assert doc["targets"] == 3 and doc["failed"] == 1
        tests = {t["id"]: t for t in doc["tests"]}
        assert list(tests) == ["fpp", "md"]  # plan order
        verdicts = {o["target"]["text"]: o["passed"] for o in tests["fpp"]["targets"]}
        assert verdicts == {"write >= 1 MiB/s": True, "read >= 1000 TB/s": False}
        read = next(o for o in tests["fpp"]["targets"] if not o["passed"])
        assert read["message"].startswith("FAIL: read >= 1000 TB/s: mean ")
        assert read["stats"]["n"] == 2
        ops = {o["key"]: o for o in tests["fpp"]["operations"]}
        assert ops["write"]["part"] == "write" and ops["read"]["part"] == "read"
        assert "cache drop dropped: sync" in ops["read"]["measured"]
        assert tests["md"]["passed"] and tests["md"]["targets"][0]["stats"]["n"] == 2

        html = (results / "report.html").read_text()
        # plotly.js inline once, no external script
        assert "<script src=" not in html and html.count("Plotly.newPlot") >= 3
        assert '<span class="FAIL">FAIL</span> fpp' in html
        assert "read &gt;= 1000 TB/s" in html and "What each number measured" in html

        text = cli("report", str(results))
        assert text.returncode == 1
        assert "FAIL fpp" in text.stdout and "PASS md" in text.stdout
        assert "2 of 3 targets pass" in text.stdout


def test_size_probes_and_writes_the_plan(tmp_path: Path) -> None:
    require_suite()
    with scratch("ioscore-acc-size-") as root:
        plan = write_plan(root)
        done = cli(
            "size",
            "--probe-dir",
            str(root),
            "--probe-seconds",
            "1",
            "--probe-block",
            "32m",
            "--probe-files",
            "500",
            "--ram",
            "8m",
            "--seconds",
            "1",
            "--suite",
            str(SUITE),
            "--plan",
            str(plan),
            "--test",
            "fpp",
            "--json",
        )
        assert done.returncode == 0, done.stderr
        proposal = json.loads(done.stdout)
        assert (
            proposal["probe_write_bw_per_node"] > 0 and proposal["probe_create_rate_per_rank"] > 0
        )
        ior = proposal["ior"]
        # at least 3 x 8 MiB per node over 2 ranks, whole 1 MiB transfers
        assert ior["data_per_node"] >= 24 << 20 and ior["data_per_node"] % (2 << 20) == 0
        text = plan.read_text()
        assert f'block = "{ior["block"]}"' in text and 'segments = "1"' in text
        assert "-t 1m" in text
        assert sorted(p.name for p in root.iterdir()) == ["plan.toml"]  # probe data removed
        done = cli("size", "--from", str(root / "nothing"), "--ram", "8m")
        assert done.returncode == 2 and "cannot read" in done.stderr


def test_a_larger_test_sizes_the_job_and_launches_its_own_layout(tmp_path: Path) -> None:
    text = PLAN.format(data=tmp_path / "data").replace(
        'name = "md"\n', 'name = "md"\nnodes = 4\nppn = 8\n'
    )
    plan = write_plan(tmp_path, text)
    done = cli("run", str(plan), "--scheduler", "slurm", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "#SBATCH --nodes=4" in done.stdout and "#SBATCH --ntasks-per-node=8" in done.stdout
    assert "srun --nodes=1 --ntasks=2 --ntasks-per-node=2 ioscore-suite ior" in done.stdout
    assert "srun --nodes=4 --ntasks=32 --ntasks-per-node=8 ioscore-suite mdtest" in done.stdout
    relaid = cli("run", str(plan), "--scheduler", "slurm", "--dry-run", "--layout", "1x3")
    assert (
        "#SBATCH --nodes=1" in relaid.stdout and "--ntasks=3 --ntasks-per-node=3" in relaid.stdout
    )
    bad = cli("run", str(plan), "--dry-run", "--layout", "3")
    assert bad.returncode == 2 and "expected NODESxPPN" in bad.stderr


def test_a_test_that_did_not_run_fails_its_targets(tmp_path: Path) -> None:
    require_suite()
    with scratch("ioscore-acc-broken-") as root:
        text = PLAN.format(data=root / "data").replace("mdtest -n 30", "mdtest -n 30 -Z")
        plan = write_plan(root, text)
        (root / "data").mkdir()
        results = root / "results"
        done = cli("run", str(plan), "--results", str(results), "--suite", str(SUITE))
        assert done.returncode == 1  # the job says a launch failed ...
        assert "not supported: -Z" in done.stdout + done.stderr  # ... and the suite why
        assert "plan finished: 1 launch(es) failed" in (results / "job.out").read_text()
        report = cli("report", str(results), "--json")
        assert report.returncode == 1
        md = json.loads(report.stdout)["tests"][1]
        assert md["id"] == "md" and md["launches"] == [] and not md["passed"]
        assert md["targets"][0]["message"].startswith(
            "FAIL: creates >= 1/s: the test has no file-write results"
        )


def test_report_refuses_a_broken_result_clearly(tmp_path: Path) -> None:
    (tmp_path / "t" / "run").mkdir(parents=True)
    (tmp_path / "t" / "run" / "result.json").write_text('{"schema": "ioscore-result/1", "mode"')
    done = cli("report", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "result.json" in done.stderr and "invalid JSON" in done.stderr


def test_an_aborted_launch_is_named_and_the_rest_reported(tmp_path: Path) -> None:
    require_suite()
    with scratch("ioscore-acc-aborted-") as root:
        plan = write_plan(root)
        (root / "data").mkdir()
        results = root / "results"
        assert (
            cli("run", str(plan), "--results", str(results), "--suite", str(SUITE)).returncode == 0
        )
        read = results / "fpp" / "read" / "result.json"
        doc = json.loads(read.read_text())
        doc.update(finished=False, aborted=True)  # what the suite leaves after an I/O error
        read.write_text(json.dumps(doc))
        report = cli("report", str(results), "--json")
        assert report.returncode == 1
        out = json.loads(report.stdout)
        assert out["unreadable"] == [
            {"path": str(read), "reason": "truncated: the launch aborted by an I/O error"}
        ]
        fpp = out["tests"][0]
        assert [launch["role"] for launch in fpp["launches"]] == ["write"]
        verdicts = {t["target"]["text"]: t["passed"] for t in fpp["targets"]}
        assert verdicts == {"write >= 1 MiB/s": True, "read >= 1000 TB/s": False}
        text = cli("report", str(results))
        assert f"left out, unreadable: {read}: truncated" in text.stdout


def test_size_updates_literals_variables_and_refuses_patterns(tmp_path: Path) -> None:
    from ioscore.acceptance.plan import PlanError, load_plan, update_test_options

    text = (
        PLAN.format(data=tmp_path / "data")
        + '\n[[test]]\nname = "easy"\npattern = "ior-easy-write"\n'
    )
    plan = write_plan(tmp_path, text)
    update_test_options(plan, "fpp", {"-b": "12g", "-t": "1m"})
    update_test_options(plan, "md", {"-n": "5000"})
    loaded = {t.name: t for t in load_plan(plan).tests}
    write = loaded["fpp"].parts[0].args
    assert write[write.index("-b") + 1] == "12g" and write[write.index("-t") + 1] == "1m"
    assert 'block = "12g"' in plan.read_text()  # -b was ${block}: the variable changed
    assert loaded["md"].parts[0].args[:2] == ("-n", "5000")
    with pytest.raises(PlanError, match="is a pattern"):
        update_test_options(plan, "easy", {"-b": "1g"})
    with pytest.raises(PlanError, match="-e has no value to set"):
        update_test_options(plan, "fpp", {"-e": "x"})
    with pytest.raises(PlanError, match="no test named 'nope'"):
        update_test_options(plan, "nope", {"-n": "1"})


# IO500's phase order without the find, then the extended random read (pattern names).
IO500_ORDER = (*(p for p in SCORED_PHASES if p != "find"), "ior-rnd4k-read")


def test_every_io500_pattern_runs_in_io500_order(tmp_path: Path) -> None:
    from ioscore.acceptance.plan import PATTERNS

    assert sorted(IO500_ORDER) == sorted(PATTERNS)
    require_suite()
    with scratch("ioscore-acc-patterns-") as root:
        text = (
            f'name = "io500 patterns"\ndatadir = "{root / "data"}"\n[layout]\nnodes = 1\n'
            'ppn = 2\n[vars]\nblock = "8m"\nsegments = 20\nfiles = 50\nstonewall = 1\n'
        )
        text += "".join(f'[[test]]\nname = "{p}"\npattern = "{p}"\n' for p in IO500_ORDER)
        plan = write_plan(root, text)
        (root / "data").mkdir()
        done = cli("run", str(plan), "--results", str(root / "results"), "--suite", str(SUITE))
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        # the reads verify what the writes wrote (one signature, -G, for all IOR patterns)
        assert "incorrect data" not in done.stdout + done.stderr
        report = cli("report", str(root / "results"), "--json")
        doc = json.loads(report.stdout)
        assert [t["id"] for t in doc["tests"]] == list(IO500_ORDER)
        for test in doc["tests"]:
            assert test["valid"] and all(op["valid"] for op in test["operations"]), test["id"]
        easy_read = {op["key"] for op in doc["tests"][4]["operations"]}
        assert easy_read == {"read"}  # -r -R: one read, verified inside its timing (IOR)
