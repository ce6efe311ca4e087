"""Where the service keeps state on disk (database, uploads, sandboxes)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def var_dir() -> Path:
    """``$IOSCORE_VAR`` or ``<repo>/var``: the embedded database and default media live here."""
    return Path(os.environ.get("IOSCORE_VAR", REPO_ROOT / "var")).resolve()


def local_secret_key(var: Path) -> str:
    """A development key of this installation (``var/secret_key``, made once, mode 0600)."""
    import secrets

    path = var / "secret_key"
    if not path.is_file() or not path.read_text().strip():
        var.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()
