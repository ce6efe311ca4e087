"""Every IOR line of ../shared/data/acceptance-commands.md against IOR itself.

Each line is shrunk alike for both tools (-t at most 16 KiB, -b at most 64 KiB, -s at most 2,
-D 5, -o f in a /dev/shm directory; a pair's read of a subset, the hero read, reads a quarter of
the write's block), and a pair (a keeping write launch, then the read launch the document
names) runs as two launches on the same files. With IOSCORE_REFERENCE_IOR naming IOR built from
hpc/ior 5fcf0ba, both tools run each launch on 4 ranks, rank r in its own UTS namespace on host
r mod 2, under strace restricted to the data files, which also delays every data write and read
by the same amount: the speed both measure is that delay. Compared per launch:
  - the work: each rank's opens (file, flags, creation mode), writes, reads (file, offset,
    size), fsyncs, in order, and the files left with their sizes;
  - the numbers in the lines IOR prints: the results rows (access, bw, IOPS, latency, wr/rd,
    total within 20%, block, xfer and iter exactly), Max Write/Max Read, and the summary rows
    (every count and size column exactly, the rates within 20%), when both tools run on the
    same MPI library (an oversubscribed MPICH barrier costs milliseconds that Open MPI's does
    not, which open(s) and close(s) include; the work is compared under any pair).
-B and -H are spellings IOR 5fcf0ba no longer takes (now --posix.odirect, --mpiio.showHints):
IOR refuses them, ioscore takes them with their old meaning, and its work is compared with IOR
running the new spelling. A Lustre hint off Lustre is refused by both before any I/O; the
rest of that line is then compared as any other.

Without the reference (or without root for the namespaces) the same cases run ioscore alone,
its hosts named by --simulate-nodes 2, and its work is checked against IOR's layout rules:
which file each rank writes and reads, at which offsets, in which order (-z: each segment's
transfers once each, segment after segment), and the files left.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from suite_helpers import MPI_ENV, SUITE_BIN, suite_bin  # noqa: F401
from test_acceptance_commands import PAIRS, document_lines
from test_acceptance_ior import COMMANDS_MD, access_of, size_of, value
from test_ior_differential import FILE_BLOCKS, NP, RANK_WRAPPER, data_events

from tests.mpi_launch import MPI, SH_RANK, of_binary

REFERENCE = os.environ.get("IOSCORE_REFERENCE_IOR", "")
HAVE_REFERENCE = bool(REFERENCE and os.access(REFERENCE, os.X_OK))
NAMESPACES = bool(shutil.which("unshare")) and os.geteuid() == 0
pytestmark = [
    pytest.mark.skipif(not shutil.which("strace"), reason="needs strace"),
    pytest.mark.usefixtures("suite_bin"),
]
needs_reference = pytest.mark.skipif(
    not (HAVE_REFERENCE and NAMESPACES),
    reason="IOSCORE_REFERENCE_IOR does not name an IOR binary (built from hpc/ior 5fcf0ba), "
    "or no root for the per-rank UTS namespaces",
)

KIB = 1 << 10
DELAY_US = 40000  # per data write or read: the speed both tools measure
TOLERANCE = 0.20
SEED = ["--random-offset-seed", "11"]  # -z: the same shuffle in both tools
# the spellings IOR 5fcf0ba refuses, and its own for the same meaning
OLD_SPELLINGS = {"-B": "--posix.odirect", "-H": "--mpiio.showHints"}


def document_ior_lines() -> list[str]:
    """The document's IOR lines, in order."""
    return [t for t, _ in document_lines() if t.startswith(("ior ", "IOR "))]


def reads_only(args: list[str]) -> bool:
    write, read = access_of(args)
    return read and not write


@dataclass(frozen=True)
class Case:
    """One line, or a pair: the launches, shrunk, in order."""

    name: str
    launches: tuple[tuple[str, ...], ...]
    lines: tuple[str, ...]


