"""result.json's fast reading: msgspec straight from the file's bytes, the rank
columns shared by the checks, the model (RankColumns) and the straggler analysis. Whatever
the fast path takes must decode as the careful path would, and whatever it refuses must get
the careful path's message."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import pickle
import random
import struct
import tracemalloc
from array import array
from pathlib import Path
from typing import Any

import pytest

from ioscore.results import ResultFormatError, parse_json, storable_json, synthetic
from ioscore.results.model import RANK_FIELDS, CountRows, PhaseResult, RankColumns, RankStat
from ioscore.results.stragglers import phase_spread, run_spreads, tail_seconds

BASE = synthetic.full_document(6, ppn=2, slow_hosts=(1,))
TEXT = json.dumps(BASE)


def _variant(where: str, literal: str) -> bytes:
    document = json.loads(TEXT)
    phase = document["phases"][4]
    if where == "series":
        phase["timeseries"]["per_rank"][5][2] = "__X__"
    elif where == "extra":
        phase["extra"] = {"x": "__X__"}
    else:
        phase["ranks"][2][where] = "__X__"
    return json.dumps(document).replace('"__X__"', literal).encode()


def _replaced(where: str, raw: bytes) -> bytes:
    return _variant(where, '"nXd"').replace(b"nXd", raw)


# name -> (file bytes, what main's reader said: the message, or None for a valid file)
CASES: dict[str, tuple[bytes, str | None]] = {
    "nan": (_variant("start", "NaN"), "invalid JSON: NaN is not a JSON number"),
    "infinity": (_variant("rate", "Infinity"), "invalid JSON: Infinity is not a JSON number"),
    "-infinity": (_variant("rate", "-Infinity"), "invalid JSON: -Infinity is not a JSON number"),
    "1e400": (
        _variant("rate", "1e400"),
        "invalid JSON: number 1e400 is beyond the double-precision range",
    ),
    "25 digits": (
        _variant("items", "9" * 25),
        "invalid JSON: integer 9999999999999999999999999... is beyond the 64-bit range",
    ),
    "5000 digits": (_variant("items", "9" * 5000), "is beyond the 64-bit range"),
    "int64 + 1": (
        _variant("bytes", "9223372036854775808"),
        "invalid JSON: integer 9223372036854775808 is beyond the 64-bit range",
    ),
    "int64 - 1": (
        _variant("start", "-9223372036854775809"),
        "invalid JSON: integer -9223372036854775809 is beyond the 64-bit range",
    ),
    "uint64 + 1 in a series": (
        _variant("series", "18446744073709551616"),
        "invalid JSON: integer 18446744073709551616 is beyond the 64-bit range",
    ),
    "lone surrogate": (
        _variant("host", '"\\ud800"'),
        "invalid JSON: string at /phases/4/ranks/2/host contains a lone surrogate",
    ),
    "NUL escape": (
        _variant("host", '"n\\u0000d"'),
        "invalid JSON: string at /phases/4/ranks/2/host contains a NUL character",
    ),
    "NUL in a key": (
        _variant("extra", '{"\\u0000k": 1}'),
        "invalid JSON: a key in /phases/4/extra/x contains a NUL character",
    ),
    "depth 70": (_variant("extra", "[" * 70 + "]" * 70), "invalid JSON: nested deeper than 64"),
    "depth bomb": (
        _variant("extra", "[" * 100_000 + "]" * 100_000),
        "invalid JSON: nested deeper than 64",
    ),
    "negative count": (
        _variant("series", "-1"),
        "schema violation at phases/4/timeseries: aggregate and per_rank must hold counts",
    ),
    "control character": (
        _variant("host", '"a\tb"'),
        ":1: invalid JSON: Invalid control character at",
    ),
    "trailing comma": (
        TEXT.encode()[:-1] + b",}",
        ":1: invalid JSON: Expecting property name enclosed in double quotes",
    ),
    "truncated": (TEXT.encode()[:-5], ":1: invalid JSON: Expecting value"),
    "invalid UTF-8": (_replaced("host", b"n\xffd"), ":1: not UTF-8 text (byte 0xff at column"),
    "UTF-8 surrogate": (
        _replaced("host", b"n\xed\xa0\x80d"),
        ":1: not UTF-8 text (byte 0xed at column",
    ),
    "NUL byte": (_replaced("host", b"n\x00d"), ":1: binary data (NUL byte), not a text"),
    "UTF-16": (TEXT.encode("utf-16"), ":1: binary data (NUL byte), not a text"),
    "duplicate key": (
        TEXT.encode().replace(b'"version": "synthetic"', b'"version": "a", "version": "synthetic"'),
        None,
    ),
    "BOM": (b"\xef\xbb\xbf" + TEXT.encode(), None),
    "escaped backslash before u0000": (_variant("host", '"n\\\\u0000d"'), None),
    "rank 2.0": (_variant("rank", "2.0"), None),
}


def _outcome(path: Path) -> Any:
    try:
        return parse_json.parse_result_json(path)
    except ResultFormatError as exc:
        return str(exc)


def _careful_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document the careful way: the reader as it was before the fast decoder."""
    monkeypatch.setattr(storable_json, "fast_decode", lambda *args: storable_json.UNSURE)
    monkeypatch.setattr(storable_json, "fast_loads_by_item", lambda *args: storable_json.UNSURE)


