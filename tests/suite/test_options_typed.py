"""INI options are read through their typed fields (struct ios_options), never by name.

The option table binds each key that code reads to a field of cfg->opt; the phases, the
scheduler, validation and main() read those fields. A lookup by a literal section and key
string (ios_cfg_str(cfg, "ior-easy", ...)) would restate the name, and usually the default, at
the call site and fail only when that line runs, so none may come back outside the parser.
"""

from __future__ import annotations

import re

from suite_helpers import SUITE_DIR

SRC = SUITE_DIR / "src"
# the parser and the table own the names; everything else reads fields
OWNERS = {
    SRC / "core" / "config.c",
    SRC / "core" / "config_table.c",
    SRC / "core" / "config_hints.c",
}
BY_NAME = re.compile(r'ios_cfg_(?:str|int|bool|size|line)\s*\([^;]*?,\s*"[^"]+"\s*,\s*"[^"]+"')


def test_no_option_read_by_literal_name_outside_the_parser() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.c")):
        if path in OWNERS:
            continue
        text = path.read_text()
        for match in BY_NAME.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            offenders.append(f"{path.relative_to(SUITE_DIR)}:{line}: {match.group(0)}")
    # main.c asks where datadir was set (its INI line, not its value) to refuse a default one
    allowed = [o for o in offenders if not o.startswith("src/main.c") or "ios_cfg_line" not in o]
    assert allowed == []


def test_the_pattern_finds_a_lookup_by_name() -> None:
    """The check is live: it matches the shape of the calls it forbids."""
    assert BY_NAME.search('x = ios_cfg_int(&run->cfg, "ior-hard", "segmentCount", 10000000);')
    assert BY_NAME.search('ios_cfg_bool(&run->cfg,\n    "ior-easy", "filePerProc", 1)')
    assert not BY_NAME.search("x = run->cfg.opt.ior_hard.segment_count;")
