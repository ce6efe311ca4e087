"""IOR options of `ioscore-suite ior` with IOR's meanings, checked on the work they ask for.

-Y (fsync after every write), -m (a file per repetition), -u (a directory per rank's file),
-T (no access starts after the time limit), and the option table's --help and refusals.
The work is read from strace (files opened, directories made, writes and fsyncs in order).
Every run is in a /dev/shm temporary directory under `ulimit -f`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import MPI_ENV, SUITE_BIN, suite_bin  # noqa: F401
from test_acceptance_ior import ok, result, result_rows, run_ior

from tests.mpi_launch import MPI, SH_RANK

pytestmark = pytest.mark.usefixtures("suite_bin")
needs_strace = pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-iopt-test-", dir="/dev/shm") as d:
        yield Path(d)


def traced(tmp: Path, args: list[str], np: int = 2) -> list[list[tuple[str, str]]]:
    """Runs ioscore-suite ior under strace: per rank, (call, argument) in order for openat
    (the path), mkdir (the path), pwrite64 (the offset) and fsync (the path of its fd), for
    the data files: paths under tmp outside the result directories and the traces."""
    wrapper = tmp / "traced.sh"
    wrapper.write_text(
        "#!/bin/sh\nexec strace -f -qq -s 512 -e trace=openat,mkdir,pwrite64,fsync "
        '-o "$TRACE.' + SH_RANK + '" "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {**MPI_ENV, "TRACE": str(tmp / "trace")}
    limited = ["bash", "-c", 'ulimit -f 262144 && exec "$0" "$@"']
    command = [*MPI.launch(np, forward=["TRACE"]), *limited, str(wrapper)]
    proc = subprocess.run(
        [*command, str(SUITE_BIN), "ior", *args],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    ok(proc)
    out = []
    for r in range(np):
        fds: dict[str, str] = {}
        events = []
        for line in (tmp / f"trace.{r}").read_text().splitlines():
            m = re.match(r'^\d+ +openat\([^"]*"([^"]*)".*\) += (\d+)', line)
            if m and data_path(tmp, m.group(1)):
                fds[m.group(2)] = m.group(1)
                events.append(("open", m.group(1)))
                continue
            m = re.match(r'^\d+ +mkdir\("([^"]*)".*\) += (-?\d+)', line)
            if m and data_path(tmp, m.group(1)):
                events.append(("mkdir", m.group(1)))
                continue
            m = re.match(r"^\d+ +pwrite64\((\d+), .*, (\d+)\) +=", line)
            if m and m.group(1) in fds:
                events.append(("pwrite", m.group(2)))
                continue
            m = re.match(r"^\d+ +fsync\((\d+)\) +=", line)
            if m and m.group(1) in fds:
                events.append(("fsync", fds[m.group(1)]))
        out.append(events)
    return out


def data_path(tmp: Path, path: str) -> bool:
    """A path of the test's data: under tmp, not a result directory (res*), a trace or the
    test manifest."""
    if not path.startswith(f"{tmp}/") or ".ioscore-test.json" in path:
        return False
    first = path[len(str(tmp)) + 1 :].split("/", 1)[0]
    return not first.startswith(("res", "trace"))


@needs_strace
def test_fsync_per_write_follows_every_write(tmp: Path) -> None:
    """-Y: IOR fsyncs after each write call, twice (its POSIX backend's write fsyncs, then its
    transfer loop); with -e one more at the end of the phase."""
    base = tmp / "y"
    args = ["-w", "-F", "-Y", "-t", "4k", "-b", "16k", "-o", str(base), "--resultdir", "res"]
    for rank, events in enumerate(traced(tmp, args)):
        calls = [c for c, _ in events if c in ("pwrite", "fsync")]
        assert calls == ["pwrite", "fsync", "fsync"] * 4, (rank, events)
        assert {a for c, a in events if c == "fsync"} == {f"{base}.{rank:08d}"}
    args[-1] = "res-e"
    for rank, events in enumerate(traced(tmp, [*args, "-e"])):
        calls = [c for c, _ in events if c in ("pwrite", "fsync")]
        assert calls == ["pwrite", "fsync", "fsync"] * 4 + ["fsync"], (rank, events)
    plain = ["-w", "-F", "-t", "4k", "-b", "16k", "-o", str(tmp / "n"), "--resultdir", "res-n"]
    without = traced(tmp, plain)
    assert all(c != "fsync" for events in without for c, _ in events)


@needs_strace
def test_multi_file_uses_a_file_per_repetition(tmp: Path) -> None:
    """-m: repetition i writes and reads <file>.i (shared file and file per process)."""
    base = tmp / "m"
    args = ["-m", "-i", "2", "-t", "4k", "-b", "8k", "-o", str(base), "-k"]
    events = traced(tmp, [*args, "--resultdir", "res"])
    opened = {a for c, a in events[0] if c == "open"}
    assert opened == {f"{base}.0", f"{base}.1"}
    assert sorted(p.name for p in tmp.glob("m.*") if "ioscore-test" not in p.name) == [
        "m.0",
        "m.1",
    ]
    assert (tmp / "m.0").stat().st_size == 2 * 8192
    args = ["-m", "-F", "-w", "-i", "2", "-t", "4k", "-b", "8k", "-o", str(tmp / "p")]
    events = traced(tmp, [*args, "--resultdir", "res-p"])
    assert {a for c, a in events[1] if c == "open"} == {
        f"{tmp}/p.00000001.0",
        f"{tmp}/p.00000001.1",
    }
    assert not list(tmp.glob("p.*")), "without -k IOR removes every repetition's file"


@needs_strace
def test_unique_dir_puts_each_ranks_file_in_its_own_directory(tmp: Path) -> None:
    """-u -F: rank r's file is <dir>/r/<name>.%08d; IOR makes the directory (0700). With -C
    (each rank its own host here) the read opens the other rank's file in its directory."""
    base = tmp / "u"
    args = ["-u", "-F", "-w", "-r", "-C", "-k", "-t", "4k", "-b", "8k", "-o", str(base)]
    args += ["--simulate-ppn", "1"]
    events = traced(tmp, [*args, "--resultdir", "res"])
    for rank in range(2):
        assert ("mkdir", f"{tmp}/{rank}") in events[rank]
        assert ("open", f"{tmp}/{rank}/u.{rank:08d}") in events[rank]
        assert (tmp / str(rank) / f"u.{rank:08d}").stat().st_size == 8192
        assert (tmp / str(rank)).stat().st_mode & 0o777 == 0o700
    opens = [a for c, a in events[0] if c == "open"]
    assert opens[-1] == f"{tmp}/1/u.00000001"
    assert result(tmp / "res")["phases"][1]["verify_errors"] == 0


