"""The site's one stylesheet keeps text readable: every text colour it sets has a contrast of
at least 4.5:1 (WCAG 2.x AA for normal text) against the background it is drawn on, computed
here from the CSS itself; and every template gets its look from this one file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CSS = REPO_ROOT / "static" / "css" / "site.css"
TEMPLATES = [
    *(REPO_ROOT / "webapp" / "templates").rglob("*.html"),
    *(REPO_ROOT / "webapp").glob("*/templates/**/*.html"),
]
MINIMUM = 4.5
HEX = re.compile(r"#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
RGBA = re.compile(r"rgba\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*([\d.]+)\s*\)")
RGB = tuple[float, float, float]


def _variables(css: str) -> dict[str, str]:
    root = re.search(r":root\s*\{([^}]*)\}", css)
    assert root, "site.css has no :root variables"
    return dict(re.findall(r"(--[\w-]+)\s*:\s*([^;]+);", root.group(1)))


def _rules(css: str) -> list[tuple[str, dict[str, str]]]:
    """(selector, declarations) of every plain rule; @media blocks are read as their rules."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@media[^{]*\{", "", css)
    rules = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        declarations = dict(
            (name.strip(), value.strip())
            for name, value in re.findall(r"([\w-]+)\s*:\s*([^;]+)", body)
        )
        rules.append((" ".join(selector.split()), declarations))
    return rules


def _colour(value: str, variables: dict[str, str], under: RGB = (1.0, 1.0, 1.0)) -> RGB | None:
    """A CSS colour as linear-free sRGB 0..1, rgba() composed over ``under``; None if none."""
    value = re.sub(r"var\((--[\w-]+)\)", lambda m: variables[m.group(1)], value)
    if value.strip() in ("#fff", "white"):
        return (1.0, 1.0, 1.0)
    match = HEX.search(value)
    if match:
        digits = match.group(1)
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        r, g, b = (int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))
        return (r, g, b)
    match = RGBA.search(value)
    if match:
        r, g, b = (int(match.group(i)) / 255 for i in (1, 2, 3))
        alpha = float(match.group(4))
        return (
            r * alpha + under[0] * (1 - alpha),
            g * alpha + under[1] * (1 - alpha),
            b * alpha + under[2] * (1 - alpha),
        )
    return None


def _luminance(colour: RGB) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: RGB, two: RGB) -> float:
    high, low = sorted((_luminance(one), _luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_contrast_formula_matches_known_values() -> None:
    assert contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert contrast((1, 1, 1), (1, 1, 1)) == pytest.approx(1.0)
    grey = _colour("#767676", {})
    assert grey is not None and contrast(grey, (1, 1, 1)) == pytest.approx(4.54, abs=0.01)


def _css() -> tuple[str, dict[str, str]]:
    css = CSS.read_text(encoding="utf-8")
    return css, _variables(css)


def test_rules_that_set_text_and_background_are_readable() -> None:
    css, variables = _css()
    header = _colour("#10233d", variables)
    assert header is not None
    checked = []
    for selector, declarations in _rules(css):
        text = declarations.get("color")
        background = declarations.get("background") or declarations.get("background-color")
        if not text or not background:
            continue
        # Semi-transparent backgrounds in the header sit on its dark blue.
        under = header if ".nav" in selector or "site-header" in selector else (1.0, 1.0, 1.0)
        fg = _colour(text, variables, under)
        bg = _colour(background, variables, under)
        if fg is None or bg is None:
            continue
        ratio = contrast(fg, bg)
        checked.append(selector)
        assert ratio >= MINIMUM, f"{selector}: {text} on {background} is {ratio:.2f}:1"
    assert len(checked) >= 15  # the badges, buttons, toggles, statuses, header links...


# Text colours that rules set without a background, on every background they appear on.
PAGE_BACKGROUNDS = ["var(--bg)", "var(--card)", "#f0f3f6", "var(--accent-soft)", "#fff8e6"]
TEXT_COLOURS = [
    "var(--ink)",
    "var(--muted)",
    "var(--accent)",
    "var(--ok)",
    "var(--bad)",
    "var(--warn)",
]


@pytest.mark.parametrize("text", TEXT_COLOURS)
@pytest.mark.parametrize("background", PAGE_BACKGROUNDS)
def test_text_colours_are_readable_on_every_page_background(text: str, background: str) -> None:
    _, variables = _css()
    fg, bg = _colour(text, variables), _colour(background, variables)
    assert fg is not None and bg is not None
    assert contrast(fg, bg) >= MINIMUM, f"{text} on {background}: {contrast(fg, bg):.2f}:1"


@pytest.mark.parametrize("text", ["#dbe7f5", "#8fc1ff", "#fff"])
@pytest.mark.parametrize("hover", [None, "rgba(255, 255, 255, 0.14)"])
def test_header_text_is_readable(text: str, hover: str | None) -> None:
    _, variables = _css()
    header = _colour("#10233d", variables)
    assert header is not None
    background = _colour(hover, variables, header) if hover else header
    fg = _colour(text, variables)
    assert fg is not None and background is not None
    assert contrast(fg, background) >= MINIMUM


# Pages extend the base; partials (portal/, names starting with "_") are included; the API
# docs page is ReDoc's (it includes the site header) and Django's admin keeps its own look.
STANDALONE = {"base.html", "redoc.html"}


def _is_page(template: Path) -> bool:
    return not (
        template.parent.name in ("portal", "admin")
        or template.name.startswith("_")
        or template.name in STANDALONE
    )


EXTENDS = re.compile(r'\{% extends "([^"]+)" %\}')


def _extends_base(template: Path) -> bool:
    """True when the template extends base.html, directly or through layouts that do."""
    by_name = {str(t).split("/templates/", 1)[1]: t for t in TEMPLATES}
    seen: set[Path] = set()
    while template not in seen:
        seen.add(template)
        found = EXTENDS.match(template.read_text(encoding="utf-8").lstrip())
        if not found:
            return False
        if found.group(1) == "base.html":
            return True
        if found.group(1) not in by_name:
            return False
        template = by_name[found.group(1)]
    return False


def test_every_template_uses_the_one_stylesheet() -> None:
    assert TEMPLATES
    for template in TEMPLATES:
        text = template.read_text(encoding="utf-8")
        assert "<style" not in text, f"{template}: inline stylesheet"
        for link in re.findall(r'<link rel="stylesheet"[^>]*>', text):
            assert "{% static 'css/site.css' %}" in link, f"{template}: a stylesheet of its own"
        if _is_page(template):
            assert _extends_base(template), template
