"""`ioscore-suite mdtest ARGS...`: the mdtest command lines of acceptance-commands.md.

Each line runs with only -n (and the -w file size) scaled down, -d in a /dev/shm temporary
directory that is also the working directory, under `mpirun -np 2` and `ulimit -f`; the tree
it leaves (or removes) and its three reports (stdout table, result.json, CSVs) are checked.
"""

from __future__ import annotations

import re
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mdtest_reference import PLACEMENTS, first_difference, launch
from suite_helpers import SUITE_BIN, suite_bin  # noqa: F401
from test_acceptance_ior import ok, published_lines, result, run_subcommand

pytestmark = pytest.mark.usefixtures("suite_bin")


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-mdtest-test-", dir="/dev/shm") as d:
        yield Path(d)


LABELS = {
    ("dir", "write"): "Directory creation",
    ("dir", "stat"): "Directory stat",
    ("dir", "rename"): "Directory rename",
    ("dir", "delete"): "Directory removal",
    ("file", "write"): "File creation",
    ("file", "stat"): "File stat",
    ("file", "read"): "File read",
    ("file", "delete"): "File removal",
    ("tree", "write"): "Tree creation",
    ("tree", "delete"): "Tree removal",
}


def mdtest_lines() -> list[str]:
    return published_lines(("mdtest ",))


def value(args: list[str], opt: str, default: str) -> str:
    return args[args.index(opt) + 1] if opt in args else default


def tree_nodes(args: list[str]) -> tuple[int, int]:
    depth, branch = int(value(args, "-z", "0")), int(value(args, "-b", "1"))
    nodes = sum(branch**level for level in range(depth + 1))
    return nodes, branch**depth


def shrink(args: list[str], directory: Path, np: int = 2) -> list[str]:
    """-n to at most 40 per directory of the tree (at least one each), -w to 4 KiB at most,
    $DIR -> the temporary directory, at most `np` -d directories (mdtest refuses more
    directories than tasks)."""
    out = [a.replace("$DIR", str(directory)) for a in args]
    if "-d" in out:
        k = out.index("-d") + 1
        out[k] = "@".join(out[k].split("@")[:np])
    nodes, leaves = tree_nodes(out)
    holders = leaves if "-L" in out else nodes
    if "-n" in out:  # (-I gives the items per directory instead)
        i = out.index("-n") + 1
        out[i] = str(min(int(out[i]), max(40, holders)))
    if "-w" in out:
        j = out.index("-w") + 1
        out[j] = str(min(int(out[j]), 4096))
    return out


def expected_phases(args: list[str]) -> list[tuple[str, str]]:
    flags = "".join(a[1:] for a in args if re.match(r"^-[A-Za-z]+$", a))
    phase_flags = (("C", "write"), ("T", "stat"), ("E", "read"), ("r", "delete"), ("U", "rename"))
    ops = {o for f, o in phase_flags if f in flags}
    ops = ops or {"write", "stat", "read", "delete", "rename"}  # mdtest: none given, all five
    steps = [("tree", "write")]
    steps += [("dir", o) for o in ("write", "stat", "rename", "delete") if "F" not in flags]
    steps += [("file", o) for o in ("write", "stat", "read", "delete") if "D" not in flags]
    steps += [("tree", "delete")]
    return [(w, o) for w, o in steps if o in ops]


def summary(stdout: str) -> dict[str, float]:
    rows = {}
    for line in stdout.split("SUMMARY rate", 1)[1].splitlines()[3:]:
        m = re.match(r"^   (\w+ \w+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", line)
        if m:
            rows[m.group(1)] = float(m.group(4))  # mean
    return rows


def items_on_disk(dirs: list[Path]) -> dict[str, int]:
    found: dict[str, int] = {}
    for d in dirs:
        for path in d.rglob("*.mdtest.*"):
            kind = "file" if path.name.startswith("file.") else "dir"
            found[kind] = found.get(kind, 0) + 1
    return found