def test_max_time_duration_starts_no_access_after_the_limit(tmp: Path) -> None:
    """-T: a limit the run stays under runs every repetition (the limit is in minutes)."""
    args = ["-T", "1", "-i", "3", "-t", "4k", "-b", "8k", "-o", str(tmp / "t")]
    stdout = ok(run_ior(tmp, [*args, "--resultdir", str(tmp / "res")]))
    assert [row[0] for row in result_rows(stdout)] == ["write", "read"] * 3


def test_help_lists_options_directives_and_refusals(tmp: Path) -> None:
    """--help comes from the option table: accepted options with defaults, the -O keys, and
    the IOR options this build refuses, each with its meaning."""
    proc = subprocess.run(
        [str(SUITE_BIN), "ior", "--help"], capture_output=True, text=True, env=MPI_ENV, timeout=30
    )
    assert proc.returncode == 0
    text = proc.stdout
    accepted, refused = text.split("IOR options this build refuses", 1)
    assert re.search(r"^  -b N +blockSize: .*\(1m\)$", accepted, re.M)
    assert re.search(r"^  -Y +fsyncPerWrite", accepted, re.M)
    assert "-O stoneWallingWearOut=0|1" in accepted
    assert re.search(r"^  -P +useSharedFilePointer", refused, re.M)
    assert "-Y" not in refused and "-u " not in refused
    for letter in re.findall(r"^  -([A-NP-Za-z]) ", refused, re.M):
        proc = run_ior(tmp, [f"-{letter}"])
        assert proc.returncode == 2 and f"not supported: -{letter} (" in proc.stderr
    keys = re.findall(r"^  -O (\w+)=", refused, re.M)
    assert "lustreIgnoreLocks" in keys  # hints no tool can apply are refused rows too
    for key in keys:
        proc = run_ior(tmp, ["-O", f"{key}=1"])
        assert proc.returncode == 2 and f"not supported: -O {key} (" in proc.stderr
    md = subprocess.run(
        [str(SUITE_BIN), "mdtest", "--help"], capture_output=True, text=True, env=MPI_ENV
    )
    assert re.search(r"^  -z N +depth of the tree \(0\)$", md.stdout, re.M)
    assert re.search(r"^  -x +stonewall status file$", md.stdout, re.M)


