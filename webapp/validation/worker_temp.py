"""A private temp directory per worker process, below the media dir, swept at worker start.

The prefork pool (billiard) keeps `pymp-*` folders in the temp dir and removes them at exit;
a SIGKILLed worker never exits, so they pile up in /tmp. Each worker gets
``<media>/worker-tmp/<host>-<pid>`` as its temp dir (inherited by its pool and the checks'
child processes), and a starting worker removes the folders of workers on its host that no
longer run.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path


def use_private_temp_dir(media_root: Path) -> Path:
    root = Path(media_root) / "worker-tmp"
    root.mkdir(parents=True, exist_ok=True)
    host = socket.gethostname()
    for entry in root.iterdir():
        name, _, pid = entry.name.rpartition("-")
        if name == host and pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)
    mine = root / f"{host}-{os.getpid()}"
    mine.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(mine)
    tempfile.tempdir = str(mine)
    return mine


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
