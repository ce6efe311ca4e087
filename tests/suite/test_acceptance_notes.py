"""The per-operation summary over -i repetitions and the measurement notes in result.json.

The summary must be exactly IOR's/mdtest's table statistics (population standard deviation,
as IOR's bw_values and mdtest's summary divide by the number of repetitions), computed here
independently from the per-iteration phases; the notes must follow the facts the run knows
(-e, -C with ranks on other nodes, O_DIRECT, -Y, host RAM).
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import suite_bin  # noqa: F401
from test_acceptance_ior import ok, result, run_ior, run_subcommand

pytestmark = pytest.mark.usefixtures("suite_bin")


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-notes-test-", dir="/dev/shm") as d:
        yield Path(d)


def check_series(series: dict, values: list[float], stdev=statistics.pstdev) -> None:
    """The summary of a series: IOR's population standard deviation, or mdtest's sample one."""
    assert series.get("iterations", len(values)) == len(values)
    assert series["values"] == pytest.approx(values, rel=1e-12)
    assert series["max"] == pytest.approx(max(values), rel=1e-12)
    assert series["min"] == pytest.approx(min(values), rel=1e-12)
    assert series["mean"] == pytest.approx(statistics.fmean(values), rel=1e-12)
    assert series["stddev"] == pytest.approx(stdev(values), rel=1e-9, abs=1e-9)


def test_ior_three_iterations_summary_equals_the_per_iteration_values(tmp: Path) -> None:
    args = ["-i", "3", "-t", "64k", "-b", "512k", "-F", "-e", "-o", str(tmp / "i")]
    ok(run_ior(tmp, [*args, "--resultdir", "res"]))
    doc = result(tmp / "res")
    assert [s["operation"] for s in doc["summary"]] == ["write", "read"]
    for series in doc["summary"]:
        op = series["operation"]
        phases = [p for p in doc["phases"] if p["name"].startswith(f"ior-{op}-")]
        assert [p["name"] for p in phases] == [f"ior-{op}-{i}" for i in range(3)]
        assert series["unit"] == "MiB/s"
        check_series(series, [p["score"] * 1024 for p in phases])
        # transfers per second: the same rows' bytes / 64 KiB transfers
        check_series(series["ops_per_s"], [v * 1048576 / 65536 for v in series["values"]])
        assert len(series["time_s"]) == 3 and all(t > 0 for t in series["time_s"])
        # the per-rank values stay in the phases for the library's multimodality hint
        assert all(len(p["ranks"]) == 2 and p["ranks"][0]["rate"] > 0 for p in phases)


def test_mdtest_three_iterations_summary_equals_the_per_iteration_values(tmp: Path) -> None:
    args = ["-n", "6", "-i", "3", "-u", "-d", str(tmp / "d"), "--resultdir", str(tmp / "r")]
    ok(run_subcommand(tmp, "mdtest", args))
    doc = result(tmp / "r", "mdtest")
    ops = {s["operation"]: s for s in doc["summary"]}
    for label, what, op in (
        ("File creation", "file", "write"),
        ("Directory stat", "dir", "stat"),
        ("Tree removal", "tree", "delete"),
    ):
        rates = [
            p["score"] * 1000 for p in doc["phases"] if p["name"].startswith(f"mdtest-{what}-{op}-")
        ]
        assert len(rates) == 3 and ops[label]["unit"] == "ops/s"
        if what == "tree":  # mdtest's tree rate counts one tree; -u gives each rank its own
            rates = [rate / doc["procs"] for rate in rates]
        check_series(ops[label], rates, statistics.stdev)  # mdtest divides by n - 1


def notes(doc: dict, operation: str) -> dict[str, str]:
    return {n["text"]: n["level"] for n in doc["measurement_notes"] if n["operation"] == operation}


def ior_notes(tmp: Path, extra: list[str], np: int = 2) -> dict:
    args = ["-w", "-r", "-t", "64k", "-b", "256k", "-F", *extra, "-o", str(tmp / "n")]
    stdout = ok(run_ior(tmp, [*args, "--resultdir", "res"], np))
    doc = result(tmp / "res")
    for note in doc["measurement_notes"]:  # printed after the summary table, too
        assert note["text"] in stdout.split("Measurement notes", 1)[1]
    return doc


NO_FSYNC = "no fsync in write timing (-e not set): write may end in client cache"
NO_SHIFT = (
    "read of data written by this node with no task shift (-C/-Q not set): client page cache likely"
)


def test_ior_notes_follow_fsync_shift_and_odirect(tmp: Path) -> None:
    plain = ior_notes(tmp, [])
    assert notes(plain, "write")[NO_FSYNC] == "client-cache"
    assert notes(plain, "read")[NO_SHIFT] == "client-cache"
    fits = [t for t in notes(plain, "read") if "data fits in client cache" in t]
    assert len(fits) == 1 and "file size per node 0.5 MiB vs host RAM" in fits[0]

    fsync = ior_notes(tmp, ["-e"])
    assert NO_FSYNC not in notes(fsync, "write")
    assert "media-likely" in notes(fsync, "write").values()

    # -C on four ranks in two simulated nodes: every rank reads the other node's data
    shifted = ior_notes(tmp, ["-C", "--simulate-ppn", "2"], np=4)
    (read,) = [t for t, level in notes(shifted, "read").items() if level == "server-cache"]
    assert "another node (-C shift 2)" in read
    assert NO_SHIFT not in notes(shifted, "read")
    assert not [t for t in notes(shifted, "read") if "fits in client cache" in t]

    one_node = ior_notes(tmp, ["-C"])  # IOR's shift is Q x tasks per node: 0 on one node
    (read,) = [t for t, level in notes(one_node, "read").items() if "task shift" in t]
    assert "-C but a task shift of 0 (one node)" in read
    assert notes(one_node, "read")[read] == "client-cache"

    direct = ior_notes(tmp, ["--posix.odirect"])
    for op in ("write", "read"):
        assert notes(direct, op) == {"O_DIRECT: client cache bypassed": "server-cache"}


def test_mdtest_notes_follow_sync(tmp: Path) -> None:
    docs = {}
    for flag in ([], ["-Y"]):
        res = tmp / f"r{len(flag)}"
        args = ["-n", "4", "-F", "-d", str(tmp / "d"), *flag, "--resultdir", str(res)]
        ok(run_subcommand(tmp, "mdtest", args))
        docs[bool(flag)] = result(res, "mdtest")
    unsynced = notes(docs[False], "File creation")
    no_sync = "no sync in the timing (-Y not set): the changes may end in the client's metadata"
    assert unsynced == {f"{no_sync} cache": "client-cache"}
    assert list(notes(docs[True], "File creation").values()) == ["media-likely"]
    assert "client-cache" in notes(docs[False], "File stat").values()
