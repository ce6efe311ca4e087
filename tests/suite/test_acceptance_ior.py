"""`ioscore-suite ior ARGS...`: the IOR command lines of published acceptance tests.

Every IOR line of ../shared/data/acceptance-commands.md runs unchanged apart from its sizes
(-b, -s), its -D and its paths (-o), under `mpirun -np 2` in a /dev/shm temporary directory that
is also the working directory, with `ulimit -f`. Each run is checked against what IOR would
have done on disk and against its own result.json, per-rank CSVs and printed tables.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from suite_helpers import (  # noqa: F401
    MPI,
    MPI_ENV,
    SCHEMA_PATH,
    SUITE_BIN,
    limited_suite,
    run_subcommand,
    suite_bin,
)

from tests.mpi_launch import SH_RANK

pytestmark = pytest.mark.usefixtures("suite_bin")

COMMANDS_MD = Path(__file__).resolve().parents[2].parent / "shared" / "data"
COMMANDS_MD = COMMANDS_MD / "acceptance-commands.md"
UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def published_lines(commands: tuple[str, ...]) -> list[str]:
    """The document's command lines starting with one of ``commands`` (code blocks; trailing
    comments dropped); none without ../shared (a bare clone), where tests/conftest.py skips
    the tests that use them instead of the collection failing."""
    if not COMMANDS_MD.is_file():
        return []
    lines = []
    for raw in COMMANDS_MD.read_text().splitlines():
        text = raw.split(" #", 1)[0].strip()
        if text.startswith(commands):
            lines.append(text)
    return lines


def ior_lines() -> list[str]:
    return published_lines(("ior ", "IOR "))


def size_of(text: str) -> int:
    text = text.lower()
    return int(text[:-1]) * UNITS[text[-1]] if text[-1] in UNITS else int(text)


def value(args: list[str], opt: str) -> str | None:
    return args[args.index(opt) + 1] if opt in args else None


def shrink(args: list[str], directory: Path) -> list[str]:
    """Scales a command line down: -b a few transfers (at most 256 KiB unless -t is larger),
    -s at most 2, -D 5 s, $DIR -> the temporary directory. Everything else is kept."""
    out = [a.replace("$DIR", str(directory)) for a in args]
    xfer = size_of(value(out, "-t") or "256k")
    block = xfer * max(1, (256 << 10) // xfer)
    if "-b" in out:
        out[out.index("-b") + 1] = str(block)
    else:
        out += ["-b", str(block)]
    if "-s" in out:
        i = out.index("-s") + 1
        out[i] = str(min(2, int(out[i])))
    if "-D" in out:
        out[out.index("-D") + 1] = "5"
    return out


def run_ior(
    cwd: Path, args: list[str], np: int = 2, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return run_subcommand(cwd, "ior", args, np, timeout)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, f"rc {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-ior-test-", dir="/dev/shm") as d:
        yield Path(d)


def result(resdir: Path, mode: str = "ior") -> dict:
    doc = json.loads((resdir / "result.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA_PATH.read_text()))
    assert doc["mode"] == mode and doc["finished"] and doc["scores"] is None
    return doc


def summary_table(stdout: str) -> dict[str, dict[str, str]]:
    """IOR's 'Summary of all tests' table: operation -> column -> text."""
    lines = stdout.split("Summary of all tests:\n", 1)[1].splitlines()
    header = lines[0].split()
    header[header.index("StdDev", 5)] = "StdDev(OPs)"  # IOR prints "StdDev" twice
    rows = {}
    for line in lines[1:]:
        cells = line.split()
        if len(cells) != len(header):
            break
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def result_rows(stdout: str) -> list[list[str]]:
    """The per-iteration rows of IOR's 'Results' table."""
    return [
        line.split()
        for line in stdout.split("Summary of all tests:", 1)[0].splitlines()
        if re.match(r"^(write|read|readback|reread) +\d", line)
    ]


