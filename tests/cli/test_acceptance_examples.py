"""The example plans in examples/acceptance/: their command lines are the published ones of
../shared/data/acceptance-commands.md (at the default sizes), their job scripts are valid
bash for every scheduler, and each runs locally scaled down (--layout 1x2, sizes through
--var) under mpirun on /dev/shm with ulimit -f, and is reported."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from ioscore.acceptance.plan import load_plan
from tests.cli.test_acceptance_plan import cli
from tests.fixtures.acceptance_suite import SUITE, require_suite, scratch

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "acceptance"
COMMANDS_MD = REPO.parent / "shared" / "data" / "acceptance-commands.md"
# Variables that make each example a few seconds on /dev/shm (sizes and durations only).
TINY = {
    "nersc-cori-lustre.toml": ["segments=2", "shared_segments=1", "files=10", "drop=sync"],
    "nersc-perlmutter-flash.toml": [
        "write_s=1",
        "dataset_s=1",
        "read_s=1",
        "segments=32",
        "rnd_block=4m",
        "drop=sync",
    ],
    "lustre-dne-mdtest.toml": [
        "files_dne1=5",
        "files_dne2=10",
        "files_purge=14",
        "depth=2",
        "branch=2",
    ],
}


def published_lines() -> set[str]:
    if not COMMANDS_MD.is_file():
        pytest.skip(f"{COMMANDS_MD} absent (shared data not mounted)")
    lines = set()
    for raw in COMMANDS_MD.read_text().splitlines():
        text = raw.split(" #", 1)[0].strip()
        if text.startswith(("ior ", "IOR ", "mdtest ")):
            lines.add(" ".join(text.split()))
    return lines


def test_every_example_is_covered() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.toml")) == sorted(TINY)


@pytest.mark.parametrize("example", sorted(TINY))
def test_example_commands_are_the_published_ones(example: str) -> None:
    published = published_lines()
    plan = load_plan(EXAMPLES / example, {"datadir": "$DIR"})
    for test in plan.tests:
        for part in test.parts:
            # without the runner's shared signature and shell quoting
            line = re.sub(r" -G \d+$", "", part.command_line).replace("'", "")
            # Cori's read is published as "the write line, -r for -w, as a separate launch"
            as_written = line.replace("ior -r ", "ior -w ", 1) if part.role == "read" else line
            assert line in published or as_written in published, f"{test.name}/{part.role}"


@pytest.mark.parametrize("example", sorted(TINY))
@pytest.mark.parametrize("scheduler", ["slurm", "pbs", "flux", "local"])
def test_example_job_scripts_are_valid_bash(example: str, scheduler: str) -> None:
    done = cli("run", str(EXAMPLES / example), "--scheduler", scheduler, "--dry-run")
    assert done.returncode == 0, done.stderr
    check = subprocess.run(["bash", "-n"], input=done.stdout, text=True, capture_output=True)
    assert check.returncode == 0, check.stderr
    plan = load_plan(EXAMPLES / example)
    parts = sum(len(test.parts) for test in plan.tests)
    assert done.stdout.count("--resultdir") == parts


@pytest.mark.parametrize("example", sorted(TINY))
def test_example_runs_scaled_down_and_reports(example: str) -> None:
    require_suite()
    with scratch("ioscore-acc-example-") as root:
        (root / "data").mkdir()
        # the DNE line spreads over 5 directories: mdtest needs at least one task for each
        layout = "1x5" if example == "lustre-dne-mdtest.toml" else "1x2"
        args = ["run", str(EXAMPLES / example), "--layout", layout, "--suite", str(SUITE)]
        args += ["--results", str(root / "results"), "--var", f"datadir={root / 'data'}"]
        for pair in TINY[example]:
            args += ["--var", pair]
        done = cli(*args)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        report = cli("report", str(root / "results"), "--json")
        assert report.returncode in (0, 1), report.stderr  # 1: a target (for real systems) fails
        doc = json.loads(report.stdout)
        plan = load_plan(EXAMPLES / example)
        assert [t["id"] for t in doc["tests"]] == [t.name for t in plan.tests]
        for test, planned in zip(doc["tests"], plan.tests, strict=True):
            assert [launch["role"] for launch in test["launches"]] == [
                p.role for p in planned.parts
            ]
            assert len(test["targets"]) == len(planned.targets)
            assert all(t["stats"] and t["stats"]["n"] >= 1 for t in test["targets"])
            assert all(op["valid"] for op in test["operations"]), test["id"]


def test_a_plan_never_writes_where_its_user_did_not_say() -> None:
    """Tried as a new user would: the Perlmutter example names /pscratch/acceptance, which does
    not exist here; the run is refused with that path and nothing is created. With --datadir
    (sizes shortened) it runs there and leaves only what was there before; --keep-data keeps
    what it wrote."""
    require_suite()
    example = str(EXAMPLES / "nersc-perlmutter-flash.toml")
    if Path("/pscratch/acceptance").exists():
        pytest.skip("/pscratch/acceptance exists on this machine")
    with scratch("ioscore-acc-datadir-") as root:
        base = ["run", example, "--scheduler", "local", "--layout", "1x2", "--suite", str(SUITE)]
        refused = cli(*base, "--results", str(root / "r0"))
        assert refused.returncode == 2
        assert "/pscratch/acceptance does not exist" in refused.stderr
        assert not Path("/pscratch").exists() and not (root / "r0").exists()
        data = root / "data"
        data.mkdir()
        (data / "mine.txt").write_text("the user's")
        tiny = [a for pair in TINY["nersc-perlmutter-flash.toml"] for a in ("--var", pair)]
        done = cli(*base, *tiny, "--datadir", str(data), "--results", str(root / "r1"))
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert sorted(p.name for p in data.iterdir()) == ["mine.txt"]
        assert (root / "r1" / "seq-read-30s" / "read" / "result.json").is_file()
        kept = cli(
            *base, *tiny, "--datadir", str(data), "--keep-data", "--results", str(root / "r3")
        )
        assert kept.returncode == 0
        assert any(p.name.startswith("IOR-") for p in data.iterdir())
        assert (data / "mine.txt").read_text() == "the user's"
