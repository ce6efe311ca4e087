"""The hand-written rank-object check equals the schema's, and large results load."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ioscore.results import ResultFormatError, parse_json, rank_check, storable_json, synthetic
from ioscore.results.parse_json import parse_result_json, parse_result_json_text

RANK_SCHEMA = parse_json.result_schema()["$defs"]["phase"]["properties"]["ranks"]["items"]
VALID_RANK: dict[str, Any] = {
    "rank": 3,
    "host": "nid001",
    "start": 0.0,
    "first_done": 1.5,
    "end": 2,
    "items": 10,
    "bytes": 40960,
    "rate": 20480.0,
}
LATENCY = {"unit": "s", "ops": 5, "p50": 0.001, "p90": 0.002, "p99": 0.004, "max": 0.004}


def _rank_validator() -> jsonschema.protocols.Validator:
    schema = {**RANK_SCHEMA, "$defs": parse_json.result_schema()["$defs"]}
    return jsonschema.Draft202012Validator(schema)


def _variants() -> list[Any]:
    """Valid and invalid rank objects: every key wrong in every JSON way, plus latency cases."""
    wrong_values = [None, True, False, -1, -0.5, 2.0, 2.5, "7", [], {}, 1e300]
    cases: list[Any] = [VALID_RANK, None, [], "rank", 3, {}]
    for key in [*rank_check.RANK_KEYS]:
        for value in wrong_values:
            cases.append({**VALID_RANK, key: value})
    for key in rank_check.RANK_REQUIRED:
        cases.append({k: v for k, v in VALID_RANK.items() if k != key})
    cases.append({**VALID_RANK, "extra": 1})
    cases.append({**VALID_RANK, "verify_errors": 0, "latency": LATENCY})
    for key in [*rank_check.LATENCY_KEYS]:
        for value in [*wrong_values, "s", [{"le": 0.001, "count": 2}]]:
            cases.append({**VALID_RANK, "latency": {**LATENCY, key: value}})
    for key in rank_check.LATENCY_REQUIRED:
        cases.append({**VALID_RANK, "latency": {k: v for k, v in LATENCY.items() if k != key}})
    for bucket in [
        {"le": 0.001, "count": 2},
        {"le": 0, "count": 2},
        {"le": 0.1, "count": -1},
        {"le": 0.1, "count": 1.0},
        {"le": 0.1},
        {"le": 0.1, "count": 1, "x": 1},
        {"le": True, "count": 1},
        "bucket",
    ]:
        cases.append({**VALID_RANK, "latency": {**LATENCY, "buckets": [bucket]}})
    return cases


def test_schema_rank_object_is_the_one_rank_check_knows() -> None:
    # A schema change to the rank object must change rank_check too (else they disagree).
    assert set(RANK_SCHEMA["required"]) == set(rank_check.RANK_REQUIRED)
    assert set(RANK_SCHEMA["properties"]) == set(rank_check.RANK_KEYS)
    latency = parse_json.result_schema()["$defs"]["latency"]
    assert set(latency["required"]) == set(rank_check.LATENCY_REQUIRED)
    assert set(latency["properties"]) == set(rank_check.LATENCY_KEYS)


def test_rank_check_agrees_with_jsonschema_on_valid_and_invalid_objects() -> None:
    validator = _rank_validator()
    cases = _variants()
    verdicts = {True: 0, False: 0}
    for case in cases:
        schema_ok = validator.is_valid(case)
        problem = rank_check.rank_problem(case)
        assert schema_ok == (problem is None), (case, problem)
        verdicts[schema_ok] += 1
    assert verdicts[True] >= 5 and verdicts[False] >= 100, verdicts


def test_invalid_rank_named_by_phase_and_index() -> None:
    document = synthetic.full_document(20, ppn=10)
    document["phases"][2]["ranks"][17]["rate"] = -1.0
    with pytest.raises(ResultFormatError, match=r"phases/2/ranks/17: rank object rate must be"):
        parse_result_json_text(json.dumps(document), "r.json")


def test_rest_of_the_document_still_validated_by_the_schema() -> None:
    document = synthetic.full_document(20, ppn=10)
    document["phases"][1]["unit"] = "MB/s"
    with pytest.raises(ResultFormatError, match=r"schema violation at phases/1/unit"):
        parse_result_json_text(json.dumps(document), "r.json")


def test_valid_synthetic_document_passes_both_validations() -> None:
    document = synthetic.full_document(30, ppn=10, slow_hosts=(1,))
    assert list(parse_json._validator().iter_errors(document)) == []
    run = parse_result_json_text(json.dumps(document), "r.json")
    assert len(run.phases) == 12
    assert all(len(phase.ranks) == 30 for phase in run.phases.values())


def test_storability_checks_still_name_the_path() -> None:
    document = synthetic.full_document(4, ppn=2)
    document["phases"][3]["ranks"][1]["host"] = "__HOST__"
    text = json.dumps(document).replace("__HOST__", "n\\u0000d")
    with pytest.raises(storable_json.UnstorableJSON, match=r"string at /phases/3/ranks/1/host"):
        storable_json.loads(text, 64)
    bad_key = json.dumps({"a": [{"__K__": 1}]}).replace("__K__", "\\ud800")
    with pytest.raises(storable_json.UnstorableJSON, match=r"a key in /a/0 contains a lone"):
        storable_json.loads(bad_key, 64)


def test_10k_rank_full_form_file_loads(tmp_path: Path) -> None:
    # Bounded by design: every stage linear; bench/scale_read.py measures the time.
    document = synthetic.full_document(10_000, ppn=100)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    del document
    run = parse_result_json(path)
    assert run.procs == 10_000
    assert len(run.phases["ior-hard-read"].ranks) == 10_000


def test_10k_rank_document_with_one_bad_rank_refused() -> None:
    document = synthetic.full_document(10_000, ppn=100)
    broken = copy.deepcopy(document["phases"][11]["ranks"][9_999])
    broken["items"] = 1.5
    document["phases"][11]["ranks"][9_999] = broken
    with pytest.raises(ResultFormatError, match=r"phases/11/ranks/9999: rank object items must"):
        parse_result_json_text(json.dumps(document), "r.json")


@pytest.mark.parametrize("all_rows", [False, True])
def test_rank_table_check_names_the_same_first_problem_as_the_object_check(all_rows: bool) -> None:
    # ranks_problem checks a table column by column first: it must never accept what the
    # object check refuses, and must name the same first bad rank.
    for case in _variants():
        table: list[Any] = [{**VALID_RANK, "rank": i} for i in range(5)]
        for index in range(5) if all_rows else (3,):
            table[index] = copy.deepcopy(case)
        problem = rank_check.rank_problem(case)
        expected = None if problem is None else (0 if all_rows else 3, problem)
        assert rank_check.ranks_problem(table) == expected, case


def test_rank_table_of_the_suite_form_takes_the_column_check() -> None:
    ranks = synthetic.full_document(50, ppn=10)["phases"][0]["ranks"]
    assert rank_check._plain_ranks_valid(ranks)
    assert not rank_check._plain_ranks_valid([*ranks, {**ranks[0], "latency": LATENCY}])


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _refusal(text: str) -> str | None:
    try:
        storable_json._checked_loads(text, 64)
    except storable_json.UnstorableJSON as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(
    "where, literal",
    [
        ("rate", "1e400"),
        ("rate", "-1e400"),
        ("items", "9" * 25),
        ("items", "9223372036854775808"),
        ("start", "-9223372036854775809"),
        ("host", '"n\\u0000d"'),
        ("host", '"\\ud800"'),
        ("series", "1e999"),
        ("series", "18446744073709551616"),
        ("deep", json.dumps(_nested(62))),
        ("key", '{"\\udc00": 1}'),
    ],
)
def test_fast_decoding_refuses_like_the_careful_path(where: str, literal: str) -> None:
    document = synthetic.full_document(6, ppn=2)
    phase = document["phases"][4]
    if where == "series":
        phase["timeseries"]["per_rank"][5][2] = "__X__"
    elif where in ("deep", "key"):
        phase["ranks"][2]["latency"] = "__X__"  # storability is checked before the schema
    else:
        phase["ranks"][2][where] = "__X__"
    text = json.dumps(document).replace('"__X__"', literal)
    careful = _refusal(text)
    assert careful is not None
    assert storable_json.fast_loads(text, 64) is storable_json.UNSURE
    with pytest.raises(storable_json.UnstorableJSON) as refused:
        storable_json.loads(text, 64)
    assert str(refused.value) == careful


@pytest.mark.parametrize("depth", [59, 60, 61, 62, 63])
def test_fast_decoding_counts_depth_like_the_careful_path(depth: int) -> None:
    # Rank tables are checked column by column; a nested value in a column still counts.
    text = json.dumps({"ranks": [{"a": 1, "x": _nested(depth)}, {"a": 2, "x": 3}]})
    fast = storable_json.fast_loads(text, 64)
    assert (fast is storable_json.UNSURE) == (_refusal(text) is not None)
    assert (fast is storable_json.UNSURE) == (depth > 61)


def test_valid_result_takes_the_fast_path_and_decodes_identically() -> None:
    text = json.dumps(synthetic.full_document(40, ppn=10, slow_hosts=(1,)))
    fast = storable_json.fast_loads(text, 64)
    assert fast is not storable_json.UNSURE
    assert fast == storable_json._checked_loads(text, 64)
    assert json.dumps(fast) == text
