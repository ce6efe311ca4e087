"""One public record per list entry: the shape shared by the CSV, the JSON download and the
API, so all three give the same numbers. Never contains the submitter's contact. A what-if
view (``whatif``) adds ``WHATIF_FIELDS`` to each record, beside the official ones."""

from __future__ import annotations

from typing import Any

from ioscore.results import RND4K_READ
from ioscore_site.finite_json import finite

from .listview import LEVEL_LABELS
from .models import ListEntry, RankedList
from .phases import PHASE_FIELDS, PHASES
from .whatif import Scoring

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
RECORD_FIELDS: tuple[str, ...] = (
    "submission_id",
    "io500_id",
    "rank",
    "bw_rank",
    "md_rank",
    "score",
    "bw",
    "md",
    "list",
    "release",
    "list_revision",
    "origin_release",
    "carried_over",
    "institution",
    "system",
    "storage_vendor",
    "fs_type",
    "fs_name",
    "fs_version",
    "client_nodes",
    "procs_per_node",
    "total_procs",
    "reproducibility",
    "award_score",
    "award_bw",
    "award_md",
    *PHASES,
)


def entry_record(entry: ListEntry, ranked_list: RankedList) -> dict[str, Any]:
    """``entry`` must come from ``listview.annotated_entries(..., records=True)``."""
    e: Any = entry
    record: dict[str, Any] = {
        "submission_id": e.submission_id,
        "io500_id": e.io500_id,
        "rank": e.rank,
        "bw_rank": e.bw_rank,
        "md_rank": e.md_rank,
        "score": e.score,
        "bw": e.bw,
        "md": e.md,
        "list": ranked_list.list_type.slug,
        "release": ranked_list.release.acronym,
        "list_revision": ranked_list.revision,
        "origin_release": e.origin_acronym,
        "carried_over": e.carried_over,
        "institution": e.institution,
        "system": e.system,
        "storage_vendor": e.storage_vendor,
        "fs_type": e.fs_type,
        "fs_name": e.fs_name,
        "fs_version": e.fs_version,
        "client_nodes": e.client_nodes,
        "procs_per_node": e.procs_per_node,
        "total_procs": e.total_procs,
        "reproducibility": LEVEL_LABELS.get(e.level, ""),
        "award_score": e.award_score,
        "award_bw": e.award_bw,
        "award_md": e.award_md,
    }
    for phase, field in zip(PHASES, PHASE_FIELDS, strict=True):
        record[phase] = getattr(e, field)
    return dict(finite(record))


# Under a what-if view: its name, the entry's score and rank under it, the rank change against
# the official list (positive: moved up) and, for an unranked entry, why.
WHATIF_FIELDS: tuple[str, ...] = (
    "whatif_view",
    "whatif_score",
    "whatif_rank",
    "whatif_rank_change",
    "whatif_unranked_reason",
    RND4K_READ,  # measured; an edition's stand-in comes from the ior-easy-read column
)


def whatif_record(entry: ListEntry, scoring: Scoring) -> dict[str, Any]:
    """``entry`` must come from ``listview.WhatIfRows`` (it carries its ``whatif``)."""
    placing = getattr(entry, "whatif", None)
    record = {
        "whatif_view": scoring.title,
        "whatif_score": placing.score if placing else None,
        "whatif_rank": placing.rank if placing else None,
        "whatif_rank_change": placing.change if placing else None,
        "whatif_unranked_reason": placing.reason if placing else "",
        RND4K_READ: placing.rnd4k if placing else None,
    }
    return dict(finite(record))


def scoring_record(scoring: Scoring) -> dict[str, Any]:
    """The what-if view itself, for the JSON download and the API."""
    return {
        "official": False,
        "edition": scoring.edition.slug if scoring.edition is not None else None,
        "formula": scoring.formula.text if scoring.formula is not None else None,
        "title": scoring.title,
        "explanation": scoring.explanation,
    }


def csv_cell(value: Any) -> Any:
    """Text a spreadsheet would run as a formula (``= + - @``, tab, CR first) starts with an
    apostrophe instead; numbers are written as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value
