"""What-if scoring: editions and visitors' formulas, checked on the website's real records."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from ioscore.results.editions import (
    EDITIONS,
    RND4K_READ,
    FormulaError,
    formula_values,
    parse_formula,
    rerank,
)
from tests.results.conftest import DATA

WEBSITE = DATA / "io500-website-submissions-2021.csv"
# The website's columns for the twelve scored phases (find is one value, stored as find_easy).
WEBSITE_PHASES = {
    "ior-easy-write": "ior_easy_write",
    "ior-hard-write": "ior_hard_write",
    "ior-easy-read": "ior_easy_read",
    "ior-hard-read": "ior_hard_read",
    "mdtest-easy-write": "mdtest_easy_write",
    "mdtest-hard-write": "mdtest_hard_write",
    "find": "find_easy",
    "mdtest-easy-stat": "mdtest_easy_stat",
    "mdtest-hard-stat": "mdtest_hard_stat",
    "mdtest-easy-delete": "mdtest_easy_delete",
    "mdtest-hard-read": "mdtest_hard_read",
    "mdtest-hard-delete": "mdtest_hard_delete",
}


def website_rows(path: Path = WEBSITE) -> list[tuple[dict[str, float], float]]:
    """(phase values, published score) of the SC19-and-later records whose twelve phase values
    are at least 1: the website rounds them to two decimals, so these carry at most 0.5 % of
    rounding, and their published score is sqrt(BW x MD) of them."""
    if not path.is_file():
        pytest.skip("../shared/data is not present (a bare clone)")
    out = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["release"] not in ("SC19", "ISC20", "SC20"):
                continue
            try:
                phases = {p: float(row[c]) for p, c in WEBSITE_PHASES.items()}
                score = float(row["io500_score"])
            except ValueError:
                continue
            if all(v >= 1 for v in phases.values()) and score > 0:
                out.append((phases, score))
    return out


def test_official_edition_gives_the_published_score_of_real_records() -> None:
    rows = website_rows()
    assert len(rows) > 100
    for phases, published in rows:
        ours = EDITIONS["official"].score(phases)
        assert ours == pytest.approx(published, rel=0.01), (phases, published)


def test_rnd4k_edition_stands_in_one_percent_of_easy_read_for_old_entries() -> None:
    phases, _ = website_rows()[0]
    official = EDITIONS["official"].score(phases)
    with_rnd4k = EDITIONS["with-rnd4k"].score(phases)
    assert official is not None and with_rnd4k is not None
    # BW gains a fifth value equal to easy_read / 100: BW' = (BW^4 * r)^(1/5), score = sqrt(BW' MD)
    bw4 = math.prod(
        phases[p] for p in ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")
    )
    md = EDITIONS["official"].score(phases) ** 2 / bw4**0.25
    expected = math.sqrt((bw4 * phases["ior-easy-read"] / 100) ** 0.2 * md)
    assert with_rnd4k == pytest.approx(expected, rel=1e-9)
    measured = dict(phases, **{RND4K_READ: phases["ior-easy-read"]})
    assert EDITIONS["with-rnd4k"].score(measured) > with_rnd4k  # a measured value replaces it


def test_miops_edition_keeps_the_order_and_without_find_changes_it() -> None:
    rows = website_rows()
    official = [EDITIONS["official"].score(p) for p, _ in rows]
    miops = [EDITIONS["md-in-miops"].score(p) for p, _ in rows]
    for a, b in zip(official, miops, strict=True):
        assert b == pytest.approx(a / math.sqrt(1000), rel=1e-9)
    ranked = rerank([(i, i + 1, s) for i, s in enumerate(official)])
    without_find = rerank(
        [(r.key, r.rank, EDITIONS["without-find"].score(rows[r.key][0])) for r in ranked]
    )
    assert any(r.change for r in without_find)  # find decides real places
    assert sum(r.change or 0 for r in without_find) == 0


def test_formula_reproduces_the_official_score_and_ranks_by_it() -> None:
    rows = website_rows()[:40]
    formula = parse_formula(
        "sqrt(geomean(ior_easy_write, ior_hard_write, ior_easy_read, "
        "ior_hard_read) * geomean(mdtest_easy_write, mdtest_hard_write, find, "
        "mdtest_easy_stat, mdtest_hard_stat, mdtest_easy_delete, "
        "mdtest_hard_read, mdtest_hard_delete))"
    )
    for phases, published in rows:
        value = formula.value(formula_values(phases, bw=0, md=0, total=published))
        assert value == pytest.approx(published, rel=0.01)
    bw_only = parse_formula("bw")
    entries = [(i, i + 1, bw_only.value({"bw": 10.0 * (i % 3)})) for i in range(6)]
    assert [(r.key, r.rank, r.change) for r in rerank(entries)] == [
        (2, 1, 2),
        (5, 2, 4),
        (1, 3, -1),
        (4, 4, 1),
        (0, 5, -4),
        (3, 6, -2),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("__import__('os')", "unknown function"),
        ("bw.__class__", "Attribute is not part"),
        ("[bw]", "List is not part"),
        ("'a' * 3", "only numbers"),
        ("bw if md else total", "IfExp is not part"),
        ("lambda: 1", "Lambda is not part"),
        ("bw // 2", "operators are"),
        ("not bw", "operators are"),
        ("sqrt(x=bw)", "one or more values"),
        ("nonsense", "unknown name 'nonsense'"),
        ("ior-easy-write * 2", "write ior-easy-write as ior_easy_write"),
        ("bw +", "not a formula"),
        ("bw + " * 100 + "bw", "longer than"),
        ("+".join(["bw"] * 70), "more than"),
    ],
)
def test_formula_refuses_what_the_language_does_not_have(text: str, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        parse_formula(text)


@pytest.mark.parametrize(
    "text, values, expected",
    [
        ("bw / md", {"bw": 1.0, "md": 0.0}, None),  # division by zero: unranked, not a 500
        ("log(bw)", {"bw": -1.0}, None),
        ("bw ** 1000", {"bw": 10.0}, None),  # exponent bound
        ("(bw * 1e300) * 1e300", {"bw": 10.0}, None),  # overflow to inf
        ("find", {"bw": 1.0}, None),  # the entry lacks the value
        ("-bw + 2 ** 3", {"bw": 1.0}, 7.0),
        ("max(bw, md, 3) - min(bw, md)", {"bw": 1.0, "md": 2.0}, 2.0),
        ("mean(bw, md)", {"bw": 1.0, "md": 2.0}, 1.5),
    ],
)
def test_formula_values(text: str, values: dict[str, float], expected: float | None) -> None:
    assert parse_formula(text).value(values) == expected
