"""packaging/spack/package.py against suite/Makefile: parsed (Spack is not installed here), its
make targets, variables and variant values must be ones the Makefile has."""

from __future__ import annotations

import ast
import re

from suite_helpers import REPO_ROOT, SUITE_DIR

RECIPE = REPO_ROOT / "packaging" / "spack" / "package.py"


def calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
    ]


def test_recipe_depends_on_mpi_and_installs_through_make_install() -> None:
    tree = ast.parse(RECIPE.read_text())
    deps = {
        c.args[0].value for c in calls(tree, "depends_on") if isinstance(c.args[0], ast.Constant)
    }
    assert "mpi" in deps and "zlib-api" in deps
    targets = {
        c.args[0].value
        for c in calls(tree, "make")
        if c.args and isinstance(c.args[0], ast.Constant)
    }
    assert targets == {"install"}
    makefile = (SUITE_DIR / "Makefile").read_text()
    assert re.search(r"^install:", makefile, re.M)
    assert 'build_directory = "suite"' in RECIPE.read_text()


def test_recipe_variables_and_variant_values_are_the_makefiles() -> None:
    text = RECIPE.read_text()
    makefile = (SUITE_DIR / "Makefile").read_text()
    for variable in re.findall(r'"([A-Z]+)={', text):
        assert re.search(rf"^{variable}\s*[?:]?=", makefile, re.M), variable
    # ZLIB's and IOURING's values in the recipe are ones the Makefile accepts
    for variable in ("ZLIB", "IOURING"):
        assert f"{variable}=$({variable}): expected auto, yes or no" in makefile, variable
    tree = ast.parse(text)
    variants = {c.args[0].value for c in calls(tree, "variant")}
    assert variants == {"zlib", "io_uring"}
