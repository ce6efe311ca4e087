"""JSON that PostgreSQL can store, parsed with bounded work: the one parser for untrusted JSON
(result.json in the validator, metadata documents and API bodies in the service).

Python's json accepts NaN/Infinity, numbers that overflow a double, integers of any length
(converted in quadratic time), NUL characters, lone surrogates and nesting up to the recursion
limit; PostgreSQL stores none of them and a deep document costs a recursion per level. ``loads``
refuses each with ``UnstorableJSON`` naming the problem (and, for text, where it is).
"""

from __future__ import annotations

import json
import math
import sys
from itertools import chain
from operator import itemgetter
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
    ``json.JSONDecodeError`` as usual.

    Storable documents take the fast path (``_fast_loads``); any document it cannot vouch
    for is decoded again by ``_checked_loads``, so every refusal and its message come from
    that one careful path.
    """
    document = _fast_loads(text, max_depth)
    if document is not _UNSURE:
        return document
    return _checked_loads(text, max_depth)


def _checked_loads(text: str | bytes, max_depth: int) -> Any:
    """The careful path: each number checked as it is decoded, every node walked."""
    try:
        document = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_int64
        )
    except RecursionError:
        raise UnstorableJSON(f"nested deeper than {max_depth} levels") from None
    _check_tree(document, max_depth)
    return document


_UNSURE = object()  # the fast path's "decode it carefully" answer
_INT_DIGITS_BOUND = 10_000  # Python's int() limit must be on (default 4,300) for the fast path


def _fast_loads(text: str | bytes, max_depth: int) -> Any:
    """The document decoded at C speed, when it is storable; else ``_UNSURE``.

    Python calling ``parse_float``/``parse_int`` for each of a 100,000-rank result's ~19
    million numbers tripled its decoding time (issue 21). Here json decodes numbers natively
    (its int() refuses literals above ``sys.get_int_max_str_digits()`` digits, which bounds
    the work) and ``_storable`` then checks the decoded values, the many rank objects and
    time-series rows column by column in C.
    """
    limit = sys.get_int_max_str_digits()
    if type(text) is not str or not 0 < limit <= _INT_DIGITS_BOUND:
        return _UNSURE
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):  # also JSONDecodeError: the careful path tells
        return _UNSURE
    return document if _storable(document, max_depth) else _UNSURE


_NUMBER_KINDS = frozenset((int, float, bool, type(None)))
_INT64_MIN = -INT64_MAX - 1


def _values_storable(values: list[Any]) -> bool | None:
    """True when every value is a storable scalar, False when one is not, None when some
    are containers (then the caller walks them)."""
    kinds = set(map(type, values))
    if float in kinds:
        floats = values if len(kinds) == 1 else list(filter(float.__instancecheck__, values))
        # An infinity (a literal beyond the double range) makes the sum infinite or NaN; a
        # sum that overflows from finite values only sends the document the careful way.
        if not math.isfinite(sum(floats)):
            return False
    if int in kinds:
        ints = values if len(kinds) == 1 else list(filter(int.__instancecheck__, values))
        if max(ints) > INT64_MAX or min(ints) < _INT64_MIN:
            return False
    if str in kinds and not _texts_storable(list(filter(str.__instancecheck__, values))):
        return False
    return None if kinds - _NUMBER_KINDS - {str} else True


def _texts_storable(texts: list[str]) -> bool:
    joined = "".join(texts)  # Python never pairs two lone surrogates into one character
    return _text_problem(joined) is None


def _storable(document: Any, max_depth: int) -> bool:
    """Whether every node of `document` can be stored (as ``_check_tree`` would find).

    A list of dicts with the same keys (a phase's rank objects) is checked as a table: its
    keys once, each column at C speed; a list of scalars or of lists of scalars (time-series
    rows) likewise. Other containers are walked node by node.
    """
    stack: list[tuple[Any, int]] = [(document, 1)] if type(document) in (dict, list) else []
    if type(document) is str and _text_problem(document):
        return False
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if type(node) is dict:
            if not _texts_storable([k for k in node if type(k) is str]):
                return False
            values = list(node.values())
        elif node and type(node[0]) is dict and _same_keys(node):
            if depth + 1 > max_depth or not _texts_storable(list(node[0])):
                return False
            for key in node[0]:
                column = list(map(itemgetter(key), node))
                verdict = _values_storable(column)
                if verdict is False:
                    return False
                if verdict is None:
                    stack.extend((v, depth + 2) for v in column if type(v) in (dict, list))
            continue
        elif node and type(node[0]) is list and all(map(list.__instancecheck__, node)):
            if depth + 1 > max_depth:
                return False
            verdict = _values_storable(list(chain.from_iterable(node)))
            if verdict is False:
                return False
            if verdict is None:
                stack.extend((row, depth + 1) for row in node)
            continue
        else:
            values = node
        verdict = _values_storable(values)
        if verdict is False:
            return False
        if verdict is None:
            stack.extend((v, depth + 1) for v in values if type(v) in (dict, list))
    return True


def _same_keys(rows: list[Any]) -> bool:
    """Whether `rows` are all dicts with the keys of the first, in its order (itemgetter
    then yields each row's values in one column order)."""
    if not all(map(dict.__instancecheck__, rows)):
        return False
    keys = list(rows[0])
    first = tuple(keys)
    return all(map(first.__eq__, map(tuple, rows)))


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