def test_a_read_may_read_a_subset_of_what_the_write_produced(tmp: Path) -> None:
    """The hero read-IOPS pair, shrunk: a -D write of large blocks, then a read of fewer,
    smaller blocks in random order (-b 1g -t 4k -s 20 -z of a -b 64g -t 64m dataset). IOR
    reads it; a read beyond the data, on more tasks, or verifying (-R) another layout is
    refused before any I/O with the reason."""
    data = str(tmp / "d")
    write = ["-F", "-e", "-g", "-b", "1m", "-t", "64k", "-D", "5", "-w", "-k"]
    ok(run_ior(tmp, [*write, "-O", "stoneWallingWearOut=1", "-o", data, "--resultdir", "w"]))
    read = ["-F", "-C", "-e", "-g", "-b", "64k", "-t", "4k", "-s", "4", "-D", "5", "-r", "-k"]
    stdout = ok(run_ior(tmp, [*read, "-z", "-o", data, "--resultdir", "r"]))
    (phase,) = result(tmp / "r")["phases"]
    assert phase["items"] == 2 * 4 * 16 and [row[0] for row in result_rows(stdout)] == ["read"]
    assert result(tmp / "r")["acceptance_test"]["parts"][-1]["role"] == "read"
    refusals = [
        (["-b", "512k", "-s", "4"], 2, "this read needs 2097152 bytes per file"),
        (["-b", "64k"], 3, "this read runs 3 tasks, the write part of test"),
        (["-b", "64k", "-R"], 2, "-R verifies with the write's layout"),
    ]
    for args, np, message in refusals:
        proc = run_ior(tmp, ["-F", "-r", "-k", "-t", "4k", *args, "-o", data], np=np)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp.iterdir()) == [
        "d.00000000",
        "d.00000001",
        "d.ioscore-test.json",
        "r",
        "w",
    ]


def test_a_subset_of_a_stonewalled_write_is_what_it_wrote(tmp: Path) -> None:
    """A -D write that stopped early wrote a prefix of each rank's file (sequential order):
    a read of fewer bytes than that prefix runs, a read of the whole -b is refused."""
    data = str(tmp / "s")
    ok(run_ior(tmp, ["-F", "-w", "-k", "-t", "8", "-b", "64m", "-D", "1", "-o", data]))
    ok(run_ior(tmp, ["-F", "-r", "-k", "-t", "8", "-b", "4k", "-o", data, "--resultdir", "r"]))
    assert result(tmp / "r")["phases"][0]["items"] == 2 * 512
    proc = run_ior(tmp, ["-F", "-r", "-k", "-t", "8", "-b", "32m", "-s", "2", "-o", data])
    assert proc.returncode == 2 and "this read needs 67108864 bytes per file" in proc.stderr
    z = str(tmp / "z")
    ok(run_ior(tmp, ["-F", "-w", "-k", "-z", "-t", "8", "-b", "64m", "-D", "1", "-o", z]))
    proc = run_ior(tmp, ["-F", "-r", "-k", "-t", "8", "-b", "4k", "-o", z])
    assert proc.returncode == 2 and "stopped early (-D) in -z order" in proc.stderr


LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


def iors_random_targets(np: int, seed: int, twice: bool, nodes: int, ppn: int) -> list[int]:
    """The rank each rank reads under IOR's -Z (twice: -ZZ) with -X seed and -Q 1, drawn with
    the C library's rand() as IOR does."""
    if not twice:
        out = []
        for rank in range(np):
            LIBC.srand(rank + seed)
            off = LIBC.rand() % np
            while off < min(1, nodes - 1) * ppn:
                off = LIBC.rand() % np
            out.append((rank + off) % np)
        return out
    LIBC.srand(seed)
    perm = list(range(np))
    for i in range(np):
        t = i + LIBC.rand() % (np - i)
        perm[t], perm[i] = perm[i], perm[t]
    return perm