def shrink(args: list[str], subset_of: int | None = None) -> list[str]:
    """The line's own options with the sizes scaled down and -o f; a read of fewer bytes than
    its write made (`subset_of`: the write's shrunk -b) reads a quarter of that block."""
    out: list[str] = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in ("-o", "-t", "-b", "-s", "-D"):
            skip = True
            if a == "-s":
                out += ["-s", str(min(2, int(args[i + 1])))]
            elif a == "-D":
                out += ["-D", "5"]
            continue
        out.append(a)
    xfer = min(size_of(value(args, "-t") or "256k"), 16 * KIB)
    block = min(size_of(value(args, "-b") or "1m"), 64 * KIB)
    if subset_of is not None:
        block = subset_of // 4
    block = max(xfer, block // xfer * xfer)
    out += ["-t", str(xfer), "-b", str(block), "-o", "f"]
    if "-z" in out:
        out += SEED
    return out


def cases() -> list[Case]:
    """Every IOR line: alone, or with the line it pairs with (test_acceptance_commands.py's
    pairs, the hero read with the hero run)."""
    second_of = {first: second for first, second in PAIRS if not first.startswith("mdtest")}
    seconds = set(second_of.values())
    out = []
    for i, text in enumerate(document_ior_lines()):
        if text in seconds:
            continue
        first = shrink(shlex.split(text)[1:])
        if text in second_of:
            read = shlex.split(second_of[text])[1:]
            written = value(shlex.split(text)[1:], "-b") or "1m"
            subset = int(value(first, "-b") or 0) if value(read, "-b") != written else None
            launches: tuple[tuple[str, ...], ...] = (tuple(first), tuple(shrink(read, subset)))
            out.append(Case(f"ior{i:02d}-pair", launches, (text, second_of[text])))
        else:
            out.append(Case(f"ior{i:02d}", (tuple(first),), (text,)))
    return out


CASES = cases()


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-ior-lines-", dir="/dev/shm") as d:
        yield Path(d)


# ---------------------------------------------------------------- running a launch


def data_names(where: Path) -> list[str]:
    """strace -P arguments: the data files of -o f, relative and absolute."""
    names = ["f", *(f"f.{r:08d}" for r in range(NP))]
    return [p for n in names for p in ("-P", n, "-P", str(where / n))]


def delays() -> list[str]:
    return [
        a
        for call in ("write", "pwrite64", "read", "pread64")
        for a in ("-e", f"inject={call}:delay_enter={DELAY_US}")
    ]


@dataclass
class Launch:
    rc: int
    stdout: str
    stderr: str
    events: list[list[tuple[str, str, int, int]]]
    files: dict[str, int]
    opens: list[list[tuple[str, str, str]]]


# flags that change nothing the storage sees: the descriptor's life in the process
PROCESS_FLAGS = {"O_CLOEXEC", "O_LARGEFILE"}
OPEN_LINE = re.compile(r'openat\(AT_FDCWD, "([^"]*)", ([A-Z_|]+)(?:, (0\d+))?\) += \d+')


def opens_of(trace: Path) -> list[tuple[str, str, str]]:
    """A rank's successful opens of the data files: (file, flags, creation mode), in order."""
    out = []
    for line in trace.read_text().splitlines():
        m = OPEN_LINE.search(line)
        if m:
            flags = "|".join(sorted(set(m.group(2).split("|")) - PROCESS_FLAGS))
            out.append((os.path.basename(m.group(1)), flags, m.group(3) or ""))
    return out


def launch(where: Path, tool: list[str], args: list[str], reference: bool) -> Launch:
    """One launch of `tool args` in `where` on NP ranks under strace (data files only, data
    calls delayed); with the reference, each rank in its own UTS namespace (host r mod 2)."""
    where.mkdir(parents=True, exist_ok=True)
    for old in where.glob("trace.*"):
        old.unlink()
    extra = " ".join(shlex.quote(a) for a in [*data_names(where), *delays()])
    if reference:
        wrapper = RANK_WRAPPER
    else:  # no namespaces: ioscore names its hosts itself (--simulate-nodes)
        wrapper = (
            f'#!/bin/sh\nr={SH_RANK}\nulimit -f "$FILE_BLOCKS"\n'
            "exec strace -f -qq -s 0 -e trace=openat,lseek,read,write,pread64,pwrite64,"
            'fsync,close $STRACE_EXTRA -o "$TRACE_DIR/trace.$r" "$@"\n'
        )
    script = where / "rank.sh"
    script.write_text(wrapper)
    script.chmod(0o755)
    env = {
        "PLACEMENT": "round-robin",
        "TRACE_DIR": str(where),
        "FILE_BLOCKS": str(FILE_BLOCKS),
        "STRACE_EXTRA": extra,
    }
    mpi = of_binary(tool[0])
    # Open MPI's own MPI-IO (OMPIO) fails IOR's MPI_File_open here (MPI_ERR_OTHER on tmpfs);
    # both tools then run on ROMIO, which MPICH always uses
    romio = {"OMPI_MCA_io": "romio321"} if mpi.name == "openmpi" and "MPIIO" in args else {}
    proc = subprocess.run(
        [*mpi.launch(NP, forward={**env, **romio}), str(script), *tool, *args],
        cwd=where,
        env={**MPI_ENV, **mpi.env, **env, **romio},
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    traces = [where / f"trace.{r}" for r in range(NP)]
    events = [data_events(t, "f") if t.exists() else [] for t in traces]
    files = {p.name: p.stat().st_size for p in where.glob("f*") if p.name != "f.ioscore-test.json"}
    opens = [opens_of(t) if t.exists() else [] for t in traces]
    return Launch(proc.returncode, proc.stdout, proc.stderr, events, files, opens)


def ioscore(where: Path, args: list[str], n: int, reference: bool) -> Launch:
    own = ["--resultdir", str(where / f"res{n}")]
    if not reference:
        own += ["--simulate-nodes", "2"]
    return launch(where, [str(SUITE_BIN), "ior"], [*args, *own], reference)


# ---------------------------------------------------------------- IOR's layout rules


def expected_work(args: list[str]) -> list[list[tuple[str, str, int]]]:
    """Per rank, the (write|read, file, offset) IOR makes for a POSIX launch, order aside for
    -z (each segment's transfers in IOR's shuffle): the rank's own file or blocks for the write,
    the data of the rank -C shifts it to (-Q hosts of one rank each: round-robin placement on 2
    hosts) for the read."""
    fpp, xfer = "-F" in args, int(value(args, "-t") or 0)
    block, segs = int(value(args, "-b") or 0), int(value(args, "-s") or "1")
    write, read = access_of(args)
    shift = int(value(args, "-Q") or "1") if "-C" in args else 0
    out = []
    for rank in range(NP):
        events = []
        for op, on in (("write", write), ("read", read)):
            if not on:
                continue
            target = (rank + (shift if op == "read" else 0)) % NP
            name = f"f.{target:08d}" if fpp else "f"
            for g in range(segs):
                base = g * block if fpp else (g * NP + target) * block
                events += [(op, name, base + k * xfer) for k in range(block // xfer)]
        out.append(events)
    return out


def check_layout(args: list[str], got: Launch) -> None:
    if "MPIIO" in args:  # the MPI library decides the calls (collective buffering, views)
        return
    for rank, want in enumerate(expected_work(args)):
        work = [(op, f, off) for op, f, off, _ in got.events[rank] if op in ("write", "read")]
        if "-z" in args:  # every transfer once, each segment before the next
            block = int(value(args, "-b") or 0)
            key = [(op, f, off // block) for op, f, off in work]
            assert key == [(op, f, off // block) for op, f, off in want], rank
            assert sorted(work) == sorted(want), rank
        else:
            assert work == want, f"rank {rank}: {work} != {want}"


def files_left(args: list[str], before: dict[str, int]) -> dict[str, int]:
    """What IOR leaves: the files with -k (a read launch: as they were), nothing without."""
    if "-k" not in args:
        return {}
    if reads_only(args):
        return before
    block, segs = int(value(args, "-b") or 0), int(value(args, "-s") or "1")
    if "-F" in args:
        return {f"f.{r:08d}": block * segs for r in range(NP)}
    return {"f": NP * block * segs}


# ---------------------------------------------------------------- IOR's printed numbers


def rows(stdout: str) -> list[list[str]]:
    head = stdout.split("Summary of all tests:", 1)[0]
    return [line.split() for line in head.splitlines() if re.match(r"^(write|read|remove) ", line)]


def summary(stdout: str) -> list[list[str]]:
    if "Summary of all tests:\n" not in stdout:
        return []
    lines = stdout.split("Summary of all tests:\n", 1)[1].splitlines()[1:]
    return [line.split() for line in lines if re.match(r"^(write|read) ", line)]


MAX_LINE = re.compile(r"^Max (Write|Read): +(\S+) MiB/sec \((\S+) MB/sec\)$", re.M)


def near(a: str, b: str) -> bool:
    return float(a) == pytest.approx(float(b), rel=TOLERANCE, abs=1e-3)


def compare_numbers(ref: str, ios: str) -> None:
    ref_rows, ios_rows = rows(ref), rows(ios)
    assert [r[0] for r in ios_rows] == [r[0] for r in ref_rows]
    for r, i in zip(ref_rows, ios_rows, strict=True):
        if r[0] == "remove":
            assert i[1:9] == r[1:9] and i[10] == r[10]
            continue
        assert (i[4], i[5], i[10]) == (r[4], r[5], r[10]), (r, i)  # block, xfer, iter
        for col in (1, 2, 3, 7, 9):  # bw, IOPS, latency, wr/rd, total at the same speed
            assert near(i[col], r[col]), (col, r, i)
        assert abs(float(i[6]) - float(r[6])) < 0.25 and abs(float(i[8]) - float(r[8])) < 0.25
    ref_max, ios_max = MAX_LINE.findall(ref), MAX_LINE.findall(ios)
    assert [m[0] for m in ios_max] == [m[0] for m in ref_max]
    for r, i in zip(ref_max, ios_max, strict=True):
        assert near(i[1], r[1]) and near(i[2], r[2]), (r, i)
    ref_sum, ios_sum = summary(ref), summary(ios)
    assert [s[0] for s in ios_sum] == [s[0] for s in ref_sum]
    for r, i in zip(ref_sum, ios_sum, strict=True):
        # Max Min Mean (MiB), Max Min Mean (OPs), Mean(s) at the same speed (StdDev: one rep)
        for col in (1, 2, 3, 5, 6, 7, 9):
            assert near(i[col], r[col]), (col, r, i)
        for col in (10, 11):  # Stonewall(s), Stonewall(MiB): NA unless stoneWallingWearOut
            assert (i[col] == "NA") == (r[col] == "NA") and (r[col] == "NA" or near(i[col], r[col]))
        # Test# #Tasks (tPN: IOR counts a node's tasks by shared memory) reps fPP reord
        # reordoff reordrand seed segcnt blksiz xsize aggs(MiB) API RefNum
        same = [12, 13, *range(15, 28)]
        assert [i[c] for c in same if c < len(r)] == [r[c] for c in same if c < len(r)], (r, i)


# ---------------------------------------------------------------- the cases


def refused_by_ior(args: list[str]) -> bool:
    return any(a in OLD_SPELLINGS for a in args)


def lustre_hint(args: list[str]) -> int | None:
    """The index of a -O lustre... value, None without one."""
    return next(
        (i for i in range(1, len(args)) if args[i - 1] == "-O" and "lustre" in args[i].lower()),
        None,
    )


@pytest.mark.skipif(not COMMANDS_MD.is_file(), reason=f"needs {COMMANDS_MD}, which is not there")
def test_every_ior_line_is_a_case() -> None:
    """The cases cover the document's IOR lines, each once, the pairs together."""
    lines = document_ior_lines()
    covered = [t for c in CASES for t in c.lines]
    assert sorted(covered) == sorted(lines) and len(lines) >= 30
    pairs = [c for c in CASES if len(c.launches) == 2]
    assert len(pairs) == 5
    hero = next(c for c in pairs if "-s 20" in c.lines[1])
    assert value(list(hero.launches[1]), "-b") == str(16 * KIB)


def run_case_alone(tmp: Path, case: Case) -> None:
    files: dict[str, int] = {}
    for n, args in enumerate(case.launches):
        args = list(args)
        hint = lustre_hint(args)
        if hint is not None:  # /dev/shm is not Lustre: refused before any I/O
            refused = ioscore(tmp / "refused", args, n, False)
            assert refused.rc == 2 and "not Lustre" in refused.stderr, refused.stderr
            assert refused.files == {}
            del args[hint - 1 : hint + 1]
        got = ioscore(tmp, args, n, False)
        assert got.rc == 0, got.stdout + got.stderr
        check_layout(args, got)
        files = files_left(args, files)
        assert got.files == files


def run_case_against_ior(tmp: Path, case: Case) -> list[tuple[str, str]]:
    """Runs the case's launches in both tools, asserting the same work; returns each launch's
    (IOR's stdout, ioscore's stdout) when both run on one MPI library, for the numbers."""
    outputs = []
    for n, args in enumerate(case.launches):
        args = list(args)
        ref_args = args
        hint = lustre_hint(args)
        if hint is not None:  # both refuse before any I/O, then the rest of the line
            ref = launch(tmp / "ref-refused", [REFERENCE], args, True)
            ios = ioscore(tmp / "ios-refused", args, n, True)
            assert ref.rc != 0 and ios.rc == 2, (ref.stdout, ios.stderr)
            assert ref.files == ios.files == {}
            del args[hint - 1 : hint + 1]
            ref_args = args
        if refused_by_ior(args):  # IOR refuses the old spelling; its new one is the line
            ref = launch(tmp / "ref-refused", [REFERENCE], args, True)
            assert ref.rc != 0 and "Error invalid argument" in ref.stdout + ref.stderr
            assert ref.files == {}
            ref_args = [OLD_SPELLINGS.get(a, a) for a in args]
        ref = launch(tmp / "ref", [REFERENCE], ref_args, True)
        ios = ioscore(tmp / "ios", args, n, True)
        assert ref.rc == 0, ref.stdout + ref.stderr
        assert ios.rc == 0, ios.stdout + ios.stderr
        same_mpi = of_binary(REFERENCE) == MPI
        if "MPIIO" not in args or same_mpi:  # MPI-IO's calls are its library's
            for rank in range(NP):
                assert ios.events[rank] == ref.events[rank], (
                    f"rank {rank}:\nioscore {ios.events[rank]}\nIOR     {ref.events[rank]}"
                )
                assert ios.opens[rank] == ref.opens[rank], rank  # flags and creation mode
        check_layout(args, ios)
        assert ios.files == ref.files
        if same_mpi:  # under two MPI libraries the barriers' cost differs, not the tools'
            outputs.append((ref.stdout, ios.stdout))
    return outputs


ATTEMPTS = 3  # a rank descheduled on a loaded machine for tens of ms is no tool's speed


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_line_works_like_ior(tmp: Path, case: Case) -> None:
    run_case_alone(tmp / "alone", case)


@needs_reference
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_line_against_ior(tmp: Path, case: Case) -> None:
    """The work must agree on every attempt; the numbers on one of ATTEMPTS runs of the case."""
    for attempt in range(ATTEMPTS):
        outputs = run_case_against_ior(tmp / str(attempt), case)
        try:
            for ref, ios in outputs:
                compare_numbers(ref, ios)
            return
        except AssertionError:
            if attempt == ATTEMPTS - 1:
                raise
