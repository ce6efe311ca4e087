"""The public pages in a real browser, on the real IO500 corpus: list -> sort by a phase ->
filter by FS type -> pick three rows -> compare (radar and bar traces); the submission page's
radar has the 12 scored phases; the page, its CSV and the API give the same numbers."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.urls import include, path

from ioscore.results.model import SCORED_PHASES
from ioscore_site import urls as site_urls

_mounted = any(getattr(p, "namespace", None) == "rankings" for p in site_urls.urlpatterns)
urlpatterns = (
    list(site_urls.urlpatterns)
    if _mounted
    else [path("", include("rankings.urls")), *site_urls.urlpatterns]
)
pytestmark = [pytest.mark.urls(__name__), pytest.mark.browser]

SCORED = list(SCORED_PHASES)
LIST = "/lists/SC25/historical/"


def _plot(page: Any, element_id: str) -> dict[str, Any]:
    """The plotly figure as drawn: data and the resolved layout of a chart div."""
    return page.evaluate(
        """(id) => { const gd = document.getElementById(id);
             return { data: gd.data.map(t => ({type: t.type, name: t.name, x: t.x, y: t.y,
                                                theta: t.theta, r: t.r})),
                      polarType: gd._fullLayout.polar ? gd._fullLayout.polar.radialaxis.type
                                                      : null,
                      yType: gd._fullLayout.yaxis ? gd._fullLayout.yaxis.type : null,
                      svgPaths: gd.querySelectorAll('.main-svg path').length }; }""",
        element_id,
    )


def _column(page: Any, key: str) -> list[str]:
    return page.eval_on_selector_all(
        f'#ranked-table tbody td[data-col="{key}"]', "cells => cells.map(c => c.innerText.trim())"
    )


def _rank(text: str) -> int:
    """The rank cell also carries award and carried-over markers."""
    match = re.match(r"\d+", text)
    assert match, text
    return int(match.group())


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_sort_filter_pick_and_compare(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    page.goto(live_server.url + LIST)
    assert page.title().startswith("Historical list at SC25")

    # Show the find column with the column picker, then sort by it (keyboard: Enter on link).
    page.get_by_text("Columns", exact=True).click()
    page.get_by_label("find column", exact=True).check()
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**col=*")
    header = page.locator('th[data-col="find"] a')
    header.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**sort=find*")
    if "dir=desc" not in page.url:  # first click may sort ascending for some columns
        page.locator('th[data-col="find"] a').click()
        page.wait_for_url("**dir=desc*")
    finds = [_number(v) for v in _column(page, "find") if v != "\u2013"]
    assert len(finds) > 10 and finds == sorted(finds, reverse=True)
    ranks = [_rank(v) for v in _column(page, "rank")]
    assert ranks != sorted(ranks)  # frozen ranks, not positions

    # Filter by FS type with the labelled select; the permalink keeps sort and columns.
    page.get_by_label("FS type", exact=True).select_option("DAOS")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_url("**fs=DAOS*")
    state = parse_qs(urlparse(page.url).query)
    assert state["sort"] == ["find"] and state["fs"] == ["DAOS"] and "find" in state["col"]
    fs_cells = _column(page, "fs_type")
    assert len(fs_cells) >= 3 and set(fs_cells) == {"DAOS"}
    filtered_finds = [_number(v) for v in _column(page, "find") if v != "\u2013"]
    assert filtered_finds == sorted(filtered_finds, reverse=True)
    page.screenshot(path=str(artifacts_dir / "rankings-list-sorted-filtered.png"), full_page=True)

    # Pick three rows and open the comparison.
    boxes = page.locator('#ranked-table input[name="pick"]')
    picked = [boxes.nth(i).get_attribute("value") for i in range(3)]
    for i in range(3):
        boxes.nth(i).check()
    assert page.locator("#compare-count").inner_text() == "3"
    page.get_by_role("button", name="Compare selected (3)").click()
    page.wait_for_url("**/compare/?ids=*")
    assert parse_qs(urlparse(page.url).query)["ids"] == [",".join(picked)]
    page.wait_for_selector("body[data-charts=ready]")

    radar = _plot(page, "radar")
    assert [t["type"] for t in radar["data"]] == ["scatterpolar"] * 3
    assert all(t["theta"] == SCORED for t in radar["data"])
    assert radar["polarType"] == "log"
    # decade ticks written as decimals ("0.001"), never plotly's SI prefixes ("100µ", "1m")
    ticks = page.evaluate(
        "() => [...document.querySelectorAll('#radar .radialaxis .xtick text, "
        "#radar .radial-axis text, #radar g.radialaxistick text')].map(t => t.textContent)"
    )
    assert ticks and all(re.fullmatch(r"1|0\.0*1|1e-\d+", t) for t in ticks), ticks
    assert all(max(r for r in t["r"] if r is not None) <= 1.0 + 1e-9 for t in radar["data"])
    assert [t["name"].split()[0] for t in radar["data"]] == [f"#{i}" for i in picked]
    # One bar chart per unit (GiB/s phases, kIOPS phases); test_charts_browser checks axes.
    bw_bars, md_bars = _plot(page, "bars-bw"), _plot(page, "bars-md")
    for bars in (bw_bars, md_bars):
        assert [t["type"] for t in bars["data"]] == ["bar"] * 3
        assert bars["yType"] == "log" and bars["svgPaths"] > 0
    bw_phases, md_phases = bw_bars["data"][0]["x"], md_bars["data"][0]["x"]
    assert sorted(bw_phases + md_phases) == sorted(SCORED)

    # The bar heights are the submissions' phase values as the API reports them.
    for bw_trace, md_trace, sid in zip(bw_bars["data"], md_bars["data"], picked, strict=True):
        phases = page.request.get(f"{live_server.url}/api/v1/results/{sid}/phases/").json()
        values = {p["name"]: p["value"] for p in phases}
        assert bw_trace["y"] == [values[p] for p in bw_phases]
        assert md_trace["y"] == [values[p] for p in md_phases]
    ratio_headers = page.locator("#ratio-table thead th").count()
    assert ratio_headers == 4
    # The baseline's own ratios are exactly 1.
    first_column = page.eval_on_selector_all(
        "#ratio-table tbody tr td:nth-of-type(1) .ratio", "cells => cells.map(c => c.innerText)"
    )
    assert set(first_column) == {"1.00\u00d7"}
    page.screenshot(path=str(artifacts_dir / "rankings-compare.png"), full_page=True)

    # Switch the radar to history's best: values shrink or stay (history best >= set best).
    before = radar["data"][0]["r"]
    page.get_by_role("button", name="best in history").click()
    after = _plot(page, "radar")["data"][0]["r"]
    assert all(a <= b + 1e-12 for a, b in zip(after, before, strict=True) if a and b)
    assert after != before


def test_submission_page_radar_has_the_twelve_phases(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    entries = page.request.get(
        f"{live_server.url}/api/v1/lists/SC25/research/entries/?limit=1"
    ).json()["results"]
    top = entries[0]
    page.goto(f"{live_server.url}/results/{top['submission_id']}/?list=SC25/research")
    page.wait_for_selector("body[data-charts=ready]")
    radar = _plot(page, "radar")
    assert len(radar["data"]) == 1
    assert radar["data"][0]["theta"] == SCORED and len(set(radar["data"][0]["theta"])) == 12
    assert radar["polarType"] == "log"
    # decade ticks written as decimals ("0.001"), never plotly's SI prefixes ("100µ", "1m")
    ticks = page.evaluate(
        "() => [...document.querySelectorAll('#radar .radialaxis .xtick text, "
        "#radar .radial-axis text, #radar g.radialaxistick text')].map(t => t.textContent)"
    )
    assert ticks and all(re.fullmatch(r"1|0\.0*1|1e-\d+", t) for t in ticks), ticks
    # Normalised to the list's best: each axis is the phase value over the list's maximum.
    everyone = page.request.get(
        f"{live_server.url}/api/v1/lists/SC25/research/entries/?limit=1000"
    ).json()["results"]
    best = {p: max(e["phases"][p] for e in everyone if e["phases"][p]) for p in SCORED}
    expected = [top["phases"][p] / best[p] for p in SCORED]
    assert radar["data"][0]["r"] == pytest.approx(expected)
    categories = "document.getElementById('radar')._fullLayout.polar.angularaxis._categories"
    assert page.evaluate(f"() => {categories}.length") == 12
    citation = f"#{top['rank']} on the Research list at SC25"
    assert page.get_by_text(citation, exact=True).count() == 1
    assert page.locator("#phase-table tbody tr").count() >= 12
    page.screenshot(path=str(artifacts_dir / "rankings-submission.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.wait_for_selector("body[data-charts=ready]")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 400  # no sideways scrolling on a phone: wide tables scroll in their box
    page.screenshot(path=str(artifacts_dir / "rankings-submission-phone.png"), full_page=True)


def test_page_csv_json_and_api_agree(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    query = "?fs=Lustre&sort=bw&dir=desc"
    page.goto(f"{live_server.url}/lists/SC25/full/{query}")
    ids = [
        int(v)
        for v in page.eval_on_selector_all(
            "#ranked-table tbody tr", "rows => rows.map(r => r.dataset.submission)"
        )
    ]
    ranks = [_rank(v) for v in _column(page, "rank")]
    scores = [_number(v) for v in _column(page, "score")]
    bws = [_number(v) for v in _column(page, "bw")]
    assert len(ids) >= 5
    csv_text = page.request.get(f"{live_server.url}/lists/SC25/full.csv{query}").text()
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    as_json = page.request.get(f"{live_server.url}/lists/SC25/full.json{query}").json()
    api = page.request.get(
        f"{live_server.url}/api/v1/lists/SC25/full/entries/{query}&limit=500"
    ).json()
    assert [int(r["submission_id"]) for r in rows] == ids
    assert [e["submission_id"] for e in as_json["entries"]] == ids
    assert [e["submission_id"] for e in api["results"]] == ids
    assert [int(r["rank"]) for r in rows] == ranks == [e["rank"] for e in api["results"]]
    for row, entry, api_entry, score, bw in zip(
        rows, as_json["entries"], api["results"], scores, bws, strict=True
    ):
        assert float(row["score"]) == entry["score"] == api_entry["score"]
        assert math.isclose(entry["score"], score, abs_tol=0.006)
        assert math.isclose(entry["bw"], bw, abs_tol=0.006)
        assert all(float(row[p]) == api_entry["phases"][p] for p in SCORED if row[p])
    assert all(r["list_revision"] == "1" for r in rows)
    assert "email" not in csv_text.lower() and "contact" not in json.dumps(as_json).lower()


def test_home_and_trends(browser_page: Any, live_server: Any, artifacts_dir: Path) -> None:
    page = browser_page
    page.goto(live_server.url + "/")
    assert page.locator(".card").count() >= 5
    page.screenshot(path=str(artifacts_dir / "rankings-home.png"), full_page=True)

    page.goto(live_server.url + "/trends/?list=io500&phase=md")
    page.wait_for_selector("body[data-charts=ready]")
    best = _plot(page, "best")
    assert [t["name"] for t in best["data"]] == ["Score", "BW (GiB/s)", "MD (kIOPS)"]
    assert best["data"][0]["x"][0] == "SC17" and best["yType"] == "log"  # first published list
    scores = best["data"][0]["y"]
    assert scores == sorted(scores)  # a cumulative list's best never drops
    page.get_by_role("button", name="linear").click()
    assert _plot(page, "distribution")["yType"] == "linear"
    page.screenshot(path=str(artifacts_dir / "rankings-trends.png"), full_page=True)
    # The straggler chart is tested on real suite output in test_portal_browser.py.
