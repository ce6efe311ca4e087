"""The portal in Debian's Chromium at a desktop (1280 px) and a phone (375 px) width: every main
page has the one header, no sideways page scroll (wide tables scroll in their own box), no
script or console errors; the keyboard reaches the skip link, the navigation and the main
content with a visible focus; institutions are not cut; and a submitter logs in, opens the
run page of a real suite run with a straggler and sees the library's stragglers in the
work-rate chart. Screenshots go to the test artifacts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ioscore.results.loader import load_run
from ioscore.results.stragglers import phase_spread
from ioscore.results.throughput import throughput_series
from tests.webapp.portal_runs import store_run, straggler_run_dir

from .conftest import chromium_page

pytestmark = [pytest.mark.browser]

WIDTHS = {"desktop": 1280, "phone": 375}
PUBLIC_PAGES = {
    "home": "/",
    "lists": "/lists/",
    "list": "/lists/SC25/research/",
    "trends": "/trends/",
    "login": "/accounts/login/",
    "not-found": "/no/such/page/",
}


def _page_width(page: Any) -> int:
    return int(page.evaluate("() => document.documentElement.scrollWidth"))


def _check_layout(page: Any, width: int) -> None:
    assert page.locator("header.site-header").count() == 1
    assert _page_width(page) <= width, f"{page.url} scrolls sideways at {width} px"
    # Whatever is wider than the page scrolls inside its own box.
    overflowing = page.evaluate(
        """(width) => Array.from(document.querySelectorAll('table')).filter(t => {
              const box = t.closest('.table-scroll');
              return t.getBoundingClientRect().right > width + 1 && !box; }).length""",
        width,
    )
    assert overflowing == 0, page.url


def test_visitor_pages_at_desktop_and_phone_width(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    top = page.request.get(f"{live_server.url}/api/v1/lists/SC25/research/entries/?limit=3").json()
    ids = [str(e["submission_id"]) for e in top["results"]]
    pages = {
        **PUBLIC_PAGES,
        "result": f"/results/{ids[0]}/",
        "compare": f"/compare/?ids={','.join(ids)}",
    }
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in pages.items():
            page.goto(live_server.url + path)
            if name in ("result", "compare", "trends"):
                page.wait_for_selector("body[data-charts=ready]")
            _check_layout(page, width)
            page.screenshot(path=str(artifacts_dir / f"portal-{name}-{label}.png"), full_page=True)
    # The one error the browser reports is the 404 status of the not-found page itself.
    others = [m for m in page.console_errors if "status of 404" not in m]
    assert not others, others


def test_institutions_are_not_cut_on_the_home_page(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/")
        card = page.locator(".card").first
        card.screenshot(path=str(artifacts_dir / f"portal-home-card-{label}.png"))
        cells = page.eval_on_selector_all(
            ".toplist .muted",
            """cells => cells.map(c => ({text: c.innerText.trim(), title: c.title,
                                         cut: c.scrollWidth > c.clientWidth + 1}))""",
        )
        assert len(cells) >= 5
        for cell in cells:
            assert not cell["cut"] and cell["title"] == cell["text"], cell
        assert any(len(cell["text"]) > 25 for cell in cells)  # long names are on the page


def test_keyboard_reaches_skip_link_navigation_and_content(
    browser_page: Any, live_server: Any
) -> None:
    page = browser_page
    page.set_viewport_size({"width": WIDTHS["phone"], "height": 800})
    page.goto(live_server.url + "/lists/")
    page.keyboard.press("Tab")
    focused = page.evaluate(
        """() => { const e = document.activeElement, r = e.getBoundingClientRect(),
                          s = getComputedStyle(e);
                   return {text: e.innerText, href: e.getAttribute('href'), left: r.left,
                           outline: s.outlineStyle, width: s.outlineWidth}; }"""
    )
    assert focused["text"] == "Skip to content" and focused["href"] == "#main"
    assert focused["left"] >= 0  # shown on screen while focused
    assert focused["outline"] != "none" and focused["width"] != "0px"
    reached = []
    for _ in range(12):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("() => document.activeElement.innerText.trim()"))
    for label in ("Home", "Lists", "Compare", "Trends", "API", "Log in"):
        assert label in reached, reached
    current = page.evaluate("() => document.querySelector('[aria-current=page]').innerText")
    assert current == "Lists"
    # The skip link moves the focus to the main content.
    page.goto(live_server.url + "/lists/")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


# --- a submitter and a real run with a straggler ----------------------------------------------


@pytest.fixture(scope="module")
def straggler_run() -> Iterator[Path]:
    with straggler_run_dir("ioscore-portal-e2e-") as run_dir:
        yield run_dir


@pytest.mark.mpi
def test_submitter_sees_the_straggler_on_the_run_page(
    live_server: Any,
    cast: Any,
    open_release: Any,
    straggler_run: Path,
    artifacts_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from submissions.models import Status

    run = load_run(straggler_run)
    submission = store_run(
        straggler_run, cast.submitter, cast.site, open_release, Status.VALIDATION_FAILED
    )
    expected = phase_spread(run.phases["mdtest-easy-write"])
    with_series = [p for p in run.phases.values() if (t := throughput_series(p)) and any(t[1])]
    assert expected.straggler_ranks == [1]  # the suite's delayed rank, by the library's rule
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

    with chromium_page(width=WIDTHS["desktop"]) as page:
        page.goto(f"{live_server.url}/submissions/mine/")  # -> log in, then back here
        page.get_by_label("Username").fill(cast.submitter.username)
        page.get_by_label("Password").fill(cast.password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url("**/submissions/mine/")
        page.get_by_role("link", name=f"#{submission.pk}").click()
        page.wait_for_selector("body[data-charts=ready]")
        assert page.locator("#phase-table tbody tr").count() == 12
        assert "timestamp" not in page.locator("#phase-table").inner_text()

        page.select_option("#spread-phase", label="mdtest-easy-write (1 straggler)")
        chart = page.evaluate(
            """() => { const gd = document.getElementById('spread');
                       return {type: gd.data[0].type, x: gd.data[0].x, y: gd.data[0].y,
                               colours: gd.data[0].marker.color,
                               title: gd._fullLayout.title.text,
                               yTitle: gd._fullLayout.yaxis.title.text}; }"""
        )
        assert chart["type"] == "bar" and len(chart["x"]) == 2
        assert chart["colours"][1] != chart["colours"][0]  # rank 1 drawn as the straggler
        assert chart["y"][1] < 0.5 * chart["y"][0]
        assert "1 straggler" in chart["title"] and chart["yTitle"] == "kIOPS per rank"
        row = page.locator("#straggler-table tr", has_text="mdtest-easy-write").inner_text()
        assert row.split("\t")[1].startswith("1 (") and expected.rank_stragglers[0].reason in row
        page.screenshot(path=str(artifacts_dir / "portal-run-page-desktop.png"), full_page=True)
        page.screenshot(path=str(artifacts_dir / "portal-run-page-desktop-top.png"))
        page.locator("#h-system").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts_dir / "portal-run-page-desktop-system.png"))
        for chart in ("radar", "phase-panels", "spread"):
            page.locator(f"#{chart}").screenshot(
                path=str(artifacts_dir / f"portal-run-{chart}.png")
            )
        radar = page.evaluate("() => document.getElementById('radar').data[0].r")
        assert len(radar) == 12 and all(r is not None and 0 < r <= 1 + 1e-9 for r in radar)
        page.wait_for_selector("body[data-panels=ready]")
        panels = page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-phase-panel]'))
                 .filter(f => f.querySelector('.panel-plot').data)
                 .map(f => f.getAttribute('data-phase-panel'))"""
        )
        assert set(panels) >= {p.name for p in with_series} and len(with_series) >= 10
        _check_layout(page, WIDTHS["desktop"])

        page.set_viewport_size({"width": WIDTHS["phone"], "height": 800})
        page.reload()
        page.wait_for_selector("body[data-charts=ready]")
        _check_layout(page, WIDTHS["phone"])
        page.screenshot(path=str(artifacts_dir / "portal-run-page-phone.png"), full_page=True)
        page.screenshot(path=str(artifacts_dir / "portal-run-page-phone-top.png"))
        page.locator("#h-phases").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts_dir / "portal-run-page-phone-phases.png"))

        assert not page.js_errors and not page.console_errors, page.console_errors

        page.goto(f"{live_server.url}/review/")
        assert "needs the reviewer (committee member) role" in page.locator("main").inner_text()
        _check_layout(page, WIDTHS["phone"])
        page.screenshot(path=str(artifacts_dir / "portal-403-phone.png"), full_page=True)
