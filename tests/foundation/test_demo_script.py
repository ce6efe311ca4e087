"""`make demo`'s start-up checks, run for real on scripts/demo.sh (no suite run, no service)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_a_port_in_use_stops_the_demo_at_once_naming_its_owner(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = {
            k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")
        }
        env.update(IOSCORE_PORT=str(port), IOSCORE_VAR=str(tmp_path / "var"))
        started = time.monotonic()
        done = subprocess.run(
            ["scripts/demo.sh"],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert f"port {port} is in use (by " in done.stderr
    assert f"(pid {os.getpid()})); set IOSCORE_PORT" in done.stderr  # this test process
    assert "IOSCORE_PORT=" in done.stderr.splitlines()[-1]  # a free port to use instead
    assert not (tmp_path / "var" / "demo").exists()  # stopped before the suite run
    assert "== 1/5" not in done.stdout
    assert time.monotonic() - started < 60
