"""Bounds on what the results library reads: sizes, line lengths, nesting, numbers.

A submitted run is untrusted input read by a shared service, so every reader works in time
and memory linear in its input and refuses, with a ResultFormatError naming the file (and
line or phase), anything beyond these bounds. They are far above real runs: the largest line
in the IO500 archive (3,783 files) is 600 characters, the largest text file 11 kB.

* text files (result_summary.txt, result.txt, config*.ini): at most MAX_TEXT_BYTES, lines of
  at most MAX_LINE_CHARS characters;
* result.json: at most MAX_RESULT_JSON_BYTES (other JSON documents MAX_JSON_BYTES), nested
  at most MAX_JSON_DEPTH levels, integers within a signed 64-bit range, no
  NaN/Infinity/overflowing numbers, strings without NUL or lone surrogates (PostgreSQL
  stores neither);
* every number of a phase or score is finite and not negative;
* the version string has at most MAX_VERSION_CHARS characters;
* run directories are searched at most MAX_TREE_DEPTH levels deep.
"""

from __future__ import annotations

import math
from pathlib import Path

MAX_TEXT_BYTES = 4 * 1024 * 1024
MAX_LINE_CHARS = 16 * 1024
MAX_JSON_BYTES = 64 * 1024 * 1024
# A full-form result.json holds ~3 kB per rank (rank objects and time-series rows of 12+
# phases): ~300 MB at 100,000 ranks when the rank-detail threshold is raised that far (the
# summary form stays under 1 MB). Reading one costs time and memory linear in its size
# (bench/scale_read.py).
MAX_RESULT_JSON_BYTES = 1024 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_VERSION_CHARS = 200
INT64_MAX = 2**63 - 1
MAX_TREE_DEPTH = 32


def long_line(text: str, limit: int = MAX_LINE_CHARS) -> int | None:
    """The 1-based number of the first line longer than `limit` characters, or None.

    Scans with str.find (C speed, linear), so a single huge line costs one pass.
    """
    start, number = 0, 1
    while True:
        end = text.find("\n", start)
        stop = len(text) if end < 0 else end
        if stop - start > limit:
            return number
        if end < 0:
            return None
        start, number = end + 1, number + 1


def number_problem(value: float, negative_ok: bool = False) -> str | None:
    """Why `value` cannot be stored as a phase or score number, or None when it can."""
    if math.isnan(value):
        return "is not a number (NaN)"
    if math.isinf(value):
        return "is infinite (or beyond the double-precision range)"
    if value < 0 and not negative_ok:
        return "is negative"
    return None


def text_problem(text: str) -> str | None:
    """Why a decoded string cannot be stored as UTF-8 text, or None when it can."""
    if "\0" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (not valid UTF-8)"
    return None


def storable_text(text: str) -> str:
    """Valid UTF-8 without NUL: undecodable file-name bytes and surrogates become U+FFFD."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace").replace("\0", "\ufffd")


def display_path(path: str | Path) -> str:
    """A path as printable UTF-8 (file names from an archive need not be UTF-8)."""
    return storable_text(str(path))
