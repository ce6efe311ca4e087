"""Run one validation's computation in a forked child with time and memory limits.

The archive, parsers and rules see untrusted input; whatever it costs, the worker must get
control back. The child gets RLIMIT_CPU and RLIMIT_DATA (heap and anonymous mappings: what a
Python program allocates) and its temp files go to the sandbox; the parent waits at most the
wall-clock limit, then kills it. Either way the parent learns which limit was hit. The child
dies with the parent (PR_SET_PDEATHSIG), so a killed worker leaves no computation behind.

Works under every Celery pool (solo, prefork, threads): the limits do not depend on Celery's
own time limits, which the solo pool does not support.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import pickle
import resource
import select
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .confine import confine

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Limits:
    wall_s: float  # elapsed time, enforced by the parent
    cpu_s: int  # CPU time of the child (SIGXCPU, then SIGKILL one second later)
    memory_bytes: int  # allocations of the child beyond what it inherited


class LimitExceeded(Exception):
    """The computation was stopped; the message names the limit, for the submitter."""


class ChildFailed(Exception):
    """The computation raised an unexpected exception (a bug, not a limit).

    An OSError in the child is raised as OSError in the parent instead: the task retries it.
    """


def run_limited(
    work: Callable[[], Any], limits: Limits, tmp_dir: Path, readable: tuple[Path, ...] = ()
) -> Any:
    """work() in a child process; its (picklable) result, LimitExceeded or ChildFailed.

    The child is confined to ``tmp_dir`` (``confine``); ``readable`` are the files outside
    it that the work reads."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        os.close(read_end)
        _child(work, limits, tmp_dir, write_end, readable)
    os.close(write_end)
    payload, timed_out = b"", True
    try:
        payload, timed_out = _read_until(read_end, time.monotonic() + limits.wall_s)
    finally:
        os.close(read_end)
        if timed_out:  # or the parent is being interrupted (Celery's soft time limit)
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if timed_out:
        raise LimitExceeded(f"the time limit of {limits.wall_s:g} s was exceeded")
    if os.WIFSIGNALED(status) and not payload:
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU:
            raise LimitExceeded(f"the CPU time limit of {limits.cpu_s} s was exceeded")
        if number == signal.SIGKILL:  # the hard CPU limit, or the kernel's OOM killer
            raise LimitExceeded(
                f"the checks were killed (CPU time limit {limits.cpu_s} s, "
                f"memory limit {limits.memory_bytes >> 20} MiB)"
            )
        raise ChildFailed(f"the checks died with signal {signal.Signals(number).name}")
    kind, value = pickle.loads(payload) if payload else ("error", "no result (crashed)")
    if kind == "ok":
        return value
    if kind == "oserror":
        raise OSError(value)
    if kind == "memory":
        raise LimitExceeded(f"the memory limit of {limits.memory_bytes >> 20} MiB was exceeded")
    raise ChildFailed(value)


def _child(
    work: Callable[[], Any],
    limits: Limits,
    tmp_dir: Path,
    write_end: int,
    readable: tuple[Path, ...],
) -> None:
    code = 0
    try:
        _die_with_parent()
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)  # not the worker's shutdown handlers
        faulthandler.disable()  # a crash is reported to the parent, not dumped on its log
        _forget_database_connections()
        tempfile.tempdir = str(tmp_dir)  # anything the checks spill goes into the sandbox
        budget = _data_in_use() + limits.memory_bytes  # /proc: before the confinement
        confine(tmp_dir, write_end, readable)
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_DATA, (budget, budget))
        try:
            message: tuple[str, Any] = ("ok", work())
        except MemoryError:
            message = ("memory", None)
        except OSError as exc:  # e.g. a full disk: the parent raises it again (task retry)
            message = ("oserror", f"{type(exc).__name__}: {exc}"[:2000])
        except RecursionError:
            message = ("error", "input nested too deeply for the checks (RecursionError)")
        except Exception as exc:  # reported to the parent, which records it
            message = ("error", f"{type(exc).__name__}: {exc}"[:2000])
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            data = pickle.dumps(("memory", None))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
    except BaseException:
        code = 70
    finally:
        os._exit(code)  # no atexit handlers: they belong to the parent (database, broker)


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _forget_database_connections() -> None:
    """The parent's sockets must never be used (or closed) by the child: drop the handles."""
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        connection.connection = None


def _data_in_use() -> int:
    """VmData of this process (bytes): RLIMIT_DATA counts what was inherited too."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024
    return 0


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    """Everything the child writes until it closes the pipe; (data, True) on the deadline."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"", True
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return b"", True
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)
