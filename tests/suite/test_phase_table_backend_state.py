"""Backends own their option values: generic code asks, it does not read them.

`struct ios_backend` carries only what every backend has (ops, alignment, API string, the
capabilities asked of it in vain) and an opaque state block; the POSIX O_DIRECT flag, MPI-IO's
collective switch, hints file and hints live in `suite/src/backends/<name>.c`. Outside that
directory no C file of the suite may touch the state block or name the old fields on anything
but the `ior` subcommand's parsed command line (`p`, struct ios_ior_params: -B and -c as typed).
"""

from __future__ import annotations

import re
from pathlib import Path

from suite_helpers import SUITE_DIR

BACKENDS = Path("src") / "backends"
GENERIC_FIELDS = {"ops", "alignment", "api", "ignored_caps", "state"}
# member accesses `obj.name` / `obj->name` of the values that moved into the backends
MOVED = re.compile(
    r"\b(\w+)\s*(?:\.|->)\s*(odirect|collective|collective_ignored|hints_file|n_hints|hints|state)\b"
)
IOR_PARAMS = "p"  # struct ios_ior_params: the IOR command line, not a backend
# comments and string literals ("--posix.odirect" is an option name, not a read)
NOT_CODE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"', re.S)


def code_only(text: str) -> str:
    """The text with comments and strings blanked, lines kept where they were."""
    return NOT_CODE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def offenders(files: dict[str, str]) -> list[str]:
    """`path:line: text` of every read of a backend's values outside src/backends/."""
    found = []
    for path, text in files.items():
        if Path(path).is_relative_to(BACKENDS):
            continue
        for number, line in enumerate(code_only(text).splitlines(), 1):
            for match in MOVED.finditer(line):
                if match.group(1) != IOR_PARAMS or match.group(2) == "state":
                    found.append(f"{path}:{number}: {match.group(0)}")
    return found


def suite_sources() -> dict[str, str]:
    return {
        str(path.relative_to(SUITE_DIR)): path.read_text()
        for folder in ("src", "include", "tests")
        for path in sorted((SUITE_DIR / folder).rglob("*.[ch]"))
    }


def backend_struct_fields() -> set[str]:
    header = (SUITE_DIR / "include" / "ioscore" / "backend.h").read_text()
    body = re.search(r"^struct ios_backend \{\n(.*?)^\};", header, re.S | re.M)
    assert body, "struct ios_backend not found in backend.h"
    code = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    return {m.group(1) for m in re.finditer(r"(\w+)\s*(?:\[[^\]]*\])?\s*;", code)}


def test_the_generic_backend_struct_holds_no_backend_option_values() -> None:
    assert backend_struct_fields() == GENERIC_FIELDS


def test_no_code_outside_the_backends_reads_their_option_values() -> None:
    sources = suite_sources()
    assert "src/backends/mpiio.c" in sources and "src/core/xfer_engine.c" in sources
    assert offenders(sources) == []


def test_each_backend_keeps_its_values_in_its_own_file() -> None:
    sources = suite_sources()
    assert "struct posix_state {" in sources["src/backends/posix.c"]
    assert "struct mpiio_state {" in sources["src/backends/mpiio.c"]
    for path, text in sources.items():
        if path not in ("src/backends/posix.c", "src/backends/mpiio.c"):
            assert "posix_state" not in text and "mpiio_state" not in text, path


def test_the_check_finds_a_generic_read() -> None:
    """The scan is not vacuous: each way of reading a backend's values is caught."""
    bad = {
        "src/core/xfer_engine.c": "    ctx->lockstep = ctx->be.collective && job->shared;\n",
        "src/acceptance/ior_run.c": "x;\n    if (be->odirect)\n",
        "tests/test_backend.c": "CHECK(be.n_hints == 3 && be . hints[0].key[0]);\n",
        "src/report/x.c": "const struct mpiio_state *s = (void *)p->state;\n",
        "src/backends/mpiio.c": "if (st->collective) st->n_hints = 0;\n",  # the owner may
        "src/acceptance/ior_options.c": "p->odirect = 1; p->collective = 1;\n",  # IOR's -B, -c
        "src/acceptance/ior_help.c": '/* be.odirect\n */ puts("-B, --posix.odirect");\n',
    }
    assert offenders(bad) == [
        "src/core/xfer_engine.c:1: be.collective",
        "src/acceptance/ior_run.c:2: be->odirect",
        "tests/test_backend.c:1: be.n_hints",
        "tests/test_backend.c:1: be . hints",
        "src/report/x.c:1: p->state",
    ]
