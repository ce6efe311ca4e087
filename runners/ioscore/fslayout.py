"""Where a test's data lives: which storage servers hold each rank's file, and the throughput
each server's ranks saw, so that one slow server (an OST on a bad cable, a chunk server on a
slow link) is named the way the Cray paper finds it.

The probe asks the file system's own tool about each file and keeps only the servers (storage
targets) holding its data; one parser per file system turns the tool's output into them:

* MooseFS ``mfsfileinfo FILE``: each chunk's copies, ``copy N: IP:PORT``;
* Lustre ``lfs getstripe FILE``: the ``obdidx`` column, one OST index a stripe (every
  component of a composite layout);
* BeeGFS ``beegfs-ctl --getentryinfo --verbose FILE``: ``+ TARGET @ NODE [ID: N]`` lines;
* GPFS ``mmlsattr -L FILE``: the storage pool (a file is striped over every disk of its pool,
  so the pool is the finest place a file can be put);
* DAOS ``daos fs get-attr --path FILE``: the object class (objects are spread over all
  targets; the class tells how widely).

Nothing is probed when the file system has no parser or its tool is absent, and the record
says why. A rank's work rate counts for every server holding its data; a server is slow when
the mean of its ranks is below ``RATE_FRACTION`` x the median of the other servers' (the host
rule of ``ioscore.results.stragglers``).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# what the results library reads of layout.json, re-exported for the probe's callers
from ioscore.results.layout_record import LAYOUT_FILE, data_ranks
from ioscore.results.layout_record import attach as attach
from ioscore.results.layout_record import load as load
from ioscore.results.layout_record import phase_layout as phase_layout
from ioscore.results.model import PhaseResult
from ioscore.results.stragglers import RATE_FRACTION, median_without, work_rates

SCHEMA = "ioscore-layout/1"


def parse_moosefs(output: str) -> list[str]:
    return _unique(re.findall(r"copy \d+:\s*(\S+?:\d+)", output))


def parse_lustre(output: str) -> list[str]:
    osts = []
    in_table = False
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["obdidx"]:
            in_table = True
        elif in_table and words and words[0].isdigit():
            osts.append(f"OST{int(words[0]):04x}")
        elif in_table:
            in_table = False
    return _unique(osts)


def parse_beegfs(output: str) -> list[str]:
    return _unique(
        f"{node}:target{target}"
        for target, node in re.findall(r"^\s*\+\s*(\d+)\s*@\s*(\S+)", output, re.M)
    )


def parse_gpfs(output: str) -> list[str]:
    match = re.search(r"^storage pool name:\s*(\S+)", output, re.M)
    return [f"pool:{match.group(1)}"] if match else []


def parse_daos(output: str) -> list[str]:
    lines = [ln.split() for ln in output.splitlines() if ln.strip()]
    for header, values in zip(lines, lines[2:], strict=False):  # header, dashes, values
        if header[:2] == ["Object", "Class"] and values:
            return [f"class:{values[0]}"]
    return []


@dataclass(frozen=True)
class Probe:
    file_system: str
    tool: tuple[str, ...]  # the command, the file's path appended
    parse: Callable[[str], list[str]]


PROBES = {
    "moosefs": Probe("moosefs", ("mfsfileinfo",), parse_moosefs),
    "lustre": Probe("lustre", ("lfs", "getstripe"), parse_lustre),
    "beegfs": Probe("beegfs", ("beegfs-ctl", "--getentryinfo", "--verbose"), parse_beegfs),
    "gpfs": Probe("gpfs", ("mmlsattr", "-L"), parse_gpfs),
    "daos": Probe("daos", ("daos", "fs", "get-attr", "--path"), parse_daos),
}


def _unique(items: Any) -> list[str]:
    return list(dict.fromkeys(items))


def file_system_of(path: Path, mounts_text: str | None = None) -> str | None:
    """The file system holding `path`, by the longest mount point above it."""
    text = mounts_text if mounts_text is not None else Path("/proc/self/mounts").read_text()
    best, kind = "", None
    resolved = str(path)
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        source, point, fstype = fields[0], fields[1].replace("\\040", " "), fields[2]
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, _kind(source, fstype)
    return kind


def _kind(source: str, fstype: str) -> str | None:
    if fstype in ("fuse.mfs", "fuse.mfsmount") or (fstype == "fuse" and source.startswith("mfs")):
        return "moosefs"
    if fstype == "fuse.dfuse":
        return "daos"
    return fstype if fstype in PROBES else None


def probe(
    paths: Sequence[Path], kind: str | None = None
) -> tuple[dict[str, list[str]], str | None]:
    """Servers of each file, or ({}, why nothing was probed). `kind`: the files' file system
    (`file_system_of`), when the caller knows it already."""
    if not paths:
        return {}, "no files to probe"
    kind = kind or file_system_of(paths[0])
    if kind is None:
        return {}, f"no layout probe for the file system of {paths[0]}"
    chosen = PROBES[kind]
    if shutil.which(chosen.tool[0]) is None:
        return {}, f"{chosen.tool[0]} ({kind}'s tool) is not installed"
    found = {}
    for path in paths:
        done = subprocess.run([*chosen.tool, str(path)], capture_output=True, text=True, timeout=60)
        servers = chosen.parse(done.stdout) if done.returncode == 0 else []
        if not servers:
            return {}, f"{' '.join(chosen.tool)} {path} named no server (exit {done.returncode})"
        found[str(path)] = servers
    return found, None


def rank_files(manifest: dict[str, Any]) -> list[Path]:
    """The files of a test, rank by rank, from the manifest `ioscore-suite ior` writes."""
    base = str(manifest["test_file"])
    if manifest.get("fpp"):
        return [Path(f"{base}.{rank:08d}") for rank in range(int(manifest["tasks"]))]
    return [Path(base)] * int(manifest["tasks"])


def record(manifest_path: Path, result_dir: Path) -> dict[str, Any]:
    """Probe the test's files and write RESULT_DIR/layout.json; the record written."""
    manifest = json.loads(manifest_path.read_text())
    files = rank_files(manifest)
    kind = file_system_of(files[0]) if files else None
    servers, reason = probe(files, kind)
    layout = {
        "schema": SCHEMA,
        "file_system": kind,
        "test_id": manifest.get("id"),
        "unprobed": reason,
        "ranks": {str(rank): servers[str(path)] for rank, path in enumerate(files)}
        if servers
        else {},
    }
    result_dir.mkdir(parents=True, exist_ok=True)
    (result_dir / LAYOUT_FILE).write_text(json.dumps(layout, indent=1) + "\n")
    return layout


