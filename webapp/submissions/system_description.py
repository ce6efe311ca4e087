"""The structured system description (LEADERBOARD-RULES §4): schema validation, units, flattening.

The tree is validated against the schema shared with the CLI (``ioscore.system_description``);
the list columns of ``SystemDescription`` are derived from it here and nowhere else.
"""

from __future__ import annotations

from typing import Any

# Re-exported: the service's callers validate through this module.
from ioscore.system_description import (
    DATA_ROLES,
    METADATA_ROLES,
    SCHEMA_VERSION,
    Problem,
    to_base,
    validate,
)

__all__ = [
    "DATA_ROLES",
    "METADATA_ROLES",
    "SCHEMA_VERSION",
    "Problem",
    "flatten",
    "to_base",
    "validate",
]


def _int(value: float | None) -> int | None:
    return None if value is None else round(value)


def _servers(data: dict[str, Any], roles: set[str]) -> dict[str, Any]:
    groups = [g for g in data.get("server_groups", []) if g.get("role") in roles]
    if not groups:
        return {}
    first = groups[0]
    media = first.get("media") or [{}]
    primary = next((m for m in media if m.get("primary")), media[0])
    links = first.get("interconnects") or []
    network = ""
    if links:
        speed = links[0].get("speed", {})
        network = f"{links[0].get('type', '')} {speed.get('value', '')} {speed.get('unit', '')}"
    return {
        "nodes": sum(g.get("count", 0) for g in groups),
        "devices": sum(
            g.get("count", 0) * sum(m.get("devices_per_server", 0) for m in g.get("media", []))
            for g in groups
        ),
        "media_type": primary.get("type", ""),
        "interface": primary.get("interface", ""),
        "network": network.strip(),
        "memory_bytes": _int(to_base((first.get("memory") or {}).get("capacity"))),
        "os_version": f"{first.get('os_distribution', '')} {first.get('os_version', '')}".strip(),
    }


def flatten(data: dict[str, Any]) -> dict[str, Any]:
    """The typed list columns of ``SystemDescription`` from a *valid* tree."""
    site = data.get("site", {})
    client = data.get("client_system", {})
    run = data.get("run", {})
    storage = data.get("storage_system", {})
    nodes = (data.get("client_node_groups") or [{}])[0]
    flat: dict[str, Any] = {
        "institution": site.get("institution", ""),
        "system": client.get("name", ""),
        "storage_vendor": storage.get("vendor", ""),
        "fs_type": storage.get("software", ""),
        "fs_name": storage.get("name", ""),
        "fs_version": storage.get("software_version", ""),
        "client_nodes": run.get("client_nodes"),
        "procs_per_node": run.get("procs_per_node"),
        "total_procs": (
            run["client_nodes"] * run["procs_per_node"]
            if "client_nodes" in run and "procs_per_node" in run
            else None
        ),
        "client_os": nodes.get("os_distribution", ""),
        "client_os_version": nodes.get("os_version", ""),
        "client_kernel": nodes.get("kernel_version", ""),
        "storage_capacity_bytes": _int(to_base(run.get("usable_capacity"))),
        "client_network_bw": to_base(run.get("client_network_bandwidth")),
        "server_network_bw": to_base(run.get("server_network_bandwidth")),
        "data_center_url": site.get("web_page", ""),
    }
    software_version = storage.get("software_version", "")
    for prefix, roles in (("md", METADATA_ROLES), ("ds", DATA_ROLES)):
        group = _servers(data, roles)
        flat[f"{prefix}_nodes"] = group.get("nodes")
        flat[f"{prefix}_devices"] = group.get("devices")
        flat[f"{prefix}_media_type"] = group.get("media_type", "")
        flat[f"{prefix}_interface"] = group.get("interface", "")
        flat[f"{prefix}_network"] = group.get("network", "")
        flat[f"{prefix}_memory_bytes"] = group.get("memory_bytes")
        flat[f"{prefix}_software_version"] = software_version if group else ""
        flat[f"{prefix}_os_version"] = group.get("os_version", "")
    return flat
