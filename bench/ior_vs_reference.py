"""Every command line of acceptance-commands.md: `ioscore-suite ior|mdtest` beside IOR and mdtest.

Each published line runs unchanged apart from its sizes, scaled to bench size (-b and -s so a
rank moves about --mib MiB, -D at most --deadline seconds; mdtest's -n at --items, its -w at
most 64 KiB), with $DIR and -o in a fresh directory under --dir. A line that only reads (IOR
-r without -w; mdtest without -C) first gets its data from an untimed launch of the same tool
writing the same files. ioscore and the reference alternate line by line, --pairs times; the
table gives per line and operation the median ratio ioscore / reference and the min-max of the
pair ratios: IOR's Max(MiB) of each write and read row, mdtest's mean rate of each SUMMARY row.
A line a side refuses is reported, not compared. The references are IOR and mdtest built from
hpc/ior (never part of this repository):

    .venv/bin/python bench/ior_vs_reference.py --ior /path/to/ior --mdtest /path/to/mdtest \
        [--np 2] [--pairs 7] [--only 4k]

Not a test: it prints numbers and asserts nothing. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from reference_pairs import (
    Launch,
    Ratios,
    ior_max_rates,
    line_label,
    local_launch,
    mdtest_mean_rates,
    split_line,
    without_flag,
)
from suite_env import REPO, SUITE

from ioscore.acceptance.sizing import parse_size

COMMANDS_MD = REPO.parent / "shared" / "data" / "acceptance-commands.md"
FILE_LIMIT = 4 * 2**30  # ulimit -f of every rank: no file above 4 GiB


def published_lines(path: Path) -> list[str]:
    """The command lines of the document's code blocks, comments stripped."""
    lines = []
    for raw in path.read_text().splitlines():
        text = raw.partition(" #")[0].strip()
        if re.match(r"(ior|IOR|mdtest) ", text):
            lines.append(text)
    return lines


