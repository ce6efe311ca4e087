"""The IO500 standard run on the issue's bed: 4 client nodes x 2 ranks, 3 chunk servers (a
short stonewall). The module brings up its own bed, larger than the other modules' one."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ioscore.testbed import lifecycle
from ioscore.testbed.layout import MOUNT_POINT, Bed
from tests.testbed.bed_helpers import bed_cli, suite_on_bed
from tests.testbed.conftest import bring_up

pytestmark = pytest.mark.mpi

NODES, SERVERS, PER_NODE = 4, 3, 2
RANKS = NODES * PER_NODE
HOSTS = [f"node{n}" for n in range(1, NODES + 1)]


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    yield from bring_up(NODES, SERVERS)


def test_the_standard_run_over_four_nodes_reads_across_hosts(bed: Bed) -> None:
    assert len(bed.chunkservers) == SERVERS
    data = MOUNT_POINT / "io500-four-nodes"
    with tempfile.TemporaryDirectory(prefix="ioscore-bed-io500-", dir="/dev/shm") as tmp:
        results = Path(tmp)
        ini = results / "run.ini"
        ini.write_text(
            f"[global]\ndatadir = {data}\nresultdir = {results}/out\ndrop-caches = TRUE\n"
            f"drop-caches-cmd = {lifecycle.DROP_CACHES_CMD}\n"
            "[debug]\nstonewall-time = 1\n"
            "[ior-easy]\ntransferSize = 256k\nblockSize = 4m\n"
            "[ior-hard]\nsegmentCount = 20\n[mdtest-easy]\nn = 40\n[mdtest-hard]\nn = 40\n"
        )
        try:
            suite_on_bed(RANKS, str(ini), timeout=900)
        finally:
            bed_cli("exec", "node1", "--", "rm", "-rf", str(data))
        (run_dir,) = (results / "out").iterdir()
        result = json.loads((run_dir / "result.json").read_text())

        assert result["nodes"] == NODES and result["procs"] == RANKS
        assert result["hosts"] == HOSTS
        phases = {p["name"]: p for p in result["phases"]}
        for phase in result["phases"]:
            if phase["ran"] and phase["ranks"]:
                on = [r["host"] for r in phase["ranks"]]
                assert all(on.count(host) == PER_NODE for host in HOSTS), phase["name"]
        host_of = {r["rank"]: r["host"] for r in phases["ior-easy-write"]["ranks"]}
        assert host_of == {rank: HOSTS[rank // PER_NODE] for rank in range(RANKS)}
        # every reading phase: the file (data) each rank read, written on another host
        for name in ("ior-easy-read", "ior-hard-read", "ior-rnd4K-easy-read"):
            read_from = phases[name]["data_ranks"]
            assert len(read_from) == RANKS, name
            wrote_on = [host_of[writer] for writer in read_from]
            assert all(w != host_of[r] for r, w in enumerate(wrote_on)), (name, wrote_on)
        assert phases["ior-easy-read"]["data_ranks"] == [
            (rank + PER_NODE) % RANKS for rank in range(RANKS)
        ]
        for name in ("mdtest-easy-write", "mdtest-hard-write", "find"):
            assert phases[name]["ran"] and phases[name]["items"] > 0, name
        # the scores recompute from the phases, as the service recomputes them
        checked = subprocess.run(
            [sys.executable, "-m", "ioscore.cli", "validate", str(run_dir), "--json"],
            capture_output=True,
            text=True,
        )
        (run,) = json.loads(checked.stdout)["runs"]
        assert run["recomputed"]["total"] == pytest.approx(result["scores"]["total"], rel=1e-3)
        assert run["recomputed"]["bw"] == pytest.approx(result["scores"]["bw"], rel=1e-3)