def check(tmp: Path, args: list[str], stdout: str, np: int = 2) -> None:
    doc = result(tmp / "res", "mdtest")
    phases = expected_phases(args)
    assert [p["name"] for p in doc["phases"]] == [f"mdtest-{w}-{o}-0" for w, o in phases]
    nodes, leaves = tree_nodes(args)
    holders = leaves if "-L" in args else nodes
    per_rank = int(value(args, "-n", "0")) // holders * holders
    trees = np if "-u" in args else len(value(args, "-d", "out").split("@"))
    rates = summary(stdout)
    for phase, (what, op) in zip(doc["phases"], phases, strict=True):
        assert phase["valid"], phase["invalid_reasons"]
        assert phase["items"] == (trees * nodes if what == "tree" else np * per_rank)
        assert phase["latency"]["ops"] == phase["items"]
        rate = phase["score"] * 1000
        if what == "tree":  # mdtest's tree rate counts one tree's directories
            rate /= trees
        assert abs(rates[LABELS[what, op]] - rate) <= 0.0006 + rate * 1e-6
        csv = (tmp / "res" / f"{phase['name']}.csv").read_text().splitlines()
        assert csv[0].startswith("rank,items") and len(csv) == np + 2
    dirs = [
        Path(d) if Path(d).is_absolute() else tmp / d for d in value(args, "-d", "out").split("@")
    ]
    dirs = dirs[:np]  # rank r works in directory r mod count: the others stay untouched
    on_disk = items_on_disk(dirs)
    created = any(o == "write" for _, o in phases)
    removed = any(o == "delete" for _, o in phases)
    for series in doc["summary"]:  # result.json's summary is the printed table's numbers
        assert abs(rates[series["operation"]] - series["mean"]) <= 0.0006 + series["mean"] * 1e-9
    assert {s["operation"] for s in doc["summary"]} == {LABELS[p] for p in phases}
    # as mdtest: every row of the file and/or directory operations and both tree rows, 0 for
    # a phase that did not run
    kinds = ["Directory"] * ("-F" not in args) + ["File"] * ("-D" not in args)
    assert {k for k in rates if k.split()[0] in kinds or k.startswith("Tree")} == set(rates)
    assert len(rates) == 2 + 4 * len(kinds) - ("-F" not in args and "-D" not in args) * 0
    assert all(rates[k] == 0 for k in set(rates) - {LABELS[p] for p in phases})
    if created and not removed:  # a create that keeps its tree starts a recorded test
        assert doc["acceptance_test"]["parts"][-1]["role"] == "create"
        assert (dirs[0] / "ioscore-test.json").exists()
    if removed:
        # as mdtest: a -d directory this launch made goes with the trees, another stays empty
        assert on_disk == {} and all(not d.exists() or list(d.iterdir()) == [] for d in dirs)
    elif created:
        kinds = {"file"} if "-F" in args else {"dir"} if "-D" in args else {"file", "dir"}
        assert on_disk == {k: np * per_rank for k in kinds}
        if "-w" in args:
            size = int(value(args, "-w", "0"))
            assert {p.stat().st_size for d in dirs for p in d.rglob("file.mdtest.*")} == {size}


LINES = mdtest_lines()


def test_the_document_has_the_published_mdtest_lines(corpus_dir: Path) -> None:
    # corpus_dir: skipped, not failed, without ../shared
    assert len(LINES) == 6


@pytest.mark.parametrize("line", LINES, ids=[f"mdtest{i}" for i in range(len(LINES))])
def test_published_command_line(tmp: Path, line: str) -> None:
    args = shrink(shlex.split(line)[1:], tmp)
    if "-r" in args and "-C" not in args:  # the creating launch this removal belongs to
        creator = [a for a in args if a != "-r"] + ["-C"]
        ok(run_subcommand(tmp, "mdtest", [*creator, "--resultdir", str(tmp / "creator")]))
    stdout = ok(run_subcommand(tmp, "mdtest", [*args, "--resultdir", str(tmp / "res")]))
    check(tmp, args, stdout)


