"""Loading what the list builder needs from the database, in a few bulk queries.

``load_facts`` reads every accepted, scored submission as ``ranking.Facts`` (two queries
plus the storage-system merges); ``load_pins`` the committee's storage-system pins;
``stored_entries`` a stored list back as ranked entries (to compare with a rebuild) and
``stored_candidates`` as the candidates the next release carries.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from psycopg.types.datetime import TimestamptzLoader

from rankings.models import RankedList, StoragePin
from rankings.phases import PHASE_FIELDS, PHASES
from submissions.models import PhaseResult, Source, Status, StorageSystem, Submission

from .ranking import DISPLAY_FIELDS, Candidate, Display, Facts, RankedEntry


def rows_of(queryset: QuerySet[Any, Any]) -> list[tuple[Any, ...]]:
    """The rows of a ``values_list`` queryset in one fetch.

    Django's iterator fetches 100 rows at a time and parses every timestamp through a Python
    time-zone loader; psycopg's own (C) loader gives the same instants (aware, in the
    session's UTC) at a fraction of the cost, which at 100,000 submissions is 600,000
    timestamps per update. Django's field converters do not run: JSON comes as text
    (``json_list`` decodes it)."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        cursor.execute(sql, params)
        return cursor.fetchall()


def json_list(value: str | list[int] | None) -> list[int]:
    """A JSON list column as ``rows_of`` returns it."""
    if isinstance(value, str):
        return list(json.loads(value))
    return list(value or [])


_SD = "system_description__"
_SD_FIELDS = (
    "institution",
    "system",
    "storage_vendor",
    "fs_type",
    "fs_name",
    "fs_version",
    "procs_per_node",
    "total_procs",
)
FACT_COLUMNS = (
    "id",
    "release_id",
    "release__release_date",
    "score_total",
    "score_bw",
    "score_md",
    "submitted_at",
    "created",
    "score_valid",
    "valid_from__release_date",
    "valid_to__release_date",
    "target_list",
    "opt_in_ranking",
    "scc",
    "production_eligible",
    "ten_node_eligible",
    f"{_SD}client_nodes",
    "questionnaire__assigned_level",
    "storage_system_id",
    "source",
    # what the list shows (``_display``)
    "site__name",
    "client_system__name",
    "storage_system__fs_type",
    "storage_system__vendor",
    "storage_system__name",
    "procs",
    *(f"{_SD}{f}" for f in _SD_FIELDS),
)


def load_facts(
    phases_of: Iterable[int] | None = None, only: Iterable[int] | None = None
) -> dict[int, Facts]:
    """Every accepted submission with a score (of the ids ``only`` when given), in two
    queries (plus storage-system merges).

    Only a release's own new entries take their phase values from the submission (carried
    entries keep the stored ones), so ``phases_of`` can name the releases whose submissions'
    phases are read; the others get ``phases=()``, which no list entry can be written from.
    At 100,000 submissions the phases are 1.2 million rows, most of the load.
    """
    canonical = _canonical_storage_ids()
    submissions = Submission.objects.filter(
        status=Status.ACCEPTED,
        score_total__isnull=False,
        score_bw__isnull=False,
        score_md__isnull=False,
    )
    phase_rows = PhaseResult.objects.filter(submission__status=Status.ACCEPTED, name__in=PHASES)
    if only is not None:
        ids = list(only)
        submissions = submissions.filter(pk__in=ids)
        phase_rows = phase_rows.filter(submission_id__in=ids)
    rows = rows_of(submissions.values_list(*FACT_COLUMNS))
    if phases_of is not None:
        phase_rows = phase_rows.filter(submission__release_id__in=list(phases_of))
    phase_values: dict[int, dict[str, float]] = defaultdict(dict)
    for sid, name, value in rows_of(phase_rows.values_list("submission_id", "name", "value")):
        phase_values[sid][name] = value
    with_phases = None if phases_of is None else set(phases_of)
    facts: dict[int, Facts] = {}
    for row in rows:
        (
            sid,
            release_id,
            release_date,
            score,
            bw,
            md,
            submitted_at,
            created,
            score_valid,
            valid_from,
            valid_to,
            target_list,
            opt_in,
            scc,
            production_eligible,
            ten_node_eligible,
            client_nodes,
            level,
            storage,
            source,
        ) = row[:20]
        key = ("storage", canonical.get(storage, storage)) if storage else ("submission", sid)
        facts[sid] = Facts(
            id=sid,
            release_id=release_id,
            release_date=release_date,
            score=score,
            bw=bw,
            md=md,
            phases=(
                tuple(phase_values[sid].get(p) for p in PHASES)
                if with_phases is None or release_id in with_phases
                else ()
            ),
            submitted_at=submitted_at or created,
            score_valid=score_valid,
            valid_from=valid_from,
            valid_to=valid_to,
            target_list=target_list,
            opt_in=opt_in,
            scc=scc,
            production_eligible=production_eligible,
            ten_node_eligible=ten_node_eligible,
            client_nodes=client_nodes,
            level=level or "",
            storage_key=key,
            display=_display(client_nodes, level, row[20:]),
            historic_import=source == Source.IO500_IMPORT,
        )
    return facts


