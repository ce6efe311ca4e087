"""`ioscore-suite mdtest` against mdtest itself (hpc/ior at the commit IO500 pins).

Both tools run the same shrunk command line (every mdtest line of acceptance-commands.md, pairs
as pairs, plus the -N cases) under the same placements: one host, and two hosts of block and
round-robin placement made of UTS namespaces (mdtest_reference.py). What each rank did is read
from strace: which items and trees it created, stat'ed, opened, renamed and removed (by name,
so rank r's work on rank q's items shows), and then every call below the data directory in
order (open flags, read and write sizes and offsets, syncs), so each phase walks the tree in
mdtest's order. The SUMMARY rows must be the same operations in the same order, in mdtest's
exact layout, with the same "N tasks, M files" line, and both tools leave the same names.

Runs when IOSCORE_REFERENCE_MDTEST names the mdtest binary (and strace and unshare work);
skipped with that reason otherwise. The cases it proves are kept as ordinary tests in
test_acceptance_mdtest.py (placement rule, per-phase shifts, notes, rows, rename default).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mdtest_reference import (
    PLACEMENTS,
    Placement,
    first_difference,
    ioscore_command,
    item_work,
    launch,
    summary_means,
    summary_rows,
    tasks_line,
)
from suite_helpers import suite_bin  # noqa: F401
from test_acceptance_mdtest import mdtest_lines, shrink

from tests.mpi_launch import MPI, of_binary

REFERENCE = os.environ.get("IOSCORE_REFERENCE_MDTEST", "")


def _why_not() -> str | None:
    if not REFERENCE:
        return "IOSCORE_REFERENCE_MDTEST is not set (path of an mdtest build of hpc/ior)"
    if not os.access(REFERENCE, os.X_OK):
        return f"IOSCORE_REFERENCE_MDTEST={REFERENCE} is not an executable"
    for tool in ("strace", "unshare", MPI.launcher, of_binary(REFERENCE).launcher):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    probe = subprocess.run(["unshare", "-u", "true"], capture_output=True)
    if probe.returncode != 0:
        return "unshare -u is not permitted here (per-rank host names need it)"
    return None


pytestmark = [
    pytest.mark.skipif(_why_not() is not None, reason=_why_not() or ""),
    pytest.mark.usefixtures("suite_bin"),
]

# Beyond the published lines: -N under each placement, with and without -u, trees of files and
# of directories, -U, -i, -I.
EXTRA = [
    "mdtest -n 8 -N 1",
    "mdtest -n 8 -F -u -N 1",
    "mdtest -n 6 -z 1 -b 2 -N 1 -w 64 -e 64",
    "mdtest -n 4 -D -C -T -U -r -i 2 -N 1",
    "mdtest -n 12 -z 2 -b 2 -L -F -u",
    "mdtest -n 14 -z 2 -b 2 -D -N 1",  # directories in a tree: every phase, rename included
    "mdtest -I 3 -z 1 -b 2 -F -u -w 16 -e 16",
]


def cases() -> list[tuple[str, list[str]]]:
    """(id, launches): a line alone, or its creating launch first (a removal without -C)."""
    out = []
    lines = mdtest_lines()
    for i, line in enumerate(lines):
        args = shlex.split(line)[1:]
        if "-r" in args and "-C" not in args and i > 0:
            out.append((f"published{i}", [lines[i - 1], line]))  # the pair, as published
        else:
            out.append((f"published{i}", [line]))
    out += [(f"extra{i}", [line]) for i, line in enumerate(EXTRA)]
    return out


CASES = cases()


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-mdtest-diff-", dir="/dev/shm") as d:
        yield Path(d)


@pytest.mark.parametrize("placement", PLACEMENTS, ids=[p.name for p in PLACEMENTS])
@pytest.mark.parametrize(("case", "lines"), CASES, ids=[c for c, _ in CASES])
def test_same_work_and_rows_as_mdtest(
    base: Path, placement: Placement, case: str, lines: list[str]
) -> None:
    runs = {}
    for tag, tool in (("ref", [REFERENCE]), ("ios", None)):
        work = base / tag
        work.mkdir()
        for k, line in enumerate(lines):
            args = shrink(shlex.split(line)[1:], work, placement.np)
            command = [*tool, *args] if tool else ioscore_command(args, base / f"res-{k}")
            got = launch(command[:1], command[1:], placement, work, work, f"{tag}{k}")
            assert got.returncode == 0, f"{tag} {args}: {got.stdout}\n{got.stderr}"
            runs[tag, k] = got
    for k, line in enumerate(lines):
        ref, ios = runs["ref", k], runs["ios", k]
        creates = "-C" in line or not any(f in line for f in ("-T", "-E", "-r", "-U"))
        for rank in range(placement.np):
            mine, theirs = item_work(ios.ops[rank]), item_work(ref.ops[rank])
            if not creates:  # ioscore's check before any I/O: the tree and a first item exist
                extra = mine - theirs
                assert all(op == "stat" for op, _ in extra) and sum(extra.values()) <= 2, extra
                mine -= extra
            assert mine == theirs, (
                f"{case} launch {k} rank {rank}: ioscore only {sorted((mine - theirs).items())[:8]}"
                f", mdtest only {sorted((theirs - mine).items())[:8]}"
            )
            # the same calls in the same order: per phase, item by item, with the same flags,
            # sizes and offsets (ioscore's check of a used tree comes first and is dropped)
            calls, ref_calls = ios.calls[rank], ref.calls[rank]
            if not creates:
                checked = [c for c in calls[:2] if c[0] == "stat" and c not in ref_calls[:2]]
                calls = calls[len(checked) :]
            where = first_difference(calls, ref_calls)
            assert where is None, f"{case} launch {k} rank {rank}: {where}"
        ref_rows, ios_rows = summary_rows(ref.stdout), summary_rows(ios.stdout)
        assert [label for label, _ in ios_rows] == [label for label, _ in ref_rows], line
        assert all(exact for _, exact in ref_rows) and all(exact for _, exact in ios_rows)
        assert tasks_line(ios.stdout) == tasks_line(ref.stdout) is not None
    # what each tool leaves behind (a keeping create launch): the same names, nothing else
    left = {
        tag: sorted(
            str(p.relative_to(base / tag))
            for p in (base / tag).rglob("*")
            if "mdtest" in p.name or p.name.startswith("test-dir")
        )
        for tag in ("ref", "ios")
    }
    assert left["ios"] == left["ref"]


# Every namespace call of both tools waits this long, so both measure the same underlying
# speed and the rates must agree: the calls are what mdtest times, the tools' own work
# (a few microseconds per item) is small beside it.
DELAY_US = 2000
NAMESPACE_CALLS = (
    "mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,openat,stat,lstat,"
    "newfstatat,statx"
)
RATE_TOLERANCE = 0.2


@pytest.mark.parametrize(("case", "lines"), CASES, ids=[c for c, _ in CASES])
def test_same_rates_as_mdtest_at_the_same_speed(base: Path, case: str, lines: list[str]) -> None:
    """Each SUMMARY rate row (the mean; one iteration makes max = min = mean) within 20 % of
    mdtest's when every namespace call takes 2 ms in both. The machine is shared with other
    work, and a tree row times a single call, so one scheduling delay moves it by 2x: each row
    is measured up to three times and passes when one attempt agrees. A row that differs in
    every attempt (a different operation count or timed window) fails, with all its values."""
    placement = PLACEMENTS[0]
    inject = f"-e inject={NAMESPACE_CALLS}:delay_enter={DELAY_US}"
    open_rows: set[str] | None = None  # rows no attempt has agreed on yet
    seen: dict[str, list[tuple[float, float]]] = {}
    for attempt in range(3):
        rates: dict[str, dict[str, float]] = {}
        for tag, tool in (("ref", [REFERENCE]), ("ios", None)):
            work = base / f"{tag}-{attempt}"
            work.mkdir()
            for k, line in enumerate(lines):
                args = shrink(shlex.split(line)[1:], work, placement.np)
                command = [*tool, *args] if tool else ioscore_command(args, base / f"r{attempt}{k}")
                got = launch(
                    command[:1], command[1:], placement, work, work, f"{tag}{k}", 300, inject
                )
                assert got.returncode == 0, f"{tag} {args}: {got.stdout}\n{got.stderr}"
                rates.setdefault(tag, {}).update(
                    {f"{k} {row}": v for row, v in summary_means(got.stdout).items()}
                )
        ref, ios = rates["ref"], rates["ios"]
        assert set(ios) == set(ref), (sorted(ios), sorted(ref))
        open_rows = set(ref) if open_rows is None else open_rows
        for row in ref:
            seen.setdefault(row, []).append((ios[row], ref[row]))
        open_rows = {
            row
            for row in open_rows
            if (ref[row] > 0) != (ios[row] > 0)
            or (ref[row] > 0 and abs(ios[row] / ref[row] - 1) > RATE_TOLERANCE)
        }
        if not open_rows:
            return
    apart = {row: seen[row] for row in sorted(open_rows or ())}
    pytest.fail(
        f"{case}: rows whose rates (ioscore, mdtest) are apart by more than 20 % in every "
        f"attempt: {apart}"
    )