@needs_strace
@pytest.mark.parametrize(
    ("flags", "seed", "twice"), [(["-Z"], 7, False), (["-Z", "-Z"], 3, True)], ids=["Z", "ZZ"]
)
def test_reorder_tasks_random_reads_iors_random_rank(
    tmp: Path, flags: list[str], seed: int, twice: bool
) -> None:
    """-Z -X S: each rank reads the file of the rank IOR draws (4 ranks, each its own host)."""
    base = tmp / "z"
    args = ["-F", "-w", "-r", *flags, "-X", str(seed), "-t", "4k", "-b", "8k", "-o", str(base)]
    events = traced(tmp, [*args, "--simulate-ppn", "1", "--resultdir", "res"], np=4)
    expect = iors_random_targets(4, seed, twice, nodes=4, ppn=1)
    for rank in range(4):
        opens = [a for c, a in events[rank] if c == "open"]
        assert opens == [f"{base}.{rank:08d}", f"{base}.{expect[rank]:08d}"], rank
    assert result(tmp / "res")["phases"][1]["verify_errors"] == 0


def test_stonewalling_status_file_carries_the_pairs_to_the_read(tmp: Path) -> None:
    """-O stoneWallingStatusFile: the wear-out write stores its pairs count (every rank then
    wrote that many); a later read launch reads that many transfers per rank."""
    status = tmp / "status"
    keys = f"stoneWallingWearOut=1,stoneWallingStatusFile={status}"
    common = ["-F", "-k", "-t", "8", "-b", "64m", "-o", str(tmp / "s")]
    ok(run_ior(tmp, [*common, "-w", "-D", "1", "-O", keys, "--resultdir", "w"]))
    pairs = int(status.read_text())
    (write,) = result(tmp / "w")["phases"]
    assert 0 < pairs < (64 << 20) // 8
    assert [r["items"] for r in write["ranks"]] == [pairs, pairs]
    status.write_text("100")  # as a script may set it: the read reads that many
    read = ["-r", "-O", f"stoneWallingStatusFile={status}", "--resultdir", "r"]
    ok(run_ior(tmp, [*common, *read]))
    assert [r["items"] for r in result(tmp / "r")["phases"][0]["ranks"]] == [100, 100]
    status.unlink()
    proc = run_ior(tmp, [*common, *read[:-1], "r2"])
    assert "could not read back the stonewalling status" in ok(proc) + proc.stderr
    refusals = [
        (["-w", "-O", f"stoneWallingStatusFile={status}"], "needs -O stoneWallingWearOut=1"),
        (["-r", "-O", f"stoneWallingStatusFile={status}"], "add -k"),
    ]
    for args, message in refusals:
        keep = [a for a in common if a != "-k"] if message == "add -k" else common
        proc = run_ior(tmp, [*keep, *args])
        assert proc.returncode == 2 and message in proc.stderr


def test_min_time_duration_repeats_the_access_from_the_start(tmp: Path) -> None:
    """-O minTimeDuration=1: the write starts again from the first transfer until it ran 1 s;
    every pass is whole (a multiple of the transfers per rank) and the file keeps its size."""
    args = ["-F", "-w", "-k", "-t", "4k", "-b", "16k", "-o", str(tmp / "m")]
    ok(run_ior(tmp, [*args, "-O", "minTimeDuration=1", "--resultdir", "res"]))
    (phase,) = result(tmp / "res")["phases"]
    for r in phase["ranks"]:
        assert r["items"] > 4 and r["items"] % 4 == 0
    assert (tmp / "m.00000000").stat().st_size == 16 << 10


def test_num_tasks(tmp: Path) -> None:
    """-N: IOR's numTasks. More than launched runs on the launched ranks (IOR warns); fewer
    runs the test on the first N ranks while the others wait, as IOR's test communicator."""
    args = ["-w", "-t", "4k", "-b", "8k", "-o", str(tmp / "n"), "-k"]
    proc = run_ior(tmp, [*args, "-N", "3", "--resultdir", "res"])
    assert "more tasks requested (-N 3) than available (2)" in ok(proc) + proc.stderr
    assert result(tmp / "res")["phases"][0]["bytes"] == 2 * 8192
    stdout = ok(run_ior(tmp, [*args, "-F", "-N", "1", "--resultdir", "res1"]))
    assert "tasks               : 1\n" in stdout
    (phase,) = result(tmp / "res1")["phases"]
    assert phase["bytes"] == 8192 and [r["bytes"] for r in phase["ranks"]] == [8192]
    assert sorted(p.name for p in tmp.glob("n.0*")) == ["n.00000000"]
