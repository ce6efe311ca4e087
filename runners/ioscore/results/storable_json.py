"""JSON that PostgreSQL can store, parsed with bounded work: the one parser for untrusted JSON
(result.json in the validator, metadata documents and API bodies in the service).

Python's json accepts NaN/Infinity, numbers that overflow a double, integers of any length
(converted in quadratic time), NUL characters, lone surrogates and nesting up to the recursion
limit; PostgreSQL stores none of them and a deep document costs a recursion per level. ``loads``
refuses each with ``UnstorableJSON`` naming the problem (and, for text, where it is).
"""

from __future__ import annotations

import json
from typing import Any

from ioscore.results.limits import INT64_MAX, number_problem, text_problem


class UnstorableJSON(ValueError):
    """Well-formed JSON that cannot be stored or walked; ``str()`` says why."""


def _refuse_constant(name: str) -> Any:
    raise UnstorableJSON(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if number_problem(value, negative_ok=True):
        raise UnstorableJSON(f"number {text[:40]} is beyond the double-precision range")
    return value


def _int64(text: str) -> int:
    if len(text) > 20:  # before int(): no quadratic conversion of a huge literal
        raise UnstorableJSON(f"integer {text[:40]}... is beyond the 64-bit range")
    value = int(text)
    if len(text) >= 19 and abs(value) > INT64_MAX:
        raise UnstorableJSON(f"integer {text} is beyond the 64-bit range")
    return value


def loads(text: str | bytes, max_depth: int) -> Any:
    """``json.loads`` refusing what cannot be stored (``UnstorableJSON``); malformed JSON is
    ``json.JSONDecodeError`` as usual."""
    try:
        document = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int64
        )
    except RecursionError:
        raise UnstorableJSON(f"nested deeper than {max_depth} levels") from None
    _check_tree(document, max_depth)
    return document


_SCALARS = (int, float, bool, type(None))


def _text_problem(text: str) -> str | None:
    # Nearly every string of a result is ASCII: one C-speed test instead of an encode.
    if text.isascii() and "\0" not in text:
        return None
    return text_problem(text)


def _check_tree(document: Any, max_depth: int) -> None:
    """Depth and text checks over the whole document, iteratively (no recursion).

    Linear and cheap per node (a 100,000-rank result has ~25 million): scalars are skipped by
    type, and a container's path is kept as (parent entry, key) and only spelled out for an
    error message.
    """
    # (container, depth, its (parent entry, key) chain)
    stack: list[tuple[Any, int, Any]] = []
    if isinstance(document, str):
        problem = _text_problem(document)
        if problem:
            raise UnstorableJSON(f"string at (top level) {problem}")
    elif isinstance(document, (dict, list)):
        stack.append((document, 1, None))
    while stack:
        node, depth, where = stack.pop()
        if depth > max_depth:
            raise UnstorableJSON(f"nested deeper than {max_depth} levels")
        pairs = node.items() if type(node) is dict else enumerate(node)
        for key, value in pairs:
            if type(key) is str and _text_problem(key):
                raise UnstorableJSON(f"a key in {_path(where)} {_text_problem(key)}")
            kind = type(value)
            if kind in _SCALARS:
                continue
            if kind is str:
                problem = _text_problem(value)
                if problem:
                    raise UnstorableJSON(f"string at {_path((where, key))} {problem}")
            else:
                stack.append((value, depth + 1, (where, key)))


def _path(where: Any) -> str:
    """The JSON path of a (parent entry, key) chain, e.g. /phases/0/name."""
    keys = []
    while where is not None:
        where, key = where
        keys.append(str(key))
    return ("/" + "/".join(reversed(keys)))[:200] if keys else "(top level)"
