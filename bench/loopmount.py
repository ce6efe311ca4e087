"""Run a bench inside a file-system image loop-mounted in a private mount namespace.

The image is a sparse file in /dev/shm (RAM), so the numbers measure the file system's code,
not a disk; the mount exists only inside `unshare -m` and disappears with the command, even
if it is interrupted. Needs root and loop devices.
"""

from __future__ import annotations

import shlex
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

MKFS = {
    "ext4": ["mkfs.ext4", "-q", "-F"],
    "xfs": ["mkfs.xfs", "-q", "-f"],
    "btrfs": ["mkfs.btrfs", "-q", "-f"],
}


def run_in_loop_mount(
    fs: str, size: str, command: Callable[[Path], list[str]], mkfs_extra: tuple[str, ...] = ()
) -> int:
    """mkfs an image of `size` (truncate syntax), mount it, run command(mount_point) there."""
    with tempfile.TemporaryDirectory(prefix=f"ioscore-bench-{fs}-", dir="/dev/shm") as tmp:
        image, mnt = Path(tmp) / f"{fs}.img", Path(tmp) / "mnt"
        mnt.mkdir()
        subprocess.run(["truncate", "-s", size, str(image)], check=True)
        subprocess.run([*MKFS[fs], *mkfs_extra, str(image)], check=True, capture_output=True)
        script = f"mount -o loop {shlex.quote(str(image))} {shlex.quote(str(mnt))} && exec "
        script += shlex.join(command(mnt))
        return subprocess.run(
            ["unshare", "--mount", "--propagation", "private", "sh", "-c", script]
        ).returncode