def test_stat_of_the_neighbours_items_with_stride(tmp: Path) -> None:
    """-N 1: rank r stats the files of rank r+1; rank 1's files are gone, so rank 0 fails."""
    base = ["-n", "8", "-F", "-u", "-d", str(tmp / "d")]
    ok(run_subcommand(tmp, "mdtest", [*base, "-C", "--resultdir", str(tmp / "c")]))
    for f in (tmp / "d").rglob("file.mdtest.1.*"):
        f.unlink()
    proc = run_subcommand(tmp, "mdtest", [*base, "-T", "-N", "1", "--resultdir", str(tmp / "s")])
    assert proc.returncode == 2, "the create part's manifest: a sample file is checked first"
    assert "file.mdtest.1.0: No such file or directory (the create part made it)" in proc.stderr
    (tmp / "d" / "ioscore-test.json").unlink()  # without it the stat phase finds out
    proc = run_subcommand(tmp, "mdtest", [*base, "-T", "-N", "1", "--resultdir", str(tmp / "s")])
    assert proc.returncode == 3
    assert "rank 0: stat" in proc.stderr and "file.mdtest.1." in proc.stderr
    proc = run_subcommand(tmp, "mdtest", [*base, "-T", "--resultdir", str(tmp / "s0")])
    assert proc.returncode == 3 and "rank 1: stat" in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-n", "5", "-I", "3"], "not supported: -I with -n"),
        (["-n", "5", "-F", "-N", "1", "-u", "-z", "1"], "not supported: -u with -N and -z > 0"),
        (["-n", "5", "-N", "1", "-u", "-d", "a@b"], "-N with several -d directories"),
        (["-n", "5", "-d", "a@b"], "several -d directories need -u"),
        (["-n", "5", "-u", "-d", "a@b@c"], "3 -d directories for 2 tasks"),
        (["-n", "5", "-w", "10", "-e", "20", "-X"], "-e must not exceed -w"),
        (["-n", "5", "--posix.odirect"], "not supported: '--posix.odirect'"),
        (["-F"], "-n N (items per rank) or -I N (items per directory) is required"),
        (["-n", "5", "-F", "-D"], "-F and -D exclude each other"),
        (["-n", "2", "-z", "2", "-b", "2"], "-n 2 is fewer items than the 7 directories"),
        (["-n", "5", "-z", "30", "-b", "9"], "more than 1000000 directories"),
        (["-n", "5", "-d", "/nonexistent-ioscore/x"], "does not exist"),
        (["-n", "5", "-r"], "run the creating launch first"),
    ],
)
def test_bad_command_lines_are_refused_before_any_io(
    tmp: Path, args: list[str], message: str
) -> None:
    proc = run_subcommand(tmp, "mdtest", args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert list(tmp.iterdir()) == []


def test_items_per_directory_leaves_verify_sync_and_iterations(tmp: Path) -> None:
    """-I 3 -z 2 -b 2 -L: 3 files in each of the 4 leaves per rank; -w/-e/-X read back and
    compare; -Y syncs; -i 3 gives three values per operation in the rate and time tables."""
    args = ["-I", "3", "-z", "2", "-b", "2", "-L", "-F", "-u", "-w", "512", "-e", "256", "-X"]
    args += ["-Y", "-P", "-i", "3", "-d", str(tmp / "d")]
    stdout = ok(run_subcommand(tmp, "mdtest", [*args, "--resultdir", str(tmp / "res")]))
    doc = result(tmp / "res", "mdtest")
    reads = [p for p in doc["phases"] if p["name"].startswith("mdtest-file-read-")]
    assert len(reads) == 3 and all(p["items"] == 2 * 12 for p in reads)
    assert all(p["verify_errors"] == 0 and p["bytes"] == 2 * 12 * 256 for p in reads)
    creates = [p for p in doc["phases"] if p["name"].startswith("mdtest-file-write-")]
    rates = [p["score"] * 1000 for p in creates]
    mean = sum(rates) / 3
    sd = (sum((r - mean) ** 2 for r in rates) / 2) ** 0.5  # mdtest: the sample deviation
    line = re.search(r"^   File creation +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", stdout, re.M)
    assert line is not None
    for printed, expected in zip(line.groups(), (max(rates), min(rates), mean, sd), strict=True):
        assert abs(float(printed) - expected) <= 0.0006 + expected * 1e-9
    assert "SUMMARY time (in ms/op): (of 3 iterations)" in stdout  # mdtest's words, seconds
    # mdtest's tree rate: one tree's directories (7) per second, not ranks x that
    trees = [p for p in doc["phases"] if p["name"].startswith("mdtest-tree-write-")]
    tree_rates = [7 / max(r["end"] - r["start"] for r in p["ranks"]) for p in trees]
    line = re.search(r"^   Tree creation +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)$", stdout, re.M)
    assert line is not None and all(p["items"] == 2 * 7 for p in trees)  # -u: two trees
    assert abs(float(line.group(3)) - sum(tree_rates) / 3) <= 0.0006 + float(line.group(3)) * 1e-6
    assert not (tmp / "d").exists()  # made by this launch, removed with its trees (mdtest)


def test_verify_finds_changed_file_content(tmp: Path) -> None:
    base = ["-n", "4", "-F", "-w", "64", "-e", "64", "-X", "-d", str(tmp / "d")]
    ok(run_subcommand(tmp, "mdtest", [*base, "-C", "--resultdir", str(tmp / "c")]))
    victim = next((tmp / "d").rglob("file.mdtest.1.2"))
    victim.write_bytes(b"x" * 64)
    proc = run_subcommand(tmp, "mdtest", [*base, "-E", "--resultdir", str(tmp / "e")])
    assert "rank 1: data mismatch in" in proc.stderr and "file.mdtest.1.2" in proc.stderr
    (read,) = result(tmp / "e", "mdtest")["phases"]
    assert [r["verify_errors"] for r in read["ranks"]] == [0, 1]


def test_stonewalled_create_wears_out_and_later_phases_follow(tmp: Path) -> None:
    """-W 1 with far more files than a second allows: creation stops after about a second,
    every rank continues to the busiest rank's count, stat and removal handle exactly that."""
    args = ["-n", "5000000", "-F", "-W", "1", "-d", str(tmp / "d"), "--resultdir", str(tmp / "r")]
    ok(run_subcommand(tmp, "mdtest", args, timeout=300))
    phases = {p["name"]: p for p in result(tmp / "r", "mdtest")["phases"]}
    create = phases["mdtest-file-write-0"]
    sw = create["stonewall"]
    assert sw["deadline_s"] == 1 and create["items"] < 2 * 5000000
    per_rank = [r["items"] for r in create["ranks"]]
    assert per_rank == [sw["items_at_deadline_max"]] * 2
    for name in ("mdtest-file-stat-0", "mdtest-file-read-0", "mdtest-file-delete-0"):
        assert [r["items"] for r in phases[name]["ranks"]] == per_rank
    assert not (tmp / "d").exists()  # made by this launch, removed with its trees (mdtest)


def test_rename_phase_renames_each_ranks_directories_as_a_chain(tmp: Path) -> None:
    """-U: rank r renames the directories of rank r+N (mdtest's rename_dir_test): the first to
    <name>-XX, each next one to its predecessor's name, <first>-XX to the second-to-last name.
    Seen through inode numbers across two launches (create, then stat + rename)."""
    base = ["-n", "5", "-D", "-u", "-N", "1", "-d", str(tmp / "d")]
    ok(run_subcommand(tmp, "mdtest", [*base, "-C", "--resultdir", str(tmp / "c")]))

    def inodes() -> dict[tuple[int, int], int]:
        out = {}
        for path in (tmp / "d").rglob("dir.mdtest.*"):
            _, _, rank, item = path.name.split(".")
            out[int(rank), int(item)] = path.stat().st_ino
        return out

    before = inodes()
    assert len(before) == 10
    stdout = ok(run_subcommand(tmp, "mdtest", [*base, "-T", "-U", "--resultdir", "u"]))
    after = inodes()
    for rank in range(2):
        expected = [before[rank, i + 1] for i in range(3)] + [before[rank, 0], before[rank, 4]]
        assert [after[rank, i] for i in range(5)] == expected
    phases = {p["name"]: p for p in result(tmp / "u", "mdtest")["phases"]}
    rename = phases["mdtest-dir-rename-0"]
    assert rename["items"] == 10 and [r["items"] for r in rename["ranks"]] == [5, 5]
    rates = summary(stdout)
    assert (
        abs(rates["Directory rename"] - rename["score"] * 1000)
        <= 0.0006 + rates["Directory rename"] * 1e-9
    )
    assert not list((tmp / "d").rglob("*-XX"))


def test_time_unique_dir_overhead_is_in_the_phase_time_with_t(tmp: Path) -> None:
    """-t (with -u): each phase's time starts before the rank reaches its unique working
    directory (mdtest's barrier and lookup); without -t it starts after."""
    for flag, expect in (([], "excluded (no -t)"), (["-t"], "timed (-t)")):
        res = tmp / f"r{len(flag)}"
        args = ["-n", "4", "-u", "-F", "-d", str(tmp / "d"), *flag, "--resultdir", str(res)]
        ok(run_subcommand(tmp, "mdtest", args))
        phases = {p["name"]: p for p in result(res, "mdtest")["phases"]}
        for name in ("mdtest-file-write-0", "mdtest-file-stat-0", "mdtest-file-delete-0"):
            keys = phases[name]["extra"]["result_keys"]
            assert keys["unique_dir_overhead"] == expect
            access = float(keys["unique_dir_access_s"])
            rank0 = phases[name]["ranks"][0]
            if flag:  # rank 0's timed span holds its access to the directory
                assert rank0["end"] - rank0["start"] >= access
        assert (
            phases["mdtest-tree-write-0"]["extra"]["result_keys"]["unique_dir_overhead"] == "none"
        )


def notes_of(doc: dict) -> dict[str, tuple[str, str]]:
    return {n["operation"]: (n["level"], n["text"]) for n in doc["measurement_notes"]}


def shifts_of(doc: dict) -> dict[str, int]:
    return {
        p["name"]: int(p["extra"]["result_keys"]["of_rank_shift"])
        for p in doc["phases"]
        if not p["name"].startswith("mdtest-tree")
    }


@pytest.mark.parametrize(
    ("placement", "stat_shift", "read_shift", "stat_level", "read_level"),
    [
        # one host: -N 1 counts ranks; every entry was made on the same node
        ([], 1, 2, "client-cache", "client-cache"),
        # 2 hosts, block (rank 1 beside rank 0): mdtest scales -N by the 2 tasks on node 0
        (["--simulate-ppn", "2"], 2, 0, "server-cache", "client-cache"),
        # 2 hosts, round-robin: no scaling, rank r+1 is on the other host, r+2 on its own
        (["--simulate-nodes", "2"], 1, 2, "server-cache", "client-cache"),
        # 3 + 1 ranks: the stride is 3; two ranks stat their own node's entries
        (["--simulate-ppn", "3"], 3, 2, "client-cache", "client-cache"),
    ],
    ids=["one-host", "block-2x2", "cyclic-2x2", "uneven-3+1"],
)
def test_stride_follows_mdtest_placement_rule_and_the_note_tells_the_truth(
    tmp: Path,
    placement: list[str],
    stat_shift: int,
    read_shift: int,
    stat_level: str,
    read_level: str,
) -> None:
    """mdtest -N S: with several nodes and block placement S is multiplied by the tasks on node
    0; stat and rename handle the items of rank r+S, read r+2S, removal r+3S. The note says
    'another node' only when every rank's entries came from another node."""
    args = ["-n", "4", "-F", "-N", "1", "-d", str(tmp / "d"), *placement]
    doc_dir = tmp / "res"
    ok(run_subcommand(tmp, "mdtest", [*args, "--resultdir", str(doc_dir)], np=4))
    doc = result(doc_dir, "mdtest")
    assert shifts_of(doc) == {
        "mdtest-file-write-0": 0,
        "mdtest-file-stat-0": stat_shift,
        "mdtest-file-read-0": read_shift,
        "mdtest-file-delete-0": 3 * stat_shift % 4,
    }
    notes = notes_of(doc)
    assert notes["File stat"][0] == stat_level and notes["File read"][0] == read_level
    for op, level in (("File stat", stat_level), ("File read", read_level)):
        text = notes[op][1]
        assert ("another node" in text) == (level == "server-cache"), text
    if placement == ["--simulate-ppn", "3"]:
        assert "2 of 4 ranks handle entries created on their own node" in notes["File stat"][1]


def test_block_placement_stat_fails_on_the_other_nodes_missing_files(tmp: Path) -> None:
    """The work itself: 2 block-placed hosts of 2 ranks, -N 1 -> rank 0 stats rank 2's files
    (another host); with those removed, rank 0 and no rank of its host fails first."""
    base = ["-n", "4", "-F", "-N", "1", "-d", str(tmp / "d"), "--simulate-ppn", "2"]
    ok(run_subcommand(tmp, "mdtest", [*base, "-C", "--resultdir", str(tmp / "c")], np=4))
    for f in (tmp / "d").rglob("file.mdtest.2.*"):
        f.unlink()
    (tmp / "d" / "ioscore-test.json").unlink()
    proc = run_subcommand(tmp, "mdtest", [*base, "-T", "--resultdir", str(tmp / "s")], np=4)
    assert proc.returncode == 3
    assert "rank 0: stat" in proc.stderr and "file.mdtest.2." in proc.stderr
    assert "rank 1: stat" not in proc.stderr


def test_leaf_items_are_numbered_as_mdtest_numbers_them(tmp: Path) -> None:
    """-L -z 1 -b 2 -n 4: two items in each of the two leaves (tree nodes 1 and 2); mdtest
    numbers an item node x items per directory + position, so the names are 2..5."""
    args = ["-n", "4", "-z", "1", "-b", "2", "-L", "-F", "-C", "-d", str(tmp / "d")]
    ok(run_subcommand(tmp, "mdtest", [*args, "--resultdir", str(tmp / "r")]))
    names = sorted(
        str(p.relative_to(tmp / "d" / "test-dir.0-0")) for p in (tmp / "d").rglob("file.*")
    )
    expected = sorted(
        f"mdtest_tree.0/mdtest_tree.{(num // 2)}/file.mdtest.{rank}.{num}"
        for rank in (0, 1)
        for num in range(2, 6)
    )
    assert names == expected


def node_path(node: int, branch: int) -> str:
    """mdtest's path of tree node `node` below test-dir.0-0 (its parent is (node - 1) / b)."""
    chain = []
    while node > 0:
        chain.append(node)
        node = (node - 1) // branch
    return "/".join(["mdtest_tree.0", *(f"mdtest_tree.{k}" for k in reversed(chain))])


def depth_first(node: int, level: int, depth: int, branch: int, parents_first: bool) -> list[int]:
    below = [
        k
        for c in range(1, branch + 1)
        if level < depth
        for k in depth_first(node * branch + c, level + 1, depth, branch, parents_first)
    ]
    return [node, *below] if parents_first else [*below, node]


@pytest.mark.skipif(
    shutil.which("strace") is None or shutil.which("unshare") is None,
    reason="strace and unshare show the calls",
)
def test_walk_order_flags_and_sizes_are_mdtests(tmp: Path) -> None:
    """As mdtest 5fcf0ba does them (proven against it in test_mdtest_differential.py): the tree
    is made parents first and removed children first, depth-first in branch order; files are
    created and removed directory by directory in that order, stat'ed and read by number;
    files are created and read with O_RDWR (mdtest's POSIX backend), written and read once at
    offset 0."""
    depth, branch, per_dir, size = 2, 2, 2, 8
    nodes = 2**3 - 1
    args = ["-n", str(nodes * per_dir), "-z", str(depth), "-b", str(branch), "-F"]
    args += ["-w", str(size), "-e", str(size), "-d", str(tmp / "d")]
    run = launch(
        [str(SUITE_BIN)],
        ["mdtest", *args, "--resultdir", str(tmp / "r")],
        PLACEMENTS[0],
        tmp,
        tmp / "d",
        "trace",
    )
    assert run.returncode == 0, run.stderr
    pre = depth_first(0, 0, depth, branch, True)
    post = depth_first(0, 0, depth, branch, False)
    assert pre == [0, 1, 3, 4, 2, 5, 6] and post == [3, 4, 1, 5, 6, 2, 0]

    def file(num: int) -> str:
        return f"test-dir.0-0/{node_path(num // per_dir, branch)}/file.mdtest.0.{num}"

    by_node = [k * per_dir + i for k in pre for i in range(per_dir)]
    expected = [("mkdir", f"test-dir.0-0/{node_path(k, branch)}", "") for k in pre]
    for num in by_node:
        expected += [
            ("create", file(num), "O_RDWR|O_CREAT"),
            ("write", file(num), f"{size}@0"),
            ("close", file(num), ""),
        ]
    expected += [("stat", file(num), "") for num in range(nodes * per_dir)]
    for num in range(nodes * per_dir):
        expected += [
            ("open", file(num), "O_RDWR"),
            ("read", file(num), f"{size}@0"),
            ("close", file(num), ""),
        ]
    expected += [("unlink", file(num), "") for num in by_node]
    expected += [("rmdir", f"test-dir.0-0/{node_path(k, branch)}", "") for k in post]
    rank0 = [c for c in run.calls[0] if "mdtest" in c[1]]
    assert first_difference(rank0, expected) is None
