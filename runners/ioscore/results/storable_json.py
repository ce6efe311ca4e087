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


def _check_tree(document: Any, max_depth: int) -> None:
    """Depth and text checks over the whole document, iteratively (no recursion)."""
    # (node, depth, path of its container, its key there): paths are only built when needed
    stack: list[tuple[Any, int, str, Any]] = [(document, 1, "", None)]
    while stack:
        node, depth, parent, key = stack.pop()
        if isinstance(node, str):
            problem = text_problem(node)
            if problem:
                raise UnstorableJSON(f"string at {_path(parent, key)} {problem}")
            continue
        if not isinstance(node, (dict, list)):
            continue
        where = _path(parent, key)
        if depth > max_depth:
            raise UnstorableJSON(f"nested deeper than {max_depth} levels")
        if isinstance(node, list):
            stack.extend((value, depth + 1, where, i) for i, value in enumerate(node))
            continue
        for name, value in node.items():
            problem = text_problem(name)
            if problem:
                raise UnstorableJSON(f"a key in {where} {problem}")
            stack.append((value, depth + 1, where, name))


def _path(parent: str, key: Any) -> str:
    if key is None:
        return "(top level)"
    base = "" if parent == "(top level)" else parent
    return f"{base}/{key}"[:200]
