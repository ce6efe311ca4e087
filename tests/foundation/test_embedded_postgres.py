"""The embedded default: with no DATABASE_URL the service runs on a real PostgreSQL server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
WEBAPP = REPO_ROOT / "webapp"


def _run_embedded(args: list[str], var_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env["IOSCORE_VAR"] = str(var_dir)
    return subprocess.run(
        [sys.executable, "-m", "ioscore_site.embedded_db", *args],
        cwd=WEBAPP,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def var_dir(tmp_path_factory: pytest.TempPathFactory):
    # /tmp paths stay short: PostgreSQL's unix socket path is limited to ~107 bytes.
    path = tmp_path_factory.mktemp("ioscore-var")
    yield path
    _run_embedded(["stop"], path)


def test_embedded_server_serves_the_ioscore_database(var_dir: Path) -> None:
    first = _run_embedded(["url"], var_dir)
    assert first.returncode == 0, first.stderr
    url = first.stdout.strip()
    assert url.startswith("postgresql://")
    with psycopg.connect(url) as conn:
        name, version = conn.execute("SELECT current_database(), version()").fetchone()
    assert name == "ioscore"
    assert version.startswith("PostgreSQL")
    assert (var_dir / "pgdata" / "PG_VERSION").exists()


def test_second_start_reuses_the_running_server_and_its_data(var_dir: Path) -> None:
    url = _run_embedded(["url"], var_dir).stdout.strip()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS survives (v int)")
        conn.execute("INSERT INTO survives VALUES (42)")
    again = _run_embedded(["url"], var_dir)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == url
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT max(v) FROM survives").fetchone() == (42,)


def test_settings_reject_a_database_that_is_not_postgresql(tmp_path: Path) -> None:
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path}/db.sqlite3", DEBUG="1")
    proc = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=WEBAPP,
        env=dict(env, DJANGO_SETTINGS_MODULE="ioscore_site.settings"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "DATABASE_URL must be a PostgreSQL URL" in proc.stderr
