"""ioscore-find against GNU find: identical found and scanned counts under 1, 2 and 4 ranks.

What is compared, precisely (BENCHMARK-RULES §6):
* scanned ("total-files") = every non-directory entry below the root, symlinks not followed
  = ``find ROOT -mindepth 1 -xdev ! -type d``;
* found = the same entries filtered by pfind's predicate. For ``-name '*01*'`` pfind's regex
  (".*01.*", unanchored) and GNU's glob agree ("the name contains 01"); ``-size 3901c`` is the
  exact lstat size in both; pfind's ``-newer REF`` is ``ctime >= ctime(REF)`` at whole
  seconds, which GNU find expresses as ``-newerct @<T-1>.999999999`` (ctime strictly later
  than one nanosecond before second T). GNU's own ``-newer`` (mtime, strictly later) is *not*
  the same test; the mixed tree contains files that tell the two apart.

Unreadable directories: we run as root, and root ignores permission bits. The test drops every
capability with ``setpriv --inh-caps=-all --bounding-set=-all`` for both tools, so root is
bound by the mode bits like any user and a mode-000 directory really cannot be read.

Vanishing entries: an LD_PRELOAD shim (compiled here) deletes an entry whose name contains
"vanish" just before ioscore-find stats or opens it, which is exactly the race of a tree that
changes under the scan, made deterministic.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.mpi_launch import MPI, mpi_env

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITE_DIR = REPO_ROOT / "suite"
RANKS = (1, 2, 4)
HARD_SIZE = 3901
BASE_ENV = mpi_env(LC_ALL="C")
NO_CAPABILITIES = ("setpriv", "--inh-caps=-all", "--bounding-set=-all")

pytestmark = pytest.mark.mpi


# --- running the two tools -----------------------------------------------------------------


@dataclass
class FindRun:
    found: int
    scanned: int
    errors: int
    dirs: int
    paths: list[bytes]
    stderr: str
    csv: str


def _summary_value(stdout: bytes, key: str) -> int:
    match = re.search(rb"^" + key.encode() + rb"\s+= (\d+)$", stdout, re.MULTILINE)
    assert match, f"no '{key}' line in ioscore-find output:\n{stdout.decode(errors='replace')}"
    return int(match.group(1))


def run_ioscore_find(
    exe: Path,
    root: Path,
    args: Sequence[str],
    ranks: int,
    *,
    prefix: Sequence[str] = (),
    preload: Path | None = None,
    extra_env: dict[str, str] | None = None,
) -> FindRun:
    csv_path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ioscore-find-csv-")) / "find.csv"
    env = {**BASE_ENV, **(extra_env or {})}
    if preload is not None:
        env["LD_PRELOAD"] = str(preload)
    launcher: list[str] = []
    if ranks > 1:
        launcher = MPI.launch(ranks, {*(extra_env or {}), *(["LD_PRELOAD"] if preload else [])})
    cmd = [*prefix, *launcher, str(exe), str(root), *args, "--csv", str(csv_path)]
    try:
        proc = subprocess.run(cmd, capture_output=True, env=env, timeout=180)
        assert proc.returncode == 0, (cmd, proc.stderr.decode(errors="replace"))
        csv = csv_path.read_text()
    finally:
        shutil.rmtree(csv_path.parent)
    root_prefix = os.fsencode(root) + b"/"
    paths = [line for line in proc.stdout.split(b"\n") if line.startswith(root_prefix)]
    return FindRun(
        found=_summary_value(proc.stdout, "found"),
        scanned=_summary_value(proc.stdout, "total-files"),
        errors=_summary_value(proc.stdout, "errors"),
        dirs=_summary_value(proc.stdout, "dirs"),
        paths=sorted(paths),
        stderr=proc.stderr.decode(errors="replace"),
        csv=csv,
    )


@dataclass
class GnuRun:
    paths: list[bytes]
    scanned: int
    returncode: int
    stderr: str


def gnu_find(root: Path, predicate: Sequence[str], prefix: Sequence[str] = ()) -> GnuRun:
    """GNU find with pfind's notion of candidates: non-directories below root, same device."""
    base = [*prefix, "find", str(root), "-mindepth", "1", "-xdev", "!", "-type", "d"]
    matched = subprocess.run(
        [*base, *predicate, "-print0"], capture_output=True, env=BASE_ENV, timeout=180
    )
    counted = subprocess.run(
        [*base, "-printf", "."], capture_output=True, env=BASE_ENV, timeout=180
    )
    assert matched.returncode in (0, 1), matched.stderr
    return GnuRun(
        paths=sorted(p for p in matched.stdout.split(b"\0") if p),
        scanned=len(counted.stdout),
        returncode=matched.returncode,
        stderr=matched.stderr.decode(errors="replace"),
    )


