"""What-if views of a list (a scoring edition or a visitor's formula) on the list page, its
downloads and the entries API: each entry's score under the view computed from its phase
values, its rank and change against the official order, unranked entries explained, a bad
formula shown as such (never a 500), and nothing written."""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import date
from typing import Any

import pytest
from django.db import connection
from django.http import QueryDict
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ioscore.results import EDITIONS, MAX_FORMULA_CHARS, SCORED_PHASES

from .test_rankings import World, build
from .test_rankings_access import urlpatterns  # noqa: F401

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

BW = ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")
RND4K = "ior-rnd4K-easy-read"
LIST = ("SC19", "full")


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


# name -> (BW phases' value, MD phases' value, ior-rnd4K-easy-read or None)
RUNS = {"Alpha": (10.0, 10.0, 0.01), "Beta": (8.0, 8.0, None), "Gamma": (5.0, 5.0, 50.0)}


def _expected_rnd4k_score(bw: float, md: float, rnd4k: float | None) -> float:
    """The proposal written out: the random read joins the BW group; a run without it
    stands in 1 % of its ior-easy-read."""
    stand_in = rnd4k if rnd4k is not None else 0.01 * bw
    return math.sqrt(_geomean([bw] * 4 + [stand_in]) * md)


@pytest.fixture
def whatif_list() -> dict[str, Any]:
    """Three runs whose official order (Alpha, Beta, Gamma) the random read turns around,
    and a fourth entry without its find value (as a list-only entry has none)."""
    from rankings.models import ListEntry
    from submissions.models import PhaseResult

    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    subs = {}
    for name, (bw, md, rnd4k) in RUNS.items():
        sub = world.submission(sc19, math.sqrt(bw * md), bw=bw, md=md, system=name)
        if rnd4k is not None:
            PhaseResult.objects.create(
                submission=sub, name=RND4K, order=12, value=rnd4k, unit="GiB/s"
            )
        subs[name] = sub
    subs["Delta"] = world.submission(sc19, 1.0, bw=1.0, md=1.0, system="Delta")
    build()
    ListEntry.objects.filter(submission=subs["Delta"]).update(find=None)
    return subs


def _rows(html: str) -> dict[str, dict[str, str]]:
    """system -> the what-if cells of its row, as text."""
    rows = {}
    for row in re.findall(r"<tr data-submission=.*?</tr>", html, re.S):
        system = re.search(r'data-col="system"><a [^>]*>([^<]*)<', row)
        assert system, row
        cells = dict(re.findall(r'data-col="(whatif\w*)"[^>]*>(.*?)</td>', row, re.S))
        change = re.search(r'data-change="(-?\d*)"', row)
        cells["change"] = change.group(1) if change else ""
        rows[system.group(1)] = {k: re.sub(r"<[^>]+>", "", v).strip() for k, v in cells.items()}
    return rows


def _page(client: Client, **query: str) -> str:
    response = client.get(reverse("rankings:ranked-list", args=LIST), query)
    assert response.status_code == 200
    return response.content.decode()


def _entries_api(client: Client, **query: str) -> Any:
    return client.get(reverse("rankings:api-list-entries", args=LIST), query)


# --- the query: an edition, a formula, or the official list -----------------------------------


def test_scoring_from_the_query() -> None:
    from rankings.whatif import Scoring

    def parsed(text: str) -> tuple[Scoring, list[str]]:
        return Scoring.from_query(QueryDict(text))

    assert not parsed("")[0].active and not parsed("edition=official")[0].active
    edition, errors = parsed("edition=with-rnd4k")
    assert edition.active and edition.edition is not None and not errors
    assert edition.edition.slug == "with-rnd4k" and edition.needs_rnd4k
    formula, errors = parsed("formula=sqrt(bw*md)")
    assert formula.formula is not None and formula.edition_param == "formula" and not errors
    assert not formula.needs_rnd4k and parsed("formula=ior_rnd4K_easy_read")[0].needs_rnd4k
    # The chooser sends the box with every edition: a named edition wins, and says so.
    chosen, errors = parsed("edition=without-find&formula=bw")
    assert chosen.edition is not None and chosen.formula is None
    assert errors == ["parameter 'formula' ignored: the edition 'without-find' is chosen"]
    unknown, errors = parsed("edition=" + "x" * 500)
    assert not unknown.active and len(errors) == 1 and len(errors[0]) < 200
    broken, errors = parsed("formula=__import__('os')")
    assert not broken.active and not errors and "unknown function" in broken.error
    too_long, _ = parsed("formula=" + "1+" * 400 + "1")
    assert f"longer than {MAX_FORMULA_CHARS}" in too_long.error
    assert parsed("edition=formula")[0].error == "the formula is empty"


