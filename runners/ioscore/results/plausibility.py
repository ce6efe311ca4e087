"""Hardware plausibility ("speed of light"): a result against what the declared hardware can carry.

A bandwidth phase cannot move data faster than the client nodes' links together, the storage
servers' links together, or the storage devices together; a result beyond one of them was
measured somewhere else (client or server memory) or is wrong. A read of data that fits in the
memory of the node that wrote it may come from that node's page cache; one that fits in the
servers' memory may come from theirs. Each finding carries its arithmetic, so a reviewer can
check it and a visitor can follow it. The ceilings come from the system description
(``ioscore.system_description``'s schema); absent declarations give no ceiling, never a guess.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ioscore.results.model import PhaseResult, RunResult
from ioscore.results.numbers import significant
from ioscore.results.quantities import DATA_ROLES, to_base

GiB = 2**30
# Declared link and device speeds are nominal; a measurement within this margin above one is
# rounding and protocol accounting, not an impossible result.
MARGIN = 0.02
_DECIMAL_RATES = (("TB/s", 1e12), ("GB/s", 1e9), ("MB/s", 1e6))
_BINARY_RATES = (("TiB/s", 2**40), ("GiB/s", 2**30), ("MiB/s", 2**20))
READ_OF_WRITE = {"ior-easy-read": "ior-easy-write", "ior-hard-read": "ior-hard-write"}


@dataclass(frozen=True)
class Ceiling:
    name: str  # "client network", "server network", "storage devices"
    bytes_per_s: float
    arithmetic: str  # how the figure follows from the description


@dataclass(frozen=True)
class Finding:
    phase: str
    kind: str  # "beyond-hardware" (a warning) or "cache" (a note)
    message: str  # the finding with its arithmetic


def rate(bytes_per_s: float) -> str:
    """Three significant digits (``significant``) in decimal units, as link and device speeds
    are given, then in binary units, as IO500 phases are (so the figure can be found in the
    phase table)."""
    decimal = next(
        (
            f"{significant(bytes_per_s / factor)} {unit}"
            for unit, factor in _DECIMAL_RATES
            if bytes_per_s >= factor
        ),
        f"{significant(bytes_per_s / 1e3)} kB/s",
    )
    binary = next(
        (
            f"{significant(bytes_per_s / factor)} {unit}"
            for unit, factor in _BINARY_RATES
            if bytes_per_s >= factor
        ),
        f"{significant(bytes_per_s / 2**10)} KiB/s",
    )
    return f"{decimal} = {binary}"


def size(n_bytes: float) -> str:
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n_bytes >= factor:
            return f"{significant(n_bytes / factor)} {unit}"
    return f"{significant(n_bytes / 2**10)} KiB"


def _quantity(q: Mapping[str, Any]) -> str:
    """A declared figure as declared, thousands separated (5,200 Gbit/s)."""
    value = q["value"]
    text = f"{int(value):,}" if float(value).is_integer() else f"{value:,}"
    return f"{text} {q['unit']}"


def _links(group: Mapping[str, Any]) -> tuple[float, str] | None:
    """One node's bandwidth over all its declared links, and how it was added up."""
    total, parts = 0.0, []
    for link in group.get("interconnects") or []:
        declared = link.get("peak_throughput") or link.get("speed")
        per_link = to_base(declared)
        if per_link is None:
            continue
        count = int(link.get("links_per_node", 1))
        total += per_link * count
        parts.append(f"{count} x {_quantity(declared)}")
    return (total, " + ".join(parts)) if parts else None


def _network(
    name: str, declared: Any, whom: str, links: tuple[float, str] | None
) -> Ceiling | None:
    """A network ceiling: the run's declared aggregate, and the links that make it up where
    they add up to it (so the arithmetic shows nodes x links); the links alone otherwise."""
    aggregate = to_base(declared) if declared else None
    if aggregate:
        text = f"declared for {whom}: {_quantity(declared)}"
        if links and abs(links[0] - aggregate) <= MARGIN * aggregate:
            text = f"{links[1]}, as declared for {whom} ({_quantity(declared)})"
        return Ceiling(name, aggregate, text)
    return Ceiling(name, links[0], links[1]) if links else None


