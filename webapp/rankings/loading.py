"""Loading what the list builder needs from the database, in a few bulk queries.

``load_facts`` reads every accepted, scored submission as ``ranking.Facts`` (two queries
plus the storage-system merges); ``load_pins`` the committee's storage-system pins;
``stored_entries`` a stored list back as ranked entries (to compare with a rebuild) and
``stored_candidates`` as the candidates the next release carries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from submissions.models import PhaseResult, Source, Status, StorageSystem, Submission

from .models import RankedList, StoragePin
from .phases import PHASE_FIELDS, PHASES
from .ranking import DISPLAY_FIELDS, Candidate, Display, Facts, RankedEntry


def load_facts(phases_of: Iterable[int] | None = None) -> dict[int, Facts]:
    """Every accepted submission with a score, in two queries (plus storage-system merges).

    Only a release's own new entries take their phase values from the submission (carried
    entries keep the stored ones), so ``phases_of`` can name the releases whose submissions'
    phases are read; the others get ``phases=()``, which no list entry can be written from.
    At 100,000 submissions the phases are 1.2 million rows, most of the load.
    """
    canonical = _canonical_storage_ids()
    rows = Submission.objects.filter(
        status=Status.ACCEPTED,
        score_total__isnull=False,
        score_bw__isnull=False,
        score_md__isnull=False,
    ).values(
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
        "system_description__client_nodes",
        "questionnaire__assigned_level",
        "storage_system_id",
        "site__name",
        "client_system__name",
        "storage_system__fs_type",
        "storage_system__vendor",
        "storage_system__name",
        "procs",
        "source",
        *(f"system_description__{f}" for f in _SD_FIELDS),
    )
    phase_rows = PhaseResult.objects.filter(submission__status=Status.ACCEPTED, name__in=PHASES)
    if phases_of is not None:
        phase_rows = phase_rows.filter(submission__release_id__in=list(phases_of))
    phase_values: dict[int, dict[str, float]] = defaultdict(dict)
    for sid, name, value in phase_rows.values_list("submission_id", "name", "value"):
        phase_values[sid][name] = value
    with_phases = None if phases_of is None else set(phases_of)
    facts: dict[int, Facts] = {}
    for row in rows:
        sid = row["id"]
        storage = row["storage_system_id"]
        key = ("storage", canonical.get(storage, storage)) if storage else ("submission", sid)
        facts[sid] = Facts(
            id=sid,
            release_id=row["release_id"],
            release_date=row["release__release_date"],
            score=row["score_total"],
            bw=row["score_bw"],
            md=row["score_md"],
            phases=(
                tuple(phase_values[sid].get(p) for p in PHASES)
                if with_phases is None or row["release_id"] in with_phases
                else ()
            ),
            submitted_at=row["submitted_at"] or row["created"],
            score_valid=row["score_valid"],
            valid_from=row["valid_from__release_date"],
            valid_to=row["valid_to__release_date"],
            target_list=row["target_list"],
            opt_in=row["opt_in_ranking"],
            scc=row["scc"],
            production_eligible=row["production_eligible"],
            ten_node_eligible=row["ten_node_eligible"],
            client_nodes=row["system_description__client_nodes"],
            level=row["questionnaire__assigned_level"] or "",
            storage_key=key,
            display=_display(row),
            historic_import=row["source"] == Source.IO500_IMPORT,
        )
    return facts


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


def _display(row: dict[str, object]) -> Display:
    """Flattened description first; the entities fill what the description leaves blank."""

    def text(*keys: str) -> str:
        for key in keys:
            value = row.get(key)
            if value:
                return str(value)
        return ""

    sd = "system_description__"
    return Display(
        institution=text(f"{sd}institution", "site__name"),
        system=text(f"{sd}system", "client_system__name"),
        storage_vendor=text(f"{sd}storage_vendor", "storage_system__vendor"),
        fs_type=text(f"{sd}fs_type", "storage_system__fs_type"),
        fs_name=text(f"{sd}fs_name", "storage_system__name"),
        fs_version=text(f"{sd}fs_version"),
        client_nodes=row.get(f"{sd}client_nodes"),  # type: ignore[arg-type]
        procs_per_node=row.get(f"{sd}procs_per_node"),  # type: ignore[arg-type]
        total_procs=row.get(f"{sd}total_procs") or row.get("procs"),  # type: ignore[arg-type]
        level=text("questionnaire__assigned_level"),
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


ENTRY_VALUE_FIELDS = (
    *CANDIDATE_FIELDS,
    "carried_over",
    "rank",
    "bw_rank",
    "md_rank",
    "award_score",
    "award_bw",
    "award_md",
    "pinned",
    "displaced",
    *DISPLAY_FIELDS,
)


def stored_candidates(ranked_list: RankedList) -> list[Candidate]:
    """A stored list as the candidates the next release carries: only the frozen numbers,
    since carrying marks them carried and takes the display from the submission's facts
    (``membership.ReleaseBuilder.carried``); a third of the columns of ``stored_entries``."""
    phases = slice(4, 4 + len(PHASE_FIELDS))
    return [
        Candidate(
            submission_id=row[0],
            score=row[1],
            bw=row[2],
            md=row[3],
            phases=row[phases],
            submitted_at=row[-2],
            origin_release_id=row[-1],
            carried=True,
        )
        for row in ranked_list.entries.order_by("position").values_list(*CANDIDATE_FIELDS)
    ]


def stored_entries(ranked_list: RankedList) -> list[RankedEntry]:
    # Only de-duplicated lists record displaced runs: elsewhere skip decoding the JSON.
    fields = ENTRY_VALUE_FIELDS
    if not ranked_list.list_type.award:
        fields = tuple(f for f in ENTRY_VALUE_FIELDS if f != "displaced")
    at = {name: index for index, name in enumerate(fields)}  # by index: 100,000s of rows
    phases = [at[f] for f in PHASE_FIELDS]
    display = [(f, at[f]) for f in DISPLAY_FIELDS]
    displaced = at.get("displaced")
    entries = []
    for position, row in enumerate(
        ranked_list.entries.order_by("position").values_list(*fields), start=1
    ):
        candidate = Candidate(
            submission_id=row[at["submission_id"]],
            score=row[at["score"]],
            bw=row[at["bw"]],
            md=row[at["md"]],
            phases=tuple(row[i] for i in phases),
            submitted_at=row[at["submitted_at"]],
            origin_release_id=row[at["origin_release_id"]],
            carried=row[at["carried_over"]],
            display=Display(**{f: row[i] for f, i in display}),
        )
        entries.append(
            RankedEntry(
                candidate,
                position=position,
                rank=row[at["rank"]],
                bw_rank=row[at["bw_rank"]],
                md_rank=row[at["md_rank"]],
                award_score=row[at["award_score"]],
                award_bw=row[at["award_bw"]],
                award_md=row[at["award_md"]],
                pinned=row[at["pinned"]],
                displaced=list(row[displaced] or []) if displaced is not None else [],
            )
        )
    return entries
