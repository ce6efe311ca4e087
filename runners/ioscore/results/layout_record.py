"""A launch's layout.json as the results library reads it: which storage servers hold each
rank's data (written by ``ioscore layout``, ``ioscore.fslayout``), and whose data each rank of
a phase accessed (result.json's ``data_ranks``). Loading a run attaches the servers to the
phases that record their accesses, so the run carries them where it is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ioscore.results.model import PhaseResult

LAYOUT_FILE = "layout.json"


def load(result_dir: Path) -> dict[int, list[str]]:
    """Servers of each rank's data from a launch's layout.json (empty when absent)."""
    try:
        raw = json.loads((result_dir / LAYOUT_FILE).read_text())
    except (OSError, ValueError):
        return {}
    ranks = raw.get("ranks") if isinstance(raw, dict) else None
    if not isinstance(ranks, dict):
        return {}
    return {
        int(rank): [str(s) for s in servers]
        for rank, servers in ranks.items()
        if str(rank).isdigit() and isinstance(servers, list)
    }


def attach(phases: Any, result_dir: Path) -> None:
    """Beside a run's result.json, layout.json's servers go into each phase that records whose
    data its ranks accessed (``extra["layout"]``), so the run carries them where it is stored
    (the portal keeps phases, not the run's other files)."""
    layout = load(result_dir)
    if not layout:
        return
    try:  # the phases whose files were probed, when the record says (an IO500 run's ior-easy)
        named = json.loads((result_dir / LAYOUT_FILE).read_text()).get("phases")
    except (OSError, ValueError, AttributeError):
        named = None
    for phase in phases:
        if isinstance(named, list) and phase.name not in named:
            continue
        if data_ranks(phase) is not None:
            phase.extra["layout"] = {str(rank): servers for rank, servers in layout.items()}


def phase_layout(phase: PhaseResult) -> dict[int, list[str]]:
    """The servers ``attach`` put into a phase (empty when none)."""
    raw = phase.extra.get("layout")
    if not isinstance(raw, dict):
        return {}
    return {
        int(rank): [str(s) for s in servers]
        for rank, servers in raw.items()
        if str(rank).isdigit() and isinstance(servers, list)
    }


def data_ranks(phase: PhaseResult) -> dict[int, int] | None:
    """Rank -> the rank whose data it accessed, as result.json's ``data_ranks`` records it
    (None when the phase does not: older files, the summary form, non-IOR phases)."""
    raw = phase.extra.get("data_ranks")
    if not isinstance(raw, list) or not all(type(v) is int for v in raw):
        return None
    return {rank: of for rank, of in enumerate(raw) if of >= 0}
