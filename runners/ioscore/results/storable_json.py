"""JSON that PostgreSQL can store, parsed with bounded work: the one parser for untrusted JSON
(result.json in the validator, metadata documents and API bodies in the service).

Python's json accepts NaN/Infinity, numbers that overflow a double, integers of any length
(converted in quadratic time), NUL characters, lone surrogates and nesting up to the recursion
limit; PostgreSQL stores none of them and a deep document costs a recursion per level. ``loads``
refuses each with ``UnstorableJSON`` naming the problem (and, for text, where it is).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple

import msgspec

from ioscore.results.limits import INT64_MAX, number_problem, text_problem


class Table(NamedTuple):
    """A list of same-key dicts (a phase's rank objects) or of lists (time-series rows) as
    ``vouch`` took it apart: per column (key; "" = all values of the rows of lists, in
    order) the types of its values, the lowest integer (of columns holding integers) and
    the column itself."""

    rows: list[Any]  # the list itself (kept alive: its id is its key in Tables)
    columns: dict[str, list[Any]]
    kinds: dict[str, set[type]]
    lowest_int: dict[str, int]


Tables = dict[int, Table]  # id(Table.rows) -> Table; see vouch


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


def loads(text: str | bytes, max_depth: int, tables: Tables | None = None) -> Any:
    """``json.loads`` refusing what cannot be stored (``UnstorableJSON``); malformed JSON is
    ``json.JSONDecodeError`` as usual.

    Storable documents take the fast path (``fast_loads``); any document it cannot vouch
    for is decoded again by ``_checked_loads``, so every refusal and its message come from
    that one careful path. `tables`: see ``fast_loads``.
    """
    document = fast_loads(text, max_depth, tables)
    if document is not UNSURE:
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


UNSURE = object()  # the fast path's "decode it carefully" answer
_DECODE = msgspec.json.Decoder()  # untyped: the same dicts, lists and scalars as json


def fast_loads(
    text: str | bytes, max_depth: int, tables: Tables | None = None, start: int = 0
) -> Any:
    """The document decoded at C speed (from `start`, see ``fast_decode``), when it is
    storable; else ``UNSURE``: ``vouch`` on ``fast_decode``."""
    decoded = fast_decode(text, start)
    if decoded is UNSURE:
        return UNSURE
    document, texts = decoded
    return document if vouch(document, texts, max_depth, tables) else UNSURE


def fast_decode(text: str | bytes, start: int = 0) -> tuple[Any, bool] | Any:
    """(document, whether its strings need a look) from msgspec, decoding `text` from
    `start` (past a BOM); ``UNSURE`` when msgspec refuses it.

    msgspec decodes UTF-8 bytes without a str copy, builds Python objects directly (no
    intermediate tree, unlike orjson's: 2.0 GB peak at 100,000 ranks) and is stricter than
    json: NaN/Infinity, numbers beyond the double range, control characters, lone
    surrogates, invalid UTF-8 and integer literals of thousands of digits are errors there,
    and every error sends the document to the careful path, so messages come from one
    place. So its floats are finite and its strings valid UTF-8; a NUL can only come from a
    ``\\u0000`` escape, and without one in the text no string needs a look.
    """
    texts = _has_nul_escape(text, start)
    try:
        document = _DECODE.decode(memoryview(text)[start:] if start else text)  # type: ignore[arg-type]
    except (msgspec.MsgspecError, ValueError, RecursionError):  # the careful path tells
        return UNSURE
    return document, texts


_FIELDS = msgspec.json.Decoder(dict[str, msgspec.Raw])  # an object's values left undecoded
# An object's values decoded, its arrays' items left undecoded: one scan of the text.
_SPLIT = msgspec.json.Decoder(
    dict[str, list[msgspec.Raw] | dict[str, Any] | str | int | float | bool | None]
)


def fast_loads_by_item(
    data: Any,
    start: int,
    max_depth: int,
    key: str,
    take: Callable[[Any, int, Tables], Any],
    read: Callable[[], None] = lambda: None,
) -> Any:
    """``fast_loads`` of a JSON object whose `key` holds an array of large items (result.json's
    phases), one item at a time: each item is decoded, vouched for and handed to
    ``take(item, index, tables)``, whose answer stands in the document for the item, so only
    one item's objects are alive at once (100,000 ranks: ~70 MB, not ~1 GB). `data`: UTF-8
    bytes or any buffer (an mmap), decoded from `start` (past a BOM); `tables`: the item's
    ``Table``s (see ``vouch``). ``UNSURE`` as ``fast_loads`` (then no answer of `take` counts:
    the careful path decodes the whole document); a document that is no object, or whose
    `key` holds no array, is decoded whole as ``fast_loads`` decodes it. ``read()`` is called
    whenever what was read of `data` is decoded: after the scan for the top-level values,
    and after each item (a caller with a mapped file drops the pages read).
    """
    view = memoryview(data)[start:]
    try:
        fields = _SPLIT.decode(view)
    except msgspec.ValidationError:  # not an object
        return fast_loads(data, max_depth, start=start)
    except (msgspec.MsgspecError, ValueError, RecursionError):  # the careful path tells
        return UNSURE
    finally:
        del view
    texts = _has_nul_escape(data, start)
    read()  # the scans are done
    found = fields.get(key)
    items = found if isinstance(found, list) else None
    document: dict[str, Any] = {}
    try:
        for name, value in fields.items():
            if type(value) is list:  # of undecoded items
                value = [] if name == key else list(map(_DECODE.decode, value))
            document[name] = value
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return UNSURE
    del fields
    # Everything but the items (an empty array in their place), then each item at its depth.
    if not _storable(document, max_depth, texts, None):
        return UNSURE
    taken = []
    for index, raw in enumerate(items or ()):
        try:
            item = _DECODE.decode(raw)
        except (msgspec.MsgspecError, ValueError, RecursionError):
            return UNSURE
        read()
        tables: Tables = {}
        if type(item) in (dict, list):
            storable = _storable(item, max_depth - 2, texts, tables)  # document > key > item
        else:
            storable = _values_storable([item], texts) is not False
        if not storable:
            return UNSURE
        taken.append(take(item, index, tables))
        del item, tables
    if items is not None:
        document[key] = taken
    return document


def fast_fields(data: Any, keys: tuple[str, ...]) -> dict[str, Any] | Any:
    """The values of `keys` (those present) in the JSON object `data` (UTF-8 bytes or a
    buffer), each decoded alone: the rest is only scanned, no object is built for it.
    ``UNSURE`` when `data` is no well-formed object (BOM included) or a value not storable."""
    try:
        fields = _FIELDS.decode(data)
        found = {key: _DECODE.decode(fields[key]) for key in keys if key in fields}
    except (msgspec.MsgspecError, ValueError, RecursionError):
        return UNSURE
    return found if _storable(found, 2, True, None) else UNSURE  # texts: a look at a few


def vouch(document: Any, texts: bool, max_depth: int, tables: Tables | None = None) -> bool:
    """Whether `document` (from ``fast_decode``) is storable: ``_storable`` checks what
    msgspec lets through (integers beyond 64 bits, depth, NUL when `texts`), the many rank
    objects and time-series rows column by column in C. With msgspec a large result reads
    in about half the CPU time (bench/scale_read.py measures it).

    `tables`, when given and the document storable, receives every ``Table`` the check
    took apart, by ``id`` of its list: the result.json reader validates and models ranks
    from them instead of taking the 1.2 million objects and 10 million time-series counts
    of a 100,000-rank result apart twice more.
    """
    found: Tables | None = None if tables is None else {}  # columns held only when asked
    if not _storable(document, max_depth, texts, found):
        return False
    if tables is not None and found is not None:
        tables.update(found)
    return True


def _has_nul_escape(text: Any, start: int) -> bool:
    """Whether `text` (a str, bytes or a buffer with ``find``: an mmap) holds ``\\u0000``."""
    return bool(text.find("\\u0000" if type(text) is str else b"\\u0000", start) >= 0)


_NUMBER_KINDS = frozenset((int, float, bool, type(None)))
_INT64_MIN = -INT64_MAX - 1


def _values_storable(
    values: list[Any], texts: bool, table: Table | None = None, key: str = ""
) -> bool | None:
    """True when every value is a storable scalar, False when one is not, None when some
    are containers (then the caller walks them). Floats are finite (msgspec refuses the
    rest); strings are looked at only when `texts`. `table`: the column's facts go there."""
    kinds = set(map(type, values))
    if table is not None:
        table.kinds[key] = kinds
    if int in kinds:
        ints = values if len(kinds) == 1 else list(filter(int.__instancecheck__, values))
        lowest = min(ints)
        if table is not None:
            table.lowest_int[key] = lowest
        if max(ints) > INT64_MAX or lowest < _INT64_MIN:
            return False
    if texts and str in kinds and not _texts_storable(list(filter(str.__instancecheck__, values))):
        return False
    return None if kinds - _NUMBER_KINDS - {str} else True


def _texts_storable(texts: list[str]) -> bool:
    joined = "".join(texts)  # Python never pairs two lone surrogates into one character
    return _text_problem(joined) is None


def _storable(document: Any, max_depth: int, texts: bool, tables: Tables | None) -> bool:
    """Whether every node of `document` (decoded by msgspec) can be stored, as
    ``_check_tree`` would find; strings are checked only when `texts`. `tables` receives
    what the column checks found (see ``vouch``).

    A list of dicts with the same keys (a phase's rank objects) is checked as a table: its
    keys once, each column at C speed; a list of scalars or of lists of scalars (time-series
    rows) likewise. Other containers are walked node by node.
    """
    stack: list[tuple[Any, int]] = [(document, 1)] if type(document) in (dict, list) else []
    if texts and type(document) is str and _text_problem(document):
        return False
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if type(node) is dict:
            if texts and not _texts_storable([k for k in node if type(k) is str]):
                return False
            values = list(node.values())
        elif node and type(node[0]) is dict and (columns := _columns(node)) is not None:
            if depth + 1 > max_depth or (texts and not _texts_storable(list(node[0]))):
                return False
            table = _new_table(node, tables)
            for key, column in zip(node[0], columns, strict=True):
                if table is not None:
                    table.columns[key] = column
                verdict = _values_storable(column, texts, table, key)
                if verdict is False:
                    return False
                if verdict is None:
                    stack.extend((v, depth + 2) for v in column if type(v) in (dict, list))
            continue
        elif node and type(node[0]) is list and all(map(list.__instancecheck__, node)):
            if depth + 1 > max_depth:
                return False
            table = _new_table(node, tables)
            flat = list(chain.from_iterable(node))
            if table is not None:
                table.columns[""] = flat
            verdict = _values_storable(flat, texts, table)
            if verdict is False:
                return False
            if verdict is None:
                stack.extend((row, depth + 1) for row in node)
            continue
        else:
            values = node
        verdict = _values_storable(values, texts)
        if verdict is False:
            return False
        if verdict is None:
            stack.extend((v, depth + 1) for v in values if type(v) in (dict, list))
    return True


def _new_table(rows: list[Any], tables: Tables | None) -> Table | None:
    """An empty Table for `rows`, entered in `tables`; None when nobody asked for them."""
    if tables is None:
        return None
    table = tables[id(rows)] = Table(rows, {}, {}, {})
    return table


def _columns(rows: list[Any]) -> list[list[Any]] | None:
    """The columns of `rows` when they are all dicts with the keys of the first (in any
    order), else None. Same size and every key of the first present means the same keys:
    no per-row key comparison."""
    if not all(map(dict.__instancecheck__, rows)):
        return None
    keys = list(rows[0])
    if set(map(len, rows)) != {len(keys)}:
        return None
    try:
        return [list(map(itemgetter(key), rows)) for key in keys]
    except KeyError:
        return None


def dict_table(rows: list[Any]) -> Table | None:
    """`rows` taken apart as ``vouch`` takes a rank table (columns and their value types,
    no lowest integers), when they are non-empty dicts with the same keys; else None."""
    columns = _columns(rows) if rows else None
    if columns is None:
        return None
    by_key = dict(zip(rows[0], columns, strict=True))
    return Table(rows, by_key, {key: set(map(type, c)) for key, c in by_key.items()}, {})


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