def gnu_predicate(name: str | None, size: int | None, newer: Path | None) -> list[str]:
    """The GNU find expression equal to pfind's (see the module docstring)."""
    predicate: list[str] = []
    if name is not None:
        predicate += ["-name", name]
    if size is not None:
        predicate += ["-size", f"{size}c"]
    if newer is not None:
        ref_second = int(os.stat(newer).st_ctime)
        predicate += ["-newerct", f"@{ref_second - 1}.999999999"]
    return predicate


def ioscore_args(name: str | None, size: int | None, newer: Path | None) -> list[str]:
    args: list[str] = []
    if name is not None:
        args += ["-name", name]
    if size is not None:
        args += ["-size", f"{size}c"]
    if newer is not None:
        args += ["-newer", str(newer)]
    return args


def csv_rows(csv: str) -> list[list[str]]:
    lines = csv.splitlines()
    assert re.fullmatch(r"runtime: \d+\.\d{6} rate: \d+\.\d{6}", lines[0]), lines[0]
    assert lines[1] == (
        "rank, errors, unknown, found, total, checked, job steal msgs received, "
        "work items send, job steal msgs send, work items stolen, "
        "time spend in job stealing in s, number of completion tokens send"
    )
    return [line.split(", ") for line in lines[2:]]


# --- trees ---------------------------------------------------------------------------------


def _make_file(dir_fd: int, name: str | bytes, size: int) -> None:
    if size == 0:
        os.mknod(name, stat.S_IFREG | 0o644, dir_fd=dir_fd)
        return
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=dir_fd)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


def _new_tree_dir(prefix: str) -> Path:
    path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix=prefix))
    path.chmod(0o755)
    return path


def _remove_tree(path: Path) -> None:
    """Remove a tree this test created (fd-relative, so paths beyond PATH_MAX are fine)."""
    shutil.rmtree(path)


