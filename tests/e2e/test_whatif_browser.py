"""What-if rankings and "what differed" in a real browser, on the real IO500 corpus: a list
re-ranked with the random 4 KiB read edition and with a typed formula shows each entry's
rank change, the API gives the same numbers for the same URL parameters, a bad formula is
shown plainly, and comparing two real runs lists the options that differed."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest

from ioscore.results import BW_PHASES, MD_PHASES, SCORED_PHASES

from .test_rankings_browser import urlpatterns  # noqa: F401

pytestmark = [pytest.mark.urls(__name__), pytest.mark.browser]

LIST = "/lists/SC25/research/"
API = "/api/v1/lists/SC25/research/entries/"
FORMULA = "geomean(ior_easy_write, ior_hard_write, mdtest_easy_write) / sqrt(find)"


def _shown_rows(page: Any) -> list[dict[str, Any]]:
    """Every row of the table: submission, official rank, what-if rank, change, score."""
    return page.eval_on_selector_all(
        "#ranked-table tbody tr[data-submission]",
        """rows => rows.map(r => {
             const cell = key => r.querySelector(`td[data-col="${key}"]`);
             return { id: Number(r.dataset.submission),
                      rank: cell("rank").innerText.trim(),
                      whatif: cell("whatif").innerText.trim(),
                      change: cell("whatif_change").dataset.change,
                      changeText: cell("whatif_change").innerText.trim(),
                      score: cell("whatif_score").innerText.trim() }; })""",
    )


def _api(page: Any, live_server: Any, query: dict[str, str]) -> list[dict[str, Any]]:
    response = page.request.get(f"{live_server.url}{API}?{urlencode({**query, 'limit': 500})}")
    assert response.status == 200, response.text()
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def _agree(rows: list[dict[str, Any]], api: list[dict[str, Any]]) -> None:
    """The page's rows are the API's first records, with the same numbers."""
    assert [r["id"] for r in rows] == [e["submission_id"] for e in api[: len(rows)]]
    for row, entry in zip(rows, api, strict=False):
        assert int(re.match(r"\d+", row["rank"]).group()) == entry["rank"]  # type: ignore[union-attr]
        if entry["whatif_rank"] is None:
            assert row["whatif"] == "\u2013" and row["change"] == ""
            assert row["score"] == f"unranked: {entry['whatif_unranked_reason']}"
            continue
        assert int(row["whatif"]) == entry["whatif_rank"]
        assert int(row["change"]) == entry["whatif_rank_change"]
        shown = float(row["score"].replace(",", ""))
        assert math.isclose(shown, entry["whatif_score"], rel_tol=5e-3), (row, entry)
        change = entry["whatif_rank_change"]
        arrow = "\u25b2" if change > 0 else ("\u25bc" if change < 0 else "=")
        assert row["changeText"].startswith(arrow)
        if change:
            assert str(abs(change)) in row["changeText"]


def _screenshots(page: Any, artifacts_dir: Path, name: str) -> None:
    """The banner and chooser, then the table from its toolbar down."""
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts_dir / f"{name}.png"))
    page.eval_on_selector(".toolbar", "e => e.scrollIntoView()")
    page.screenshot(path=str(artifacts_dir / f"{name}-table.png"))


def test_a_list_reranked_by_an_edition_and_by_a_typed_formula(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    page.goto(live_server.url + LIST)
    official = page.eval_on_selector_all(
        "#ranked-table tbody tr[data-submission]", "rows => rows.map(r => r.dataset.submission)"
    )
    assert page.locator("#whatif-banner").count() == 0

    # The edition with the random 4 KiB read, chosen as a visitor does.
    page.select_option("#f-edition", "with-rnd4k")
    page.click("#filter-form button[type=submit]")
    page.wait_for_selector("#whatif-banner")
    assert parse_qs(urlparse(page.url).query)["edition"] == ["with-rnd4k"]
    banner = page.inner_text("#whatif-banner")
    assert "What-if view: With the random 4 KiB read" in banner
    assert "Not an official ranking" in banner and "1 %" in banner
    rows = _shown_rows(page)
    assert [str(r["id"]) for r in rows] != official  # the what-if order
    assert any(int(r["change"]) > 0 for r in rows if r["change"])
    assert any(int(r["change"]) < 0 for r in rows if r["change"])
    _agree(rows, _api(page, live_server, {"edition": "with-rnd4k"}))
    _screenshots(page, artifacts_dir, "whatif-rnd4k")

    # A shared URL gives the same view; the downloads link carries it.
    csv_link = page.get_attribute("#csv-link", "href") or ""
    assert "edition=with-rnd4k" in csv_link

    # A formula typed into the box.
    page.select_option("#f-edition", "formula")
    page.fill("#f-formula", FORMULA)
    page.click("#filter-form button[type=submit]")
    page.wait_for_selector("#whatif-banner")
    assert parse_qs(urlparse(page.url).query)["formula"] == [FORMULA]
    assert f"Your formula: {FORMULA}" in page.inner_text("#whatif-banner")
    assert page.input_value("#f-formula") == FORMULA
    rows = _shown_rows(page)
    assert sum(1 for r in rows if r["change"] and int(r["change"]) != 0) >= 5
    _agree(rows, _api(page, live_server, {"formula": FORMULA}))
    _screenshots(page, artifacts_dir, "whatif-formula")

    # The last page holds the entries the formula cannot rank, each saying why.
    last = page.locator("nav.pager a[rel=next]")
    while last.count():
        last.first.click()
        page.wait_for_load_state()
        last = page.locator("nav.pager a[rel=next]")
    unranked = [r for r in _shown_rows(page) if r["change"] == ""]
    reasons = {r["score"] for r in unranked}
    assert "unranked: only its published scores exist, no phase values" in reasons
    assert all(
        reason.startswith(("unranked: no value for", "unranked: only its published"))
        for reason in reasons
    )
    page.locator("td.whatif-score.unranked").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "whatif-unranked.png"), full_page=False)


def _reproduced(entry: dict[str, Any]) -> bool:
    """The entry's list score is sqrt(BW x MD) of its own phase values, within 1 %."""
    phases = entry["phases"]
    if any(phases[p] is None or phases[p] <= 0 for p in SCORED_PHASES):
        return False
    bw = _geomean([phases[p] for p in BW_PHASES])
    md = _geomean([phases[p] for p in MD_PHASES])
    return math.isclose(math.sqrt(bw * md), entry["score"], rel_tol=0.01)


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def test_metadata_in_miops_and_a_bad_formula(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}{LIST}?edition=md-in-miops")
    banner = page.inner_text("#whatif-banner")
    assert "A geometric mean does not care about units" in banner
    assert "the order stays the official one" in banner
    rows = _shown_rows(page)
    api = _api(page, live_server, {"edition": "md-in-miops"})
    _agree(rows, api)
    # Among the entries whose list score is what their phase values give, MIOPS keeps the
    # official order exactly (the others carry a published list's rounded scores).
    reproduced = [e for e in api if e["whatif_rank"] is not None and _reproduced(e)]
    assert len(reproduced) > 100
    by_official = sorted(reproduced, key=lambda e: (e["rank"], e["whatif_rank"]))
    assert [e["whatif_rank"] for e in by_official] == sorted(e["whatif_rank"] for e in reproduced)
    page.screenshot(path=str(artifacts_dir / "whatif-miops.png"), full_page=False)

    page.goto(f"{live_server.url}{LIST}?{urlencode({'formula': 'bw + __import__(1)'})}")
    error = page.inner_text("#formula-error")
    assert "Your formula could not be used" in error and "unknown function" in error
    assert page.locator("#whatif-banner").count() == 0
    assert page.locator("#ranked-table tbody tr[data-submission]").count() > 0  # still the list
    api = page.request.get(f"{live_server.url}{API}?{urlencode({'formula': 'bw + __import__(1)'})}")
    assert api.status == 400 and "unknown function" in api.text()
    page.screenshot(path=str(artifacts_dir / "whatif-bad-formula.png"), full_page=False)


