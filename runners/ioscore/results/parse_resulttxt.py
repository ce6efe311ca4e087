"""result.txt of the C application (BENCHMARK-RULES §5.3).

INI-like: `[section]` per phase, `key = value` lines (key padded to 15 columns), `; ` comments
(`; ERROR INVALID ...` markers among them). isc20/isc21 files have no `[run]` header, so keys
before the first section belong to "run". `SCORE` may carry a trailing space or ` [INVALID]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ioscore.results.errors import ResultFormatError, read_text

_SECTION = re.compile(r"^\[\s*([0-9A-Za-z_.-]+)\s*\]\s*$")
_KEY = re.compile(r"^([0-9A-Za-z_.-]+)\s*=\s?(.*)$")


@dataclass
class ResultTxt:
    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    comments: list[tuple[str, int, str]] = field(default_factory=list)  # (section, line, text)
    lines: dict[tuple[str, str], int] = field(default_factory=dict)  # (section, key) -> line

    def get(self, section: str, key: str) -> str | None:
        return self.sections.get(section, {}).get(key)


def parse_result_txt_text(text: str, source: str) -> ResultTxt:
    result = ResultTxt()
    section = "run"
    result.sections[section] = {}
    seen_any = False
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        stripped = line.strip()
        if not stripped:
            continue
        seen_any = True
        if stripped.startswith(";"):
            result.comments.append((section, number, stripped[1:].strip()))
            continue
        match = _SECTION.match(stripped)
        if match:
            section = match.group(1)
            if section in result.sections and section != "run":
                raise ResultFormatError(
                    source, f"section [{section}] appears twice (several runs in one file?)", number
                )
            result.sections.setdefault(section, {})
            if section != "run":
                result.order.append(section)
            continue
        match = _KEY.match(line)
        if match:
            key = match.group(1)
            result.sections[section][key] = match.group(2).rstrip()
            result.lines[(section, key)] = number
            continue
        raise ResultFormatError(source, f"not a result.txt line: {line[:60]!r}", number)
    if not seen_any:
        raise ResultFormatError(source, "empty file", 1)
    if "SCORE" not in result.sections:
        raise ResultFormatError(
            source, "truncated: no [SCORE] section (the run did not finish?)", number
        )
    return result


def parse_result_txt(path: Path) -> ResultTxt:
    return parse_result_txt_text(read_text(path), str(path))
