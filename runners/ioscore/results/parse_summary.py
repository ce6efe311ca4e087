"""result_summary.txt in its three families (BENCHMARK-RULES §7.3).

* bash (2017-2020): `[RESULT] BW   phase 1  ior_easy_write  108.237 GB/s : time ... seconds`
* C app 2020 (isc20/sc20): `IO500 version X`, `[RESULT]`/`[RESULT-invalid]`, `[SCORE]`
* C app 2021+: `IO500 version X (mode)`, `[      ]` unscored lines, ` [INVALID]` suffix,
  `[SCORE ]` and `[SCOREX]`.
Every bandwidth is GiB/s whatever the label says ("GB/s" before SC20 meant GiB/s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ioscore.results.errors import ResultFormatError, read_text
from ioscore.results.limits import MAX_VERSION_CHARS, number_problem
from ioscore.results.model import BW_PHASES, MD_PHASES, PhaseResult, ScoreGroup, Scores

_VERSION_PREFIX = "IO500 version"
_MODE = re.compile(r"\((\w+)\)")  # fullmatch on one token: linear
_PHASE = re.compile(
    r"^\[(?P<tag>[^\]]*)\]\s+(?:(?P<kind>BW|IOPS)\s+phase\s+\d+\s+)?(?P<name>\S+)\s+"
    r"(?P<value>\S+)\s+(?P<unit>\S+)\s*:\s*time\s+(?P<time>\S+)\s+seconds(?P<rest>.*)$"
)
_SCORE = re.compile(
    r"^\[(?P<tag>SCORE[^\]]*)\]\s+Bandwidth\s+(?P<bw>\S+)\s+\S+\s*:\s*IOPS\s+(?P<md>\S+)\s+\S+"
    r"\s*:\s*TOTAL\s+(?P<total>\S+)(?P<rest>.*)$"
)
_BW_NAMES = frozenset(BW_PHASES) | {
    "ior-rnd-write",
    "ior-rnd-read",
    "ior-rnd4K-write",
    "ior-rnd4K-read",
    "ior-rnd1MB-write",
    "ior-rnd1MB-read",
}
_MD_NAMES = frozenset(MD_PHASES) | {"find-easy", "find-hard", "mdworkbench-bench"}


@dataclass
class Summary:
    format: str  # "bash" | "c-app-2020" | "c-app"
    version: str | None
    mode: str | None
    phases: dict[str, PhaseResult] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    printed: Scores | None = None
    printed_extended: Scores | None = None
    markers: list[str] = field(default_factory=list)
    # decimals of the printed group scores, for the rounding tolerance (bash: ~6 significant)
    score_text: dict[str, str] = field(default_factory=dict)


def canonical_phase_name(name: str) -> str:
    """`ior_easy_write` -> `ior-easy-write`; the bash names only differ by separators."""
    return name.replace("_", "-")


def _number(text: str, source: str, line: int, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ResultFormatError(source, f"{what} is not a number: {text[:40]!r}", line) from None
    problem = number_problem(value)
    if problem:
        raise ResultFormatError(source, f"{what} {problem}: {text[:40]!r}", line)
    return value


def _version_line(head: str) -> tuple[str, str | None] | None:
    """`IO500 version [V] [(mode)]` -> (V or "", mode); None when the line has another shape.

    Split into whitespace tokens instead of one regular expression: a pattern with optional
    whitespace runs before `\\s*$` backtracks quadratically on a long line of spaces.
    """
    if not head.startswith(_VERSION_PREFIX):
        return None
    rest = head[len(_VERSION_PREFIX) :]
    tokens = rest.split()
    version = ""
    if tokens and not tokens[0].startswith("("):
        if rest[:1] not in (" ", "\t"):
            return None  # "IO500 versionX"
        version = tokens.pop(0)
    mode = None
    if tokens:
        match = _MODE.fullmatch(tokens.pop(0))
        if match is None or tokens:
            return None
        mode = match.group(1)
    return version, mode


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def parse_summary_text(text: str, source: str) -> Summary:
    lines = text.split("\n")
    first = next((i for i, raw in enumerate(lines) if raw.strip()), None)
    if first is None:
        raise ResultFormatError(source, "empty file", 1)
    head = lines[first].rstrip("\r")
    summary: Summary
    version_line = _version_line(head)
    if version_line:
        version, mode = version_line
        if len(version) > MAX_VERSION_CHARS:
            raise ResultFormatError(
                source, f"version longer than {MAX_VERSION_CHARS} characters", first + 1
            )
        fmt = "c-app" if mode else "c-app-2020"
        summary = Summary(fmt, version, mode)
        start = first + 1
    elif head.startswith(_VERSION_PREFIX):
        raise ResultFormatError(source, f"malformed version line: {head[:80]!r}", first + 1)
    else:
        phase = _PHASE.match(head)
        if not phase or not phase.group("kind"):
            raise ResultFormatError(
                source,
                "unknown format: expected 'IO500 version ...' or a bash-era "
                f"'[RESULT] BW|IOPS phase N ...' line, got {head[:60]!r}",
                first + 1,
            )
        summary = Summary("bash", None, None)
        start = first
    for index in range(start, len(lines)):
        number = index + 1
        line = lines[index].rstrip("\r")
        if not line.strip():
            continue
        score = _SCORE.match(line)
        if score:
            _add_score(summary, score, source, number)
            continue
        phase = _PHASE.match(line)
        if phase:
            _add_phase(summary, phase, source, number)
            continue
        raise ResultFormatError(source, f"unrecognised line: {line[:80]!r}", number)
    if summary.printed is None:
        raise ResultFormatError(
            source, "truncated: no [SCORE] line (the run did not finish?)", len(lines)
        )
    return summary


def _add_phase(summary: Summary, match: re.Match[str], source: str, number: int) -> None:
    tag = match.group("tag")
    name = canonical_phase_name(match.group("name"))
    value_text = match.group("value")
    value = _number(value_text, source, number, f"value of {name}")
    time = _number(match.group("time"), source, number, f"time of {name}")
    rest = match.group("rest").strip()
    invalid: list[str] = []
    if tag.strip().upper().endswith("-INVALID") or "INVALID" in tag.upper():
        invalid.append(f"[{tag}]")
    if "[INVALID]" in rest:
        invalid.append("[INVALID]")
    elif rest:
        raise ResultFormatError(source, f"unexpected text after 'seconds': {rest[:40]!r}", number)
    unit_label = match.group("unit")
    unit = "GiB/s" if unit_label.lower() in ("gb/s", "gib/s") else "kIOPS"
    if unit_label.lower() not in ("gb/s", "gib/s", "kiops"):
        raise ResultFormatError(source, f"unknown unit {unit_label!r} for {name}", number)
    scored = tag.strip() != ""  # `[      ]` marks unscored lines (timestamp, rnd4K, ...)
    group = ScoreGroup.NONE
    if scored and name in _BW_NAMES:
        group = ScoreGroup.BW
    elif scored and name in _MD_NAMES:
        group = ScoreGroup.MD
    if name in summary.phases:
        raise ResultFormatError(source, f"phase {name} appears twice", number)
    summary.phases[name] = PhaseResult(
        name=name,
        value=value,
        unit=unit,
        time=time,
        group=group,
        valid=not invalid,
        invalid_reasons=[f"summary line {number}: {m}" for m in invalid],
        decimals=_decimals(value_text),
        extra={"unit_label": unit_label, "line": number},
    )
    summary.order.append(name)
    summary.markers.extend(f"{source}:{number}: {m}" for m in invalid)


def _add_score(summary: Summary, match: re.Match[str], source: str, number: int) -> None:
    tag = match.group("tag").strip()
    rest = match.group("rest").strip()
    invalid = "INVALID" in tag.upper() or "[INVALID]" in rest
    if rest and rest != "[INVALID]":
        raise ResultFormatError(source, f"unexpected text after TOTAL: {rest[:40]!r}", number)
    scores = Scores(
        bw=_number(match.group("bw"), source, number, "Bandwidth"),
        md=_number(match.group("md"), source, number, "IOPS"),
        total=_number(match.group("total"), source, number, "TOTAL"),
        valid=not invalid,
    )
    if invalid:
        summary.markers.append(f"{source}:{number}: [{tag}] {rest}".rstrip())
    if tag.upper() == "SCOREX":
        summary.printed_extended = scores
    elif summary.printed is None:
        summary.printed = scores
        summary.score_text = {
            "bw": match.group("bw"),
            "md": match.group("md"),
            "total": match.group("total"),
        }
    else:
        raise ResultFormatError(source, "a second [SCORE] line", number)


def parse_summary(path: Path) -> Summary:
    return parse_summary_text(read_text(path), str(path))