def value_of(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args else None


def set_value(args: list[str], flag: str, value: str) -> list[str]:
    if flag in args:
        out = list(args)
        out[out.index(flag) + 1] = value
        return out
    return [*args, flag, value]


def scaled_ior(args: list[str], per_rank: int, deadline: int, where: Path) -> list[str]:
    """-s so that a rank moves about `per_rank` bytes with the line's -b, then -b no larger
    than needed; -t kept (the access pattern is the point); -D capped; files under `where`."""
    xfer = parse_size(value_of(args, "-t") or "256k")
    block = parse_size(value_of(args, "-b") or "1m")
    segments = int(value_of(args, "-s") or "1")
    segments = min(segments, max(1, per_rank // block))
    block = min(block, max(xfer, per_rank // segments // xfer * xfer))
    out = set_value(set_value(args, "-b", str(block)), "-s", str(segments))
    if "-D" in out:
        out = set_value(out, "-D", str(min(deadline, int(value_of(out, "-D") or deadline))))
    out = [a.replace("$DIR", str(where)) for a in out]
    target = value_of(out, "-o")
    name = Path(target).name if target else "testFile"
    return set_value(out, "-o", str(where / name))


def scaled_mdtest(args: list[str], items: int, where: Path) -> list[str]:
    """-n at `items` (at least one per directory of a -z/-b tree), -w at most 64 KiB,
    $DIR under `where` (each '@'-separated directory made), else -d `where`."""
    depth, branch = int(value_of(args, "-z") or "0"), int(value_of(args, "-b") or "1")
    dirs = sum(branch**level for level in range(depth + 1))
    out = set_value(args, "-n", str(max(items, dirs)))
    if "-w" in out:
        out = set_value(out, "-w", str(min(65536, int(value_of(out, "-w") or 0))))
    out = [a.replace("$DIR", str(where)) for a in out]
    if "-d" not in out:
        out += ["-d", str(where / "mdtest")]
    for d in (value_of(out, "-d") or "").split("@"):
        Path(d).mkdir(parents=True, exist_ok=True)
    return out


def ior_preparation(args: list[str]) -> list[str] | None:
    """The untimed write a read-only IOR line needs first: the same files, in order, kept."""
    flags = "".join(a[1:] for a in args if re.fullmatch(r"-[A-Za-z]+", a))
    if "r" not in flags or "w" in flags:
        return None
    prep = without_flag(without_flag(args, "r"), "z")
    if "-D" in prep:
        i = prep.index("-D")
        prep = prep[:i] + prep[i + 2 :]
    return [*prep, "-w", "-k"]


def mdtest_preparation(args: list[str]) -> list[str] | None:
    """The creation a removing/stating mdtest line needs first."""
    flags = "".join(a[1:] for a in args if re.fullmatch(r"-[A-Za-z]+", a))
    if "C" in flags or not any(f in flags for f in "TEr"):
        return None
    prep = args
    for flag in "TEr":
        prep = without_flag(prep, flag)
    return [*prep, "-C"]


def compare_line(
    number: int, line: str, args: argparse.Namespace, launch: Launch, scratch: Path, ratios: Ratios
) -> None:
    tool, words = split_line(line)
    programs = {
        "ior": {"ioscore": [str(SUITE), "ior"], "reference": [str(args.ior)]},
        "mdtest": {"ioscore": [str(SUITE), "mdtest"], "reference": [str(args.mdtest)]},
    }[tool]
    rates: dict[str, dict[str, float]] = {}
    for side, program in programs.items():
        where = scratch / side
        where.mkdir(parents=True)
        try:
            if tool == "ior":
                run = scaled_ior(words, args.mib * 2**20, args.deadline, where)
                prep = ior_preparation(run)
            else:
                run = scaled_mdtest(words, args.items, where)
                prep = mdtest_preparation(run)
            if prep and not launch(*program, *prep)[0]:
                print(f"    {side}: its preparation failed; line not compared")
                continue
            out, _ = launch(*program, *run)
            if out:
                rates[side] = ior_max_rates(out) if tool == "ior" else mdtest_mean_rates(out)
        finally:
            shutil.rmtree(where, ignore_errors=True)
    label = line_label(number, line)
    if len(rates) < 2:
        print(f"  {label}: refused or failed by {', '.join(sorted(set(programs) - set(rates)))}")
        return
    for op, theirs in rates["reference"].items():
        ratios.add(f"{label} | {op}", rates["ioscore"].get(op), theirs)
    mine = rates["ioscore"]
    pair_ratios = [f"{op}={mine.get(op, 0) / v:.2f}" for op, v in rates["reference"].items() if v]
    print(f"  {label}: " + " ".join(pair_ratios))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ior", type=Path, required=True, help="a reference `ior` binary")
    parser.add_argument("--mdtest", type=Path, required=True, help="a reference `mdtest` binary")
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm"), help="where data goes")
    parser.add_argument("--mib", type=int, default=64, help="MiB each rank moves per IOR line")
    parser.add_argument("--deadline", type=int, default=3, help="cap of -D (seconds)")
    parser.add_argument("--items", type=int, default=2000, help="mdtest -n per rank")
    parser.add_argument("--only", default="", help="only lines containing this text")
    parser.add_argument("--commands", type=Path, default=COMMANDS_MD)
    args = parser.parse_args()
    for path in (args.ior, args.mdtest, args.commands):
        if not path.is_file():
            parser.error(f"{path}: no such file")
    lines = [ln for ln in published_lines(args.commands) if args.only in ln]
    launch = local_launch(args.np, FILE_LIMIT, timeout=600)
    ratios = Ratios()
    with tempfile.TemporaryDirectory(prefix="ioscore-vs-ior-", dir=args.dir) as tmp:
        for pair in range(args.pairs):
            print(f"pair {pair + 1} of {args.pairs}", flush=True)
            for number, line in enumerate(lines, 1):
                compare_line(number, line, args, launch, Path(tmp) / "run", ratios)
    ratios.print_table(f"line | operation ({args.np} ranks, {args.dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
