"""`ioscore-suite ior` against IOR itself: the same command line, the same work.

Runs only when IOSCORE_REFERENCE_IOR names an IOR binary built from hpc/ior (IO500 pins
5fcf0ba); skips with that reason otherwise. Both tools run the same shrunk command line on 4
ranks, each under its own MPI's launcher, every rank in its own UTS namespace (`unshare -u`)
with a host name of its placement (round-robin: rank r on host r mod 2; blocks: ranks 2h,
2h+1 on host h), and under `strace`. What each rank did to the data files (open, pwrite64,
pread64: file, offset, size, in order) must be identical. The cases proved here are also
ordinary tests of ioscore's own behaviour in test_acceptance_ior.py, which CI runs without the
reference.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from suite_helpers import MPI_ENV, SUITE_BIN, suite_bin  # noqa: F401

from tests.mpi_launch import MPI, SH_RANK, of_binary

REFERENCE = os.environ.get("IOSCORE_REFERENCE_IOR", "")
pytestmark = [
    pytest.mark.skipif(
        not (REFERENCE and os.access(REFERENCE, os.X_OK)),
        reason="IOSCORE_REFERENCE_IOR does not name an IOR binary (built from hpc/ior 5fcf0ba)",
    ),
    pytest.mark.skipif(
        not (shutil.which("strace") and shutil.which("unshare") and os.geteuid() == 0),
        reason="needs strace, unshare and root (per-rank UTS namespaces)",
    ),
    pytest.mark.usefixtures("suite_bin"),
]

NP = 4
FILE_BLOCKS = 1 << 16  # ulimit -f in 512-byte blocks: 32 MiB per file at most

# Per rank: its host name from its placement, strace into trace.<rank>, then the tool.
RANK_WRAPPER = f"""#!/bin/sh
r={SH_RANK}
if [ "$PLACEMENT" = block ]; then h=$((r / 2)); else h=$((r % 2)); fi
ulimit -f "$FILE_BLOCKS"
exec unshare -u sh -c 'hostname "$0" && exec "$@"' "h$h" \\
    strace -f -qq -s 0 -e trace=openat,lseek,read,write,pread64,pwrite64,fsync,close \\
    $STRACE_EXTRA \\
    -o "$TRACE_DIR/trace.$r" "$@"
