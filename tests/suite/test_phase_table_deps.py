"""suite/scripts/check_cycles.py (run by `make -C suite check`) finds dependency cycles.

The real tree must have none; a tiny synthetic tree with a source-file cycle (a.c calls b.c,
b.c calls back) and one with a header include cycle must each be refused, naming the edges.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from suite_helpers import SUITE_DIR, suite_bin  # noqa: F401

SCRIPT = SUITE_DIR / "scripts" / "check_cycles.py"


def check(suite: Path, objdir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(suite), str(objdir)], capture_output=True, text=True
    )


@pytest.mark.usefixtures("suite_bin")
def test_the_suite_has_no_cycles() -> None:
    proc = check(SUITE_DIR, SUITE_DIR / "build" / "obj")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("check_cycles: no cycles")


def compile_tree(root: Path, sources: dict[str, str]) -> Path:
    """Writes src/<name> for each source and compiles the .c files into build/obj."""
    for name, text in sources.items():
        (root / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / name).write_text(text)
    objdir = root / "build" / "obj"
    for name in sources:
        if name.endswith(".c"):
            obj = objdir / Path(name).with_suffix(".o")
            obj.parent.mkdir(parents=True, exist_ok=True)
            cc = ["cc", "-c", "-I", str(root / "src"), str(root / "src" / name), "-o", str(obj)]
            subprocess.run(cc, check=True)
    return objdir


def test_a_source_file_cycle_is_refused(tmp_path: Path) -> None:
    objdir = compile_tree(
        tmp_path,
        {
            "core/a.c": "int b_value(void);\nint a_value(void) { return b_value() + 1; }\n",
            "report/b.c": "int a_value(void);\nint b_value(void) { return 2; }\n"
            "int b_twice(void) { return 2 * a_value(); }\n",
            "core/c.c": "int a_value(void);\nint c_value(void) { return a_value(); }\n",
        },
    )
    proc = check(tmp_path, objdir)
    assert proc.returncode == 1
    assert "source file cycle among core/a.c, report/b.c" in proc.stderr
    assert "core/a.c -> report/b.c (b_value)" in proc.stderr
    assert "report/b.c -> core/a.c (a_value)" in proc.stderr
    assert "core/c.c" not in proc.stderr  # a user of the cycle is not part of it


def test_a_header_include_cycle_is_refused(tmp_path: Path) -> None:
    objdir = compile_tree(
        tmp_path,
        {
            "x.h": '#ifndef X_H\n#define X_H\n#include "y.h"\n#endif\n',
            "y.h": '#ifndef Y_H\n#define Y_H\n#include "x.h"\n#endif\n',
            "main.c": '#include "x.h"\nint main(void) { return 0; }\n',
        },
    )
    proc = check(tmp_path, objdir)
    assert proc.returncode == 1
    assert "header include cycle among src/x.h, src/y.h" in proc.stderr
