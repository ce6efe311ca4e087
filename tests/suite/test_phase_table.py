"""The suite's phase table is the one source of a phase's facts, and it agrees with the library.

`ioscore-suite --list` prints every standard phase with its score group, unit, metric, access
and the INI sections it reads; these must equal `ioscore.results.model`'s phase facts (the
Python side scores and validates what the suite writes). A real run must then report exactly
those facts (result.json, result_summary.txt), and the phases' own cleanup hooks must leave
nothing behind whatever ior-easy layout ran.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from suite_helpers import (
    MPI,
    MPI_ENV,
    STANDARD_PHASES,
    SUITE_BIN,
    Workspace,
    only_result_dir,
    run_helper,
    run_suite,
    small_ini,
)
from test_acceptance_mdtest import LABELS  # mdtest's name of each (object, operation)

from ioscore.results import model

# The model documents the unit of each score group (ScoreGroup: "bw" GiB/s, "md" kIOPS).
UNIT_OF_GROUP = {model.ScoreGroup.BW.value: "GiB/s", model.ScoreGroup.MD.value: "kIOPS"}

PHASE_LINE = re.compile(
    r"^;   (?P<name>\S+)\s+group=(?P<group>\S+)\s+unit=(?P<unit>\S+)\s+"
    r"metric=(?P<metric>\S+)\s+access=(?P<access>\S+)$"
)
SECTION_LINE = re.compile(r"^;     \[(?P<section>[^\]]+)\](?P<keys>.*)$")


@dataclass
class ListedPhase:
    name: str
    group: str
    unit: str
    metric: str
    access: str
    sections: dict[str, list[str]]  # INI section -> keys it lists


def listing() -> str:
    proc = run_helper("--list")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def listed_phases(text: str) -> list[ListedPhase]:
    """The phase block of --list, in the order printed."""
    block = text.split("; phases of the standard run", 1)[1].split("\n\n", 1)[0]
    phases: list[ListedPhase] = []
    for line in block.splitlines()[1:]:
        if m := PHASE_LINE.match(line):
            phases.append(ListedPhase(**m.groupdict(), sections={}))
        elif m := SECTION_LINE.match(line):
            phases[-1].sections[m["section"]] = m["keys"].split()
    return phases


def config_sections(text: str) -> dict[str, list[str]]:
    """The INI part of --list: section -> its keys (current and historical)."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if m := re.match(r"^\[([^\]]+)\]", line):
            current = sections.setdefault(m[1], [])
        elif current is not None and (m := re.match(r"^  (\S+)\s", line)):
            current.append(m[1])
    return sections


@pytest.fixture(scope="module")
def phases(suite_bin: Path) -> list[ListedPhase]:
    return listed_phases(listing())


def test_list_phases_are_the_standard_run_in_order(phases: list[ListedPhase]) -> None:
    assert tuple(p.name for p in phases) == STANDARD_PHASES


def test_list_phases_equal_the_library_model(phases: list[ListedPhase]) -> None:
    scored = [p for p in phases if p.group != model.ScoreGroup.NONE.value]
    assert tuple(p.name for p in scored) == model.SCORED_PHASES
    assert tuple(p.name for p in scored if p.group == "bw") == model.BW_PHASES
    assert tuple(p.name for p in scored if p.group == "md") == model.MD_PHASES
    assert tuple(p.name for p in scored if p.access == "write") == model.WRITE_PHASES
    for p in scored:
        assert p.unit == UNIT_OF_GROUP[p.group], p
        # bandwidth phases are scored by bytes, metadata phases by items (find: its own rate)
        assert p.metric == ("bw" if p.group == "bw" else "custom" if p.name == "find" else "md")
    unscored = {p.name: p for p in phases if p not in scored}
    assert set(unscored) == {"timestamp", "ior-rnd4K-easy-read"}
    assert unscored["ior-rnd4K-easy-read"].unit == "GiB/s"
    assert unscored["timestamp"].metric == "none"


def test_list_phase_options_are_its_ini_sections(phases: list[ListedPhase]) -> None:
    sections = config_sections(listing())
    for p in phases:
        assert p.name in p.sections, p  # every phase reads its own section
        for section, keys in p.sections.items():
            assert (
                section == p.name
                or section == p.name.rsplit("-", 1)[0]
                or (p.name == "ior-rnd4K-easy-read" and section == "ior-easy")
            ), (p.name, section)
            assert set(keys) <= set(sections[section]), (section, keys)


