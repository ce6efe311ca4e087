"""The IO500 standard run, phase by phase: ioscore-suite beside the reference IO500 app.

Both read the same shrunk INI (bench sizes, a short stonewall) and write into a fresh data
directory under --dir (default /dev/shm); they alternate run for run, --pairs times. Per
phase it prints the median ratio ioscore / reference and the min-max of the pair ratios:
a wide spread is an unstable phase. The reference is the `io500` binary of IO500/io500 built
from source with its pinned IOR and pfind (never part of this repository):

    .venv/bin/python bench/suite_vs_reference.py --io500 /path/to/io500 [--np 2] [--pairs 7]

Not a test: it prints numbers and asserts nothing. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from reference_pairs import io500_pairs, local_launch
from suite_env import SUITE

FILE_LIMIT = 4 * 2**30  # ulimit -f of every rank: no file above 4 GiB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--io500", type=Path, required=True, help="a reference `io500` binary")
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--dir", type=Path, default=Path("/dev/shm"), help="where data goes")
    parser.add_argument("--stonewall", type=int, default=5)
    parser.add_argument("--easy-mib", type=int, default=512)
    parser.add_argument("--hard-segments", type=int, default=4000)
    parser.add_argument("--md-files", type=int, default=20000)
    args = parser.parse_args()
    if not args.io500.is_file():
        parser.error(f"--io500 {args.io500}: no such file")
    sizes = {
        "stonewall": args.stonewall,
        "easy_mib": args.easy_mib,
        "hard_segments": args.hard_segments,
        "md_files": args.md_files,
    }

    def on_data(action: str, path: Path) -> None:
        if action == "remove":
            shutil.rmtree(path, ignore_errors=True)

    with tempfile.TemporaryDirectory(prefix="ioscore-vs-io500-", dir=args.dir) as tmp:
        ratios = io500_pairs(
            args.pairs,
            {"ioscore": str(SUITE), "reference": str(args.io500)},
            local_launch(args.np, FILE_LIMIT),
            Path(tmp) / "scratch",
            Path(tmp),
            sizes,
            on_data,
        )
    ratios.print_table(f"IO500 phase ({args.np} ranks, {args.dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