@dataclass(frozen=True)
class ServerRate:
    server: str
    ranks: tuple[int, ...]
    mean_rate: float
    slow_reason: str | None  # why it is slow, when it is


def accessed_servers(
    phase: PhaseResult, layout: dict[int, list[str]], assume_own: bool = True
) -> dict[int, list[str]]:
    """Rank -> servers of the data it accessed: its ``data_ranks`` file's servers; without
    that record a rank's own file's when `assume_own` (a write, a read without a shift), else
    nothing (the file it read is not known)."""
    of = data_ranks(phase)
    if of is None:
        return dict(layout) if assume_own else {}
    return {rank: layout[data] for rank, data in of.items() if data in layout}


def server_rates(phase: PhaseResult, layout: dict[int, list[str]]) -> list[ServerRate]:
    """Each server's ranks and their mean work rate, the slow ones with the reason. `layout`:
    rank -> servers of the data that rank accessed (``accessed_servers``)."""
    rates = work_rates(phase)
    members: dict[str, list[int]] = {}
    for rank, servers in layout.items():
        if rank in rates:
            for server in servers:
                members.setdefault(server, []).append(rank)
    means = {
        server: math.fsum(rates[r] for r in ranks) / len(ranks) for server, ranks in members.items()
    }
    ordered = sorted(means.values())
    shown = []
    for server, mean in means.items():
        reason = None
        if len(means) >= 2:
            peers = median_without(ordered, mean)
            if mean < RATE_FRACTION * peers:
                reason = (
                    f"mean work rate of its ranks {mean:.4g} < {RATE_FRACTION} x other "
                    f"servers' median {peers:.4g}"
                )
        shown.append(ServerRate(server, tuple(sorted(members[server])), mean, reason))
    return shown


@dataclass(frozen=True)
class FailedRank:
    rank: int
    host: str
    error: str
    data_rank: int  # whose file it accessed
    servers: tuple[str, ...]  # servers holding that file (empty: not probed)


@dataclass(frozen=True)
class ErrorServers:
    """The I/O errors of a phase against where the failed ranks' files live."""

    failed: tuple[FailedRank, ...]
    common: tuple[str, ...]  # servers holding every failed rank's file that was probed
    suspect: str | None  # the one server to blame, when the layout singles one out
    reason: str  # why it is (or why none is) named


def io_errors(phase: PhaseResult) -> list[dict[str, Any]]:
    """result.json's ``io_errors`` of a phase (rank, host, error), well-formed entries only."""
    raw = phase.extra.get("io_errors")
    if not isinstance(raw, list):
        return []
    return [
        e
        for e in raw
        if isinstance(e, dict) and type(e.get("rank")) is int and isinstance(e.get("error"), str)
    ]


def error_servers(phase: PhaseResult, layout: dict[int, list[str]]) -> ErrorServers | None:
    """For each rank that hit an I/O error, the servers of the file it accessed, and the
    server common to all failures: the one to blame when it is the only one, or the only one
    of them that no rank read or wrote without an error. None when no rank failed."""
    errors = io_errors(phase)
    if not errors:
        return None
    of = data_ranks(phase) or {}
    failed = []
    for entry in errors:
        rank = int(entry["rank"])
        data = of.get(rank, rank)
        failed.append(
            FailedRank(
                rank,
                str(entry.get("host") or ""),
                str(entry["error"]),
                data,
                tuple(layout.get(data, ())),
            )
        )
    probed = [set(f.servers) for f in failed if f.servers]
    if not probed:
        return ErrorServers(tuple(failed), (), None, "no layout of the failed ranks' files")
    common = set.intersection(*probed)
    if not common:
        reason = "no server holds every failed rank's file"
        return ErrorServers(tuple(failed), (), None, reason)
    failed_ranks = {f.rank for f in failed}
    healthy = {
        server
        for rank, data in (of or {r: r for r in layout}).items()
        if rank not in failed_ranks
        for server in layout.get(data, ())
    }
    candidates = sorted(common - healthy) or sorted(common)
    if len(candidates) == 1:
        extra = "" if len(common) == 1 else " (the others also served ranks without errors)"
        reason = f"holds the files of all {len(failed)} failed rank(s){extra}"
        return ErrorServers(tuple(failed), tuple(sorted(common)), candidates[0], reason)
    reason = f"{len(candidates)} servers hold every failed rank's file: the layout cannot tell"
    return ErrorServers(tuple(failed), tuple(sorted(common)), None, reason)