def test_list_backends_publish_their_options(suite_bin: Path) -> None:
    text = listing()
    block = text.split("; backends of this build", 1)[1].split("; backends and options", 1)[0]
    backends: dict[str, list[str]] = {}
    for line in block.splitlines()[1:]:
        if m := re.match(r"^;   (\S+)$", line):
            backends[m[1]] = []
        elif m := re.match(r"^;     (\S+)\s+(.*)$", line):
            backends[list(backends)[-1]].append(m[0])
    version = subprocess.run(
        [str(suite_bin), "--version"], capture_output=True, text=True, check=True
    ).stdout
    with_uring = "io_uring: yes" in version  # an optional backend: built when liburing is found
    assert set(backends) == {"POSIX", "MPIIO", "DUMMY"} | ({"IOURING"} if with_uring else set())
    if with_uring:
        assert any("--iouring.depth=N" in line for line in backends["IOURING"])
    assert any("--posix.odirect" in line for line in backends["POSIX"])
    # the INI key IO500 turns into the option is the option table's, not the registry's
    assert any(
        "--mpiio.hintsFileName=FILE" in line and "INI key hintsFileName" in line
        for line in backends["MPIIO"]
    )
    assert backends["DUMMY"] == []


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with tempfile.TemporaryDirectory(prefix="ioscore-phase-table-", dir="/dev/shm") as tmp:
        root = Path(tmp)
        yield Workspace(root, root / "data", root / "results", root / "config.ini")


@pytest.mark.mpi
@pytest.mark.parametrize(
    "ior_easy", ["", "uniqueDir = TRUE\n", "filePerProc = FALSE\n"], ids=["fpp", "unique", "shared"]
)
def test_run_reports_the_table_facts_and_cleans_up(
    suite_bin: Path, phases: list[ListedPhase], ws: Workspace, ior_easy: str
) -> None:
    ini = ws.write_ini(small_ini(ws, ior_easy=ior_easy))
    run_suite(2, str(ini), "--timestamp", "facts", "-q", check=True, timeout=120)
    resdir = only_result_dir(ws)
    doc = json.loads((resdir / "result.json").read_text())
    facts = {p.name: p for p in phases}
    assert [p["name"] for p in doc["phases"]] == list(STANDARD_PHASES)
    for phase in doc["phases"]:
        assert phase["unit"] == facts[phase["name"]].unit
        assert phase["group"] == facts[phase["name"]].group
    summary = (resdir / "result_summary.txt").read_text()
    for p in phases:
        assert re.search(rf"\s{re.escape(p.name)}\s+\S+ {re.escape(p.unit)} : time ", summary), p
    # every phase's cleanup ran: the data directory and the status files are gone
    assert not (ws.data / "facts").exists(), sorted((ws.data / "facts").rglob("*"))
    assert not list(resdir.glob("*.stonewall"))


@pytest.mark.mpi
def test_mdtest_subcommand_csv_column_is_the_phase_operation(suite_bin: Path) -> None:
    """The subcommand's run-time phases fill the CSV column of the operation they measure."""
    with tempfile.TemporaryDirectory(prefix="ioscore-phase-table-", dir="/dev/shm") as tmp:
        cwd = Path(tmp)
        args = ["-n", "20", "-z", "1", "-b", "2", "-w", "8", "-e", "8", "-d", "out"]
        args += ["--resultdir", "res"]
        proc = subprocess.run(
            [*MPI.launch(2), str(SUITE_BIN), "mdtest", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=MPI_ENV,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        doc = json.loads((cwd / "res" / "result.json").read_text())
        seen = set()
        for phase in doc["phases"]:
            what, op = phase["name"].split("-")[1:3]
            lines = (cwd / "res" / f"{phase['name']}.csv").read_text().splitlines()
            header, all_row = lines[0].split(","), lines[1].split(",")
            filled = [header[i] for i in range(2, len(header)) if all_row[i]]
            assert filled == [f"rate-{LABELS[what, op]}", f"time-{LABELS[what, op]}"], phase
            seen.add((what, op))
        assert seen == set(LABELS)