@pytest.mark.parametrize("name", list(CASES))
def test_fast_reading_refuses_and_accepts_like_the_careful_path(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, expected = CASES[name]
    path = tmp_path / "result.json"
    path.write_bytes(data)
    fast = _outcome(path)
    if expected is None:
        assert isinstance(fast, parse_json.RunResult), fast
    else:
        assert isinstance(fast, str) and expected in fast, fast
    _careful_only(monkeypatch)
    assert _outcome(path) == fast  # the same message, or the same model


def test_duplicate_keys_keep_the_last_value_as_json_does(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(CASES["duplicate key"][0])
    assert parse_json.parse_result_json(path).version == "synthetic"


def test_an_escaped_backslash_is_no_nul(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(CASES["escaped backslash before u0000"][0])
    assert parse_json.parse_result_json(path).phases["find"].ranks[2].host == "n\\u0000d"


def _random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 5 else 6)
    if kind == 0:
        while True:  # any finite double, from its bits
            value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if math.isfinite(value):
                return value
    if kind == 1:
        return rng.choice([0.0, -0.0, 5e-324, 1.7976931348623157e308, 0.1, 1e-7, 2.5e22])
    if kind == 2:
        return rng.randint(-(2**63), 2**63 - 1)
    if kind == 3:
        return rng.choice([True, False, None, 0, -1, 2**53 + 1])
    if kind == 4:
        return "".join(
            chr(rng.choice([rng.randrange(1, 0xD800), rng.randrange(0xE000, 0x110000)]))
            for _ in range(rng.randrange(8))
        )
    if kind == 5:
        return rng.choice(["", "node00001", "\\", '"', "\t\n", "é", "😀"])
    if kind in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]
    return {
        str(_random_value(rng, 5)): _random_value(rng, depth + 1) for _ in range(rng.randrange(5))
    }


def _typed(value: Any) -> Any:
    """`value` with every scalar's type (and a float's bits) spelled out, for comparison."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    if isinstance(value, float):
        return ("float", struct.pack("<d", value))
    return (type(value).__name__, value)


@pytest.mark.parametrize("seed", range(40))
def test_fast_and_careful_decoding_agree_on_random_documents(seed: int) -> None:
    rng = random.Random(seed)
    document = {"phases": [_random_value(rng, 0) for _ in range(20)]}
    for text in (json.dumps(document), json.dumps(document, ensure_ascii=False)):
        fast = storable_json.fast_loads(text.encode(), 64)
        assert fast is not storable_json.UNSURE
        assert _typed(fast) == _typed(storable_json._checked_loads(text, 64))


@pytest.mark.parametrize("seed", range(5))
def test_fast_and_careful_decoding_agree_on_number_literals(seed: int) -> None:
    """Decimal literals of every length and exponent round to the same double."""
    rng = random.Random(seed)
    literals = []
    for _ in range(2000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 30)))
        digits = digits.lstrip("0") or "0"
        fraction = "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 25)))
        exponent = rng.randrange(-340, 270)  # x 10^30 stays finite
        literals.append(
            rng.choice(
                [
                    f"{digits}.{fraction}",
                    f"-{digits}e{exponent}",
                    f"{digits}.{fraction}E+{exponent % 270}",
                    digits[:18],
                ]
            )
        )
    text = "[" + ",".join(literals) + "]"
    fast = storable_json.fast_loads(text.encode(), 64)
    assert fast is not storable_json.UNSURE
    assert _typed(fast) == _typed(storable_json._checked_loads(text, 64))


def test_the_fast_path_takes_a_full_result_one_phase_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(synthetic.full_document(30, ppn=10, slow_hosts=(1,))), "utf-8")
    document, taken = parse_json._decoded(path, {})
    assert taken is not None and len(taken) == len(document["phases"]) == 12
    # The document keeps each phase without its per-rank arrays; they are in `taken`.
    assert all(phase["ranks"] == [] for phase in document["phases"])
    assert all(phase["timeseries"]["per_rank"] == [] for phase in document["phases"])
    bulk = taken[0]
    assert isinstance(bulk, parse_json._Bulk) and isinstance(bulk.ranks, RankColumns)
    assert isinstance(bulk.timeseries["per_rank"], CountRows)
    assert len(bulk.timeseries["per_rank"]) == 30
    run = parse_json.parse_result_json(path)
    assert all(isinstance(phase.ranks, RankColumns) for phase in run.phases.values())
    first, last = run.phases["ior-easy-write"].ranks, run.phases["mdtest-hard-delete"].ranks
    # Numbers in arrays (8 bytes each), each host name one object for all its ranks.
    assert isinstance(first.column("start"), array) and first.column("start").typecode == "d"
    assert first.column("items").typecode == "q" and first.column("rank").typecode == "q"
    assert first.column("host")[0] is first.column("host")[9] is last.column("host")[0]


def test_count_rows_behave_like_the_list_of_rows() -> None:
    rows = [[1, 2, 3], [4, 5, 6], [0, 0, 2**63 - 1], [7, 8, 9]]
    packed = CountRows(rows)
    assert len(packed) == 4 and list(packed) == rows and packed == rows and rows == packed
    assert packed[-1] == [7, 8, 9] and packed[1:3] == rows[1:3] and packed[::-2] == rows[::-2]
    assert packed != rows[:-1] and packed != [[1, 2, 3]] * 4 and packed == CountRows(rows)
    assert sum(packed[2][:2]) == 0 and bool(CountRows([])) is False
    assert pickle.loads(pickle.dumps(packed)) == packed
    assert CountRows([[], []]) == [[], []] and len(CountRows([[], []])) == 2
    with pytest.raises(IndexError):
        packed[4]
    with pytest.raises(ValueError, match="rows of one length"):
        CountRows([[1], [2, 3]])


def test_time_series_rows_of_several_lengths_stay_lists(tmp_path: Path) -> None:
    document = json.loads(TEXT)
    document["phases"][2]["timeseries"]["per_rank"][1].append(0)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document), "utf-8")
    run = parse_json.parse_result_json(path)
    series = [phase.timeseries or {} for phase in run.phases.values()]
    assert type(series[2]["per_rank"]) is list and series[2]["per_rank"][1][-1] == 0
    assert isinstance(series[3]["per_rank"], CountRows)


def test_a_phase_of_mixed_ranks_keeps_their_types(tmp_path: Path) -> None:
    """Columns of mixed types (an int start among floats, an absent field) stay lists of
    the values as decoded: the model gives back what the file says."""
    document = json.loads(TEXT)
    ranks = document["phases"][3]["ranks"]
    ranks[1]["start"] = 0
    for rank in ranks:
        del rank["verify_errors"]
    path = tmp_path / "result.json"
    path.write_text(json.dumps(document), "utf-8")
    phase = parse_json.parse_result_json(path).phases[document["phases"][3]["name"]]
    assert isinstance(phase.ranks, RankColumns)
    assert type(phase.ranks[1].start) is int and type(phase.ranks[0].start) is float
    assert [r.verify_errors for r in phase.ranks] == [None] * len(ranks)
    assert phase.ranks == [RankStat(**r) for r in ranks]


def _with_last_phase(change: Any) -> bytes:
    document = json.loads(TEXT)
    change(document["phases"][-1])
    return json.dumps(document).encode()


def _first_rank(phase: dict[str, Any], key: str, value: Any) -> None:
    phase["ranks"][0][key] = value


# Per-phase decoding: odd phases and a bad rank late in the file get the same message and
# the same model as the careful path's, which decodes the whole document.
ODD_PHASES: dict[str, bytes] = {
    "ranks not all objects": _with_last_phase(lambda p: p["ranks"].__setitem__(4, [1])),
    "a rank without its host": _with_last_phase(lambda p: p["ranks"][5].pop("host")),
    "a negative rank in the last phase": _with_last_phase(lambda p: _first_rank(p, "rank", -3)),
    "a string rate in the last phase": _with_last_phase(lambda p: _first_rank(p, "rate", "x")),
    "a huge int in the last phase": _with_last_phase(lambda p: _first_rank(p, "items", 2**64 + 1)),
    "deep nesting inside one rank": _with_last_phase(
        lambda p: _first_rank(p, "latency", json.loads("[" * 62 + "]" * 62))
    ),
    "nesting to the limit inside one rank": _with_last_phase(
        lambda p: _first_rank(p, "extra", json.loads("[" * 59 + "]" * 59))
    ),
    "a phase that is a number": _with_last_phase(lambda p: p.clear()).replace(b"{}]", b"7]"),
    "a phase that is a huge number": _with_last_phase(lambda p: p.clear()).replace(
        b"{}]", b"99999999999999999999]"
    ),
    "phases not an array": TEXT.encode().replace(b'"phases": [', b'"phases": {"x": [', 1)[:-1]
    + b"}}",
    "a top-level array": b"[" + TEXT.encode() + b"]",
    "NaN after the phases": TEXT.encode()[:-1] + b', "late": NaN}',
    "latency in every rank": _with_last_phase(
        lambda p: [
            r.__setitem__(
                "latency", {"unit": "s", "ops": 1, "p50": 0, "p90": 0, "p99": 0, "max": 0}
            )
            for r in p["ranks"]
        ]
    ),
    "a bad rank first, NaN in the last phase": _with_last_phase(
        lambda p: _first_rank(p, "start", "__NAN__")
    )
    .replace(b'"rank": 0,', b'"rank": -1,', 1)
    .replace(b'"__NAN__"', b"NaN"),
    "a bad rank and an unknown schema": _with_last_phase(
        lambda p: _first_rank(p, "rank", -1)
    ).replace(b'"ioscore-result/1"', b'"ioscore-result/9"'),
    "an empty phase list": TEXT.encode().replace(b'"phases": [', b'"phases": [], "x": [', 1),
}


@pytest.mark.parametrize("name", list(ODD_PHASES))
def test_per_phase_decoding_answers_as_the_careful_path(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(ODD_PHASES[name])
    json.loads(ODD_PHASES[name])  # well-formed JSON: only the checks differ
    fast = _outcome(path)
    _careful_only(monkeypatch)
    assert _outcome(path) == fast  # the same message, or the same model


@pytest.mark.parametrize("seed", range(40))
def test_item_by_item_and_careful_decoding_agree_on_random_documents(seed: int) -> None:
    rng = random.Random(seed)
    document = {
        "a": _random_value(rng, 0),
        "phases": [_random_value(rng, 0) for _ in range(20)],
        "z": _random_value(rng, 0),
    }
    seen: list[int] = []

    def take(item: Any, index: int, tables: storable_json.Tables) -> Any:
        seen.append(index)
        return item

    for text in (json.dumps(document), json.dumps(document, ensure_ascii=False)):
        seen.clear()
        fast = storable_json.fast_loads_by_item(text.encode(), 0, 64, "phases", take)
        assert fast is not storable_json.UNSURE and seen == list(range(20))
        assert _typed(fast) == _typed(storable_json._checked_loads(text, 64))


@pytest.mark.parametrize("levels", [61, 62, 63, 64])
def test_item_by_item_decoding_counts_depth_from_the_top(levels: int) -> None:
    """An item of the key's array is at depth 3: `levels` levels inside it end at 2 + levels."""
    text = '{"phases": [' + "[" * levels + "]" * levels + "]}"
    fast = storable_json.fast_loads_by_item(text.encode(), 0, 64, "phases", lambda i, *_: i)
    assert (fast is storable_json.UNSURE) is (2 + levels > 64)
    with contextlib.suppress(storable_json.UnstorableJSON):
        assert fast == storable_json._checked_loads(text, 64)


def test_rank_columns_model_equals_the_list_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(synthetic.full_document(40, ppn=10, slow_hosts=(2,))), "utf-8")
    fast = parse_json.parse_result_json(path)
    _careful_only(monkeypatch)
    careful = parse_json.parse_result_json(path)
    assert all(type(phase.ranks) is list for phase in careful.phases.values())
    assert fast == careful
    assert [dataclasses.asdict(s) for s in run_spreads(fast)] == [
        dataclasses.asdict(s) for s in run_spreads(careful)
    ]


