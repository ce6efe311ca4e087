"""What the checks' child keeps of the worker: nothing it does not need.

The child is a fork of the worker, so it starts with the worker's environment (database URL,
broker URL, SECRET_KEY, SMTP password), its open sockets (PostgreSQL, Redis) and its user.
Before it reads an untrusted byte it is left with:

* an environment of a few harmless names (PATH, locale, TMPDIR/HOME = the sandbox);
* no open file descriptor but stdin (``/dev/null``), stdout, stderr and the result pipe;
* no network: a new, empty network namespace (where the kernel lets us: root, or an
  unprivileged user namespace), so even a secret still in memory reaches no server;
* no file outside the sandbox but what it must read: the archive, and the Python code
  (``code_dirs``: folders that do not hold the sandbox, hence not the state directory with
  the secret key) and the system's libraries, read-only. A Landlock rule set enforces it
  (Linux 5.13 on, any user, no privileges); a kernel without Landlock leaves files as they
  are, stated by ``Confinement.files_restricted``. ``/proc`` is not readable, so neither is
  the worker's environment there.

Not another Unix user: the interpreter may live where no other user can read it (a root-only
home directory here), and a file rule set does not depend on who owns what.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

_CLONE_NEWNET = 0x40000000
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/bin", "/etc/ssl", "/etc/localtime")

# Landlock (linux/landlock.h): system calls, rule type and access rights.
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_EXECUTE, _WRITE_FILE, _READ_FILE, _READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_ABI1_ALL = (1 << 13) - 1  # every right of the first ABI (remove, make dir/file/socket ...)
_REFER, _TRUNCATE = 1 << 13, 1 << 14
_READ = _EXECUTE | _READ_FILE | _READ_DIR


@dataclass(frozen=True)
class Confinement:
    network_isolated: bool
    files_restricted: bool


def confine(sandbox: Path, keep_fd: int, readable: tuple[Path, ...] = ()) -> Confinement:
    """Apply every step that the host allows; called in the child, before the work.

    ``readable``: files outside the sandbox the work must read (the archive)."""
    _clean_environment(sandbox)
    _close_descriptors(keep_fd)
    isolated = _no_network()
    restricted = _restrict_files(sandbox, readable)
    return Confinement(network_isolated=isolated, files_restricted=restricted)


def _clean_environment(sandbox: Path) -> None:
    kept = {name: os.environ[name] for name in _KEPT_ENV if name in os.environ}
    os.environ.clear()
    os.environ.update(kept)
    os.environ["TMPDIR"] = os.environ["HOME"] = str(sandbox)


def _close_descriptors(keep_fd: int) -> None:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for name in os.listdir("/proc/self/fd"):  # the listing's own fd is gone by the close
        fd = int(name)
        if fd > 2 and fd != keep_fd:
            with contextlib.suppress(OSError):
                os.close(fd)


def _no_network() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.unshare(_CLONE_NEWNET) == 0


def code_dirs(sandbox: Path) -> list[Path]:
    """The directories Python imports from (``sys.path``, and the folders of the loaded
    top-level packages, as an editable install maps them), less any that holds the sandbox."""
    candidates = [Path(entry or ".") for entry in sys.path]
    for name, module in list(sys.modules.items()):
        if "." not in name:
            candidates += [Path(folder) for folder in getattr(module, "__path__", None) or []]
    found = []
    for candidate in candidates:
        path = candidate.resolve()
        if path.is_dir() and path != sandbox and path not in sandbox.parents and path not in found:
            found.append(path)
    return found


def _restrict_files(sandbox: Path, readable: tuple[Path, ...]) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    abi = libc.syscall(_SYS_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    if abi < 1:
        return False
    every = _ABI1_ALL | (_REFER if abi >= 2 else 0) | (_TRUNCATE if abi >= 3 else 0)
    attr = struct.pack("=Q", every)  # handled_access_fs: the first field is enough
    ruleset = libc.syscall(_SYS_CREATE_RULESET, attr, len(attr), 0)
    if ruleset < 0:
        return False
    try:
        sandbox = sandbox.resolve()
        read_only = [Path(p) for p in SYSTEM_DIRS] + code_dirs(sandbox)
        rules = [(path, _READ) for path in read_only] + [(sandbox, every)]
        rules += [(Path(f).resolve(), _READ_FILE) for f in readable]
        for path, access in rules:
            _allow(libc, ruleset, path, access)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) == 0
    finally:
        os.close(ruleset)


def _allow(libc: ctypes.CDLL, ruleset: int, path: Path, access: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # not on this host (/lib64 ...)
    try:
        if not path.is_dir():
            access &= _EXECUTE | _WRITE_FILE | _READ_FILE | _TRUNCATE  # rights of a file
        rule = struct.pack("=Qi", access, fd)  # landlock_path_beneath_attr, packed
        if libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, rule, 0) != 0:
            raise OSError(ctypes.get_errno(), f"landlock rule for {path}")
    finally:
        os.close(fd)
