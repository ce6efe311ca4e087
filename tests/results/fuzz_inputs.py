"""Hypothesis strategies for hostile run files, shared by the fuzz test and bench/parser_fuzz.py.

Inputs are built from the tokens the parsers look for (so they get past the first line) plus
real files from the IO500 corpus with tokens replaced by hostile ones (non-finite numbers,
long runs of spaces or brackets, NUL, surrogates, deep nesting).
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from ioscore.results import ResultFormatError
from ioscore.results.parse_ini import parse_ini_text
from ioscore.results.parse_json import parse_result_json_text
from ioscore.results.parse_resulttxt import parse_result_txt_text
from ioscore.results.parse_summary import parse_summary_text

REAL_RUN = (
    Path(__file__).resolve().parents[2].parent
    / "shared/data/io500-submissions/dev/762/results/2025.10.21-12.48.03"
)
TOKENS = [
    "IO500 version",
    "io500-sc25",
    "(standard)",
    "(",
    ")",
    "[RESULT]",
    "[      ]",
    "[SCORE ]",
    "[SCOREX]",
    "[RESULT-invalid]",
    "[INVALID]",
    "BW",
    "IOPS",
    "phase",
    "1",
    "ior-easy-write",
    "mdtest-hard-stat",
    "find",
    "GiB/s",
    "kIOPS",
    "GB/s",
    ":",
    "time",
    "seconds",
    "Bandwidth",
    "TOTAL",
    "1.5",
    "0",
    "-3",
    "inf",
    "-inf",
    "nan",
    "1e400",
    "9" * 400,
    "[",
    "]",
    "[SCORE]",
    "[global]",
    "score",
    "=",
    ";",
    "#",
    "; ERROR INVALID",
    "exe",
    "-t 47008",
    "-b 47008",
    "\t",
    " " * 50,
    "\r",
    "\ufeff",
    "\u00e9",
]
HOSTILE_JSON_VALUES: list[Any] = [
    float("nan"),
    float("inf"),
    -1,
    -1.5,
    10**30,
    1e308,
    "a\u0000b",
    "\ud800",
    "",
    None,
    True,
    [],
    {},
    [[[[[]]]]],
    "x" * 1000,
]


def _real(name: str) -> str:
    return (REAL_RUN / name).read_text("utf-8")


def token_lines() -> st.SearchStrategy[str]:
    line = st.lists(st.sampled_from(TOKENS) | st.text(max_size=4), max_size=12).map(" ".join)
    return st.lists(line, max_size=12).map("\n".join)


def mutated(name: str) -> st.SearchStrategy[str]:
    """A real file with some of its whitespace-separated words replaced."""
    words = _real(name).split(" ")

    def mutate(edits: list[tuple[int, str]]) -> str:
        copy = list(words)
        for index, token in edits:
            copy[index % len(copy)] = token
        return " ".join(copy)

    edit = st.tuples(st.integers(0, len(words) - 1), st.sampled_from(TOKENS) | st.text(max_size=6))
    return st.lists(edit, min_size=1, max_size=6).map(mutate)


def text_inputs(name: str) -> st.SearchStrategy[str]:
    return token_lines() | mutated(name) | st.text(max_size=300)


def _json_leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _json_leaves(v, (*path, k))] or [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _json_leaves(v, (*path, i))] or [path]
    return [path]


def json_inputs(document: dict[str, Any]) -> st.SearchStrategy[str]:
    """The document with leaves replaced by hostile values, as JSON text (NaN allowed)."""
    leaves = [p for p in _json_leaves(document) if p]

    def mutate(edits: list[tuple[int, Any]]) -> str:
        copy = json.loads(json.dumps(document))
        for index, value in edits:
            *parents, last = leaves[index % len(leaves)]
            node = copy
            for key in parents:
                node = node[key]
            node[last] = value
        return json.dumps(copy)

    hostile = st.sampled_from(HOSTILE_JSON_VALUES) | st.floats() | st.integers()
    edit = st.tuples(st.integers(0, len(leaves) - 1), hostile)
    raw = st.text(alphabet='{}[]":,0123456789.eE-+ntrufalsNI\\u', max_size=200)
    return st.lists(edit, min_size=1, max_size=5).map(mutate) | raw


PARSERS = {
    "result_summary.txt": parse_summary_text,
    "result.txt": parse_result_txt_text,
    "config.ini": parse_ini_text,
}


def parse_or_refuse(parser: Any, text: str) -> None:
    """The parser returns, or refuses with the library's own error: nothing else."""
    with contextlib.suppress(ResultFormatError):
        parser(text, "fuzz")


def parse_json_or_refuse(text: str) -> None:
    parse_or_refuse(parse_result_json_text, text)
