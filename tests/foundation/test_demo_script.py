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


def _wait_for_log(tmp_path: Path, scenario: str) -> subprocess.CompletedProcess[str]:
    """demo.sh's ``wait_for_log`` itself (cut out of the script), on a log and a pidfile
    that ``scenario`` (bash, in the background) writes the way a starting daemon does."""
    text = (REPO_ROOT / "scripts" / "demo.sh").read_text()
    start = text.index("wait_for_log() {")
    function = text[start : text.index("\n}\n", start) + 3]
    script = "\n".join(
        [
            "stop_services() { :; }",
            "show_log() { :; }",
            function,
            f"log={tmp_path}/daemon.log pidfile={tmp_path}/daemon.pid",
            ': > "$log"',
            "bash -c 'exit 0' & gone=$!; wait $gone  # a pid no process has any more",
            f"( {scenario} ) &",
            'wait_for_log "$log" 0 "$pidfile" "daemon" "ready."',
            "echo came-up",
        ]
    )
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=120, check=False
    )


def test_a_pidfile_celery_detach_tests_and_removes_is_not_a_dead_daemon(tmp_path: Path) -> None:
    # Celery's --detach writes the pidfile with a short-lived pid, removes it, and the
    # daemon then writes its own: the daemon is coming up, not dead.
    done = _wait_for_log(
        tmp_path,
        'echo $gone > "$pidfile"; sleep 0.3; rm -f "$pidfile"; sleep 0.5;'
        ' echo $$ > "$pidfile"; sleep 0.5; echo "ready." >> "$log"',
    )
    assert done.stdout.strip() == "came-up", done.stderr
    assert "did not come up" not in done.stderr


def test_a_daemon_whose_pidfile_names_a_dead_process_did_not_come_up(tmp_path: Path) -> None:
    done = _wait_for_log(tmp_path, 'echo $gone > "$pidfile"')
    assert done.returncode == 1
    assert "the daemon did not come up" in done.stderr
    assert "came-up" not in done.stdout