def manifest_of(base: Path) -> Path:
    """The test manifest a keeping write launch leaves beside its files."""
    return base.parent / f"{base.name}.ioscore-test.json"


def data_files(base: Path) -> dict[str, int]:
    return {
        p.name: p.stat().st_size
        for p in base.parent.glob(base.name + "*")
        if p != manifest_of(base)
    }


def phases_of(args: list[str]) -> list[str]:
    """The phases IOR runs, in its order: write, -W check, read (-r, or -R: verified)."""
    flags = "".join(a[1:] for a in args if re.match(r"^-[A-Za-z]+$", a))
    if not any(f in flags for f in "wrWR"):
        flags += "wr"
    steps = (("w", "write"), ("W", "readback"), ("rR", "read"))
    return [name for flag, name in steps if any(f in flags for f in flag)]


def access_of(args: list[str]) -> tuple[bool, bool]:
    names = phases_of(args)
    return "write" in names, "read" in names


def check_run(tmp: Path, args: list[str], stdout: str, np: int, resdir: Path) -> None:
    """What IOR would have left on disk, and the three reports agreeing with each other."""
    doc = result(resdir)
    block, segs = size_of(value(args, "-b") or "1m"), int(value(args, "-s") or "1")
    fpp, keep = "-F" in args, "-k" in args
    names = [p["name"] for p in doc["phases"]]
    assert names == [f"ior-{name}-0" for name in phases_of(args)]
    summary = summary_table(stdout)
    rows = result_rows(stdout)
    for phase, row in zip(doc["phases"], rows, strict=True):
        op = phase["name"].split("-")[1]
        assert row[0] == op
        assert phase["valid"], phase["invalid_reasons"]
        assert phase["bytes"] == np * block * segs
        assert [r["bytes"] for r in phase["ranks"]] == [block * segs] * np
        assert phase["verify_errors"] == 0
        mib = phase["score"] * 1024
        assert abs(float(row[1]) - mib) <= (0.5 if mib >= 3600 else 0.006) + mib * 1e-9
        if op in ("write", "read"):  # IOR's summary has no rows for the checks
            assert abs(float(summary[op]["Max(MiB)"]) - mib) <= 0.006 + mib * 1e-9
            assert abs(float(summary[op]["Mean(MiB)"]) - mib) <= 0.006 + mib * 1e-9
            assert float(summary[op]["StdDev"]) == 0.0
        else:
            assert op not in summary
        assert (
            phase["latency"]["ops"]
            == phase["items"]
            == np * block * segs // size_of(value(args, "-t") or "256k")
        )
        csv = (resdir / f"{phase['name']}.csv").read_text().splitlines()
        kind = "write" if op == "write" else "read"  # the CSV's access column
        assert [line.split(",")[:2] for line in csv[1:]] == [[kind, str(r)] for r in range(np)]
        assert sum(sum(r) for r in phase["timeseries"]["per_rank"]) == phase["items"]
    base = Path(value(args, "-o") or "testFile")
    base = base if base.is_absolute() else tmp / base
    files = data_files(base)
    write, read = access_of(args)
    test = doc["acceptance_test"]
    if keep:
        expect = (
            {f"{base.name}.{r:08d}": block * segs for r in range(np)}
            if fpp
            else {base.name: np * block * segs}
        )
        assert files == expect
        manifest = json.loads(manifest_of(base).read_text())
        assert test["id"] == manifest["id"]
        assert test["parts"][-1]["role"] == (
            "read" if not write else "write+read" if read else "write"
        )
    else:
        assert files == {}, "without -k IOR removes its files, also after a read-only launch"
        assert not manifest_of(base).exists(), "the manifest goes with the files"
        assert test is None or test["parts"][-1]["role"] == "read"
    for series in doc["summary"]:  # the summary table's rows, number for number
        row = summary[series["operation"]]
        for column, key in (("Max(MiB)", "max"), ("Min(MiB)", "min"), ("Mean(MiB)", "mean")):
            assert abs(float(row[column]) - series[key]) <= 0.006 + series[key] * 1e-9
    assert {s["operation"] for s in doc["summary"]} == set(summary)


