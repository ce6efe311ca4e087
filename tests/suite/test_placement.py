"""Placement of ranks on hosts (src/core/placement.c): node count, ranks on rank 0's
node, block mapping and the benchmark shifts, the host lists of result.json, and whether a
shift crosses nodes, for simulated block (--simulate-ppn) and round-robin (--simulate-nodes)
placements. No rank holds a table of every rank's host any more, so these facts come from
communicator splits, reductions and neighbour exchanges; the tests pin what they must equal."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from suite_helpers import (
    MPI,
    MPI_ENV,
    Workspace,
    limited_suite,
    only_result_dir,
    run_subcommand,
    run_suite,
)

pytestmark = pytest.mark.mpi


def dry_run_placement(ws: Workspace, np: int, *args: str) -> tuple[int, int, int, int]:
    """(nodes, ranks on node 0, IOR shift, mdtest shift) as the dry run prints them."""
    ini = ws.write_ini(f"[global]\ndatadir = {ws.data}\nresultdir = {ws.results}\n")
    out = run_suite(np, str(ini), "--dry-run", *args, check=True).stdout
    m = re.search(
        r"procs (\d+), nodes (\d+), ranks on node 0: (\d+), IOR shift (\d+), mdtest shift (\d+)",
        out,
    )
    assert m, out
    assert int(m[1]) == np
    return int(m[2]), int(m[3]), int(m[4]), int(m[5])


@pytest.mark.parametrize(
    ("np", "args", "expected"),
    [
        # block mapping: IOR and mdtest shift by the ranks of a node
        (4, ["--simulate-ppn", "2"], (2, 2, 2, 2)),
        (6, ["--simulate-ppn", "4"], (2, 4, 4, 4)),  # nodes of 4 and 2 ranks
        (3, ["--simulate-ppn", "8"], (1, 3, 0, 1)),  # one node: IOR's shift wraps to 0
        # round-robin: rank 1 is on another node, so a shift of 1 crosses nodes
        (4, ["--simulate-nodes", "2"], (2, 2, 1, 1)),
        (5, ["--simulate-nodes", "2"], (2, 3, 1, 1)),
        (3, ["--simulate-nodes", "5"], (3, 1, 1, 1)),  # more nodes than ranks: one each
    ],
)
def test_node_count_ppn_and_shifts(
    suite_bin: Path, workspace: Workspace, np: int, args: list[str], expected: tuple
) -> None:
    assert dry_run_placement(workspace, np, *args) == expected


def test_simulations_exclude_each_other(suite_bin: Path, workspace: Workspace) -> None:
    ini = workspace.write_ini(f"[global]\ndatadir = {workspace.data}\n")
    proc = run_suite(1, str(ini), "--dry-run", "--simulate-ppn", "2", "--simulate-nodes", "2")
    assert proc.returncode == 2
    assert "exclude each other" in proc.stderr


TINY = (
    "[debug]\nstonewall-time = 1\n"
    "[ior-easy]\ntransferSize = 4k\nblockSize = 16k\n"
    "[ior-hard]\nsegmentCount = 2\n"
    "[mdtest-easy]\nn = 4\n"
    "[mdtest-hard]\nn = 4\n"
)


@pytest.mark.parametrize("threshold", ["8", "2"])  # the full form, then the summary form
def test_round_robin_hosts_in_result_json(
    suite_bin: Path, workspace: Workspace, threshold: str
) -> None:
    ws = workspace
    ini = ws.write_ini(f"[global]\ndatadir = {ws.data}\nresultdir = {ws.results}\n{TINY}")
    args = ("-q", "--simulate-nodes", "3", "--rank-detail-threshold", threshold)
    run_suite(5, str(ini), *args, timeout=300, check=True)
    doc = json.loads((only_result_dir(ws) / "result.json").read_text())
    real = doc["hosts"][0].split("#")[0]
    names = [f"{real}#node{k}" for k in range(3)]
    assert doc["hosts"] == names  # by first rank: rank k < 3 opens node k
    assert (doc["nodes"], doc["ppn0"]) == (3, 2)
    for phase in doc["phases"]:
        if threshold == "8":  # every rank's row names its own host
            assert [r["host"] for r in phase["ranks"]] == [names[r % 3] for r in range(5)]
        else:
            hosts = {h["host"]: h["ranks"] for h in phase["rank_summary"]["hosts"]}
            assert hosts == {names[0]: 2, names[1]: 2, names[2]: 1}, phase["name"]


def read_note(tmp: Path, np: int, extra: list[str]) -> tuple[str, str]:
    """The (level, text) of the ior subcommand's note on where the read data came from."""
    resdir = tmp / f"res-{np}-{'-'.join(extra)}"
    args = ["-w", "-r", "-t", "64k", "-b", "256k", "-F", "-C", *extra, "-o", str(tmp / "n")]
    proc = run_subcommand(tmp, "ior", [*args, "--resultdir", str(resdir)], np=np)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads((resdir / "result.json").read_text())
    notes = [
        (n["level"], n["text"])
        for n in doc["measurement_notes"]
        if n["operation"] == "read" and "written by" in n["text"]
    ]
    assert len(notes) == 1, notes
    return notes[0]


@pytest.fixture
def tmp(workspace: Workspace) -> Path:
    workspace.data.mkdir()
    return workspace.data


def test_ior_shift_crosses_nodes_by_placement(suite_bin: Path, tmp: Path) -> None:
    # -C shifts by the ranks of node 0 (2 here): block mapping reads the other node's data ...
    level, text = read_note(tmp, 4, ["--simulate-ppn", "2"])
    assert level == "server-cache" and "another node (-C shift 2)" in text
    # ... round-robin shifts by one rank, as IOR does: on 2 nodes rank r + 1 is on the other
    level, text = read_note(tmp, 4, ["--simulate-nodes", "2"])
    assert level == "server-cache" and "another node (-C shift 1)" in text
    # ... and on 3 nodes (hosts 0 1 2 0) rank 3 reads rank 0's file, written on its own node
    level, text = read_note(tmp, 4, ["--simulate-nodes", "3"])
    assert level == "client-cache"
    assert "1 of 4 ranks read data written by their own node (-C shift 1)" in text


@pytest.mark.parametrize("args", [["--simulate-nodes", "3"], ["--simulate-ppn", "2"]])
def test_hash_collisions_are_split_by_name(
    suite_bin: Path, workspace: Workspace, args: list[str]
) -> None:
    # IOSCORE_TEST_HASH_COLLISIONS gives every host the same hash: the first split puts all
    # ranks together and only the name check separates the hosts
    ini = workspace.write_ini(f"[global]\ndatadir = {workspace.data}\n")
    cmd = [*MPI.launch(5), *limited_suite(str(ini), "--dry-run", *args)]
    env = {**MPI_ENV, "IOSCORE_TEST_HASH_COLLISIONS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=90, check=False)
    assert proc.returncode == 0, proc.stderr
    collided = proc.stdout.split("\n")[1]
    assert collided.startswith("procs 5, nodes ")
    assert collided == run_suite(5, str(ini), "--dry-run", *args, check=True).stdout.split("\n")[1]
