"""Trends and compare charts as Chromium draws them, on the real IO500 corpus: axes titled
with their units, releases without entries drawn as gaps, a distribution axis that fits its
data on either scale, and legends that cover neither the plot area nor the axis labels (at a
desktop and at a phone width). The plotly layout is read back from the page."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

# The site's URLs with the public pages mounted, as the rankings browser test sets them up.
pytestmark = [pytest.mark.urls("tests.e2e.test_rankings_browser"), pytest.mark.browser]

# The figure as drawn: every axis title, the categories, shapes, data and where the legend,
# the plot areas and the tick labels are on screen.
FIGURE = """(id) => {
  const gd = document.getElementById(id);
  const full = gd._fullLayout;
  const box = (el) => { const r = el.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom]; };
  const axes = {};
  Object.keys(full).filter(k => /^[xy]axis\\d*$/.test(k)).forEach(k => {
    axes[k] = { title: full[k].title && full[k].title.text, type: full[k].type,
                range: full[k].range, categories: full[k]._categories || null };
  });
  const legend = gd.querySelector('g.legend');
  return {
    axes: axes,
    shapes: (full.shapes || []).length,
    annotations: (full.annotations || []).map(a => a.text),
    data: gd.data.map(t => ({ type: t.type, name: t.name, x: t.x, y: t.y,
                               connectgaps: t.connectgaps, lowerfence: t.lowerfence,
                               upperfence: t.upperfence })),
    legend: legend && full.showlegend ? box(legend) : null,
    chart: box(gd),
    plots: Array.from(gd.querySelectorAll('.nsewdrag')).map(box),
    polar: Array.from(gd.querySelectorAll('g.polarlayer .bg, g.polar > .bg')).map(box),
    ticks: Array.from(gd.querySelectorAll(
      '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text')).map(box),
  };
}"""


def _figure(page: Any, element_id: str) -> dict[str, Any]:
    figure: dict[str, Any] = page.evaluate(FIGURE, element_id)
    return figure


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _legend_clear(figure: dict[str, Any]) -> None:
    legend = figure["legend"]
    assert legend is not None, "no legend drawn"
    for area in figure["plots"] + figure["polar"]:
        assert not _overlap(legend, area), f"legend {legend} covers the plot area {area}"
    for label in figure["ticks"]:
        assert not _overlap(legend, label), f"legend {legend} covers an axis label {label}"
    chart = figure["chart"]
    assert chart[1] - 0.5 <= legend[1] and legend[3] <= chart[3] + 0.5, "legend cut off"


def test_trends_axes_gaps_and_scale(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    page = browser_page
    page.goto(live_server.url + "/trends/")
    page.wait_for_selector("body[data-charts=ready]")
    assert page.locator("#t-list option[selected]").get_attribute("value") == "historical"

    best = _figure(page, "best")
    titles = {name: axis["title"] for name, axis in best["axes"].items()}
    assert titles["xaxis"] == "release"
    assert sorted(t for n, t in titles.items() if n.startswith("y")) == [
        "BW (GiB/s)",
        "MD (kIOPS)",
        "Score",
    ]
    assert all(axis["type"] == "log" for n, axis in best["axes"].items() if n.startswith("y"))
    releases = best["axes"]["xaxis"]["categories"]
    assert releases.index("SC21") + 3 == releases.index("ISC23")  # ISC22, SC22 in place
    for trace in best["data"]:
        assert trace["connectgaps"] is False
        for gap in ("ISC22", "SC22"):
            assert trace["y"][trace["x"].index(gap)] is None
    assert best["shapes"] >= 2 and best["annotations"].count("no list") >= 2
    assert page.locator("#trend-gaps").inner_text().count("(no list)") >= 2

    dist = _figure(page, "distribution")
    yaxis = dist["axes"]["yaxis"]
    assert yaxis["title"] == "Score" and yaxis["type"] == "log"
    assert set(dist["axes"]["xaxis"]["categories"]) == set(releases)
    # Boxes drawn from the stored statistics: whiskers at each release's lowest and highest.
    boxes = [t for t in dist["data"] if t["type"] == "box"]
    assert boxes and all(t.get("y") is None for t in boxes)  # no per-entry values sent
    values = [v for t in boxes for key in ("lowerfence", "upperfence") for v in t[key]]
    low, high = min(values), max(values)
    assert low > 0
    # The log range (in decades) holds the data and is not stretched far beyond it.
    assert math.log10(low) - 1 <= yaxis["range"][0] <= math.log10(low)
    assert math.log10(high) <= yaxis["range"][1] <= math.log10(high) + 1
    page.screenshot(path=str(artifacts_dir / "charts-trends-log.png"), full_page=True)

    page.get_by_role("button", name="linear").click()
    page.wait_for_function(
        "document.getElementById('distribution')._fullLayout.yaxis.type === 'linear'"
    )
    linear = _figure(page, "distribution")["axes"]["yaxis"]["range"]
    # Re-ranged for the new scale: not the log exponents kept on a linear axis.
    assert linear[1] >= high and linear[1] <= 1.5 * high and linear[0] <= low
    for name, axis in _figure(page, "best")["axes"].items():
        if name.startswith("y"):
            assert axis["type"] == "linear" and axis["range"][1] > 10
    page.screenshot(path=str(artifacts_dir / "charts-trends-linear.png"), full_page=True)

    # Another list and metric: the distribution axis names it with its unit.
    page.goto(live_server.url + "/trends/?list=io500&phase=mdtest-hard-write")
    page.wait_for_selector("body[data-charts=ready]")
    assert _figure(page, "distribution")["axes"]["yaxis"]["title"] == "mdtest-hard-write (kIOPS)"


def test_compare_one_chart_per_unit_and_legends_clear(
    browser_page: Any, live_server: Any, artifacts_dir: Path
) -> None:
    from rankings.models import ListEntry

    page = browser_page
    ids = list(
        ListEntry.objects.filter(
            ranked_list__release__acronym="SC25",
            ranked_list__list_type__slug="historical",
            ior_easy_write__isnull=False,
            find__isnull=False,
        )
        .order_by("position")
        .values_list("submission_id", flat=True)[:4]
    )
    assert len(ids) == 4
    url = live_server.url + "/compare/?ids=" + ",".join(map(str, ids))
    for width, name in ((1360, "desktop"), (390, "phone")):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        page.wait_for_selector("body[data-charts=ready]")
        page.screenshot(path=str(artifacts_dir / f"charts-compare-{name}.png"), full_page=True)
        bw, md = _figure(page, "bars-bw"), _figure(page, "bars-md")
        assert bw["axes"]["yaxis"]["title"] == "GiB/s (log scale)"
        assert md["axes"]["yaxis"]["title"] == "kIOPS (log scale)"
        assert bw["axes"]["xaxis"]["title"] == md["axes"]["xaxis"]["title"] == "phase"
        assert all(p.startswith("ior-") for p in bw["data"][0]["x"])
        assert not any(p.startswith("ior-") for p in md["data"][0]["x"])
        scores = _figure(page, "bars-scores")
        y_titles = sorted(a["title"] for n, a in scores["axes"].items() if n.startswith("y"))
        assert y_titles == ["BW (GiB/s)", "MD (kIOPS)", "Score"]
        for figure in (bw, md, scores, _figure(page, "radar")):
            assert len([t for t in figure["data"] if t["name"]]) >= 4
            _legend_clear(figure)
