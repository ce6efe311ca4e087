"""Runs mdtest (the reference build) and `ioscore-suite mdtest` on the same command line under
strace, with per-rank host names, and reduces what each rank did to comparable facts.

A "node" is a UTS namespace: a wrapper under the launcher gives rank r the host name
``node<r // per_node>`` (block placement) or ``node<r % nodes>`` (round-robin) through
``unshare -u`` and ``hostname``. Open MPI still counts one node for MPI_COMM_TYPE_SHARED, which
mdtest uses for its node count and tasks on node 0, so mdtest gets those two numbers from its
own IOR_FAKE_NODES / IOR_FAKE_TASK_PER_NODES (the ranks on node 0 of the placement); it reads
the placement itself (rank 1 on rank 0's host) from gethostname, as on a real cluster.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from suite_helpers import MPI_ENV, SUITE_BIN

from tests.mpi_launch import SH_RANK, of_binary

# one line of strace -f output: pid, syscall, arguments, result
_CALL = re.compile(r"^\d+ +(\w+)\((.*)\) += (-?\d+)")
_PATH = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ITEM = re.compile(r"(file|dir)\.mdtest\.(\d+)\.(\d+)")


@dataclass(frozen=True)
class Placement:
    name: str
    np: int
    nodes: int  # 1: every rank on one host
    block: bool  # ranks r // per_node (True) or r % nodes (False)

    def host(self, rank: int) -> str:
        if self.nodes == 1:
            return "node0"
        per = self.np // self.nodes
        return f"node{rank // per if self.block else rank % self.nodes}"

    def ranks_on_node0(self) -> int:
        return sum(1 for r in range(self.np) if self.host(r) == "node0")


PLACEMENTS = (
    Placement("np2-one-node", 2, 1, True),
    Placement("np2-two-nodes", 2, 2, True),
    Placement("np4-block-2x2", 4, 2, True),
    Placement("np4-cyclic-2x2", 4, 2, False),
)

_WRAPPER = f"""#!/bin/sh
# rank -> host name, then the traced command in its own UTS namespace
r={SH_RANK}
case "$IOSCORE_PLACEMENT" in
  one) h=node0 ;;
  block) h=node$((r / IOSCORE_PER_NODE)) ;;
  cyclic) h=node$((r % IOSCORE_NODES)) ;;
esac
exec unshare -u sh -c 'hostname "$0"; r=$1; shift; exec strace -f -qq -o "$IOSCORE_TRACE.$r" \\
  $IOSCORE_STRACE_INJECT \\
  -e trace=mkdir,mkdirat,rmdir,unlink,unlinkat,rename,renameat,renameat2,openat,open,creat,\\
stat,lstat,newfstatat,statx,access,faccessat,faccessat2,pwrite64,write,pread64,read,\\
lseek,close,fsync,fdatasync,sync,syncfs \\
  "$@"' "$h" "$r" "$@"
