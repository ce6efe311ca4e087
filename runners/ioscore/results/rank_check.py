"""The schema's per-rank object of result.json, checked by hand.

A 100,000-rank run holds 1.4 million rank objects; jsonschema spends ~10 us on each (14 s
for the 8,192-rank result of the issue), this check well under 1 us. It enforces exactly the
schema's ``phases[].ranks[]`` item (``$defs/phase/properties/ranks/items``, including the
optional per-rank ``latency``) with JSON Schema's type semantics: "integer" accepts 2.0,
"number" never accepts a boolean. ``tests/results/test_scale_validation.py`` proves the
equivalence against jsonschema on valid and invalid objects and fails when the schema's rank
object changes without this module.
"""

from __future__ import annotations

from typing import Any

from ioscore.results.storable_json import Table, dict_table

RANK_REQUIRED = ("rank", "host", "start", "first_done", "end", "items", "bytes", "rate")
RANK_KEYS = frozenset((*RANK_REQUIRED, "verify_errors", "latency"))
LATENCY_REQUIRED = ("unit", "ops", "p50", "p90", "p99", "max")
# p99_9 and p99_99 came with the log-linear histogram: older results have neither
LATENCY_OPTIONAL = ("p99_9", "p99_99")
LATENCY_KEYS = frozenset((*LATENCY_REQUIRED, *LATENCY_OPTIONAL, "op", "histogram", "buckets"))
BUCKET_KEYS = frozenset(("le", "count"))


def _number(value: Any) -> bool:
    return type(value) is float or type(value) is int


def _count(value: Any) -> bool:
    kind = type(value)
    if kind is int:
        return bool(value >= 0)
    return kind is float and value.is_integer() and value >= 0


def _object_problem(obj: Any, required: tuple[str, ...], allowed: frozenset[str]) -> str | None:
    if type(obj) is not dict:
        return "is not an object"
    for key in required:
        if key not in obj:
            return f"misses the required key {key!r}"
    if not allowed.issuperset(obj):
        extra = sorted(str(k) for k in obj if k not in allowed)[0]
        return f"has the unknown key {extra!r}"
    return None


def _histogram_problem(histogram: Any) -> str | None:
    keys = ("layout", "sub_buckets", "rel_error")
    problem = _object_problem(histogram, keys, frozenset(keys))
    if problem:
        return problem
    if histogram["layout"] != "log-linear" or type(histogram["layout"]) is not str:
        return "layout must be 'log-linear'"
    if not (_count(histogram["sub_buckets"]) and histogram["sub_buckets"] >= 1):
        return "sub_buckets must be an integer >= 1"
    if not (_number(histogram["rel_error"]) and histogram["rel_error"] > 0):
        return "rel_error must be a number > 0"
    return None


def _latency_problem(latency: Any) -> str | None:
    problem = _object_problem(latency, LATENCY_REQUIRED, LATENCY_KEYS)
    if problem:
        return f"latency {problem}"
    if latency["unit"] != "s" or type(latency["unit"]) is not str:
        return "latency unit must be 's'"
    if not _count(latency["ops"]):
        return "latency ops must be an integer >= 0"
    for key in ("p50", "p90", "p99", "max", *LATENCY_OPTIONAL):
        if key in latency and not (_number(latency[key]) and latency[key] >= 0):
            return f"latency {key} must be a number >= 0"
    if "op" in latency and type(latency["op"]) is not str:
        return "latency op must be a string"
    if "histogram" in latency:
        problem = _histogram_problem(latency["histogram"])
        if problem:
            return f"latency histogram {problem}"
    buckets = latency.get("buckets", [])
    if type(buckets) is not list:
        return "latency buckets must be an array"
    for index, bucket in enumerate(buckets):
        problem = _object_problem(bucket, ("le", "count"), BUCKET_KEYS)
        if problem:
            return f"latency bucket {index} {problem}"
        if not (_number(bucket["le"]) and bucket["le"] > 0):
            return f"latency bucket {index} le must be a number > 0"
        if not _count(bucket["count"]):
            return f"latency bucket {index} count must be an integer >= 0"
    return None


def rank_problem(rank: Any) -> str | None:
    """Why ``rank`` is not a valid result.json rank object, or None when it is."""
    problem = _object_problem(rank, RANK_REQUIRED, RANK_KEYS)
    if problem:
        return problem
    for key in ("rank", "items", "bytes"):
        if not _count(rank[key]):
            return f"{key} must be an integer >= 0"
    if "verify_errors" in rank and not _count(rank["verify_errors"]):
        return "verify_errors must be an integer >= 0"
    if type(rank["host"]) is not str:
        return "host must be a string"
    for key in ("start", "first_done", "end"):
        if not _number(rank[key]):
            return f"{key} must be a number"
    if not (_number(rank["rate"]) and rank["rate"] >= 0):
        return "rate must be a number >= 0"
    if "latency" in rank:
        return _latency_problem(rank["latency"])
    return None


def ranks_problem(ranks: list[Any], table: Table | None = None) -> tuple[int, str] | None:
    """(index, why) of the first invalid rank object of a phase's ``ranks``, or None.
    `table`: the ranks taken apart by storable_json's checks, when they were."""
    if _plain_ranks_valid(ranks, table):
        return None
    for index, rank in enumerate(ranks):
        problem = rank_problem(rank)
        if problem:
            return index, problem
    return None


_COUNT_KEYS = ("rank", "items", "bytes", "verify_errors")
_TIME_KEYS = ("start", "first_done", "end")


def _plain_ranks_valid(ranks: list[Any], table: Table | None = None) -> bool:
    """True when every rank object is valid, checked column by column at C speed; False
    when unsure (then ``rank_problem`` judges each object and names the first problem).

    Covers the suite's usual form: every rank with the same keys, no latency, counts as
    ints, several times faster than judging object by object.
    """
    if not ranks or not all(map(dict.__instancecheck__, ranks)):
        return not ranks
    keys = ranks[0].keys()
    if not keys >= set(RANK_REQUIRED) or "latency" in keys or not keys <= RANK_KEYS:
        return False
    table = table or dict_table(ranks)
    if table is None:  # not every object has the first one's keys
        return False
    for key in _COUNT_KEYS:
        if key in keys:
            column = table.columns[key]
            lowest = table.lowest_int.get(key)
            if table.kinds[key] != {int} or (min(column) if lowest is None else lowest) < 0:
                return False
    if table.kinds["host"] != {str}:
        return False
    for key in (*_TIME_KEYS, "rate"):
        column = table.columns[key]
        if not {int, float}.issuperset(table.kinds[key]):
            return False
        if key == "rate" and not all(map((0.0).__le__, column)):  # NaN fails as in rank_problem
            return False
    return True