def test_why_an_entry_is_unranked() -> None:
    from rankings.whatif import Scoring

    def reason(query: str, phases: dict[str, float]) -> str:
        scoring, _ = Scoring.from_query(QueryDict(query))
        value, why = scoring.score(phases, 2.0, 3.0, 4.0)
        assert value is None
        return why

    every = dict.fromkeys(SCORED_PHASES, 1.0)
    without_find = {p: v for p, v in every.items() if p != "find"}
    assert reason("edition=md-in-miops", without_find) == "no value for find"
    assert reason("edition=with-rnd4k", {}) == "only its published scores exist, no phase values"
    assert reason("formula=bw * find", {}) == "only its published scores exist, no phase values"
    assert reason("formula=find / ior_easy_read", {"find": 1.0}) == "no value for ior_easy_read"
    assert reason("formula=log(find - 1)", every).startswith("the formula has no finite value")
    no_md = {p: (v if p in BW else 0.0) for p, v in every.items()}
    assert reason("edition=with-rnd4k", no_md) == "a group's geometric mean is zero"


def test_the_view_state_keeps_the_scoring_in_permalinks_and_its_cache_text() -> None:
    from rankings.listview import WHATIF_SORT, ViewState

    state = ViewState.from_query(QueryDict("edition=with-rnd4k&x=1&page=2"))
    assert state.sort == WHATIF_SORT and not state.descending and not state.errors
    assert state.query() == "edition=with-rnd4k&page=2"  # its default sort is left out
    assert state.query(sort="score", dir="desc").startswith("edition=with-rnd4k&sort=score")
    # Unknown parameters are not part of what the view reads; the order does not matter.
    same = ViewState.from_query(QueryDict("page=2&y=3&edition=with-rnd4k"))
    assert same.cache_text() == state.cache_text()
    assert same.cache_text(paged=False) == ViewState.from_query(
        QueryDict("edition=with-rnd4k&cols=rank,score&per_page=100")
    ).cache_text(paged=False)
    # A what-if sort left in a link back to the official list is its rank, silently.
    official = ViewState.from_query(QueryDict("sort=whatif"))
    assert official.sort == "rank" and not official.errors
    bad = ViewState.from_query(QueryDict("formula=1/"))
    assert bad.scoring.error and bad.scoring.error in bad.cache_text()


# --- scores, ranks and changes ----------------------------------------------------------------


def test_an_edition_scores_every_entry_from_its_phase_values(whatif_list: dict[str, Any]) -> None:
    from rankings.models import ListEntry
    from rankings.whatif import Scoring, reranked

    scoring, _ = Scoring.from_query(QueryDict("edition=with-rnd4k"))
    entries = ListEntry.objects.filter(ranked_list__release__acronym="SC19")
    entries = entries.filter(ranked_list__list_type__slug="full")
    placings = reranked(entries, scoring, None)
    by_system = {e.system: placings.by_id[e.pk] for e in entries}
    expected = {name: _expected_rnd4k_score(*values) for name, values in RUNS.items()}
    for name, score in expected.items():
        assert by_system[name].score == pytest.approx(score, rel=1e-12), name
    order = sorted(expected, key=lambda name: -expected[name])
    official = sorted(expected, key=lambda name: -math.prod(RUNS[name][:2]))
    for name in RUNS:
        placing = by_system[name]
        assert placing.rank == order.index(name) + 1
        assert placing.official_rank == official.index(name) + 1
        assert placing.change == official.index(name) - order.index(name)
    assert [p.entry_id for p in placings.order[:3]] == [
        next(e.pk for e in entries if e.system == name) for name in order
    ]
    delta = by_system["Delta"]
    assert delta.rank is None and delta.change is None
    assert delta.reason == "no value for find"
    assert placings.moved == sum(1 for name in RUNS if order.index(name) != official.index(name))