def _display(client_nodes: int | None, level: str | None, row: tuple[Any, ...]) -> Display:
    """Flattened description first; the entities fill what the description leaves blank.
    ``row`` is ``FACT_COLUMNS`` from ``site__name`` on."""
    (
        site,
        client_system,
        storage_fs_type,
        storage_vendor,
        storage_name,
        procs,
        institution,
        system,
        vendor,
        fs_type,
        fs_name,
        fs_version,
        procs_per_node,
        total_procs,
    ) = row
    return Display(
        str(institution or site or ""),
        str(system or client_system or ""),
        str(vendor or storage_vendor or ""),
        str(fs_type or storage_fs_type or ""),
        str(fs_name or storage_name or ""),
        str(fs_version or ""),
        client_nodes,
        procs_per_node,
        total_procs or procs,
        str(level or ""),
    )


def _canonical_storage_ids() -> dict[int, int]:
    parent: dict[int, int] = {
        source: target
        for source, target in StorageSystem.objects.filter(merged_into__isnull=False).values_list(
            "id", "merged_into"
        )
        if target is not None
    }
    resolved: dict[int, int] = {}
    for start in parent:
        node, seen = start, {start}
        while node in parent and parent[node] not in seen:
            node = parent[node]
            seen.add(node)
        resolved[start] = node
    return resolved


def storage_ids_of(key: tuple[str, int]) -> list[int]:
    """The storage systems whose runs share a ``Facts.storage_key`` (the system and those
    merged into it); none for a run without a storage system (its own group)."""
    kind, target = key
    if kind != "storage":
        return []
    return [target, *(s for s, t in _canonical_storage_ids().items() if t == target)]


def load_pins() -> dict[str, dict[tuple[str, int], int]]:
    canonical = _canonical_storage_ids()
    pins: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)
    for slug, storage, submission in StoragePin.objects.values_list(
        "list_type__slug", "storage_system_id", "submission_id"
    ):
        pins[slug][("storage", canonical.get(storage, storage))] = submission
    return pins


CANDIDATE_FIELDS = (
    "submission_id",
    "score",
    "bw",
    "md",
    *PHASE_FIELDS,
    "submitted_at",
    "origin_release_id",
)


PLACING_FIELDS = (
    "carried_over",
    "rank",
    "bw_rank",
    "md_rank",
    "award_score",
    "award_bw",
    "award_md",
    "pinned",
)
ENTRY_VALUE_FIELDS = (*CANDIDATE_FIELDS, *PLACING_FIELDS, *DISPLAY_FIELDS, "displaced")

_AT = {name: index for index, name in enumerate(ENTRY_VALUE_FIELDS)}
_PHASES = slice(_AT[PHASE_FIELDS[0]], _AT[PHASE_FIELDS[-1]] + 1)
_DISPLAY = slice(_AT[DISPLAY_FIELDS[0]], _AT[DISPLAY_FIELDS[-1]] + 1)
_SUBMITTED, _ORIGIN = _AT["submitted_at"], _AT["origin_release_id"]


def stored_candidates(ranked_list: RankedList) -> list[Candidate]:
    """A stored list as the candidates the next release carries: only the frozen numbers,
    since carrying marks them carried and takes the display from the submission's facts
    (``membership.ReleaseBuilder.carried``); a third of the columns of ``stored_entries``."""
    rows = rows_of(ranked_list.entries.order_by("position").values_list(*CANDIDATE_FIELDS))
    return [_carried(row) for row in rows]


def stored_candidate(ranked_list: RankedList, submission_id: int) -> Candidate | None:
    """One run's entry of a stored list as ``stored_candidates`` gives it, if it is on it."""
    rows = rows_of(
        ranked_list.entries.filter(submission_id=submission_id).values_list(*CANDIDATE_FIELDS)
    )
    return _carried(rows[0]) if rows else None


def _carried(row: tuple[Any, ...]) -> Candidate:
    return Candidate(
        row[0], row[1], row[2], row[3], row[_PHASES], row[_SUBMITTED], row[_ORIGIN], True
    )


def stored_entries(ranked_list: RankedList) -> list[RankedEntry]:
    """A stored list as ranked entries, in list order (columns by index: 100,000s of rows)."""
    # Only de-duplicated lists record displaced runs: elsewhere skip decoding the JSON.
    award = ranked_list.list_type.award
    fields = ENTRY_VALUE_FIELDS if award else ENTRY_VALUE_FIELDS[:-1]
    rows = rows_of(ranked_list.entries.order_by("position").values_list(*fields))
    carried, rank, bw_rank, md_rank = (_AT[f] for f in PLACING_FIELDS[:4])
    award_score, award_bw, award_md, pinned = (_AT[f] for f in PLACING_FIELDS[4:])
    return [
        RankedEntry(
            Candidate(
                row[0],
                row[1],
                row[2],
                row[3],
                row[_PHASES],
                row[_SUBMITTED],
                row[_ORIGIN],
                row[carried],
                Display(*row[_DISPLAY]),
            ),
            position=position,
            rank=row[rank],
            bw_rank=row[bw_rank],
            md_rank=row[md_rank],
            award_score=row[award_score],
            award_bw=row[award_bw],
            award_md=row[award_md],
            pinned=row[pinned],
            displaced=json_list(row[-1]) if award else [],
        )
        for position, row in enumerate(rows, start=1)
    ]