@pytest.fixture(scope="session")
def find_exe() -> Path:
    """ioscore-find from the suite's Makefile, built with the MPI of the tests."""
    exe = MPI.bin("ioscore-find")
    proc = subprocess.run(
        ["make", "-s", "-C", str(SUITE_DIR), *MPI.make_args(), f"{MPI.build}/ioscore-find"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"make {exe} failed:\n{proc.stderr[-2000:]}"
    return exe


FLAT_CREATED = 210_000


@pytest.fixture(scope="module")
def flat_tree() -> Iterator[Path]:
    """One directory of 200,000 entries named like mdtest's, every fifth one 3901 bytes.

    Every 21st of the 210,000 created entries is removed again, so the directory offsets have
    holes: a directory split between ranks by offset ranges must still lose and repeat nothing.
    """
    root = _new_tree_dir("ioscore-find-flat-")
    dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(FLAT_CREATED):
            _make_file(dir_fd, f"file.mdtest.{i % 13}.{i}", HARD_SIZE if i % 5 == 0 else 0)
        for i in range(0, FLAT_CREATED, 21):
            os.unlink(f"file.mdtest.{i % 13}.{i}", dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    yield root
    _remove_tree(root)


DEEP_LEVELS = 300


@pytest.fixture(scope="module")
def deep_tree() -> Iterator[Path]:
    """A chain of 300 directories whose full paths grow far beyond PATH_MAX (4096)."""
    root = _new_tree_dir("ioscore-find-deep-")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(DEEP_LEVELS):
            _make_file(fd, f"data.{level}.01", HARD_SIZE if level % 2 else 7)
            _make_file(fd, "plain", HARD_SIZE)  # same name at every level, never a match
            sub = f"level-{level:03d}-" + "x" * 40
            os.mkdir(sub, dir_fd=fd)
            next_fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = next_fd
    finally:
        os.close(fd)
    yield root
    _remove_tree(root)


def _wait_for_second_start() -> None:
    """Sleep until just after a wall-clock second begins, so a few steps share one second."""
    now = time.time()
    time.sleep(1.0 - (now - int(now)) + 0.01)


def _build_mixed(root: Path, ref: Path) -> None:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for d in ("a", "a/b", "a/b/c", "empty", "wide"):
            os.mkdir(d, dir_fd=fd)
        _make_file(fd, "a/old01", HARD_SIZE)
        _make_file(fd, "a/old01-mtime-in-future", HARD_SIZE)
        # mtime far ahead, ctime stays in this (old) second: GNU -newer would match it,
        # pfind's ctime test must not.
        os.utime(root / "a/old01-mtime-in-future", (2**31, 2**31))
        for i in range(300):
            _make_file(fd, f"wide/f.{i}", HARD_SIZE if i % 3 else 0)
        _wait_for_second_start()
        _make_file(fd, "a/b/same-second-before-ref01", HARD_SIZE)
        ref.touch()
        os.symlink("a", "dirlink01", dir_fd=fd)  # a symlink to a directory: never followed
        os.symlink("old01", "a/filelink01", dir_fd=fd)
        os.symlink("x" * HARD_SIZE, "a/b/danglinglink01", dir_fd=fd)  # lstat size = 3901
        os.mkfifo("a/b/fifo01", dir_fd=fd)
        _make_file(fd, "a/b/same-second-after-ref01", HARD_SIZE)
        os.link("a/b/same-second-after-ref01", "a/b/c/hardlink01", src_dir_fd=fd, dst_dir_fd=fd)
        _make_file(fd, b"a/b/c/non-utf8-\xff\xfe-01-\x80", HARD_SIZE)
        _make_file(fd, "a/b/c/01" + "n" * 253, HARD_SIZE)  # a 255-byte name
        _make_file(fd, ".01hidden", HARD_SIZE)
        _make_file(fd, "a/b/c/wrong-size-01", HARD_SIZE - 1)
        _make_file(fd, "a/b/c/regex.chars[01]^$", HARD_SIZE)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def mixed_tree() -> Iterator[tuple[Path, Path]]:
    """Sub-directories, symlinks, a fifo, odd names and files on both sides of -newer."""
    holder = _new_tree_dir("ioscore-find-mixed-")
    for _attempt in range(3):
        root, ref = holder / "tree", holder / "timestampfile"
        root.mkdir()
        _build_mixed(root, ref)
        ref_second = int(os.stat(ref).st_ctime)
        before = os.lstat(root / "a/b/same-second-before-ref01").st_ctime
        old = os.lstat(root / "a/old01").st_ctime
        if int(before) == ref_second and int(old) < ref_second:
            break
        _remove_tree(root)  # the machine stalled across a second boundary: build again
        ref.unlink()
    else:
        pytest.fail("could not create files within one wall-clock second")
    yield root, ref
    _remove_tree(holder)


# --- equality with GNU find ----------------------------------------------------------------


def assert_same_as_gnu(
    exe: Path,
    root: Path,
    ranks: int,
    name: str | None,
    size: int | None,
    newer: Path | None,
    compare_paths: bool = True,
    extra_args: Sequence[str] = (),
) -> FindRun:
    expected = gnu_find(root, gnu_predicate(name, size, newer))
    assert expected.returncode == 0, expected.stderr
    got = run_ioscore_find(exe, root, [*ioscore_args(name, size, newer), *extra_args], ranks)
    assert (got.found, got.scanned) == (len(expected.paths), expected.scanned)
    assert got.errors == 0, got.stderr
    if compare_paths:
        assert got.paths == expected.paths
    return got


SHARING_ARGS = {
    "ranges": ["--range-split=any"],  # tmpfs split by offset cookies, every range start checked
    "batches": ["--range-split=off"],  # the reader hands batches of names to idle ranks
    "auto": [],  # tmpfs: batches (two readers of one tmpfs directory contend in Linux 6.x)
}


@dataclass
class RankShare:
    read: int  # entries this rank got from getdents64
    classified: int
    ranges_given: int
    batches_given: int


def rank_shares(stderr: str) -> list[RankShare]:
    """The per-rank lines ioscore-find -v prints (how a big directory was shared)."""
    rows = re.findall(
        r"rank (\d+) read (\d+) entries, classified (\d+), found \d+; gave away (\d+) "
        r"directory ranges and (\d+) name batches",
        stderr,
    )
    return [RankShare(int(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows]


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("sharing", sorted(SHARING_ARGS))
def test_flat_directory_of_200k_entries_matches_gnu_find(
    find_exe: Path, flat_tree: Path, ranks: int, sharing: str
) -> None:
    """Every way of sharing one big directory loses and repeats nothing."""
    extra = [*SHARING_ARGS[sharing], "-v"]
    got = assert_same_as_gnu(find_exe, flat_tree, ranks, "*01*", HARD_SIZE, None, extra_args=extra)
    assert got.scanned == 200_000
    rows = csv_rows(got.csv)
    assert len(rows) == ranks
    per_rank_scanned = [int(row[4]) for row in rows]
    assert sum(per_rank_scanned) == got.scanned
    assert sum(int(row[3]) for row in rows) == got.found
    shares = rank_shares(got.stderr)
    assert len(shares) == ranks, got.stderr
    assert sum(s.read for s in shares) == sum(s.classified for s in shares) == 200_000
    if ranks == 1:
        return
    # one directory, yet it was shared; not necessarily by every rank: an oversubscribed rank
    # may sit descheduled for the whole scan on a loaded host
    assert sum(1 for n in per_rank_scanned if n > 0) >= 2, per_rank_scanned
    readers = [s for s in shares if s.read > 0]
    if sharing == "ranges":
        # several ranks *read* the one directory; with 4, one may only have been served a batch
        # of names (its victim's rest was too small to cut)
        assert sum(s.ranges_given for s in shares) >= 1, got.stderr
        assert len(readers) == ranks if ranks == 2 else len(readers) >= 2, got.stderr
    else:
        assert sum(s.ranges_given for s in shares) == 0, got.stderr
        assert len(readers) == 1, got.stderr  # one reader, the others classify its batches
        assert sum(s.batches_given for s in shares) > 0, got.stderr


@pytest.mark.parametrize("ranks", RANKS)
def test_flat_directory_name_only_counts_every_match_without_stat(
    find_exe: Path, flat_tree: Path, ranks: int
) -> None:
    assert_same_as_gnu(find_exe, flat_tree, ranks, "*01*", None, None, compare_paths=False)


@pytest.mark.parametrize("ranks", RANKS)
def test_deep_narrow_tree_beyond_path_max_matches_gnu_find(
    find_exe: Path, deep_tree: Path, ranks: int
) -> None:
    got = assert_same_as_gnu(find_exe, deep_tree, ranks, "*01*", HARD_SIZE, None)
    assert got.scanned == 2 * DEEP_LEVELS
    assert got.found == DEEP_LEVELS // 2
    assert got.dirs == DEEP_LEVELS + 1
    assert max(len(p) for p in got.paths) > 4096


@pytest.mark.parametrize("ranks", RANKS)
def test_mixed_tree_full_predicate_matches_gnu_find(
    find_exe: Path, mixed_tree: tuple[Path, Path], ranks: int
) -> None:
    root, ref = mixed_tree
    got = assert_same_as_gnu(find_exe, root, ranks, "*01*", HARD_SIZE, ref)
    names = {os.path.basename(p) for p in got.paths}
    # pfind's -newer is ctime >= at whole seconds: a file made just before the reference, in
    # the same second, is newer; a file whose mtime alone is in the future is not.
    assert b"same-second-before-ref01" in names
    assert b"old01-mtime-in-future" not in names
    assert b"non-utf8-\xff\xfe-01-\x80" in names
    assert b"danglinglink01" in names  # symlinks are lstat-ed, never followed
    assert b"dirlink01" not in names and b"old01" not in names


def test_mixed_tree_really_separates_pfind_newer_from_gnu_newer(
    mixed_tree: tuple[Path, Path],
) -> None:
    """The tree is meaningful: GNU's plain -newer (mtime, strict) gives a different set."""
    root, ref = mixed_tree
    pfind_like = gnu_find(root, gnu_predicate("*01*", HARD_SIZE, ref)).paths
    gnu_newer = gnu_find(root, ["-name", "*01*", "-size", f"{HARD_SIZE}c", "-newer", str(ref)])
    assert set(pfind_like) != set(gnu_newer.paths)


@pytest.mark.parametrize("ranks", RANKS)
def test_mixed_tree_without_predicates_finds_every_non_directory(
    find_exe: Path, mixed_tree: tuple[Path, Path], ranks: int
) -> None:
    root, _ = mixed_tree
    got = assert_same_as_gnu(find_exe, root, ranks, None, None, None)
    assert got.found == got.scanned


# --- errors below the root -----------------------------------------------------------------


@pytest.fixture()
def locked_tree() -> Iterator[Path]:
    root = _new_tree_dir("ioscore-find-locked-")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for d in ("open", "locked", "search-only", "open/deeper"):
            os.mkdir(d, mode=0o755, dir_fd=fd)
        for d in ("open", "locked", "search-only", "open/deeper"):
            for i in range(20):
                _make_file(fd, f"{d}/f{i:02d}.01", HARD_SIZE)
    finally:
        os.close(fd)
    (root / "locked").chmod(0o000)
    (root / "search-only").chmod(0o111)  # may be entered, not listed
    yield root
    for d in ("locked", "search-only"):
        (root / d).chmod(0o755)
    _remove_tree(root)


@pytest.mark.parametrize("ranks", RANKS)
def test_unreadable_directories_are_counted_and_reported(
    find_exe: Path, locked_tree: Path, ranks: int
) -> None:
    expected = gnu_find(locked_tree, gnu_predicate("*01*", HARD_SIZE, None), NO_CAPABILITIES)
    assert expected.returncode == 1 and "Permission denied" in expected.stderr
    got = run_ioscore_find(
        find_exe,
        locked_tree,
        ioscore_args("*01*", HARD_SIZE, None),
        ranks,
        prefix=NO_CAPABILITIES,
    )
    assert (got.found, got.scanned) == (len(expected.paths), expected.scanned) == (40, 40)
    assert got.errors == 2
    assert f"'{locked_tree}/locked': Permission denied" in got.stderr
    assert f"'{locked_tree}/search-only': Permission denied" in got.stderr
    # with its capabilities root reads both: the drop is what made them unreadable
    as_root = run_ioscore_find(find_exe, locked_tree, ioscore_args("*01*", None, None), ranks)
    assert (as_root.scanned, as_root.errors) == (80, 0)


SHIM_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Make entries vanish between getdents64 and the stat/open that follows. */
int fstatat(int dirfd, const char *name, struct stat *st, int flags)
{
    static int (*real)(int, const char *, struct stat *, int);
    if (!real) real = (int (*)(int, const char *, struct stat *, int))dlsym(RTLD_NEXT, "fstatat");
    if (strstr(name, "vanish")) unlinkat(dirfd, name, 0);
    return real(dirfd, name, st, flags);
}
int fstatat64(int dirfd, const char *name, struct stat64 *st, int flags)
{
    return fstatat(dirfd, name, (struct stat *)st, flags); /* the same layout on 64-bit */
}
static void move_away(const char *path)
{
    const char *base = strrchr(path, '/');
    const char *trash = getenv("VANISH_TRASH");
    if (base && trash && strstr(base, "vanishdir")) {
        char dest[4096];
        snprintf(dest, sizeof dest, "%s/%d-%s", trash, (int)getpid(), base + 1);
        rename(path, dest);
    }
}
int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap);
    if (flags & O_DIRECTORY) move_away(path);
    return real(path, flags, mode);
}
int open64(const char *path, int flags, ...)
{
    va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap);
    return open(path, flags, mode);
}
"""


@pytest.fixture(scope="session")
def vanish_shim() -> Iterator[Path]:
    build = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ioscore-find-shim-"))
    (build / "shim.c").write_text(SHIM_SOURCE)
    subprocess.run(
        [
            "cc",
            "-shared",
            "-fPIC",
            "-O2",
            "-o",
            str(build / "shim.so"),
            str(build / "shim.c"),
            "-ldl",
        ],
        check=True,
        timeout=120,
    )
    yield build / "shim.so"
    shutil.rmtree(build)


@pytest.mark.parametrize("ranks", RANKS)
def test_entries_vanishing_during_the_scan_are_errors_not_failures(
    find_exe: Path, vanish_shim: Path, ranks: int
) -> None:
    holder = _new_tree_dir("ioscore-find-vanish-")
    root, trash = holder / "tree", holder / "trash"
    root.mkdir()
    trash.mkdir()
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.mkdir("vanishdir01", dir_fd=fd)
            os.mkdir("stays", dir_fd=fd)
            for i in range(10):
                _make_file(fd, f"vanishdir01/f{i}.01", HARD_SIZE)
                _make_file(fd, f"stays/keep{i}.01", HARD_SIZE)
                _make_file(fd, f"stays/other{i}", HARD_SIZE)
            for i in range(3):
                _make_file(fd, f"stays/vanish{i}.01", HARD_SIZE)  # matches, then disappears
                _make_file(fd, f"stays/vanish{i}.nomatch", HARD_SIZE)  # never stat-ed
        finally:
            os.close(fd)
        before = gnu_find(root, gnu_predicate("*01*", HARD_SIZE, None))
        assert (len(before.paths), before.scanned) == (23, 36)
        got = run_ioscore_find(
            find_exe,
            root,
            ioscore_args("*01*", HARD_SIZE, None),
            ranks,
            preload=vanish_shim,
            extra_env={"VANISH_TRASH": str(trash)},
        )
        # the directory vanished before it was read: its 10 entries were never seen; the three
        # matching files vanished before their lstat: scanned (pfind counts them), not found.
        assert (got.found, got.scanned, got.errors) == (10, 26, 4), got.stderr
        assert "No such file or directory" in got.stderr
    finally:
        _remove_tree(holder)


SEEK_SHIFT_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

/* A file system whose directory seeks land elsewhere: the first lseek on a freshly opened
 * directory (what a rank given a RANGE does) moves by SEEK_SHIFT cookies. */
static char fresh[65536];
int open(const char *path, int flags, ...)
{
    static int (*real)(const char *, int, ...);
    if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap);
    int fd = real(path, flags, mode);
    if (fd >= 0 && fd < 65536 && (flags & O_DIRECTORY)) fresh[fd] = 1;
    return fd;
}
int open64(const char *path, int flags, ...)
{
    va_list ap; va_start(ap, flags); int mode = va_arg(ap, int); va_end(ap);
    return open(path, flags, mode);
}
off_t lseek(int fd, off_t off, int whence)
{
    static off_t (*real)(int, off_t, int);
    if (!real) real = (off_t (*)(int, off_t, int))dlsym(RTLD_NEXT, "lseek");
    if (fd >= 0 && fd < 65536 && fresh[fd] && whence == SEEK_SET && off > 0) {
        fresh[fd] = 0;
        off += atol(getenv("SEEK_SHIFT") ? getenv("SEEK_SHIFT") : "0");
    }
    return real(fd, off, whence);
}
off_t lseek64(int fd, off_t off, int whence) { return lseek(fd, off, whence); }
"""


def test_a_range_that_does_not_resume_where_the_probe_said_is_an_error(
    find_exe: Path, flat_tree: Path
) -> None:
    """--range-split=any trusts cookies it has only seen to be monotonic; every range start is
    checked against the entry the splitting rank's probe found there, so a file system whose
    seeks do not behave (simulated: the range's first seek lands 40 cookies further) makes the
    run report an error instead of a silently wrong count."""
    build = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="ioscore-find-seekshim-"))
    try:
        (build / "shim.c").write_text(SEEK_SHIFT_SOURCE)
        shim = build / "shim.so"
        subprocess.run(
            ["cc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(build / "shim.c"), "-ldl"],
            check=True,
            timeout=120,
        )
        args = ["-name", "*01*", "-q", "-v", "--range-split=any"]
        honest = run_ioscore_find(find_exe, flat_tree, args, 2, preload=build / "shim.so")
        assert honest.errors == 0 and honest.scanned == 200_000, honest.stderr
        assert sum(s.ranges_given for s in rank_shares(honest.stderr)) > 0
        shifted = run_ioscore_find(
            find_exe,
            flat_tree,
            args,
            2,
            preload=build / "shim.so",
            extra_env={"SEEK_SHIFT": "-40"},  # tmpfs cookies descend: skips entries
        )
        assert shifted.errors >= 1, shifted.stderr
        assert "did not resume at the expected entry" in shifted.stderr
        assert "--range-split=off" in shifted.stderr
    finally:
        shutil.rmtree(build)


# --- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-size", "12k"], "-size '12k'"),
        (["-name", "[01"], "-name '[01'"),
        (["-newer", "/nonexistent/ref"], "-newer '/nonexistent/ref'"),
        (["--bogus"], "unknown option '--bogus'"),
        (["-name"], "option -name needs a value"),
    ],
)
def test_bad_arguments_are_named_in_a_one_line_error(
    find_exe: Path, flat_tree: Path, args: list[str], message: str
) -> None:
    proc = subprocess.run(
        [str(find_exe), str(flat_tree), *args],
        capture_output=True,
        text=True,
        env=BASE_ENV,
        timeout=60,
    )
    assert proc.returncode in (1, 2)
    assert message in proc.stderr
    assert "MATCHED" not in proc.stdout