def test_compare_of_two_real_runs_lists_what_differed(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    from submissions.models import Submission

    runs = list(
        Submission.objects.exclude(config={})
        .filter(status="accepted")
        .order_by("pk")
        .values_list("pk", "config")[:40]
    )
    first, second = next((a, b) for i, a in enumerate(runs) for b in runs[i + 1 :] if a[1] != b[1])
    page = browser_page
    page.goto(f"{live_server.url}/compare/?ids={first[0]},{second[0]}")
    page.wait_for_selector("#what-differed")
    options = page.eval_on_selector_all(
        'table[data-group="configuration-options"] tbody tr',
        """rows => rows.map(r => ({
             option: r.querySelector("th").innerText.trim(),
             cells: [...r.querySelectorAll("td")].map(c => c.innerText.trim()) }))""",
    )
    assert options
    for row in options:
        section, key = re.match(r"\[(.+?)\] (.+)", row["option"]).groups()  # type: ignore[union-attr]
        values = [str(run[1].get(section, {}).get(key) or "not set") for run in (first, second)]
        assert row["cells"][:2] == values and values[0] != values[1]
        name = section.lower()
        if name in ("global", "debug"):
            assert row["cells"][2] == "every phase"
        elif name in ("ior-easy", "ior-hard", "mdtest-easy", "mdtest-hard", *SCORED_PHASES):
            touched = [p for p in SCORED_PHASES if p == name or p.startswith(name + "-")]
            assert row["cells"][2] == ", ".join(touched), row
    page.locator("#what-differed").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir / "compare-what-differed.png"), full_page=False)
