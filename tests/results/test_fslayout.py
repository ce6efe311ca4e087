"""The file-layout probe's parsers, its file-system detection and the per-server attribution.

The MooseFS output was recorded from `mfsfileinfo` on the test bed; the Lustre, BeeGFS, GPFS
and DAOS outputs are in the layouts their tools' documentation shows (no such file system runs
here); the live probe on MooseFS is in tests/testbed.
"""

from __future__ import annotations

from pathlib import Path

from ioscore import fslayout
from ioscore.results.model import PhaseResult, RankStat

MOOSEFS = """/mnt/iostb/f:
\tchunk 0: 0000000000000001_00000001 / (id:1 ver:1)
\t\tcopy 1: 10.231.0.11:9422 (status:VALID)
\tchunk 1: 0000000000000002_00000001 / (id:2 ver:1)
\t\tcopy 1: 10.231.0.12:9422 (status:VALID)
\t\tcopy 2: 10.231.0.11:9422 (status:VALID)
"""

LUSTRE = """/lustre/scratch/ior/testFile.00000003
lmm_stripe_count:  4
lmm_stripe_size:   1048576
lmm_pattern:       raid0
lmm_layout_gen:    0
lmm_stripe_offset: 10
\tobdidx\t\t objid\t\t objid\t\t group
\t    10\t      2893925\t     0x2c2865\t             0
\t    11\t      2893381\t     0x2c2645\t             0
\t    26\t      2892771\t     0x2c23e3\t             0
\t    27\t      2893057\t     0x2c2501\t             0

"""

LUSTRE_PFL = """/lustre/pfl/file
  lcm_layout_gen:    3
  lcm_mirror_count:  1
  lcm_entry_count:   2
    lcme_id:             1
    lcme_extent.e_start: 0
    lcme_extent.e_end:   4194304
      lmm_stripe_count:  1
      lmm_stripe_offset: 0
      lmm_objects:
      - 0: { l_ost_idx: 0, l_fid: [0x100000000:0x2:0x0] }
    lcme_id:             2
      lmm_stripe_count:  2
\tobdidx\t\t objid\t\t objid\t\t group
\t     1\t           3\t          0x3\t             0
\t     0\t           4\t          0x4\t             0
"""

BEEGFS = """EntryID: 0-5D36F5EC-1
Metadata node: meta01 [ID: 1]
Stripe pattern details:
+ Type: RAID0
+ Chunksize: 512K
+ Number of storage targets: desired: 4; actual: 4
+ Storage targets:
  + 101 @ storage01 [ID: 1]
  + 102 @ storage01 [ID: 1]
  + 201 @ storage02 [ID: 2]
  + 202 @ storage02 [ID: 2]
"""

GPFS = """file name:            /gpfs/fs1/ior/testFile
metadata replication: 1 max 2
data replication:     1 max 2
immutable:            no
appendOnly:           no
flags:
storage pool name:    data
fileset name:         root
snapshot name:
"""

DAOS = """Object Class    Chunk Size
------------    ----------
SX              1048576
"""


def test_each_parser_names_the_servers_of_its_tool_output() -> None:
    assert fslayout.parse_moosefs(MOOSEFS) == ["10.231.0.11:9422", "10.231.0.12:9422"]
    assert fslayout.parse_lustre(LUSTRE) == ["OST000a", "OST000b", "OST001a", "OST001b"]
    assert fslayout.parse_lustre(LUSTRE_PFL) == ["OST0001", "OST0000"]
    assert fslayout.parse_beegfs(BEEGFS) == [
        "storage01:target101",
        "storage01:target102",
        "storage02:target201",
        "storage02:target202",
    ]
    assert fslayout.parse_gpfs(GPFS) == ["pool:data"]
    assert fslayout.parse_daos(DAOS) == ["class:SX"]
    for parse in (
        fslayout.parse_moosefs,
        fslayout.parse_lustre,
        fslayout.parse_beegfs,
        fslayout.parse_gpfs,
        fslayout.parse_daos,
    ):
        assert parse("") == [] and parse("error: no such file\n") == []


MOUNTS = """/dev/vda / ext4 rw 0 0
mfs#10.213.47.10:9421 /run/ioscore-testbed/fs fuse rw,allow_other 0 0
10.0.0.1@o2ib:/scratch /lustre/scratch lustre rw 0 0
beegfs_nodev /mnt/beegfs beegfs rw 0 0
fs1 /gpfs/fs1 gpfs rw 0 0
dfuse /mnt/daos fuse.dfuse rw 0 0
"""


def test_the_file_system_is_found_by_the_longest_mount_point_above_the_path() -> None:
    def kind(path: str) -> str | None:
        return fslayout.file_system_of(Path(path), MOUNTS)

    assert kind("/run/ioscore-testbed/fs/t.00000001") == "moosefs"
    assert kind("/lustre/scratch/ior/f") == "lustre"
    assert kind("/mnt/beegfs/x") == "beegfs"
    assert kind("/gpfs/fs1") == "gpfs"
    assert kind("/mnt/daos/a/b") == "daos"
    assert kind("/lustre/scratchy/f") is None  # a prefix of a name is not a mount above it
    assert kind("/home/user/f") is None


def test_nothing_is_probed_without_a_parser_and_the_record_says_why(tmp_path: Path) -> None:
    found, reason = fslayout.probe([tmp_path / "f"])
    assert found == {}
    assert reason == f"no layout probe for the file system of {tmp_path / 'f'}"


