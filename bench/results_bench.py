"""Parse + recompute + check the whole dev corpus of real IO500 results; print files/s.

Target: the whole corpus in under 5 s. Prints the stages side by side (discover,
parse, parse + recompute + hashes + all rules) and the ratio of the target to the measured
time; never asserts anything. Usage: .venv/bin/python bench/results_bench.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ioscore.results import (
    CheckContext,
    check,
    find_runs,
    get_release,
    load_run,
    recompute_scores,
    verify_hashes,
)

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "io500-submissions" / "dev"
TARGET_SECONDS = 5.0


def discover() -> list[Path]:
    return [run for submission in sorted(DEV.iterdir()) for run in find_runs(submission)]


def parse(runs: list[Path]) -> int:
    return sum(len(load_run(run).files) for run in runs)


def full(runs: list[Path], context: CheckContext) -> int:
    files = 0
    for run_dir in runs:
        run = load_run(run_dir)
        recompute_scores(run)
        verify_hashes(run)
        check(run, context)
        files += len(run.files)
    return files


def best_of(repeat: int, work) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    best, result = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="best of N runs")
    args = parser.parse_args()
    context = CheckContext(release=get_release("SC25"))
    t_discover, runs = best_of(args.repeat, discover)
    t_parse, files = best_of(args.repeat, lambda: parse(runs))
    t_full, _ = best_of(args.repeat, lambda: full(runs, context))
    total = t_discover + t_full
    print(f"corpus: {DEV} ({len(runs)} runs, {files} result files)")
    print(f"{'stage':<34}{'seconds':>10}{'files/s':>12}")
    print(f"{'discover (find_runs)':<34}{t_discover:>10.4f}{'':>12}")
    print(f"{'parse (load_run)':<34}{t_parse:>10.4f}{files / t_parse:>12.0f}")
    print(f"{'parse + recompute + hashes + rules':<34}{t_full:>10.4f}{files / t_full:>12.0f}")
    print(f"check overhead over parse: {t_full / t_parse:.2f}x")
    print(
        f"whole corpus: {total:.3f} s; target {TARGET_SECONDS:.0f} s -> "
        f"{TARGET_SECONDS / total:.1f}x faster than needed"
    )


if __name__ == "__main__":
    main()