def test_metadata_in_miops_keeps_the_official_order(whatif_list: dict[str, Any]) -> None:
    html = _page(Client(), edition="md-in-miops")
    rows = _rows(html)
    assert {rows[name]["change"] for name in RUNS} == {"0"}
    assert "0 of 4 entries change rank" in html and "The order is the official one." in html
    assert "A geometric mean does not care about units" in html  # why
    for name, (bw, md, _) in RUNS.items():
        shown = float(rows[name]["whatif_score"].replace(",", ""))
        assert shown == pytest.approx(math.sqrt(bw * md / 1000), rel=5e-3)


def test_the_page_shows_ranks_changes_and_says_it_is_not_official(
    whatif_list: dict[str, Any],
) -> None:
    client = Client()
    with CaptureQueriesContext(connection) as queries:
        html = _page(client, edition="with-rnd4k")
    writes = [
        q["sql"]
        for q in queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]
    assert writes == []  # a view, never stored
    assert "What-if view: With the random 4 KiB read" in html and "Not an official ranking" in html
    rows = _rows(html)
    expected = {name: _expected_rnd4k_score(*values) for name, values in RUNS.items()}
    order = sorted(expected, key=lambda name: -expected[name])
    assert list(rows)[:3] == order  # the what-if order by default
    official = sorted(RUNS, key=lambda name: -math.prod(RUNS[name][:2]))
    for name in RUNS:
        change = official.index(name) - order.index(name)
        assert rows[name]["whatif"] == str(order.index(name) + 1)
        assert rows[name]["change"] == str(change)
        arrow = "▲" if change > 0 else ("▼" if change < 0 else "=")
        assert rows[name]["whatif_change"].startswith(arrow)
    assert rows["Delta"]["whatif_score"] == "unranked: no value for find"
    # The official list is unchanged afterwards.
    plain = _rows(_page(client))
    assert list(plain) == [*official, "Delta"] and "whatif" not in plain["Alpha"]


def test_a_typed_formula_ranks_by_its_value_and_names_missing_values(
    whatif_list: dict[str, Any],
) -> None:
    html = _page(Client(), formula="ior_rnd4K_easy_read * 2")
    rows = _rows(html)
    with_value = {name: v[2] for name, v in RUNS.items() if v[2] is not None}
    order = sorted(with_value, key=lambda name: -with_value[name])
    assert list(rows)[: len(order)] == order
    for name in order:
        assert float(rows[name]["whatif_score"]) == pytest.approx(2 * with_value[name], rel=5e-3)
    assert rows["Beta"]["whatif_score"] == "unranked: no value for ior_rnd4K_easy_read"
    assert 'value="ior_rnd4K_easy_read * 2"' in html  # the box keeps it


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("__import__('os').system('true')", "unknown function"),
        ("bw +", "not a formula"),
        ("x" * (MAX_FORMULA_CHARS + 5), f"longer than {MAX_FORMULA_CHARS} characters"),
        ("ior-easy-read", "write ior-easy-read as ior_easy_read"),
    ],
)
def test_a_bad_formula_is_shown_plainly_never_a_500(
    whatif_list: dict[str, Any], formula: str, message: str
) -> None:
    client = Client()
    html = _page(client, formula=formula)
    error = re.search(r'id="formula-error">(.*?)</div>', html, re.S)
    assert error and message in error.group(1) and "official one" in error.group(1)
    assert 'id="whatif-banner"' not in html
    response = _entries_api(client, formula=formula)
    assert response.status_code == 400 and message in response.json()["error"]["message"]
    for name in ("rankings:list-csv", "rankings:list-json"):
        download = client.get(reverse(name, args=LIST), {"formula": formula})
        assert download.status_code == 400 and message in download.content.decode()


def test_a_formula_without_a_finite_value_leaves_entries_unranked(
    whatif_list: dict[str, Any],
) -> None:
    html = _page(Client(), formula="bw / (md - md)")
    rows = _rows(html)
    assert all(
        r["whatif_score"].startswith("unranked: the formula has no finite value")
        for r in rows.values()
    )
    assert "The order is the official one" not in html


# --- API and downloads: the same numbers --------------------------------------------------------


