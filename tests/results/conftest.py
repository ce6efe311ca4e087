"""Fixtures over the real IO500 corpus (../shared/data relative to the repository root)."""

from __future__ import annotations

import csv
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA = REPO_ROOT.parent / "shared" / "data"
CORPUS = DATA / "io500-submissions"
DEV = CORPUS / "dev"

# Real runs used as the base of the rule tests, one per format family.
SC25_RUN = "762/results/2025.10.21-12.48.03"  # io500-sc25, result.txt + config.ini
SC21_EXTENDED = "578"  # io500-sc21 extended, [SCOREX]
ISC20_RUN = "2"  # io500-isc20 C app without [run] header
BASH_RUN = "6"  # bash era, "GiB/s" label
BASH_GB_RUN = "4/results"  # bash era, "GB/s" label
SCC_RUN = "642/results/good-2023.03.22-18.10.33"  # scc = TRUE, stonewall 300


def index_rows() -> list[dict[str, str]]:
    """The corpus index; none without ../shared (a bare clone), where the tests that use the
    corpus are skipped by tests/conftest.py instead of failing the collection."""
    if not (CORPUS / "index.csv").is_file():
        return []
    with (CORPUS / "index.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def copy_run(tmp_path: Path, corpus_dir: Path) -> Callable[[str], Path]:
    """Copy a real run directory (relative to dev/) into tmp so a test may modify it
    (through ``corpus_dir``, its tests are skipped, not failed, without ../shared)."""

    def copy(relative: str) -> Path:
        target = tmp_path / relative.replace("/", "_")
        shutil.copytree(DEV / relative, target)
        return target

    return copy


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace text in a copied file, failing loudly if the text is not there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")
