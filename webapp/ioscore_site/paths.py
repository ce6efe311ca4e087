"""Where the service keeps state on disk (database, uploads, sandboxes)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def var_dir() -> Path:
    """``$IOSCORE_VAR`` or ``<repo>/var``: the embedded database and default media live here."""
    return Path(os.environ.get("IOSCORE_VAR", REPO_ROOT / "var")).resolve()