"""


def write_wrapper(directory: Path) -> Path:
    path = directory / "host-and-trace.sh"
    path.write_text(_WRAPPER)
    path.chmod(0o755)
    return path


@dataclass
class Launch:
    returncode: int
    stdout: str
    stderr: str
    ops: dict[int, Counter]  # rank -> (operation, path relative to the data root) -> count
    calls: dict[int, list[Call]]  # rank -> its calls below the data root, in order


def launch(
    tool: list[str],
    args: list[str],
    placement: Placement,
    workdir: Path,
    data_root: Path,
    tag: str,
    timeout: float = 180,
    inject: str = "",
) -> Launch:
    """`LAUNCHER -n N wrapper TOOL ARGS` in `workdir`, under the launcher of TOOL's MPI; the
    traces go to workdir/<tag>.<rank>. `inject`: strace arguments for every rank (delays)."""
    wrapper = write_wrapper(workdir)
    env = {
        **MPI_ENV,
        "IOSCORE_TRACE": str(workdir / tag),
        "IOSCORE_PLACEMENT": "one"
        if placement.nodes == 1
        else "block"
        if placement.block
        else "cyclic",
        "IOSCORE_PER_NODE": str(max(1, placement.np // placement.nodes)),
        "IOSCORE_NODES": str(placement.nodes),
        "IOSCORE_STRACE_INJECT": inject,
    }
    if placement.nodes > 1:  # what MPI_COMM_TYPE_SHARED would say on real nodes
        env["IOR_FAKE_NODES"] = str(placement.nodes)
        env["IOR_FAKE_TASK_PER_NODES"] = str(placement.ranks_on_node0())
    mpi = of_binary(tool[0])  # a reference build may link another MPI than the suite's
    env.update(mpi.env)
    cmd = [*mpi.launch(placement.np), str(wrapper), *tool, *args]
    script = f"ulimit -f {1 << 20}; exec {shlex.join(cmd)}"
    proc = subprocess.run(
        ["sh", "-c", script],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    calls = {r: item_calls(workdir / f"{tag}.{r}", data_root, workdir) for r in range(placement.np)}
    ops = {r: named_work(c) for r, c in calls.items()}
    return Launch(proc.returncode, proc.stdout, proc.stderr, ops, calls)


# One call below the data root: operation, path below the data root, and what
# else decides the work: the open flags that matter, the size and offset of a read or write.
Call = tuple[str, str, str]

# open flags that change the work (O_CLOEXEC, O_LARGEFILE and the like do not)
_FLAGS = ("O_RDONLY", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC", "O_DIRECT", "O_SYNC")
_FD_CALLS = ("pwrite64", "pread64", "write", "read", "lseek", "close", "fsync", "fdatasync")


def item_calls(path: Path, data_root: Path, cwd: Path) -> list[Call]:
    """The successful calls of one rank's trace below the data root, in order: mkdir, rmdir,
    create/open (with their flags), stat, unlink, rename, read and write (size, offset;
    attributed to the file through its descriptor), fsync, close, and every sync. ioscore's
    manifest is left out."""
    root = os.path.normpath(str(data_root))
    out: list[Call] = []
    fds: dict[str, str] = {}  # open descriptor -> path below the root
    position: dict[str, int] = {}  # open descriptor -> file position
    if not path.exists():
        return out
    for line in path.read_text(errors="replace").splitlines():
        m = _CALL.match(line)
        if not m or int(m.group(3)) < 0:
            continue
        call, args, result = m.group(1), m.group(2), m.group(3)
        if call in ("sync", "syncfs"):
            out.append(("sync", "", ""))
            continue
        if call in _FD_CALLS:
            fd = args.split(",", 1)[0]
            rel = fds.pop(fd, None) if call == "close" else fds.get(fd)
            if rel is None:
                continue
            fields = [f.strip() for f in _PATH.sub("", args).split(",")]
            if call == "lseek":  # IOR's POSIX backend seeks, then reads or writes
                position[fd] = int(result)
            elif call in ("close", "fsync", "fdatasync"):
                out.append((call, rel, ""))
            else:  # pread64/pwrite64 at their offset; read/write where the file is
                offset = int(fields[3]) if len(fields) > 3 else position.get(fd, 0)
                position[fd] = offset + int(result)
                out.append(("write" if "write" in call else "read", rel, f"{fields[2]}@{offset}"))
            continue
        if call.endswith("at") and call != "creat" and not args.startswith(("AT_FDCWD", '"/')):
            continue  # relative to another directory's descriptor: not the tools' own names
        paths = [os.path.normpath(os.path.join(cwd, p)) for p in _PATH.findall(args)]
        paths = [p for p in paths if p.startswith(root + "/")]
        if not paths or os.path.basename(paths[0]).startswith("ioscore-test.json"):
            continue  # ioscore's manifest (written through a temporary name)
        rel = os.path.relpath(paths[0], root)
        if call in ("mkdir", "mkdirat"):
            out.append(("mkdir", rel, ""))
        elif call == "rmdir" or (call == "unlinkat" and "AT_REMOVEDIR" in args):
            out.append(("rmdir", rel, ""))
        elif call in ("unlink", "unlinkat"):
            out.append(("unlink", rel, ""))
        elif call.startswith("rename"):
            out.append(("rename", rel, os.path.relpath(paths[1], root) if len(paths) > 1 else ""))
        elif call in ("openat", "open", "creat"):
            flags = "|".join(f for f in _FLAGS if re.search(rf"\b{f}\b", args))
            out.append(("create" if "O_CREAT" in args or call == "creat" else "open", rel, flags))
            fds[result] = rel
            position[result] = 0
        elif call in ("stat", "lstat", "newfstatat", "statx"):
            out.append(("stat", rel, ""))
    return out


def named_work(calls: list[Call]) -> Counter:
    """(operation, path) -> count of the calls that name a path: mkdir, rmdir, create, open,
    stat, unlink, rename ("from -> to"); reads, writes, closes and syncs are left out."""
    out: Counter = Counter()
    for op, rel, detail in calls:
        if op == "rename":
            out[op, f"{rel} -> {detail}" if detail else rel] += 1
        elif op in ("mkdir", "rmdir", "unlink", "create", "open", "stat"):
            out[op, rel] += 1
    return out


def first_difference(mine: list[Call], theirs: list[Call]) -> str | None:
    """Where two call sequences part, with a little context; None when they are the same."""
    if mine == theirs:
        return None
    k = next(
        (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
        min(len(mine), len(theirs)),
    )
    return (
        f"call {k} of {len(mine)} (ioscore) / {len(theirs)} (mdtest): "
        f"ioscore {mine[max(0, k - 1) : k + 2]}, mdtest {theirs[max(0, k - 1) : k + 2]}"
    )


def item_work(ops: Counter) -> Counter:
    """The operations on mdtest's items and trees (the work the rates count)."""
    return Counter({k: v for k, v in ops.items() if "mdtest" in k[1]})