def ceilings(description: Mapping[str, Any]) -> list[Ceiling]:
    """The aggregate ceilings the description declares, the run's own figures first."""
    run = description.get("run") or {}
    nodes = run.get("client_nodes")
    groups = description.get("client_node_groups") or []
    client_links = None
    if nodes and groups and (links := _links(groups[0])):
        client_links = (nodes * links[0], f"{nodes} client nodes x ({links[1]})")
    servers = [g for g in description.get("server_groups") or [] if g.get("role") in DATA_ROLES]
    summed = [(g, _links(g)) for g in servers]
    server_links = None
    if summed and all(links for _, links in summed):
        server_links = (
            sum(g.get("count", 0) * links[0] for g, links in summed if links),
            " + ".join(
                f"{g.get('count', 0)} {g.get('role')} x ({links[1]})"
                for g, links in summed
                if links
            ),
        )
    networks = (
        _network(
            "client network",
            run.get("client_network_bandwidth"),
            "the run's client nodes",
            client_links,
        ),
        _network(
            "server network",
            run.get("server_network_bandwidth"),
            "the storage servers",
            server_links,
        ),
    )
    out = [ceiling for ceiling in networks if ceiling is not None]
    devices, parts = 0.0, []
    for group in servers:
        for media in group.get("media") or []:
            per_device = to_base(media.get("peak_throughput"))
            if per_device is None:
                continue
            count = group.get("count", 0) * media.get("devices_per_server", 0)
            devices += count * per_device
            parts.append(
                f"{group.get('count', 0)} {group.get('role')} x "
                f"{media.get('devices_per_server', 0)} {media.get('type', 'devices')} x "
                f"{_quantity(media['peak_throughput'])}"
            )
    if parts:
        out.append(Ceiling("storage devices", devices, " + ".join(parts)))
    return out


def beyond_hardware(description: Mapping[str, Any], rates: Mapping[str, float]) -> list[Finding]:
    """Each bandwidth phase (bytes/s) faster than a declared ceiling, with the arithmetic."""
    findings = []
    limits = ceilings(description)
    for phase, measured in rates.items():
        for ceiling in limits:
            times = measured / ceiling.bytes_per_s if ceiling.bytes_per_s > 0 else 0.0
            if times > 1 + MARGIN:
                findings.append(
                    Finding(
                        phase,
                        "beyond-hardware",
                        f"{phase} moved {rate(measured)}, {significant(times)} times "
                        f"what the {ceiling.name} can carry: {ceiling.arithmetic} = "
                        f"{rate(ceiling.bytes_per_s)}. The data came from memory on the way, or "
                        "the figure is wrong.",
                    )
                )
    return findings


@dataclass(frozen=True)
class ReadOfWrite:
    """What a read phase read: the bytes its write phase left, in total and on the busiest
    client node, and whether each rank read data written on another node."""

    phase: str
    total_bytes: float
    max_bytes_per_node: float
    from_other_node: bool


def cache_findings(description: Mapping[str, Any], reads: Sequence[ReadOfWrite]) -> list[Finding]:
    """Reads of data small enough to sit in the writer's or the servers' memory."""
    findings = []
    groups = description.get("client_node_groups") or []
    client_memory = to_base((groups[0].get("memory") or {}).get("capacity")) if groups else None
    servers = [g for g in description.get("server_groups") or [] if g.get("role") in DATA_ROLES]
    server_memory = sum(
        g.get("count", 0) * (to_base((g.get("memory") or {}).get("capacity")) or 0) for g in servers
    )
    for read in reads:
        if client_memory and not read.from_other_node and read.max_bytes_per_node <= client_memory:
            findings.append(
                Finding(
                    read.phase,
                    "cache",
                    f"{read.phase} read data written on the same node: at most "
                    f"{size(read.max_bytes_per_node)} per node, which fits in a client node's "
                    f"{size(client_memory)} of memory, so the read may have come from the page "
                    "cache, not from storage.",
                )
            )
        if server_memory and read.total_bytes <= server_memory:
            findings.append(
                Finding(
                    read.phase,
                    "cache",
                    f"{read.phase} read {size(read.total_bytes)} in all, which fits in the storage "
                    f"servers' {size(server_memory)} of memory ({len(servers)} server group(s)), "
                    "so the read may have come from server memory, not from the devices.",
                )
            )
    return findings