def test_missing_root_is_reported_with_its_path(find_exe: Path) -> None:
    proc = subprocess.run(
        [str(find_exe), "/nonexistent/ioscore-root", "-q"],
        capture_output=True,
        text=True,
        env=BASE_ENV,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "'/nonexistent/ioscore-root': No such file or directory" in proc.stderr


def test_summary_has_pfind_fields_and_the_external_script_line(
    find_exe: Path, deep_tree: Path
) -> None:
    proc = subprocess.run(
        [str(find_exe), str(deep_tree), "-name", "*01*", "-size", f"{HARD_SIZE}c", "-q"],
        capture_output=True,
        env=BASE_ENV,
        timeout=60,
    )
    assert proc.returncode == 0
    out = proc.stdout.decode()
    done = re.search(
        r"^\[DONE\] rate: ([\d.]+) kiops time: ([\d.]+)s found: (\d+) \(scanned (\d+) files, "
        r"scanned dirents: (\d+), unknown dirents: (\d+)\)$",
        out,
        re.MULTILINE,
    )
    assert done, out
    assert (int(done.group(3)), int(done.group(4))) == (DEEP_LEVELS // 2, 2 * DEEP_LEVELS)
    assert int(done.group(5)) == 3 * DEEP_LEVELS  # + one sub-directory per level
    assert out.rstrip("\n").splitlines()[-1] == f"MATCHED {DEEP_LEVELS // 2}/{2 * DEEP_LEVELS}"
    keys = dict(re.findall(r"^(time|rate)\s+= ([\d.]+)$", out, re.MULTILINE))
    time_s, rate = float(keys["time"]), float(keys["rate"])
    assert rate == pytest.approx(2 * DEEP_LEVELS / time_s, rel=1e-3)