def run_checked(tmp: Path, args: list[str], np: int = 2) -> str:
    resdir = tmp / "res"
    stdout = ok(run_ior(tmp, [*args, "--resultdir", str(resdir)], np))
    check_run(tmp, args, stdout, np, resdir)
    return stdout


LINES = ior_lines()


def test_the_document_has_the_published_ior_lines() -> None:
    assert len(LINES) >= 25
    assert any("-a MPIIO -c" in line for line in LINES)


@pytest.mark.parametrize("line", LINES, ids=[f"ior{i:02d}" for i in range(len(LINES))])
def test_published_command_line(tmp: Path, line: str) -> None:
    args = shrink(shlex.split(line)[1:], tmp)
    hint = [i for i, a in enumerate(args[1:], 1) if args[i - 1] == "-O" and "lustre" in a.lower()]
    if hint:  # /dev/shm is not Lustre: refused before any I/O, as by IOR built without Lustre
        proc = run_ior(tmp, [*args, "--resultdir", str(tmp / "refused")])
        assert proc.returncode == 2 and "not Lustre" in proc.stderr, proc.stderr
        assert not data_files(Path(value(args, "-o") or tmp / "testFile"))
        del args[hint[0] - 1 : hint[0] + 1]
    write, read = access_of(args)
    if read and not write:  # the separate write launch that made the data this read expects
        writer = [a for a in args if a != "-r"] + ["-w", "-k"]
        ok(run_ior(tmp, [*writer, "--resultdir", str(tmp / "writer")]))
    stdout = run_checked(tmp, args)
    if "-H" in args:
        assert "MPI-IO hints given to MPI_File_open" in stdout
    if "-e" in args and write:
        assert "fsync inside the write timing (-e)" in stdout


def test_four_ranks_oversubscribed_with_rank_shift(tmp: Path) -> None:
    args = ["-t", "64k", "-b", "256k", "-s", "2", "-F", "-C", "-e", "-k", "-R", "-w", "-r"]
    resdir = tmp / "res"
    stdout = ok(run_ior(tmp, [*args, "--simulate-ppn", "2", "--resultdir", str(resdir)], np=4))
    check_run(tmp, args, stdout, 4, resdir)
    read = result(resdir)["phases"][1]
    assert read["name"] == "ior-read-0" and read["extra"]["result_keys"]["read_shift"] == "2"
    assert "written by another node (-C shift 2)" in stdout


def corrupt(path: Path) -> None:
    """Damages the second transfer of a file."""
    with path.open("r+b") as f:
        f.seek(65536 + 4096)
        f.write(b"\xff" * 64)


@pytest.mark.parametrize(("shift_opts", "bad_reader"), [(["-C"], 0), ([], 1)])
def test_rank_shift_reads_another_ranks_file(
    tmp: Path, shift_opts: list[str], bad_reader: int
) -> None:
    """Rank 1's file is damaged after the write launch: with -C rank 0 reads it (IOR's shift of
    one node's tasks, here one task per simulated node), without -C rank 1 does."""
    common = ["-F", "-t", "64k", "-b", "256k", "-G", "77", "-o", str(tmp / "f"), "-k"]
    common += ["--simulate-ppn", "1"]
    ok(run_ior(tmp, [*common, "-w", "--resultdir", str(tmp / "w")]))
    corrupt(tmp / "f.00000001")
    proc = run_ior(tmp, [*common, "-r", "-R", *shift_opts, "--resultdir", str(tmp / "r")])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "WARNING: incorrect data on read" in proc.stdout
    (read,) = result(tmp / "r")["phases"]  # -R verifies inside the one timed read, as IOR
    ranks = read["ranks"]
    assert [r["verify_errors"] > 0 for r in ranks] == [r == bad_reader for r in range(2)]