def run_rates(run: RunResult) -> dict[str, float]:
    """The bandwidth phases of a run in bytes/s."""
    return {
        name: phase.value * GiB
        for name, phase in run.phases.items()
        if phase.unit == "GiB/s" and phase.value > 0
    }


def node_bytes(phase: PhaseResult) -> dict[str, float] | None:
    """Bytes each client node moved in a phase, from its per-rank rows or, in the summary
    form, its per-host aggregates; None when the phase does not say (published lists, older
    formats, a rank without host or bytes)."""
    if phase.rank_summary is not None:
        hosts = phase.rank_summary.hosts
        return {h.host: float(h.bytes) for h in hosts} if hosts else None
    per_host: dict[str, float] = defaultdict(float)
    for stat in phase.ranks:
        moved = stat.bytes if stat.bytes is not None else stat.items
        if moved is None or stat.host is None:
            return None
        per_host[stat.host] += moved
    return dict(per_host) or None


def written_per_node(description: Mapping[str, Any], writes: Mapping[str, float]) -> list[Finding]:
    """Write phases whose data per client node (bytes, the busiest node) fit in a client
    node's memory: the figure may be the speed of filling the client's page cache rather
    than of the storage behind it."""
    groups = description.get("client_node_groups") or []
    memory = to_base((groups[0].get("memory") or {}).get("capacity")) if groups else None
    if not memory:
        return []
    return [
        Finding(
            phase,
            "cache",
            f"{phase} wrote at most {size(per_node)} per client node, which fits in a client "
            f"node's {size(memory)} of memory, so part of the write may have gone to the page "
            "cache and reached storage after the phase's clock stopped.",
        )
        for phase, per_node in writes.items()
        if 0 < per_node <= memory
    ]


def run_reads(run: RunResult) -> list[ReadOfWrite]:
    """What each IO500 read phase read, from the write phase's bytes per host; none for runs
    without per-rank data (published lists, older formats)."""
    out = []
    for read_phase, write_phase in READ_OF_WRITE.items():
        read, write = run.phases.get(read_phase), run.phases.get(write_phase)
        per_host = node_bytes(write) if read is not None and write is not None else None
        if per_host:
            # the IO500 reads are shifted by one node's worth of ranks: another node's data
            # whenever there is another node
            out.append(
                ReadOfWrite(
                    read_phase,
                    sum(per_host.values()),
                    max(per_host.values()),
                    len(per_host) > 1,
                )
            )
    return out


def run_findings(run: RunResult, description: Mapping[str, Any]) -> list[Finding]:
    """Every plausibility finding for an IO500 run against its system description.

    Client memory matters here for the reads (``cache_findings``): IO500's write phases fsync
    each file before they close it, inside the phase's time, so a write cannot end in a client
    node's page cache (``written_per_node`` is for writes that do not sync)."""
    return beyond_hardware(description, run_rates(run)) + cache_findings(
        description, run_reads(run)
    )


def summary(description: Mapping[str, Any], findings: Sequence[Finding]) -> dict[str, Any]:
    """The ceilings with their arithmetic and the findings as plain data (JSON reports)."""
    return {
        "ceilings": [
            {
                "name": c.name,
                "bytes_per_s": c.bytes_per_s,
                "rate": rate(c.bytes_per_s),
                "arithmetic": c.arithmetic,
            }
            for c in ceilings(description)
        ],
        "findings": [{"phase": f.phase, "kind": f.kind, "message": f.message} for f in findings],
    }
