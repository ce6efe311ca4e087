"""Write/read (create/use) pairs across launches recorded as one acceptance test.

A launch that keeps what it wrote leaves a manifest beside the data; a later launch on the same
data checks sizes, layout and pattern against it before any timing, and its result.json holds
both parts under one test id. Every run is under mpirun in a /dev/shm temporary directory with
`ulimit -f` (see suite_helpers.run_subcommand).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import suite_bin  # noqa: F401
from test_acceptance_ior import manifest_of, ok, result, run_ior, run_subcommand

pytestmark = pytest.mark.usefixtures("suite_bin")


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-pairs-test-", dir="/dev/shm") as d:
        yield Path(d)


SIZES = ["-b", "256k", "-t", "64k", "-s", "2"]


def write_part(tmp: Path, extra: list[str], np: int = 2, name: str = "w") -> dict:
    ok(run_ior(tmp, ["-w", "-k", *SIZES, *extra, "-o", str(tmp / "f"), "--resultdir", name], np))
    return result(tmp / name)


def refused(proc) -> str:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    return proc.stderr


@pytest.mark.parametrize(("np", "layout"), [(2, ["-F"]), (4, [])], ids=["np2-fpp", "np4-shared"])
def test_a_read_launch_is_the_second_part_of_the_write_launchs_test(
    tmp: Path, np: int, layout: list[str]
) -> None:
    write = write_part(tmp, [*layout, "-i", "2"], np)
    test = write["acceptance_test"]
    assert re.fullmatch(r"[0-9a-f]{32}", test["id"])
    assert [p["role"] for p in test["parts"]] == ["write"]
    manifest = json.loads(manifest_of(tmp / "f").read_text())
    assert manifest["id"] == test["id"] and manifest["tasks"] == np

    # -R verifies every transfer without -G: the signature comes from the manifest
    args = ["-r", "-R", "-k", *SIZES, *layout, "-o", str(tmp / "f"), "--resultdir", "r"]
    ok(run_ior(tmp, args, np))
    read = result(tmp / "r")
    assert all(p["verify_errors"] == 0 for p in read["phases"])
    parts = read["acceptance_test"]["parts"]
    assert read["acceptance_test"]["id"] == test["id"]
    assert [p["role"] for p in parts] == ["write", "read"]
    assert parts[0]["result_dir"] == str(tmp / "w") and parts[1]["result_dir"] == str(tmp / "r")
    assert parts[0]["run_started"] < parts[1]["run_started"] or parts[0] != parts[1]
    (written,) = parts[0]["summary"]
    (own_write,) = write["summary"]
    assert written["operation"] == "write" and written["iterations"] == 2
    assert written["values"] == pytest.approx(own_write["values"], rel=1e-12)
    assert written["mean"] == pytest.approx(own_write["mean"], rel=1e-12)
    assert parts[1]["summary"] == read["summary"]
    assert any("separate launch" in n["text"] for n in read["measurement_notes"])


def test_a_read_of_another_tests_files_is_refused(tmp: Path) -> None:
    write = write_part(tmp, ["-F", "-G", "11"])
    stderr = refused(run_ior(tmp, ["-r", *SIZES, "-F", "-G", "12", "-o", str(tmp / "f")]))
    assert "pattern of another test" in stderr and "signature -G 11" in stderr
    assert write["acceptance_test"]["id"] in stderr

    # the same names holding another test's data: nothing is read before the timed read (it
    # would warm the cache that read measures); -R finds it inside the read, as IOR's check
    ok(
        run_ior(
            tmp, ["-w", "-k", *SIZES, "-F", "-G", "99", "-o", str(tmp / "g"), "--resultdir", "g"]
        )
    )
    for r in range(2):
        os.replace(tmp / f"g.{r:08d}", tmp / f"f.{r:08d}")
    proc = run_ior(tmp, ["-r", "-R", *SIZES, "-F", "-o", str(tmp / "f"), "--resultdir", "x"])
    assert proc.returncode == 1 and "WARNING: incorrect data on read" in proc.stdout


def test_a_short_file_is_refused_with_the_write_parts_size(tmp: Path) -> None:
    write = write_part(tmp, ["-F"])
    os.truncate(tmp / "f.00000001", 100000)  # a killed or damaged writer
    stderr = refused(run_ior(tmp, ["-r", *SIZES, "-F", "-o", str(tmp / "f")]))
    test_id = write["acceptance_test"]["id"]
    assert (
        f"file {tmp}/f.00000001 is 100000 bytes, the write part of test {test_id} wrote 524288"
        in stderr
    )


def test_a_read_with_another_layout_reads_a_subset_or_is_refused(tmp: Path) -> None:
    """Another -b/-s (IOR's subset read, as the hero read-IOPS test does) runs when it stays
    within what the write produced; beyond it, or on ranks whose files were never written,
    it is refused before any I/O, naming the difference."""
    write_part(tmp, ["-F"], np=2)
    stderr = refused(run_ior(tmp, ["-r", *SIZES, "-F", "-o", str(tmp / "f")], np=4))
    assert "ran with tasks 2, this launch with 4" in stderr
    subset = ["-r", "-k", "-b", "128k", "-t", "32k", "-s", "2", "-F", "-o", str(tmp / "f")]
    ok(run_ior(tmp, [*subset, "--resultdir", "r"]))
    assert [p["role"] for p in result(tmp / "r")["acceptance_test"]["parts"]] == ["write", "read"]
    stderr = refused(
        run_ior(tmp, ["-r", "-b", "512k", "-t", "32k", "-s", "2", "-F", "-o", str(tmp / "f")])
    )
    assert "ran with -b 262144, this launch with 524288" in stderr
    assert "this read needs 1048576 bytes per file (-b x -s)" in stderr


def test_a_read_with_another_transfer_size(tmp: Path) -> None:
    """NERSC's IOPS test reads a 4 MiB-transfer dataset with random 4 KiB transfers: the layout
    is -b/-s/tasks, so another -t (also -z) reads the test's files; -R cannot verify across
    transfer sizes (the pattern is laid out per write transfer) and says so before any I/O;
    without -R nothing is compared, as in IOR (no sample read before the timing)."""
    write_part(tmp, ["-F"])
    args = ["-r", "-b", "256k", "-t", "16k", "-s", "2", "-F", "-o", str(tmp / "f"), "-k"]
    ok(run_ior(tmp, [*args, "-z", "--resultdir", "r"]))
    assert [p["role"] for p in result(tmp / "r")["acceptance_test"]["parts"]] == ["write", "read"]
    stderr = refused(run_ior(tmp, [*args, "-R", "--resultdir", "r2"]))
    assert "-R cannot verify test" in stderr and "drop -R or read with -t 65536" in stderr
    with (tmp / "f.00000001").open("r+b") as damaged:
        damaged.seek(0)
        damaged.write(b"\xff")
    ok(run_ior(tmp, [*args, "--resultdir", "r3"]))


def test_a_read_without_keep_removes_the_files_and_the_manifest(tmp: Path) -> None:
    write_part(tmp, ["-F"])
    ok(run_ior(tmp, ["-r", *SIZES, "-F", "-o", str(tmp / "f"), "--resultdir", "r"]))
    assert [p["role"] for p in result(tmp / "r")["acceptance_test"]["parts"]] == ["write", "read"]
    assert sorted(p.name for p in tmp.iterdir()) == ["r", "w"]


def test_a_write_without_keep_starts_no_test(tmp: Path) -> None:
    ok(run_ior(tmp, ["-w", *SIZES, "-o", str(tmp / "f"), "--resultdir", "w"]))
    assert result(tmp / "w")["acceptance_test"] is None
    assert not manifest_of(tmp / "f").exists()


# ---------------------------------------------------------------- mdtest: create, then use


def mdtest(tmp: Path, args: list[str], np: int = 2):  # type: ignore[no-untyped-def]
    return run_subcommand(tmp, "mdtest", args, np)


TREE = ["-n", "6", "-z", "1", "-b", "2", "-u", "-d", "TREE"]


def tree(tmp: Path, extra: list[str] = []) -> list[str]:  # noqa: B006
    return [a.replace("TREE", str(tmp / "out")) for a in TREE] + extra


def test_an_mdtest_use_launch_is_the_second_part_of_the_create_launchs_test(tmp: Path) -> None:
    ok(mdtest(tmp, tree(tmp, ["-C", "-w", "100", "--resultdir", "c"])))
    create = result(tmp / "c", "mdtest")
    test = create["acceptance_test"]
    assert [p["role"] for p in test["parts"]] == ["create"]
    assert json.loads((tmp / "out" / "ioscore-test.json").read_text())["id"] == test["id"]
    args = tree(tmp, ["-T", "-E", "-e", "100", "-r", "--resultdir", "u"])
    ok(mdtest(tmp, args))
    use = result(tmp / "u", "mdtest")
    assert use["acceptance_test"]["id"] == test["id"]
    parts = use["acceptance_test"]["parts"]
    assert [p["role"] for p in parts] == ["create", "use"]
    assert [s["operation"] for s in parts[0]["summary"]] == [
        "Tree creation",
        "Directory creation",
        "File creation",
    ]
    assert {s["operation"] for s in use["summary"]} == {
        "Directory stat",
        "Directory removal",
        "File stat",
        "File read",
        "File removal",
        "Tree removal",
    }
    assert sorted(os.listdir(tmp / "out")) == [], "the removal took the tree and the manifest"


def test_an_mdtest_use_launch_of_another_shape_or_short_files_is_refused(tmp: Path) -> None:
    ok(mdtest(tmp, tree(tmp, ["-C", "-w", "100", "--resultdir", "c"])))
    stderr = refused(mdtest(tmp, [*tree(tmp, ["-T"])[:1], "8", *tree(tmp, ["-T"])[2:]]))
    assert "ran with -n 6, this launch with 8" in stderr
    stderr = refused(mdtest(tmp, tree(tmp, ["-E", "-e", "200"])))
    assert "wrote 100 bytes per file (-w), this launch reads 200 (-e)" in stderr
    (victim,) = (tmp / "out").rglob("file.mdtest.1.0")
    os.truncate(victim, 7)
    stderr = refused(mdtest(tmp, tree(tmp, ["-E", "-e", "100", "--resultdir", "x"])))
    assert f"file {victim} is 7 bytes, the create part wrote 100" in stderr
    assert not (tmp / "x").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expected '{' at byte 0"),
        ('{"schema": "other/1", "id": "x"}', "not an ioscore test manifest"),
        ('{"schema": "ioscore-acceptance-test/1", "block": [1, 2', "expected ',' or ']' at byte"),
        ("{" + '"k": 1, ' * 100 + "}", "too many members"),
    ],
)
def test_a_damaged_manifest_is_refused_with_its_reason(tmp: Path, text: str, message: str) -> None:
    write_part(tmp, ["-F"])
    manifest_of(tmp / "f").write_text(text)
    stderr = refused(run_ior(tmp, ["-r", *SIZES, "-F", "-o", str(tmp / "f"), "--resultdir", "x"]))
    assert f"{tmp}/f.ioscore-test.json: {message}" in stderr
    assert not (tmp / "x").exists() and (tmp / "f.00000000").exists(), "nothing lost"


def test_a_fixed_time_write_is_read_back_as_far_as_it_got(tmp: Path) -> None:
    """-D with wear-out: the manifest records the transfers every rank wrote ("pairs"); the read
    launch reads exactly those and checks the files hold them, not the full -b x -s."""
    sizes = ["-b", "512k", "-t", "64k", "-s", "1", "-F", "-o", str(tmp / "f")]
    fixed = ["-D", "5", "-O", "stoneWallingWearOut=1"]
    ok(run_ior(tmp, ["-w", "-k", *sizes, *fixed, "--resultdir", "w"]))
    manifest = json.loads(manifest_of(tmp / "f").read_text())
    assert manifest["pairs"] == 8, "a write that finished before -D wrote every transfer"
    assert result(tmp / "w")["phases"][0]["stonewall"]["deadline_s"] == 5

    # a write stopped by -D after 3 transfers per rank: what its manifest and files would hold
    manifest["pairs"] = 3
    manifest_of(tmp / "f").write_text(json.dumps(manifest))
    for r in range(2):
        os.truncate(tmp / f"f.{r:08d}", 3 * 65536)
    ok(run_ior(tmp, ["-r", "-R", "-k", *sizes, "--resultdir", "r"]))  # -R: no -D, as IOR
    (read,) = result(tmp / "r")["phases"]  # -R: verified inside the one read, as IOR
    assert read["items"] == 2 * 3 and read["verify_errors"] == 0

    os.truncate(tmp / "f.00000001", 2 * 65536)
    stderr = refused(run_ior(tmp, ["-r", *sizes, "--resultdir", "x"]))
    assert "is 131072 bytes, the write part of test" in stderr
    assert "wrote 3 transfers per rank (stopped by -D), which need 196608" in stderr