def test_separate_read_launch_verifies_with_the_writers_signature(tmp: Path) -> None:
    common = ["-t", "64k", "-b", "128k", "-s", "3", "-o", str(tmp / "shared"), "-l", "offset"]
    ok(run_ior(tmp, [*common, "-w", "-k", "-G", "5", "--resultdir", str(tmp / "w")]))
    ok(run_ior(tmp, [*common, "-r", "-R", "-k", "-G", "5", "--resultdir", str(tmp / "r")]))
    proc = run_ior(tmp, [*common, "-r", "-R", "-G", "6", "--resultdir", str(tmp / "r6")])
    assert proc.returncode == 2, "the manifest's signature refuses it before timing"
    assert "pattern of another test: the files hold test" in proc.stderr
    assert "(signature -G 5), this read asks for -G 6" in proc.stderr
    # no manifest: nothing is read before the timed read, whose -R check finds the mismatch
    (tmp / "shared.ioscore-test.json").unlink()
    proc = run_ior(tmp, [*common, "-r", "-R", "-G", "6", "--resultdir", str(tmp / "r6")])
    assert proc.returncode == 1 and "WARNING: incorrect data on read" in proc.stdout


def test_random_offsets_write_every_block_once(tmp: Path) -> None:
    """-z writes each transfer exactly once: a sequential verified read of the whole file
    (offset-stamped data: a missing or doubled block would read as zeros) finds no error."""
    common = ["-F", "-t", "4k", "-b", "64k", "-s", "3", "-o", str(tmp / "z"), "-l", "o", "-G", "3"]
    doc_out = ok(run_ior(tmp, [*common, "-w", "-z", "-k", "--resultdir", str(tmp / "w")]))
    assert "ordering in a file  : random" in doc_out
    write = result(tmp / "w")["phases"][0]
    assert write["items"] == 2 * 16 * 3
    ok(run_ior(tmp, [*common, "-R", "--resultdir", str(tmp / "r")]))
    (read,) = result(tmp / "r")["phases"]
    assert read["name"] == "ior-read-0" and read["verify_errors"] == 0
    assert read["items"] == 2 * 16 * 3


def test_fixed_time_write_stops_at_the_deadline(tmp: Path) -> None:
    """-D 1 with 8-byte transfers of a 64 MiB block (millions of calls): the write stops after
    about a second; with wear-out every rank ends at the busiest rank's count."""
    args = ["-F", "-w", "-t", "8", "-b", "64m", "-D", "1", "-O", "stoneWallingWearOut=1"]
    ok(run_ior(tmp, [*args, "-o", str(tmp / "d"), "--resultdir", str(tmp / "res")]))
    phase = result(tmp / "res")["phases"][0]
    sw = phase["stonewall"]
    assert sw["deadline_s"] == 1.0 and 1.0 <= phase["time"] < 30
    assert phase["bytes"] < 2 * (64 << 20)
    items = [r["items"] for r in phase["ranks"]]
    assert items == [sw["items_at_deadline_max"]] * 2
    assert sw["items_at_deadline_sum"] + sw["wearout_items"] == sum(items)
    assert not list(tmp.glob("d.*")), "without -k the files are removed"


def test_repetitions_statistics_match_result_json(tmp: Path) -> None:
    args = ["-i", "3", "-t", "64k", "-b", "512k", "-F", "-e", "-o", str(tmp / "i")]
    stdout = ok(run_ior(tmp, [*args, "--resultdir", str(tmp / "res")]))
    doc = result(tmp / "res")
    assert [p["name"] for p in doc["phases"]] == [
        f"ior-{op}-{i}" for i in range(3) for op in ("write", "read")
    ]
    table = summary_table(stdout)
    for op in ("write", "read"):
        mib = [p["score"] * 1024 for p in doc["phases"] if p["name"].startswith(f"ior-{op}")]
        mean = sum(mib) / 3
        sd = (sum((m - mean) ** 2 for m in mib) / 3) ** 0.5
        row = table[op]
        for column, expected in (
            ("Max(MiB)", max(mib)),
            ("Min(MiB)", min(mib)),
            ("Mean(MiB)", mean),
            ("StdDev", sd),
        ):
            assert abs(float(row[column]) - expected) <= 0.006 + expected * 1e-9, column
        assert row["reps"] == "3"