def whose_items(ops: Counter) -> dict[str, set[int]]:
    """operation -> the ranks whose items (file/dir.mdtest.<rank>.<i>) it touched."""
    out: dict[str, set[int]] = {}
    for (op, rel), _ in ops.items():
        m = _ITEM.search(rel.split(" -> ")[0])
        if m:
            out.setdefault(f"{m.group(1)}-{op}", set()).add(int(m.group(2)))
    return out


_ROW = re.compile(r"^   ([A-Z][a-z]+ [a-z]+) +(-?[\d.]+) +(-?[\d.]+) +(-?[\d.]+) +(-?[\d.]+)$")


def summary_rows(stdout: str) -> list[tuple[str, bool]]:
    """mdtest's SUMMARY rows in order: (label, whether the line is exactly what mdtest's
    printf makes of its label and four numbers)."""
    rows = []
    for line in stdout.splitlines():
        m = _ROW.match(line)
        if m:
            label, nums = m.group(1), [float(v) for v in m.groups()[1:]]
            if label.startswith("Tree"):
                again = f"   {label:<22} " + " ".join(f"{v:14.3f}" for v in nums)
            else:
                again = f"   {label:<18}     " + " ".join(f"{v:14.3f}" for v in nums)
            rows.append((label, again == line))
    return rows


def summary_means(stdout: str) -> dict[str, float]:
    """The Mean column of each SUMMARY rate row (ops/s), by label."""
    table = stdout.split("SUMMARY rate", 1)[-1].split("SUMMARY time", 1)[0]
    return {m.group(1): float(m.group(4)) for line in table.splitlines() if (m := _ROW.match(line))}


def tasks_line(stdout: str) -> str | None:
    m = re.search(r"^\d+ tasks, \d+ (files/directories|files|directories)$", stdout, re.M)
    return m.group(0) if m else None


def ioscore_command(args: list[str], resultdir: Path) -> list[str]:
    return [str(SUITE_BIN), "mdtest", *args, "--resultdir", str(resultdir)]
