"""Every line of ../shared/data/acceptance-commands.md, with pairs run as pairs.

The document's write-then-read tests are two launches: a line whose comment ends with "..."
makes the data that the next line whose comment starts with "..." reads, and the hero
read-IOPS line (`-b 1g -t 4k -s 20 -z`) reads the dataset of the hero run (`-b 64g -t 64m`).
Each pair runs here as the document says, shrunk alike (tiny -b/-s, -D 5, $DIR a /dev/shm
temporary directory under `ulimit -f`), the second launch on the first's data: the second
part must run and do the work its line asks, and be recorded as the second part of the
first's test. The single lines run in test_acceptance_ior.py and test_acceptance_mdtest.py
(test_published_command_line); the partition test below proves every line is run by one.
"""

from __future__ import annotations

import re
import shlex
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_acceptance_mdtest as mdtest_tests
from suite_helpers import suite_bin  # noqa: F401
from test_acceptance_ior import (
    COMMANDS_MD,
    access_of,
    check_run,
    ok,
    phases_of,
    result,
    result_rows,
    run_ior,
    run_subcommand,
    shrink,
    size_of,
    value,
)

pytestmark = pytest.mark.usefixtures("suite_bin")

HERO_READ, HERO_WRITE = "hero read IOPS", "hero run"


def document_lines() -> list[tuple[str, str]]:
    """(command, comment) of every command line in the document's code blocks."""
    if not COMMANDS_MD.is_file():
        return []
    out = []
    for raw in COMMANDS_MD.read_text().splitlines():
        text, _, comment = raw.partition(" #")
        if text.strip().startswith(("ior ", "IOR ", "mdtest ")):
            out.append((text.strip(), comment.strip()))
    return out


def uses_only(line: str) -> bool:
    """A launch that only uses data an earlier launch made: IOR reading without writing,
    mdtest removing (or stating, reading) without creating."""
    args = shlex.split(line)[1:]
    if line.startswith("mdtest"):
        flags = "".join(a[1:] for a in args if re.match(r"^-[A-Za-z]+$", a))
        return "C" not in flags and any(f in flags for f in "TEr")
    write, read = access_of(args)
    return read and not write


def pairs() -> list[tuple[str, str]]:
    """(first launch, second launch) of the document's two-launch tests: "..." at the end of
    a comment continues on the next "..." line when that line uses the data (not a sequence of
    separate tests, as the teaching lines are)."""
    lines = document_lines()
    out = []
    for i, (text, comment) in enumerate(lines):
        if comment.endswith("..."):
            second = next(t for t, c in lines[i + 1 :] if c.startswith("..."))
            if uses_only(second):
                out.append((text, second))
        if comment.startswith(HERO_READ):
            out.append((next(t for t, c in lines if c.startswith(HERO_WRITE)), text))
    return out


PAIRS = pairs()


@pytest.fixture
def tmp() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ioscore-commands-test-", dir="/dev/shm") as d:
        yield Path(d)


def test_every_line_is_run_alone_or_in_its_pair() -> None:
    """The pairs here and the single lines of the per-tool tests cover the document; the
    hero read is in a pair with the hero run."""
    lines = [t for t, _ in document_lines()]
    assert len(lines) >= 36 and len(PAIRS) == 6
    in_pairs = {t for pair in PAIRS for t in pair}
    reads_alone = [t for t in lines if t not in in_pairs and uses_only(t)]
    assert reads_alone == [], "a read line without the launch that makes its data"
    hero = next(p for p in PAIRS if "-s 20" in p[1])
    assert "-b 64g -t 64m" in hero[0] and "-b 1g -t 4k" in hero[1]
    singles = set(lines) - in_pairs
    assert (
        set(mdtest_tests.LINES)
        | {  # the per-tool tests run each line alone
            t for t in lines if t.startswith(("ior ", "IOR "))
        }
        >= singles
    )


def ior_pair(tmp: Path, first: str, second: str) -> None:
    write = shrink(shlex.split(first)[1:], tmp)
    read = shrink(shlex.split(second)[1:], tmp)
    stdout = ok(run_ior(tmp, [*write, "--resultdir", str(tmp / "first")]))
    check_run(tmp, write, stdout, 2, tmp / "first")
    first_test = result(tmp / "first")["acceptance_test"]
    stdout = ok(run_ior(tmp, [*read, "--resultdir", str(tmp / "second")]))
    doc = result(tmp / "second")
    names = phases_of(read)
    assert [p["name"] for p in doc["phases"]] == [f"ior-{n}-0" for n in names]
    assert [row[0] for row in result_rows(stdout)] == names
    block, segs = size_of(value(read, "-b") or "1m"), int(value(read, "-s") or "1")
    xfer = size_of(value(read, "-t") or "256k")
    for phase in doc["phases"]:  # every transfer the read asks for, of data the write left
        assert phase["valid"] and phase["verify_errors"] == 0
        assert phase["items"] == 2 * block * segs // xfer
        assert phase["bytes"] == 2 * block * segs
    test = doc["acceptance_test"]
    assert test["id"] == first_test["id"]
    assert [p["role"] for p in test["parts"]] == ["write", "read"]


def mdtest_pair(tmp: Path, first: str, second: str) -> None:
    create = mdtest_tests.shrink(shlex.split(first)[1:], tmp)
    remove = mdtest_tests.shrink(shlex.split(second)[1:], tmp)
    res = ["--resultdir", str(tmp / "res")]  # where the mdtest checks read result.json
    stdout = ok(run_subcommand(tmp, "mdtest", [*create, *res]))
    mdtest_tests.check(tmp, create, stdout)
    test_id = result(tmp / "res", "mdtest")["acceptance_test"]["id"]
    (tmp / "res").rename(tmp / "first")
    stdout = ok(run_subcommand(tmp, "mdtest", [*remove, *res]))
    mdtest_tests.check(tmp, remove, stdout)
    parts = result(tmp / "res", "mdtest")["acceptance_test"]
    assert parts["id"] == test_id and next(p["role"] for p in parts["parts"]) == "create"
    assert not [p for p in tmp.rglob("file.mdtest.*")], "the second launch removed every file"


@pytest.mark.parametrize(
    ("first", "second"), PAIRS, ids=[re.sub(r"\W+", "-", p[1])[:48] for p in PAIRS]
)
def test_pair_runs_as_a_pair(tmp: Path, first: str, second: str) -> None:
    if first.startswith("mdtest"):
        mdtest_pair(tmp, first, second)
    else:
        ior_pair(tmp, first, second)
