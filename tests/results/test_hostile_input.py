"""Hostile run files: every parser and rule refuses them with a ResultFormatError or an
INVALID issue naming the problem, in time linear in the input (pytest-timeout bounds each
test far below what the old quadratic patterns took on these inputs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ioscore.results import ResultFormatError, check, load_run
from ioscore.results.limits import MAX_JSON_DEPTH, MAX_LINE_CHARS, long_line
from ioscore.results.model import Severity
from ioscore.results.parse_summary import parse_summary_text

from .conftest import DEV, SC25_RUN, edit
from .test_result_json import contract_document

pytestmark = pytest.mark.timeout(20)


@pytest.fixture
def sc25(copy_run) -> Path:  # type: ignore[no-untyped-def]
    return copy_run(SC25_RUN)  # type: ignore[no-any-return]


@pytest.fixture
def json_run(sc25: Path) -> Path:
    (sc25 / "result.json").write_text(json.dumps(contract_document(DEV / SC25_RUN)), "utf-8")
    return sc25


def write_json_text(run_dir: Path, text: str) -> None:
    (run_dir / "result.json").write_text(text, "utf-8", errors="surrogatepass")


def test_long_version_line_refused_by_the_line_limit(sc25: Path) -> None:
    summary = sc25 / "result_summary.txt"
    edit(summary, "IO500 version io500-sc25 (standard)", "IO500 version x" + " " * 200_000 + "y")
    with pytest.raises(ResultFormatError, match=f"line longer than {MAX_LINE_CHARS}") as info:
        load_run(sc25)
    assert info.value.line == 1


@pytest.mark.parametrize(
    "head",
    [
        "IO500 version x" + " " * (MAX_LINE_CHARS - 20) + "y",  # quadratic for the old pattern
        "IO500 version a " + "(a" * 5000,
        "IO500 version x (" + "b" * 10_000,
        "IO500 versionx",
    ],
)
def test_malformed_version_lines_refused_in_linear_time(head: str) -> None:
    with pytest.raises(ResultFormatError, match="malformed version line"):
        parse_summary_text(head + "\n", "result_summary.txt")


def test_version_line_shapes_still_parsed() -> None:
    tail = "[SCORE ] Bandwidth 1.0 GiB/s : IOPS 1.0 kiops : TOTAL 1.0\n"
    for head, version, mode in [
        ("IO500 version io500-sc25 (standard)", "io500-sc25", "standard"),
        ("IO500 version io500-isc20_v3", "io500-isc20_v3", None),
        ("IO500 version", "", None),
        ("IO500 version\t(extended) ", "", "extended"),
    ]:
        summary = parse_summary_text(f"{head}\n{tail}", "s")
        assert (summary.version, summary.mode) == (version, mode)


def test_overlong_version_refused(sc25: Path) -> None:
    edit(sc25 / "result_summary.txt", "io500-sc25 (standard)", "v" * 300 + " (standard)")
    with pytest.raises(ResultFormatError, match="version longer than 200"):
        load_run(sc25)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("inf", "is infinite"),
        ("-inf", "is infinite"),
        ("1e400", "is infinite"),
        ("nan", r"is not a number \(NaN\)"),
    ],
)
def test_non_finite_summary_value_refused_naming_the_phase(
    sc25: Path, value: str, problem: str
) -> None:
    edit(sc25 / "result_summary.txt", "34.950286 GiB/s", f"{value} GiB/s")
    with pytest.raises(ResultFormatError, match=f"value of ior-easy-write {problem}") as info:
        load_run(sc25)
    assert info.value.line == 2


def test_negative_summary_value_refused(sc25: Path) -> None:
    edit(sc25 / "result_summary.txt", "7.141687 kIOPS", "-7.141687 kIOPS")
    with pytest.raises(ResultFormatError, match="value of mdtest-easy-write is negative"):
        load_run(sc25)


def test_non_finite_result_txt_score_refused(sc25: Path) -> None:
    text = (sc25 / "result.txt").read_text("utf-8")
    start = text.index("[ior-easy-write]")
    score = text.index("score", start)
    end = text.index("\n", score)
    (sc25 / "result.txt").write_text(text[:score] + "score = inf" + text[end:], "utf-8")
    with pytest.raises(ResultFormatError, match=r"\[ior-easy-write\] score is infinite"):
        load_run(sc25)


def test_quadratic_exe_option_line_checked_in_linear_time(sc25: Path) -> None:
    # 20,000 `-t 47008` and no `-b`: the old `-t[ =]47008\b.*-b...` pattern re-scanned the rest
    # of the line for each of them (minutes); the option scan is one pass.
    edit(sc25 / "result.txt", "-t 47008 -b 47008", "-t 47008 " * 1500)
    found = [i for i in check(load_run(sc25)) if i.rule == "fixed-options"]
    assert [(i.phase, i.severity) for i in found] == [("ior-hard-write", Severity.INVALID)]
    assert found[0].expected == "-t 47008 ... -b 47008"


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
        ("-Infinity", "-Infinity is not a JSON number"),
        ("1e400", "beyond the double-precision range"),
        ("9" * 30, "beyond the 64-bit range"),
        ("9" * 5000, "beyond the 64-bit range"),
    ],
)
def test_non_finite_json_numbers_refused(json_run: Path, literal: str, message: str) -> None:
    document = contract_document(DEV / SC25_RUN)
    document["phases"][0]["score"] = "__VALUE__"
    write_json_text(json_run, json.dumps(document).replace('"__VALUE__"', literal))
    with pytest.raises(ResultFormatError, match=message):
        load_run(json_run)


def test_negative_json_score_refused_naming_the_phase(json_run: Path) -> None:
    document = contract_document(DEV / SC25_RUN)
    document["phases"][0]["score"] = -1.5
    write_json_text(json_run, json.dumps(document))
    with pytest.raises(ResultFormatError, match=r"phases/0/score|ior-easy-write"):
        load_run(json_run)


@pytest.mark.parametrize(
    ("escape", "message"),
    [("\\u0000", "NUL character"), ("\\ud800", "lone surrogate")],
)
def test_unstorable_json_strings_refused(json_run: Path, escape: str, message: str) -> None:
    document = contract_document(DEV / SC25_RUN)
    document["version"] = "__S__"
    write_json_text(json_run, json.dumps(document).replace("__S__", f"v{escape}1"))
    with pytest.raises(ResultFormatError, match=f"string at /version contains a {message}"):
        load_run(json_run)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 100_000])
def test_deep_json_refused(json_run: Path, depth: int) -> None:
    document = contract_document(DEV / SC25_RUN)
    document["phases"][0]["extra"] = {"deep": "__DEEP__"}
    nested = "[" * depth + "]" * depth
    write_json_text(json_run, json.dumps(document).replace('"__DEEP__"', nested))
    with pytest.raises(ResultFormatError, match=f"nested deeper than {MAX_JSON_DEPTH}"):
        load_run(json_run)


def test_timeseries_counts_checked_without_the_schema(json_run: Path) -> None:
    document = contract_document(DEV / SC25_RUN)
    phase = document["phases"][0]
    phase["timeseries"] = {"bucket_s": 1, "aggregate": [1, 2], "per_rank": [[1], [2, -3]]}
    write_json_text(json_run, json.dumps(document))
    with pytest.raises(ResultFormatError, match="phases/0/timeseries: aggregate and per_rank"):
        load_run(json_run)
    phase["timeseries"]["per_rank"] = [[1], [2, 3]]
    write_json_text(json_run, json.dumps(document))
    assert load_run(json_run).phases[phase["name"]].timeseries == phase["timeseries"]


def test_huge_finite_values_overflowing_the_score_are_invalid(sc25: Path) -> None:
    summary = sc25 / "result_summary.txt"
    edit(summary, "34.950286 GiB/s", "1e300 GiB/s")
    edit(summary, "7.141687 kIOPS", "1e300 kIOPS")
    run = load_run(sc25)
    for phase in run.phases.values():
        phase.value = 1e300 if phase.value > 0 else phase.value
    found = [i for i in check(run) if i.rule == "numbers-finite"]
    assert found and all(i.severity == Severity.INVALID for i in found)
    assert any("recomputed TOTAL score is infinite" in i.message for i in found)


def test_non_utf8_directory_named_printably(tmp_path: Path) -> None:
    run_dir = tmp_path / b"run-\xff".decode("utf-8", "surrogateescape")
    run_dir.mkdir()
    (run_dir / "result_summary.txt").write_text("garbage\n", "utf-8")
    with pytest.raises(ResultFormatError) as info:
        load_run(run_dir)
    assert "run-\ufffd" in str(info.value)
    str(info.value).encode("utf-8")  # storable


def test_long_line_finder() -> None:
    assert long_line("a\nbb\nccc", 2) == 3
    assert long_line("a\nbb\n", 2) is None
    assert long_line("x" * 10, 9) == 1
