"""JSON that PostgreSQL can store, parsed with bounded work.

PostgreSQL refuses NaN/Infinity in jsonb, ``\u0000`` and lone surrogates in any text, and
numbers beyond 64 bits in integer columns; Python's json accepts all of them and recurses on
nesting. ``loads`` refuses each with a message naming the problem, so a request carrying one
gets a 400 instead of a database error. The API's JSON bodies go through ``StorableJSONParser``;
the metadata form fields through ``intake.parse_json_field``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32
MAX_INT_DIGITS = 19


class UnstorableJSON(ValueError):
    """Valid JSON that cannot be stored; ``str()`` says why."""


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise UnstorableJSON(f"number {text[:40]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    # Checked on the digits first: int() of a huge digit string is slow (and refused).
    if len(text.lstrip("-")) > MAX_INT_DIGITS or abs(int(text)) >= 2**63:
        raise UnstorableJSON(f"integer {text[:40]}... is out of range (64 bits)")
    return int(text)


def _no_constant(text: str) -> Any:
    raise UnstorableJSON(f"{text} is not a number (only finite numbers are allowed)")


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "text may not contain \\u0000 (NUL)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "text may not contain a lone surrogate escape (invalid Unicode)"
    return None


def problem(value: Any) -> str | None:
    """Why ``value`` cannot be stored, or None; iterative, so any depth is safe to walk."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        if isinstance(item, str):
            found = _text_problem(item)
            if found:
                return found
        elif isinstance(item, dict):
            for key, child in item.items():
                found = _text_problem(key)
                if found:
                    return found
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return None


def loads(text: str | bytes) -> Any:
    """``json.loads`` refusing what cannot be stored (``UnstorableJSON``); syntax errors are
    ``json.JSONDecodeError`` as usual."""
    try:
        value = json.loads(
            text, parse_float=_finite, parse_int=_bounded_int, parse_constant=_no_constant
        )
    except RecursionError:
        raise UnstorableJSON(f"nested deeper than {MAX_DEPTH} levels") from None
    found = problem(value)
    if found:
        raise UnstorableJSON(found)
    return value


class StorableJSONParser(JSONParser):
    """DRF's JSON parser with ``loads``: unstorable values are a 400 naming the problem.
    (DRF reads the body through Django, which applies DATA_UPLOAD_MAX_MEMORY_SIZE.)"""

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        try:
            return loads(stream.read() if stream is not None else b"")
        except UnstorableJSON as exc:
            raise ParseError(f"JSON body: {exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