def test_check_write_reads_back_after_each_write(tmp: Path) -> None:
    stdout = ok(run_ior(tmp, ["-w", "-W", "-t", "64k", "-b", "256k", "--resultdir", "r"]))
    doc = result(tmp / "r")
    assert [p["name"] for p in doc["phases"]] == ["ior-write-0", "ior-readback-0"]
    assert doc["phases"][1]["extra"]["result_keys"]["access"] == "read+verify"
    assert [row[0] for row in result_rows(stdout)] == ["write", "readback"]


def launch_without_resultdir(
    tmp: Path, tool: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    """TOOL ARGS on 2 ranks in tmp/work with $TMPDIR at tmp/scratch and no --resultdir: the
    launch, its working directory and the scratch root it must leave empty."""
    scratch, work = tmp / "scratch", tmp / "work"
    scratch.mkdir()
    work.mkdir()
    proc = subprocess.run(
        [*MPI.launch(2), *limited_suite(tool, *(a.format(w=work) for a in args))],
        cwd=work,
        env={**MPI_ENV, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return proc, work, scratch


def test_without_resultdir_only_the_data_and_stdout_remain(tmp: Path) -> None:
    """As IOR: the default test file in the working directory, the results on stdout only;
    result.json and the CSVs go to a scratch directory under $TMPDIR that the launch removes
    (nothing is written where the user did not say)."""
    proc, work, scratch = launch_without_resultdir(
        tmp, "ior", "-w", "-k", "-t", "64k", "-b", "128k"
    )
    stdout = ok(proc)
    assert "Results             : not kept (--resultdir DIR keeps" in stdout
    assert [row[0] for row in result_rows(stdout)] == ["write"]
    assert sorted(p.name for p in work.iterdir()) == ["testFile", "testFile.ioscore-test.json"]
    assert (work / "testFile").stat().st_size == 2 * 128 * 1024
    assert list(scratch.iterdir()) == []
    assert json.loads((work / "testFile.ioscore-test.json").read_text())["id"]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("ior", ["-w", "-O", "lustrestripecount=1", "-t", "64k", "-b", "64k"]),  # no Lustre here
        ("mdtest", ["-n", "2", "-u", "-d", "{w}/a@{w}/b@{w}/c"]),  # more -d dirs than tasks
    ],
    ids=["ior-layout-hint", "mdtest-too-many-dirs"],
)
def test_a_refused_launch_leaves_no_scratch_directory(
    tmp: Path, tool: str, args: list[str]
) -> None:
    """A launch refused after its set-up (exit 2) removes its scratch result directory too."""
    proc, _, scratch = launch_without_resultdir(tmp, tool, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "ERROR" in proc.stderr
    assert list(scratch.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-P"], "not supported: -P (useSharedFilePointer"),
        (["-V"], "not supported: -V (useFileView"),
        (["-Y", "-a", "MPIIO"], "-Y (fsync per write) needs -a POSIX"),
        (["-a", "HDF5"], "not supported: -a HDF5"),
        (["-O", "collectiveMetadata=1"], "not supported: -O collectiveMetadata"),
        (["--posix.gpuDirect"], "not supported: --posix.gpuDirect"),
        (["-b", "3m", "-t", "2m"], "must be a multiple of the transfer size"),
        (["-b", "12q"], "-b 12q: expected a size"),
        (["-i", "999"], "-i 999: expected repetitions in 1..16"),
        (["-D", "5", "-W"], "-D (stonewalling) cannot be combined with -W or -R"),
        (["-t", "1004", "-b", "1004"], "multiple of 8 bytes"),
        (["-B", "-t", "1024", "-b", "1024"], "multiple of 4096 bytes"),
        (["-a", "MPIIO", "--posix.odirect"], "needs -a POSIX"),
        (["-o", "/nonexistent-ioscore/dir/f"], "does not exist"),
        (["-r", "-o", "missing"], "cannot read"),
    ],
)
def test_bad_command_lines_are_refused_before_any_io(
    tmp: Path, args: list[str], message: str
) -> None:
    proc = run_ior(tmp, args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert os.listdir(tmp) == []


def test_a_read_of_files_too_small_is_refused(tmp: Path) -> None:
    ok(run_ior(tmp, ["-w", "-k", "-F", "-b", "64k", "-t", "64k", "--resultdir", "w"]))
    proc = run_ior(tmp, ["-r", "-F", "-b", "128k", "-t", "64k", "--resultdir", "r"])
    assert proc.returncode == 2
    assert "ran with -b 65536, this launch with 131072" in proc.stderr  # the manifest says it
    manifest_of(tmp / "testFile").unlink()  # files of unknown origin: their size says it
    proc = run_ior(tmp, ["-r", "-F", "-b", "128k", "-t", "64k", "--resultdir", "r"])
    assert proc.returncode == 2
    assert "testFile.00000000 has 65536 bytes; this read needs 131072" in proc.stderr
    assert not (tmp / "r").exists()


@pytest.mark.parametrize(("q", "shift", "other_host"), [(1, 1, True), (2, 2, False)])
def test_rank_shift_follows_round_robin_placement(
    tmp: Path, q: int, shift: int, other_host: bool
) -> None:
    """Ranks placed round-robin on 2 hosts (rank r on host r mod 2): IOR's -C moves -Q ranks,
    so with -Q 1 rank 0 reads rank 1's file, written on the other host; -Q 2 lands on the
    writer's own host again, as in IOR."""
    args = ["-t", "64k", "-b", "128k", "-F", "-C", "-Q", str(q), "-w", "-r", "-W"]
    resdir = tmp / "res"
    args += ["-o", str(tmp / "f"), "--simulate-nodes", "2", "--resultdir", str(resdir)]
    stdout = ok(run_ior(tmp, args, np=4))
    _, readback, read = result(resdir)["phases"]
    assert read["extra"]["result_keys"]["read_shift"] == str(shift)
    # -W reads one host further than the read (IOR: (-Q + 1) x the host step)
    assert readback["extra"]["result_keys"]["read_shift"] == str((q + 1) % 4)
    assert ("written by another node" in stdout) == other_host
    assert f"task offset         : {q}\n" in stdout


def test_read_after_a_stonewalled_write_reads_what_was_written(tmp: Path) -> None:
    """-w -r -D in one launch: each rank's write stops at the deadline, and the read (IOR:
    bounded by the rank's own write count) reads no further than that; no end-of-file error."""
    args = ["-F", "-w", "-r", "-t", "8", "-b", "64m", "-D", "1", "-o", str(tmp / "d")]
    ok(run_ior(tmp, [*args, "--resultdir", str(tmp / "res")]))
    write, read = result(tmp / "res")["phases"]
    wrote = [r["items"] for r in write["ranks"]]
    assert all(0 < n < (64 << 20) // 8 for n in wrote), "the write stopped at the deadline"
    assert all(0 < r["items"] <= n for r, n in zip(read["ranks"], wrote, strict=True))


def traced_accesses(tmp: Path, args: list[str], name: str) -> list[list[tuple[str, int]]]:
    """Runs ioscore-suite ior under strace on 2 ranks: each rank's (pread|pwrite, offset) on
    the files `name`*, in order."""
    wrapper = tmp / "traced.sh"
    wrapper.write_text(
        "#!/bin/sh\nexec strace -f -qq -s 0 -e trace=pread64,pwrite64,openat "
        f'-o "$TRACE.{SH_RANK}" "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {**MPI_ENV, "TRACE": str(tmp / "trace")}
    limited = ["bash", "-c", 'ulimit -f 262144 && exec "$0" "$@"']
    proc = subprocess.run(
        [*MPI.launch(2, ["TRACE"]), *limited, str(wrapper), str(SUITE_BIN), "ior", *args],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    ok(proc)
    out = []
    for r in range(2):
        fds: set[str] = set()
        events = []
        for line in (tmp / f"trace.{r}").read_text().splitlines():
            m = re.match(r'^\d+ +openat\(.*"([^"]*)".*\) += (\d+)', line)
            if m and Path(m.group(1)).name.startswith(name):
                fds.add(m.group(2))
            m = re.match(r"^\d+ +(pread64|pwrite64)\((\d+), .*, (\d+)\) +=", line)
            if m and m.group(2) in fds:
                events.append((m.group(1), int(m.group(3))))
        out.append(events)
    return out


needs_strace = pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")


@needs_strace
def test_random_order_shuffles_each_segment(tmp: Path) -> None:
    """-z -s 3 (IOR's order): each segment's transfers shuffled, the segments in order; with a
    --random-offset-seed a rank's read walks its file in the order it was written."""
    args = ["-F", "-z", "-t", "4k", "-b", "32k", "-s", "3", "-o", "z", "--resultdir", "res"]
    traced = traced_accesses(tmp, [*args, "-w", "-r", "--random-offset-seed", "5"], "z.")
    for events in traced:
        writes = [o for op, o in events if op == "pwrite64"]
        reads = [o for op, o in events if op == "pread64"]
        assert [o // (32 << 10) for o in writes] == [0] * 8 + [1] * 8 + [2] * 8
        assert sorted(writes) == list(range(0, 96 << 10, 4096)) and writes != sorted(writes)
        shuffle = [o % (32 << 10) for o in writes]
        assert shuffle[:8] == shuffle[8:16] == shuffle[16:], "one shuffle for every segment"
        assert reads == writes
    assert traced[0] != traced[1], "each rank its own order (seed + rank)"


@needs_strace
def test_a_read_launch_reads_nothing_before_the_timed_read(tmp: Path) -> None:
    """No sample of the data before the timing (it would warm the client cache the read
    measures): the read launch's only reads of the data files are the timed read's."""
    common = ["-F", "-t", "4k", "-b", "64k", "-o", "f", "-G", "9"]
    ok(run_ior(tmp, [*common, "-w", "-k", "--resultdir", "w"]))
    traced = traced_accesses(tmp, [*common, "-r", "-R", "--resultdir", "r"], "f.")
    assert [len(events) for events in traced] == [16, 16]
    assert result(tmp / "r")["phases"][0]["verify_errors"] == 0


@pytest.mark.parametrize("wearout", [0, 1])
def test_columns_follow_iors_definitions(tmp: Path, wearout: int) -> None:
    """After a -D write: aggs(MiB) is the data moved, IOPS x wr/rd the transfers made, and the
    Stonewall columns are NA unless stoneWallingWearOut, as IOR prints them."""
    args = ["-F", "-w", "-t", "8", "-b", "64m", "-D", "1", "-o", str(tmp / "d")]
    args += ["-O", f"stoneWallingWearOut={wearout}", "--resultdir", str(tmp / "res")]
    stdout = ok(run_ior(tmp, args))
    (phase,) = result(tmp / "res")["phases"]
    summary = summary_table(stdout)["write"]
    assert float(summary["aggs(MiB)"]) == pytest.approx(phase["bytes"] / 1048576, abs=0.06)
    (row,) = result_rows(stdout)
    iops, io = float(row[2]), float(row[7])
    assert iops * io == pytest.approx(phase["items"], rel=0.01)
    assert (summary["Stonewall(s)"] == "NA") == (wearout == 0)
    assert (summary["Stonewall(MiB)"] == "NA") == (wearout == 0)
    if wearout:
        assert 1.0 <= float(summary["Stonewall(s)"]) < 30
