"""The acceptance report of a real plan run under `mpirun -np 4`: rendered offline in headless
Chromium with its charts, and the multimodality hint naming the slow group's hosts when two
ranks of a real launch are made slow (their recorded loop end moved later)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.acceptance.modality import operation_hints
from ioscore.acceptance.results import load_test
from tests.cli.test_acceptance_plan import cli, plan_results
from tests.cli.test_report_command import CHROMIUM, _render

PLAN = """\
name = "four ranks"
datadir = "{data}"

[layout]
nodes = 1
ppn = 4

[[test]]
name = "shared-mpiio"
command = "ior -a MPIIO -c -C -g -b 512k -t 256k -s 2 -w -r -k -i 3 -o $DIR/IOR_file"
targets = ["write >= 1 MiB/s", "read >= 1 MiB/s", "write >= 1 IOPS"]

[[test]]
name = "mdtest-tree"
command = "mdtest -n 20 -F -C -T -r -u -z 2 -b 2 -d $DIR/tree"
launch = "separate"
targets = ["creates >= 1/s", "removals >= 1/s"]
"""


@pytest.fixture(scope="module")
def results() -> Iterator[Path]:
    with plan_results("ioscore-acc-report-", PLAN) as path:
        yield path


def test_report_passes_with_four_ranks(results: Path) -> None:
    done = cli("report", str(results), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert doc["targets"] == 5 and doc["failed"] == 0
    shared, tree = doc["tests"]
    assert [launch["procs"] for launch in shared["launches"]] == [4]
    ops = {o["key"]: o for o in shared["operations"]}
    assert ops["write"]["stats"]["n"] == 3 and ops["read"]["stats"]["n"] == 3
    assert [launch["role"] for launch in tree["launches"]] == ["create", "remove"]
    keys = [o["key"] for o in tree["operations"]]
    assert "file-write" in keys and "file-delete" in keys


def test_report_renders_offline_in_chromium(results: Path, tmp_path: Path) -> None:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing (Debian package chromium)")
    target = tmp_path / "report.html"
    assert cli("report", str(results), "--html", str(target)).returncode == 0
    rendered = _render(target, tmp_path / "shot.png")
    assert rendered["blocked"] == []
    titles = [c["title"] for c in rendered["charts"]]
    assert any(t.startswith("Aggregate bandwidth over time") for t in titles)
    assert any(t.startswith("Aggregate metadata rate over time") for t in titles)
    for phase in ("ior-write-0", "ior-read-2"):
        chart = next(c for c in rendered["charts"] if c["title"].startswith(f"{phase}: work rate"))
        assert chart["points"] == [4]


def test_multimodality_hint_names_the_slow_hosts(results: Path, tmp_path: Path) -> None:
    source = results / "shared-mpiio" / "run"
    copy = tmp_path / "slow"
    shutil.copytree(source, copy)
    doc = json.loads((copy / "result.json").read_text())
    doc["hosts"] = ["n12", "n13"]
    for phase in doc["phases"]:
        for rank in phase["ranks"]:
            rank["host"] = "n12" if rank["rank"] < 2 else "n13"
            if rank["rank"] >= 2 and phase["name"].startswith("ior-write"):
                busy = rank["first_done"] - rank["start"]
                rank["first_done"] = rank["start"] + 10 * busy  # a tenth of the rate
    (copy / "result.json").write_text(json.dumps(doc))
    test = load_test([copy])
    write_hints = operation_hints(test.operations["write"])
    assert len(write_hints) >= 1
    hint = write_hints[0]
    assert hint.over == "ranks" and hint.low_members == ("2", "3") and hint.hosts == ("n13",)
    assert hint.text.startswith("per-rank write rates form two groups: 2 ranks at ~")
    assert hint.text.endswith("(hosts n13)")
