"""An earlier version of the code, to run beside this tree in a bench (side by side)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def export(revision: str, prefix: str = "bench-revision-") -> Path:
    """The code of ``revision`` (what a run imports: bench, webapp, runners, migrations) in a
    temporary directory; the caller removes it."""
    target = Path(tempfile.mkdtemp(prefix=prefix))
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "bench", "webapp", "runners", "migrations"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target