def test_the_api_and_downloads_give_the_pages_numbers(whatif_list: dict[str, Any]) -> None:
    client = Client()
    query = {"edition": "with-rnd4k"}
    rows = _rows(_page(client, **query))
    api = _entries_api(client, **query, limit="10").json()["results"]
    as_json = client.get(reverse("rankings:list-json", args=LIST), query).json()
    as_csv = list(
        csv.DictReader(
            io.StringIO(client.get(reverse("rankings:list-csv", args=LIST), query).content.decode())
        )
    )
    assert as_json["whatif"]["edition"] == "with-rnd4k" and as_json["whatif"]["official"] is False
    assert [r["system"] for r in api] == [r["system"] for r in as_json["entries"]] == list(rows)
    assert [r["system"] for r in as_csv] == list(rows)
    for record, from_json, from_csv in zip(api, as_json["entries"], as_csv, strict=True):
        name = record["system"]
        assert record["whatif_view"] == "With the random 4 KiB read"
        for key in ("whatif_score", "whatif_rank", "whatif_rank_change", "whatif_unranked_reason"):
            assert record[key] == from_json[key], (name, key)
            assert str(record[key] if record[key] is not None else "") == from_csv[key]
        if name in RUNS:
            assert record["whatif_score"] == pytest.approx(_expected_rnd4k_score(*RUNS[name]))
            assert str(record["whatif_rank"]) == rows[name]["whatif"]
            assert str(record["whatif_rank_change"]) == rows[name]["change"]
        else:
            assert record["whatif_rank"] is None
            assert record["whatif_unranked_reason"] == "no value for find"
        assert record["rank"] == from_json["rank"]  # the official rank stays beside it
        # the random read the edition scored, which no official column carries: measured
        # or empty (the stand-in is 1 % of the ior-easy-read beside it)
        rnd4k = RUNS[name][2] if name in RUNS else None
        assert record["phases"][RND4K] == from_json[RND4K] == rnd4k, name
        assert from_csv[RND4K] == (str(rnd4k) if rnd4k is not None else ""), name
        if name in RUNS:
            measured = float(from_csv[RND4K]) if from_csv[RND4K] else None
            bw, md = float(from_csv["bw"]), float(from_csv["md"])
            recomputed = _expected_rnd4k_score(bw, md, measured)
            assert float(from_csv["whatif_score"]) == pytest.approx(recomputed, rel=1e-9), name


def test_the_official_downloads_carry_no_whatif_fields(whatif_list: dict[str, Any]) -> None:
    client = Client()
    header = client.get(reverse("rankings:list-csv", args=LIST)).content.decode().splitlines()[0]
    assert "whatif" not in header
    assert "whatif" not in client.get(reverse("rankings:list-json", args=LIST)).json()
    assert "whatif_rank" not in _entries_api(client).json()["results"][0]
    assert RND4K not in header and RND4K not in _entries_api(client).json()["results"][0]["phases"]


def test_the_openapi_document_describes_the_whatif_parameters_and_fields(client: Any) -> None:
    from openapi_spec_validator import validate

    document = client.get(reverse("openapi-schema"), {"format": "json"}).json()
    validate(document)
    parameters = {
        p["name"]: p
        for p in document["paths"]["/api/v1/lists/{release}/{list_type}/entries/"]["get"][
            "parameters"
        ]
    }
    assert set(parameters["edition"]["schema"]["enum"]) == {*EDITIONS, "formula"}
    assert "never official" in parameters["edition"]["description"]
    assert "ior_rnd4K_easy_read" in parameters["formula"]["description"]
    entry = document["components"]["schemas"]["PublicEntry"]["properties"]
    for field in ("whatif_score", "whatif_rank", "whatif_rank_change", "whatif_unranked_reason"):
        assert field in entry, field
    assert RND4K in entry["phases"]["description"]


def test_every_phase_name_can_be_used_in_a_formula(whatif_list: dict[str, Any]) -> None:
    client = Client()
    formula = (
        "geomean(" + ", ".join(p.replace("-", "_") for p in SCORED_PHASES if p != "find") + ")"
    )
    api = _entries_api(client, formula=formula).json()["results"]
    for record in api:
        if record["system"] in RUNS:
            bw, md, _ = RUNS[record["system"]]
            values = [bw if p in BW else md for p in SCORED_PHASES if p != "find"]
            assert record["whatif_score"] == pytest.approx(_geomean(values))