"""

SYSCALL = re.compile(r"^(?:\d+ +)?(\w+)\((.*)\) += (-?\d+)")


def data_events(trace: Path, name: str) -> list[tuple[str, str, int, int]]:
    """One rank's work on the files `name` and `name`.NNNNNNNN (and -m's `.<repetition>`), in
    order: ("open-read" or "open-write", file, 0, 0), ("read" or "write", file, offset, size),
    whether the tool used pread/pwrite or lseek then read/write (IOR's POSIX backend), and
    ("fsync", file, 0, 0)."""
    fds: dict[int, str] = {}
    pos: dict[int, int] = {}
    events = []
    for line in trace.read_text().splitlines():
        m = SYSCALL.match(line)
        if not m:
            continue
        call, args, ret = m.group(1), m.group(2), int(m.group(3))
        fd = int(args.split(",", 1)[0]) if call != "openat" else -1
        if call == "openat":
            path = args.split('"')[1].removeprefix("./")
            base = os.path.basename(path)
            if ret >= 0 and re.fullmatch(re.escape(name) + r"(\.\d{8})?(\.\d{1,2})?", base):
                fds[ret], pos[ret] = path, 0
                mode = "write" if ("O_WRONLY" in args or "O_RDWR" in args) else "read"
                events.append(("open-" + mode, path, 0, 0))
        elif fd not in fds:
            continue
        elif call == "close":
            del fds[fd]
        elif call == "fsync":
            events.append(("fsync", fds[fd], 0, 0))
        elif call == "lseek":
            pos[fd] = ret
        elif call in ("read", "write"):
            events.append((call, fds[fd], pos[fd], int(args.rsplit(",", 1)[1])))
            pos[fd] += max(ret, 0)
        elif call in ("pread64", "pwrite64"):
            size, offset = (int(v) for v in args.rsplit(",", 2)[1:])
            events.append((call[1:-2], fds[fd], offset, size))
    return events


def run_traced(
    tmp: Path, tool: list[str], args: list[str], placement: str, env: dict[str, str]
) -> tuple[str, list[list[tuple[str, str, int, int]]]]:
    """Runs `tool args` in tmp under the rank wrapper: stdout, and each rank's data events."""
    tmp.mkdir(parents=True, exist_ok=True)
    wrapper = tmp / "rank.sh"
    wrapper.write_text(RANK_WRAPPER)
    wrapper.chmod(0o755)
    env = {**env, "PLACEMENT": placement, "TRACE_DIR": str(tmp), "FILE_BLOCKS": str(FILE_BLOCKS)}
    mpi = of_binary(tool[0])  # a reference build may link another MPI than the suite's
    full_env = {**MPI_ENV, **mpi.env, **env}
    cmd = mpi.launch(NP, forward=env)
    proc = subprocess.run(
        [*cmd, str(wrapper), *tool, *args],
        cwd=tmp,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, f"{tool[0]} rc {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout, [data_events(tmp / f"trace.{r}", "f") for r in range(NP)]


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-ior-diff-", dir="/dev/shm") as d:
        yield Path(d)


def both(
    tmp: Path,
    args: list[str],
    placement: str = "round-robin",
    strace_extra: str = "",
    out: str = "f",
) -> tuple[tuple[str, list], tuple[str, list]]:
    """The same command line under IOR and ioscore-suite ior, in separate directories."""
    extra = {"STRACE_EXTRA": strace_extra}
    ref_env = {"IOR_FAKE_TASK_PER_NODES": "2"} if placement == "block" else {}
    if "-Z" in args:  # IOR counts nodes by shared memory: tell it the 2 hosts the names say
        ref_env |= {"IOR_FAKE_NODES": "2", "IOR_FAKE_TASK_PER_NODES": "2"}
    ref = run_traced(tmp / "ref", [REFERENCE], [*args, "-o", out], placement, ref_env | extra)
    ios_args = [*args, "-o", out, "--resultdir", str(tmp / "ios" / "res")]
    ios = run_traced(tmp / "ios", [str(SUITE_BIN), "ior"], ios_args, placement, extra)
    return ref, ios


SEED = ["--random-offset-seed", "11"]

# Each case: a shrunk command line and the placement of its ranks; which ordinary test of
# test_acceptance_ior.py proves the same behaviour without the reference.
CASES = {
    # -C under round-robin placement reads the next host's file (IOR: shift 1 x -Q)
    "C-round-robin-fpp": (["-w", "-r", "-C", "-F", "-t", "4k", "-b", "16k"], "round-robin"),
    "CQ2-round-robin-fpp": (["-w", "-r", "-C", "-Q", "2", "-F", "-t", "4k", "-b", "16k"], "rr"),
    "C-round-robin-shared": (["-w", "-r", "-C", "-t", "4k", "-b", "16k", "-s", "2"], "rr"),
    "CW-round-robin-fpp": (["-w", "-W", "-r", "-C", "-F", "-t", "4k", "-b", "8k"], "rr"),
    # -C under block placement (IOR learns the tasks per node from IOR_FAKE_TASK_PER_NODES)
    "C-block-fpp": (["-w", "-r", "-C", "-F", "-t", "4k", "-b", "16k"], "block"),
    "C-block-shared-s2": (["-w", "-r", "-C", "-t", "4k", "-b", "8k", "-s", "2"], "block"),
    # -z: IOR's shuffle of each segment's transfers, segments in order; the read's own order
    "z-fpp-s3": (["-w", "-r", "-z", "-F", "-t", "4k", "-b", "32k", "-s", "3", *SEED], "rr"),
    "z-shared-s2": (["-w", "-r", "-z", "-t", "4k", "-b", "32k", "-s", "2", *SEED], "rr"),
    "zC-fpp-R": (["-w", "-r", "-R", "-z", "-C", "-F", "-t", "4k", "-b", "16k", *SEED], "rr"),
    "zW-fpp-i2": (["-w", "-W", "-r", "-z", "-F", "-t", "4k", "-b", "16k", "-i", "2", *SEED], "rr"),
    # -Y: fsyncs after every write (IOR makes two; -e: one more at the end)
    "Y-fpp": (["-w", "-Y", "-F", "-t", "4k", "-b", "16k"], "rr"),
    "Ye-shared": (["-w", "-Y", "-e", "-t", "4k", "-b", "16k"], "rr"),
    # -m: repetition i on <file>.i
    "m-fpp-i2": (["-w", "-r", "-m", "-F", "-i", "2", "-t", "4k", "-b", "8k"], "rr"),
    "m-shared-i2": (["-w", "-r", "-m", "-i", "2", "-t", "4k", "-b", "8k", "-k"], "rr"),
    # -Z: the read of a random rank (IOR's rand()), -ZZ a permutation, -X < 0 per repetition
    "Z-fpp": (["-w", "-r", "-Z", "-X", "5", "-F", "-t", "4k", "-b", "8k"], "rr"),
    "ZZ-shared": (["-w", "-r", "-Z", "-Z", "-X", "3", "-t", "4k", "-b", "8k"], "rr"),
    "Z-Xneg-i2-block": (
        ["-w", "-r", "-Z", "-X", "-4", "-i", "2", "-F", "-t", "4k", "-b", "8k"],
        "block",
    ),
    # -N above the launched ranks: IOR runs on the launched ones
    "N-above": (["-w", "-r", "-N", "8", "-F", "-t", "4k", "-b", "8k"], "rr"),
    # -N below: the first N ranks run the test (-C shifts among them), the others idle
    "N-below-fpp": (["-w", "-r", "-N", "2", "-C", "-F", "-t", "4k", "-b", "8k"], "rr"),
    "N-below-shared": (["-w", "-r", "-N", "3", "-t", "4k", "-b", "8k", "-s", "2"], "rr"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_work_as_ior(tmp: Path, case: str) -> None:
    args, placement = CASES[case]
    (_, ref), (_, ios) = both(tmp, args, "block" if placement == "block" else "round-robin")
    for rank in range(NP):
        assert ios[rank] == ref[rank], f"rank {rank}: ioscore {ios[rank]} != IOR {ref[rank]}"


def test_unique_dir_like_ior(tmp: Path) -> None:
    """-u -F (with -C): rank r's file in ./r/, the read the next host's; -o with a directory
    part (IOR makes "f0/.00000000" of a bare "-o f", a quirk of its path split)."""
    args = ["-w", "-r", "-u", "-C", "-F", "-t", "4k", "-b", "8k"]
    (_, ref), (_, ios) = both(tmp, args, out="./f")
    assert ref[1][0] == ("open-write", "1/f.00000001", 0, 0)
    for rank in range(NP):
        assert ios[rank] == ref[rank], f"rank {rank}: ioscore {ios[rank]} != IOR {ref[rank]}"


def test_min_time_duration_like_ior(tmp: Path) -> None:
    """-O minTimeDuration=1: both tools start each rank's write again from its first transfer
    until 1 s has passed; how many passes depends on the speed, the shape does not."""
    args = ["-w", "-F", "-t", "4k", "-b", "16k", "-O", "minTimeDuration=1"]
    for _, events in both(tmp, args):
        for rank, ev in enumerate(events):
            writes = [e[2] for e in ev if e[0] == "write"]
            assert len(writes) > 4 and len(writes) % 4 == 0, rank
            assert writes == [0, 4096, 8192, 12288] * (len(writes) // 4), rank


def test_stonewalling_status_file_like_ior(tmp: Path) -> None:
    """-O stoneWallingStatusFile: the wear-out write stores the pairs every rank then wrote;
    a later read launch given a file saying 10 reads 10 transfers per rank, in both tools."""
    write = ["-w", "-k", "-F", "-t", "8", "-b", "1m", "-D", "1", "-O", "stoneWallingWearOut=1"]
    read = ["-r", "-k", "-F", "-t", "8", "-b", "1m", "-O", "stoneWallingStatusFile=status"]
    for name, tool in (("ref", [REFERENCE]), ("ios", [str(SUITE_BIN), "ior"])):
        where = tmp / name
        res = ["--resultdir", str(where / "res-w")] if name == "ios" else []
        keys = ["-O", "stoneWallingStatusFile=status"]
        _, events = run_traced(where, tool, [*write, *keys, "-o", "f", *res], "rr", {})
        pairs = int((where / "status").read_text())
        assert [sum(e[0] == "write" for e in ev) for ev in events] == [pairs] * NP, name
        (where / "status").write_text("10")
        res = ["--resultdir", str(where / "res-r")] if name == "ios" else []
        _, events = run_traced(where, tool, [*read, "-o", "f", *res], "rr", {})
        assert [sum(e[0] == "read" for e in ev) for ev in events] == [10] * NP, name


def test_hero_read_of_a_subset_like_ior(tmp: Path) -> None:
    """The hero read-IOPS pair, shrunk: a write of large blocks kept, then a read of fewer,
    smaller blocks, -C and -z: both tools read the same offsets of the same files."""
    write = ["-w", "-k", "-F", "-e", "-g", "-t", "64k", "-b", "1m", "-o", "f"]
    read = ["-r", "-k", "-F", "-C", "-e", "-g", "-z", "-t", "4k", "-b", "64k", "-s", "4"]
    read += [*SEED, "-o", "f"]
    got = {}
    for name, tool in (("ref", [REFERENCE]), ("ios", [str(SUITE_BIN), "ior"])):
        where = tmp / name
        res_w = ["--resultdir", str(where / "w")] if name == "ios" else []
        res_r = ["--resultdir", str(where / "r")] if name == "ios" else []
        run_traced(where, tool, [*write, *res_w], "rr", {})
        got[name] = run_traced(where, tool, [*read, *res_r], "rr", {})[1]
    for rank in range(NP):
        assert len(got["ref"][rank]) == 1 + 4 * 16, rank
        assert got["ios"][rank] == got["ref"][rank], rank


def test_read_after_a_stonewalled_write_like_ior(tmp: Path) -> None:
    """-w -r -D: how far the write got depends on the speed, so the two tools are compared on
    IOR's rule: each rank writes a prefix of its block, then reads a prefix of that prefix (its
    own write count bounds the read), and neither fails at the end of a file."""
    args = ["-w", "-r", "-F", "-t", "8", "-b", "1m", "-D", "1"]
    for _, events in both(tmp, args):
        for rank, ev in enumerate(events):
            writes = [e[2] for e in ev if e[0] == "write"]
            reads = [e[2] for e in ev if e[0] == "read"]
            assert 0 < len(writes) < (1 << 20) // 8, f"rank {rank}: not stopped by -D"
            assert writes == list(range(0, 8 * len(writes), 8))
            assert 0 < len(reads) <= len(writes) and reads == writes[: len(reads)]


def test_random_order_without_a_seed_like_ior(tmp: Path) -> None:
    """-w -r -z, no --random-offset-seed: IOR seeds with the start time, the write with it
    alone and the read with it plus the rank, so a rank reads its file in another order than
    it wrote it; both tools visit every transfer of every segment once, segment by segment."""
    args = ["-w", "-r", "-z", "-F", "-t", "4k", "-b", "64k", "-s", "2"]
    for _, events in both(tmp, args):
        for rank, ev in enumerate(events):
            writes = [e[2] for e in ev if e[0] == "write"]
            reads = [e[2] for e in ev if e[0] == "read"]
            for order in (writes, reads):
                assert [o // (64 << 10) for o in order] == [0] * 16 + [1] * 16
                assert sorted(order) == list(range(0, 128 << 10, 4096))
                assert order != sorted(order)
            assert (writes != reads) == (rank != 0)


def results_row(stdout: str, access: str) -> list[float]:
    """bw, IOPS, latency, open, wr/rd, close, total of IOR's results table row `access`."""
    for line in stdout.splitlines():
        cells = line.split()
        if len(cells) == 11 and cells[0] == access and cells[-1] == "0":
            return [float(cells[i]) for i in (1, 2, 3, 6, 7, 8, 9)]
    raise AssertionError(f"no {access} row in\n{stdout}")


same_mpi = pytest.mark.skipif(
    not REFERENCE or of_binary(REFERENCE) != MPI,
    reason="IOSCORE_REFERENCE_IOR links another MPI library than the suite's: its barriers' "
    "cost, not the tools', would differ in the times",
)


@same_mpi
def test_same_numbers_at_the_same_speed(tmp: Path) -> None:
    """Every data write delayed 20 ms (strace inject): both tools measure the same speed, so
    the columns IOR prints agree (bandwidth, IOPS, latency, wr/rd, total within 15%), and
    close(s) stays tiny in both although -g makes ranks wait at the barrier before it."""
    delay = "-e inject=pwrite64:delay_enter=20000 -e inject=write:delay_enter=20000"
    args = ["-w", "-F", "-g", "-t", "4k", "-b", "64k"]
    (ref_out, _), (ios_out, _) = both(tmp, args, strace_extra=delay)
    ref, ios = results_row(ref_out, "write"), results_row(ios_out, "write")
    for i in (0, 1, 2, 4, 6):
        assert ios[i] == pytest.approx(ref[i], rel=0.15), (i, ref, ios)
    assert ref[5] < 0.01 and ios[5] < 0.01, (ref, ios)


# ---------------------------------------------------------------- the output scripts parse

MAX_LINE = re.compile(r"^Max (Write|Read): {1,2}\d+\.\d\d MiB/sec \(\d+\.\d\d MB/sec\)$", re.M)
SMALL = ["-F", "-t", "4k", "-b", "16k"]


def table_accesses(stdout: str) -> list[str]:
    """The access column of IOR's results table (ioscore's extra -W check row left out)."""
    head = stdout.split("Summary of all tests:", 1)[0]
    return re.findall(r"^(write|read|remove) ", head, re.M)


def summary_lines(stdout: str) -> tuple[str, list[str]]:
    """The summary table's header line and its rows' operations."""
    lines = stdout.split("Summary of all tests:\n", 1)[1].splitlines()
    return lines[0], [line.split()[0] for line in lines[1:] if re.match(r"^(write|read) ", line)]


def shape(value: object) -> object:
    """A JSON value with its numbers and strings replaced by their kinds: IOR's keys, nesting
    and order, not its values."""
    if isinstance(value, dict):
        return [(k, shape(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [shape(v) for v in value]
    return "number" if isinstance(value, int | float) else type(value).__name__


def number_forms(text: str) -> dict[str, set[str]]:
    """Per JSON member, how its numbers are written: "int" or "N decimals"."""
    forms: dict[str, set[str]] = {}
    for key, number in re.findall(r'"([^"]+)": (-?[0-9][0-9.]*)[,\n]', text):
        form = f"{len(number.split('.')[1])} decimals" if "." in number else "int"
        forms.setdefault(key, set()).add(form)
    return forms


OUTPUT_CASES = {
    # IOR prints remove rows and Max lines from -v on, remove rows only without -k
    "v-wr-i2": ["-v", "-w", "-r", "-i", "2", *SMALL],
    "v-wr-k": ["-v", "-w", "-r", "-k", *SMALL],
    "wr-default-verbosity": ["-w", "-r", *SMALL],
    "v-w-shared-s2": ["-v", "-w", "-t", "4k", "-b", "16k", "-s", "2"],
    "v-wWr-C": ["-v", "-w", "-W", "-r", "-C", *SMALL],
    "v-wR": ["-v", "-w", "-R", *SMALL],  # -R without -r: a read row, no Max Read
}


def header(stdout: str) -> list[tuple[str, str]]:
    """IOR's "key : value" lines before the results table, ioscore's own two left out."""
    head = stdout.split("\nResults: \n", 1)[0].splitlines()[1:]
    pairs = [(line[:20].rstrip(), line[22:]) for line in head if line[20:22] == ": "]
    return [(k, v) for k, v in pairs if k not in ("Results", "data packet type")]


# header values that differ by nature: times, the command, host and file system figures;
# "clients per node": IOR counts a physical node's tasks, ioscore the host names it is given
VARYING = {"Began", "Command line", "Machine", "StartTime", "FS", "nodes", "clients per node"}


@pytest.mark.parametrize("case", sorted(OUTPUT_CASES))
def test_text_lines_like_ior(tmp: Path, case: str) -> None:
    (ref, _), (ios, _) = both(tmp, OUTPUT_CASES[case])
    assert [k for k, _ in header(ios)] == [k for k, _ in header(ref)]
    for (key, ios_value), (_, ref_value) in zip(header(ios), header(ref), strict=True):
        assert key in VARYING or ios_value == ref_value, key
    assert table_accesses(ios) == table_accesses(ref)
    assert MAX_LINE.findall(ios) == MAX_LINE.findall(ref)
    assert summary_lines(ios) == summary_lines(ref)


JSON_CASES = {
    "wr-i2": ["-w", "-r", "-i", "2", *SMALL],
    "v-wr-C": ["-v", "-w", "-r", "-C", *SMALL],
    "v-w-k-shared": ["-v", "-w", "-k", "-t", "4k", "-b", "16k"],
    "v-wr-D-wearout": ["-v", "-w", "-r", "-D", "5", "-O", "stoneWallingWearOut=1", *SMALL],
}


@pytest.mark.parametrize("case", sorted(JSON_CASES))
def test_json_document_like_ior(tmp: Path, case: str) -> None:
    """-O summaryFormat=JSON: IOR's document with the same members in the same nesting and
    order (values aside), read from IOR's -O summaryFile (IOR writes stonewall log lines on
    stdout) and from ioscore's stdout."""
    args = [*JSON_CASES[case], "-O", "summaryFormat=JSON"]
    both(tmp, [*args, "-O", "summaryFile=doc.json"])
    ref_text = (tmp / "ref" / "doc.json").read_text()
    ref = json.loads(ref_text)
    (_, _), (ios_out, _) = both(tmp / "again", args)
    ios = json.loads(ios_out)
    assert number_forms(ios_out) == number_forms(ref_text)  # IOR's %.4f, its integers
    assert json.loads((tmp / "ios" / "doc.json").read_text()).keys() == ios.keys()
    ref_options, ios_options = ref["tests"][0].pop("Options"), ios["tests"][0].pop("Options")
    assert shape(ios) == shape(ref)
    assert list(ios_options) == list(ref_options)
    for key in ("xfersize", "blocksize", "aggregate filesize", "tasks", "access"):
        assert ios_options[key] == ref_options[key], key
    # the parameters and the summary's settings mean the same (measurements, times, host and
    # placement aside: IOR counts a physical node's tasks, ioscore the host names it is given)
    varying = {"platform", "nodes", "tasksPerNode", "setTimeStampSignature/incompressibleSeed"}
    ref_test, ios_test = ref["tests"][0], ios["tests"][0]
    for key, value in ref_test["Parameters"].items():
        assert key in varying or ios_test["Parameters"][key] == value, key
    for ref_op, ios_op in zip(ref["summary"], ios["summary"], strict=True):
        for key, value in ref_op.items():
            if isinstance(value, str) or key in ("TestID", "segmentCount", "blockSize"):
                assert ios_op[key] == value, key
        for key in ("numTasks", "repetitions", "filePerProc", "reorderTasks", "transferSize"):
            assert ios_op[key] == ref_op[key], key
        assert ios_op["xsizeMiB"] == pytest.approx(ref_op["xsizeMiB"], abs=0.0001)


def test_csv_like_ior(tmp: Path) -> None:
    (ref, _), (ios, _) = both(tmp, ["-w", "-r", "-i", "2", "-O", "summaryFormat=CSV", *SMALL])
    ref_lines, ios_lines = ref.strip().splitlines(), ios.strip().splitlines()
    assert ios_lines[0] == ref_lines[0]  # the header
    key = [(r.split(",")[0], *r.split(",")[-2:]) for r in ref_lines[1:]]
    assert [(r.split(",")[0], *r.split(",")[-2:]) for r in ios_lines[1:]] == key
    assert {len(r.split(",")) for r in ios_lines} == {12}


def test_summary_file_and_rank_csv_like_ior(tmp: Path) -> None:
    args = ["-v", "-w", "-W", "-r", "-i", "2", *SMALL]
    args += ["-O", "summaryFile=sum.txt,saveRankPerformanceDetailsCSV=ranks.csv"]
    (ref_out, _), (ios_out, _) = both(tmp, args)
    assert ref_out.splitlines()[0] == ios_out.splitlines()[0] == "Writing output to sum.txt"
    ref, ios = ((tmp / t / "sum.txt").read_text() for t in ("ref", "ios"))
    assert table_accesses(ios) == table_accesses(ref)
    assert MAX_LINE.findall(ios) == MAX_LINE.findall(ref)
    ref_csv, ios_csv = ((tmp / t / "ranks.csv").read_text().splitlines() for t in ("ref", "ios"))
    assert ios_csv[0] == ref_csv[0]
    assert [r.split(",")[:2] for r in ios_csv[1:]] == [r.split(",")[:2] for r in ref_csv[1:]]


HINT = ["-o", "f", "-O", "lustrestripecount=1"]


def test_lustre_hint_refused_off_lustre_like_ior(tmp: Path) -> None:
    """IOR built without Lustre refuses -O lustrestripecount; on /dev/shm ioscore refuses it
    too, before writing anything (and would apply it with lfs setstripe on Lustre)."""
    for name, tool in (("ref", [REFERENCE]), ("ios", [str(SUITE_BIN), "ior"])):
        cwd = tmp / name
        cwd.mkdir()
        proc = subprocess.run(
            ["mpirun", "-np", "2", "--oversubscribe", *tool, "-w", *SMALL, *HINT],
            cwd=cwd,
            env=MPI_ENV,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode != 0, (name, proc.stdout, proc.stderr)
        assert not list(cwd.glob("f*")), name


@same_mpi
def test_max_write_at_the_same_speed(tmp: Path) -> None:
    """Every data write delayed 20 ms: Max Write agrees within 15%, in MiB/s and MB/s."""
    delay = "-e inject=pwrite64:delay_enter=20000 -e inject=write:delay_enter=20000"
    args = ["-v", "-w", "-F", "-t", "4k", "-b", "64k"]
    (ref_out, _), (ios_out, _) = both(tmp, args, strace_extra=delay)
    pattern = re.compile(r"^Max Write: (\S+) MiB/sec \((\S+) MB/sec\)$", re.M)
    ref, ios = pattern.search(ref_out), pattern.search(ios_out)
    assert ref and ios, (ref_out, ios_out)
    for i in (1, 2):
        assert float(ios.group(i)) == pytest.approx(float(ref.group(i)), rel=0.15)


def test_two_launches_like_ior(tmp: Path) -> None:
    """A keeping write launch, then a read launch of its files with -v: the read launch has
    IOR's rows (read, then remove: without -k IOR removes after a read-only launch too) and
    only its Max Read line."""
    both(tmp, ["-w", "-k", *SMALL])
    (ref, _), (ios, _) = both(tmp, ["-v", "-r", *SMALL])
    assert table_accesses(ios) == table_accesses(ref) == ["read", "remove"]
    assert MAX_LINE.findall(ios) == MAX_LINE.findall(ref) == ["Read"]
    assert not list((tmp / "ios").glob("f.0*")) and not list((tmp / "ref").glob("f.0*"))


def test_stonewall_lines_like_ior(tmp: Path) -> None:
    """-D with -O stoneWallingWearOut=1 and -v: IOR's log lines with each rank's transfers at
    the stop, their min and max over the ranks, and the first write's count at the end (a
    stonewall the small files never reach: the counts are the whole block's)."""
    args = ["-v", "-w", "-r", "-D", "5", "-O", "stoneWallingWearOut=1", *SMALL]
    (ref, _), (ios, _) = both(tmp, args)

    def lines(out: str) -> tuple[list[str], list[str], list[str]]:
        ranks = sorted(re.findall(r"^\d+: stonewalling pairs accessed: \d+$", out, re.M))
        over = re.findall(r"^(stonewalling pairs accessed min: .* GiB) time: [\d.]+s$", out, re.M)
        return ranks, over, re.findall(r"^Pairs deadlineForStonewallingaccessed: .*$", out, re.M)

    assert lines(ios) == lines(ref)
    assert len(lines(ios)[0]) == 2 * NP and lines(ios)[2] == [
        "Pairs deadlineForStonewallingaccessed: 4"
    ]