def _phase(rates: list[float]) -> PhaseResult:
    ranks = [
        RankStat(
            rank=r,
            host=f"n{r // 2}",
            start=0.0,
            first_done=1.0,
            end=1.0,
            items=1,
            bytes=int(rate),
            rate=rate,
        )
        for r, rate in enumerate(rates)
    ]
    return PhaseResult(name="ior-write-0", value=0.0, unit="GiB/s", ranks=ranks)


def test_a_server_whose_ranks_are_slow_is_named_and_the_others_are_not() -> None:
    phase = _phase([100.0, 100.0, 10.0, 12.0, 98.0, 101.0])
    layout = {0: ["cs1"], 1: ["cs1"], 2: ["cs2"], 3: ["cs2"], 4: ["cs3"], 5: ["cs1", "cs3"]}
    found = {f.server: f for f in fslayout.server_rates(phase, layout)}
    assert set(found) == {"cs1", "cs2", "cs3"}
    assert found["cs2"].ranks == (2, 3) and found["cs2"].mean_rate == 11.0
    assert found["cs2"].slow_reason and "< 0.5 x other servers' median" in found["cs2"].slow_reason
    assert found["cs1"].slow_reason is None and found["cs3"].slow_reason is None
    # one server is compared with nothing: never slow
    alone = fslayout.server_rates(phase, {rank: ["cs1"] for rank in range(6)})
    assert [(f.server, f.slow_reason) for f in alone] == [("cs1", None)]


RECORDED = Path(__file__).parent / "recorded" / "testbed-stopped-server"


def _copy_recorded(tmp_path: Path) -> Path:
    """The recorded launches somewhere writable (`ioscore report` writes report.html)."""
    import shutil

    return Path(shutil.copytree(RECORDED, tmp_path / "results"))


def test_a_stopped_servers_failures_name_it_through_the_recorded_layout() -> None:
    from ioscore.acceptance.report import build_report

    (test,) = build_report(RECORDED).tests  # the aborted read is the test's read part
    (iteration,) = test.test.operations["read"].iterations
    phase = iteration.phase
    layout = fslayout.load(RECORDED / "r")
    # the read shifted by a node: each rank read the file of a rank on the other node
    assert fslayout.data_ranks(phase) == {0: 2, 1: 3, 2: 0, 3: 1}
    found = fslayout.error_servers(phase, layout)
    assert found is not None
    assert [(f.rank, f.host, f.data_rank) for f in found.failed] == [
        (1, "node1", 3),
        (2, "node2", 0),
    ]
    assert all(f"t.{f.data_rank:08d}" in f.error for f in found.failed)
    assert found.suspect == "10.213.47.11:9422" == layout[3][0] == layout[0][0]
    # attributed by the file each rank read, the stopped server's ranks are the failed ones
    rates = fslayout.server_rates(phase, fslayout.accessed_servers(phase, layout))
    (stopped,) = [r for r in rates if r.server == found.suspect]
    assert stopped.ranks == (1, 2) and stopped.slow_reason


def test_no_server_is_blamed_when_the_layout_cannot_single_one_out() -> None:
    ranks = [
        RankStat(rank=r, host="n", start=0.0, first_done=1.0, end=1.0, bytes=1) for r in range(4)
    ]
    phase = PhaseResult(name="ior-read-0", value=0.0, unit="GiB/s", ranks=ranks)
    phase.extra["io_errors"] = [
        {"rank": 0, "host": "n", "error": "rank 0: read f.00000000: Input/output error"},
        {"rank": 1, "host": "n", "error": "rank 1: read f.00000001: Input/output error"},
    ]
    both = {0: ["a:1", "b:1"], 1: ["a:1", "b:1"], 2: ["c:1"], 3: ["c:1"]}
    found = fslayout.error_servers(phase, both)
    assert found is not None and found.suspect is None
    assert found.common == ("a:1", "b:1") and "cannot tell" in found.reason
    # a server that also served ranks without errors is not the one to blame
    healthy_b = {**both, 2: ["b:1"]}
    found = fslayout.error_servers(phase, healthy_b)
    assert found is not None and found.suspect == "a:1"
    assert fslayout.error_servers(phase, {}) is not None  # errors listed, nothing probed
    phase.extra["io_errors"] = []
    assert fslayout.error_servers(phase, both) is None


def test_the_report_shows_io_errors_per_storage_server(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    results = _copy_recorded(tmp_path)
    shown = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "report", str(results)],
        capture_output=True,
        text=True,
    )
    assert "I/O errors per storage server" in shown.stdout, shown
    assert "rank 1 (node1), file of rank 3 on 10.213.47.11:9422" in shown.stdout
    assert "failed server: 10.213.47.11:9422" in shown.stdout
    assert "read INVALID: I/O errors on 2 rank(s)" in shown.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "report", str(results), "--json"],
        capture_output=True,
        text=True,
    )
    (test,) = json.loads(as_json.stdout)["tests"]
    (read,) = [op for op in test["operations"] if op["key"] == "read"]
    assert not read["valid"]
    (errors,) = read["io_errors"]
    assert errors["suspect"] == "10.213.47.11:9422"
    assert [f["data_rank"] for f in errors["failed"]] == [3, 0]
    page = (results / "report.html").read_text()
    assert "I/O errors per storage server" in page and "10.213.47.11:9422" in page
