"""Hostile input for the run-file parsers: a long fuzz run, then time per input size.

1. Fuzz: many more Hypothesis examples than the bounded test in `make test`
   (tests/results/test_parser_fuzz.py); any exception other than ResultFormatError stops it.
2. Linearity: for each input family that used to be quadratic (a version line of spaces, an
   exe line of repeated `-t 47008`, blank lines before a comment, a JSON document of many
   numbers), parse sizes n, 2n, 4n, 8n and print the time and the ratio to the previous size;
   ~2 means linear, ~4 quadratic. Never asserts a time.

Usage: .venv/bin/python bench/parser_fuzz.py [--examples N] [--scale K]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the strategies live with the tests

from ioscore.results import ResultFormatError  # noqa: E402
from ioscore.results.parse_ini import parse_ini_text  # noqa: E402
from ioscore.results.parse_json import parse_result_json_text  # noqa: E402
from ioscore.results.parse_summary import parse_summary_text  # noqa: E402
from ioscore.results.rules import _has_fixed_options  # noqa: E402
from tests.results.fuzz_inputs import (  # noqa: E402
    PARSERS,
    json_inputs,
    parse_json_or_refuse,
    parse_or_refuse,
    text_inputs,
)


def _refusing(parser: Callable[[str, str], object]) -> Callable[[str], None]:
    def run(text: str) -> None:
        parse_or_refuse(parser, text)

    return run


def fuzz(examples: int) -> None:
    config = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    for name, parser in sorted(PARSERS.items()):
        started = time.perf_counter()
        config(given(text_inputs(name))(_refusing(parser)))()
        print(f"fuzz {name:20s} {examples} examples ok in {time.perf_counter() - started:.1f} s")
    document = json.loads((REPO / "suite/schema/examples/short-run-np2.result.json").read_text())
    started = time.perf_counter()
    config(given(json_inputs(document))(parse_json_or_refuse))()
    print(
        f"fuzz {'result.json':20s} {examples} examples ok in {time.perf_counter() - started:.1f} s"
    )


def _refused(parse: Callable[[], object]) -> None:
    with contextlib.suppress(ResultFormatError):
        parse()


_OLD_VERSION = re.compile(
    r"^IO500 version(?:[ \t]+(?P<v>[^\s(]\S*))?[ \t]*(?:\((?P<mode>\w+)\))?\s*$"
)
# family -> (smallest size, input of that size -> the work to time)
FAMILIES: dict[str, tuple[int, Callable[[int], Callable[[], object]]]] = {
    # below the 16 kB line limit (longer lines are refused by it, in linear time too)
    "version line of spaces": (
        2_000,
        lambda n: (
            lambda: _refused(lambda: parse_summary_text("IO500 version x" + " " * n + "y\n", "s"))
        ),
    ),
    # the pattern the summary parser used before (for comparison, side by side): quadratic
    "old version regex (before)": (
        2_000,
        lambda n: lambda: _OLD_VERSION.match("IO500 version x" + " " * n + "y"),
    ),
    "exe with n/9 x '-t 47008'": (
        400_000,
        lambda n: (
            lambda: _has_fixed_options("-t 47008 " * (n // 9), ("t", "47008"), ("b", "47008"))
        ),
    ),
    "INI of blank lines": (
        400_000,
        lambda n: (
            lambda: _refused(
                lambda: parse_ini_text("[global]\n" + " \n" * (n // 2) + "x = 1\n", "c")
            )
        ),
    ),
    "result.json numbers": (
        400_000,
        lambda n: (
            lambda: _refused(
                lambda: parse_result_json_text(json.dumps({"x": [1.5] * (n // 5)}), "r")
            )
        ),
    ),
}


def linearity(scale: int) -> None:
    print(f"\n{'family':28s} {'size':>10s} {'seconds':>9s} {'x previous':>10s}")
    for family, (base, make) in FAMILIES.items():
        previous = None
        for factor in (1, 2, 4, 8):
            size = base * factor * (scale if base > 2_000 else 1)
            work = make(size)
            started = time.perf_counter()
            work()
            seconds = time.perf_counter() - started
            ratio = f"{seconds / previous:10.2f}" if previous else f"{'':10s}"
            print(f"{family:28s} {size:10d} {seconds:9.4f} {ratio}")
            previous = seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--scale", type=int, default=1, help="multiply the input sizes")
    args = parser.parse_args()
    fuzz(args.examples)
    linearity(args.scale)


if __name__ == "__main__":
    main()