def _stats(rng: random.Random, count: int) -> list[RankStat]:
    return [
        RankStat(
            rank=rng.choice([i, i, i, rng.randrange(count + 1)]),
            host=rng.choice([f"h{i // 3}", f"h{rng.randrange(4)}", None]),
            start=rng.choice([0.0, rng.uniform(0, 0.01), None, 0]),
            end=rng.choice([None, rng.uniform(0, 30)]),
            items=rng.choice([1000, 0, None, rng.randint(1, 5000)]),
            rate=rng.choice([None, rng.uniform(0.1, 100), 5.0]),
            first_done=rng.choice([rng.uniform(0.01, 20), rng.uniform(5, 60), None, 10.0]),
            bytes=rng.choice([None, rng.randint(0, 5000) * 1024]),
            verify_errors=0,
        )
        for i in range(count)
    ]


def _as_columns(stats: list[RankStat]) -> RankColumns:
    return RankColumns([[getattr(s, name) for s in stats] for name in RANK_FIELDS])


def test_rank_columns_behave_like_the_list_of_rank_stats() -> None:
    stats = _stats(random.Random(1), 12)
    columns = _as_columns(stats)
    assert len(columns) == 12 and list(columns) == stats
    assert columns[3] == stats[3] and columns[-1] == stats[-1] and columns[2:9:3] == stats[2:9:3]
    assert columns == stats and stats == columns and columns != stats[:-1]
    assert vars(columns[0]) == vars(stats[0])
    assert pickle.loads(pickle.dumps(columns)) == columns
    assert columns.column("host") == [s.host for s in stats]
    with pytest.raises(IndexError):
        columns[12]
    with pytest.raises(ValueError, match="one column per RankStat field"):
        RankColumns([[1], [2]])


