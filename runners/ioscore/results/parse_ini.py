"""INI files of a run: config.ini (effective values), config-orig.ini and users' INIs.

Follows the reference parser's line shapes (BENCHMARK-RULES §4.1): `[section]`, `key = value`,
`#`/`;` comments. Names are kept as written (hashes use the table's spelling); lookups in
rules go through `get_option`, which is case-insensitive like the reference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from ioscore.results.errors import ResultFormatError, read_text

_SECTION = re.compile(r"^\s*\[\s*([0-9A-Za-z_.-]+)\s*\]\s*(?:\s[#;].*)?$")
_OPTION = re.compile(r"^\s*([0-9A-Za-z_.-]+)\s*=(.*)$")
_COMMENT = re.compile(r"^\s*(?:[#;].*)?$")
_TRAILING_COMMENT = re.compile(r"\s[#;].*$")

Config = dict[str, dict[str, str]]


def parse_ini_text(text: str, source: str) -> Config:
    """Parse INI text into section -> key -> value; a key before any section is an error."""
    config: Config = {}
    section: dict[str, str] | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if _COMMENT.match(line):
            continue
        match = _SECTION.match(line)
        if match:
            section = config.setdefault(match.group(1), {})
            continue
        match = _OPTION.match(line)
        if match:
            if section is None:
                raise ResultFormatError(source, "option before the first [section]", number)
            value = _TRAILING_COMMENT.sub("", match.group(2)).strip(" \t\r")
            section[match.group(1)] = value
            continue
        raise ResultFormatError(source, f"not an INI line: {line[:60]!r}", number)
    return config


def parse_ini(path: Path) -> Config:
    return parse_ini_text(read_text(path), str(path))


def get_option(config: Mapping[str, Mapping[str, str]], section: str, key: str) -> str | None:
    """Case-insensitive lookup; None when the section or key is absent."""
    for name, options in config.items():
        if name.lower() != section.lower():
            continue
        for option, value in options.items():
            if option.lower() == key.lower():
                return value
    return None
