"""Production settings are safe by default: ``manage.py check --deploy`` is clean (Secure
cookies, HSTS, HTTPS redirect, the proxy's TLS header), and development (DEBUG=1) never
falls back to a key printed in the source (it also keys the contact encryption)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WEBAPP = REPO / "webapp"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DEBUG", "SECRET_KEY", "IOSCORE_INSECURE_DEV_KEY", "IOSCORE_HTTPS")
    }
    env.update(IOSCORE_VAR=str(tmp_path / "var"), IOSCORE_MEDIA_DIR=str(tmp_path / "media"))
    if "DATABASE_URL" not in env:
        pytest.skip("needs DATABASE_URL (the embedded server would start for the check)")
    env.update(extra)
    return env


def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    env = _env(
        tmp_path,
        DEBUG="0",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="scores.example.org",
    )
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=WEBAPP,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


def _key(tmp_path: Path, name: str) -> str:
    env = _env(tmp_path / name, DEBUG="1")
    code = (
        "import django; django.setup(); from django.conf import settings as s; print(s.SECRET_KEY)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=WEBAPP,
        env={**env, "DJANGO_SETTINGS_MODULE": "ioscore_site.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_debug_key_is_local_to_the_installation(tmp_path: Path) -> None:
    first, again, other = _key(tmp_path, "a"), _key(tmp_path, "a"), _key(tmp_path, "b")
    assert first == again  # kept: encrypted contacts stay readable
    assert first != other and len(first) >= 50
    assert "insecure" not in first
    key_file = tmp_path / "a" / "var" / "secret_key"
    assert key_file.stat().st_mode & 0o077 == 0
