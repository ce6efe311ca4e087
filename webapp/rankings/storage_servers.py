"""Throughput per storage server on a run's page: where the run carried the file-layout probe's
record (layout.json, stored in its IOR phases), each server's ranks and their mean work rate,
the slow one named by the library's rule (``ioscore.fslayout``, as `ioscore report`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ioscore import fslayout
from submissions.run_rows import library_phase


def server_tables(phases: Iterable[Any]) -> list[dict[str, Any]]:
    """One table per phase whose ranks' files have a recorded layout."""
    tables = []
    for row in phases:
        phase = library_phase(row)
        layout = fslayout.phase_layout(phase)
        if not layout:
            continue
        rates = fslayout.server_rates(phase, fslayout.accessed_servers(phase, layout))
        if not rates:
            continue
        tables.append(
            {
                "phase": phase.name,
                "servers": [
                    {
                        "server": r.server,
                        "ranks": len(r.ranks),
                        # work rates are bytes/s for bandwidth phases: shown in MiB/s
                        "rate": r.mean_rate / (1 << 20)
                        if phase.unit.endswith("B/s")
                        else r.mean_rate,
                        "slow": r.slow_reason,
                    }
                    for r in sorted(rates, key=lambda r: r.server)
                ],
                "unit": "MiB/s" if phase.unit.endswith("B/s") else f"{phase.unit} (items/s)",
                "slow": sorted(r.server for r in rates if r.slow_reason),
            }
        )
    return tables
