"""Running commands for the test bed: in the root namespace or inside one member.

A member's namespaces are pinned to files when it is made (`ip netns` for the network, files
under the run directory for mount and UTS), so every later command enters the same ones with
`nsenter`: `ip netns exec` would give each call a fresh mount namespace, and a FUSE mount made
in one would be gone for the next.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ioscore.testbed.layout import Member, TestbedError

__all__ = ["TestbedError", "inside", "missing_requirement", "run", "run_in"]


def inside(member: Member) -> list[str]:
    """The command prefix that runs a program in the member's namespaces."""
    return [
        "nsenter",
        f"--net={member.net_ns}",
        f"--mount={member.mount_ns}",
        f"--uts={member.uts_ns}",
        "--",
    ]


def run(argv: Sequence[str], *, check: bool = True, timeout: float = 60.0) -> str:
    """Run a command, return its output; a failure becomes a TestbedError naming it."""
    try:
        done = subprocess.run(
            list(argv),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise TestbedError(f"{' '.join(argv)}: no answer within {timeout:.0f} s") from exc
    except FileNotFoundError as exc:
        raise TestbedError(f"{argv[0]}: not installed") from exc
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        reason = said[-1] if said else f"exit {done.returncode}"
        raise TestbedError(f"{' '.join(argv)}: {reason}")
    return done.stdout


def run_in(member: Member, argv: Sequence[str], **kwargs: float | bool) -> str:
    return run([*inside(member), *argv], **kwargs)  # type: ignore[arg-type]


def missing_requirement() -> str | None:
    """Why the test bed cannot run here, in one line, or None when it can."""
    if os.geteuid() != 0:
        return "the test bed needs root (network, UTS and mount namespaces, FUSE mounts)"
    for tool, package in (
        ("ip", "iproute2"),
        ("tc", "iproute2"),
        ("nsenter", "util-linux"),
        ("unshare", "util-linux"),
        ("mfsmaster", "moosefs-master"),
        ("mfschunkserver", "moosefs-chunkserver"),
        ("mfsmount", "moosefs-client"),
        ("mpirun", "openmpi-bin"),
        ("mkfs.ext4", "e2fsprogs"),
    ):
        if shutil.which(tool) is None:
            return f"the test bed needs {tool} (Debian package {package}), which is not installed"
    if not Path("/dev/fuse").exists():
        return "the test bed needs FUSE, and /dev/fuse is missing"
    try:
        filesystems = Path("/proc/filesystems").read_text()
    except OSError:
        filesystems = ""
    if "fuse" not in filesystems:
        return "the test bed needs FUSE, and the kernel lists no fuse file system"
    probe = subprocess.run(
        ["unshare", "--net", "--mount", "--uts", "true"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        reason = probe.stderr.strip().splitlines()[-1:] or [f"exit {probe.returncode}"]
        return f"the test bed needs network, mount and UTS namespaces: {reason[0]}"
    return None