@pytest.mark.parametrize("seed", range(60))
def test_straggler_analysis_on_columns_equals_on_rank_stats(seed: int) -> None:
    rng = random.Random(seed)
    stats = _stats(rng, rng.choice([0, 1, 2, 3, 7, 40]))
    if seed % 2:  # the suite's form: every field present, rank numbers 0..n-1
        stats = [
            dataclasses.replace(
                s,
                rank=i,
                host=s.host or "hx",
                start=s.start or 0.001,
                first_done=s.first_done or 9.0,
                items=s.items or 10,
                bytes=s.bytes or 10240,
            )
            for i, s in enumerate(stats)
        ]
    unit = rng.choice(["GiB/s", "kIOPS"])
    as_list = PhaseResult(name="p", value=1.0, unit=unit, ranks=stats)
    as_columns = PhaseResult(name="p", value=1.0, unit=unit, ranks=_as_columns(stats))
    assert dataclasses.asdict(phase_spread(as_columns)) == dataclasses.asdict(phase_spread(as_list))
    assert tail_seconds(as_columns.ranks) == tail_seconds(stats)


def test_a_full_result_is_read_in_a_fraction_of_its_decoded_size(tmp_path: Path) -> None:
    """One phase's objects at a time, packed columns kept: the reader's Python memory peaks
    well below the whole decoded document's (~1/3 measured at 2,000 ranks; the file's mapped
    pages are no Python memory), where decoding it whole needs all of it."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps(synthetic.full_document(2000, ppn=100, slow_hosts=(1,))), "utf-8")
    tracemalloc.start()
    try:
        document = storable_json.loads(path.read_bytes(), 64)
        whole, _ = tracemalloc.get_traced_memory()
        del document
        tracemalloc.reset_peak()
        run = parse_json.parse_result_json(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(run.phases["find"].ranks) == 2000
    assert peak < 0.5 * whole, (peak, whole)


def test_the_acceptance_report_leaves_an_io500_run_of_any_size_to_the_run_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ioscore report` first looks for acceptance launches; an IO500 run's result.json is
    told apart by its schema and mode alone, so a full form beyond the acceptance reader's
    size limit (64 MB; 300 MB at 100,000 ranks) is reported, not refused as too large."""
    from ioscore.acceptance import results as acceptance
    from ioscore.commands.report import acceptance_report

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "result.json").write_text(TEXT, "utf-8")
    monkeypatch.setattr(acceptance, "MAX_JSON_BYTES", len(TEXT) // 2)
    assert parse_json.result_mode(run_dir / "result.json") == "standard"
    assert acceptance_report(run_dir) is None  # no acceptance launch: the run reader's turn
    (run_dir / "result.json").write_text(TEXT.replace('"standard"', '"ior"'), "utf-8")
    with pytest.raises(ResultFormatError, match="file too large"):
        acceptance_report(run_dir)  # an acceptance launch is held to its reader's limit
    for broken in ("[]", TEXT[:-2], TEXT.replace("ioscore-result/1", "x"), "\ufeff" + TEXT):
        (run_dir / "result.json").write_text(broken, "utf-8")
        assert parse_json.result_mode(run_dir / "result.json") is None  # read whole: its error
