"""Import IO500's history: the results archive in its published layout, the website's
submission records and the lists the website published.

``import_io500(PATH)`` accepts
* a data folder holding an ``io500-archive*/`` directory and the website CSVs
  (``io500-website-submissions-2021.csv``, ``io500-published-lists.csv``; see
  ``io500archive.records``), like ``../shared/data`` or ``examples/io500-sample``;
* a bare archive root in published layout (then without records and lists).

One accepted submission per run: the primary run of ``submission-<N>`` is website submission N
(``io500_id``), further runs of a bundle directory are submissions of their own, website
records without a directory become submissions from the record, and published-list entries
with neither from the list row. The release of a run is the one the website filed it under,
else the one whose window holds the run date. Published lists become frozen historical lists
(``io500archive.published``). Every row is keyed (``external_id``) and updated in place, so a
second import changes nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from django.db import transaction

from accounts.models import Site
from ioscore.results import (
    BW_PHASES,
    ResultFormatError,
    load_run,
    load_summary_lines,
    phase_ranks_from_csv,
    recompute_scores,
)
from submissions.canonical_names import SUBMITTED, match_key, table
from submissions.models import (
    ListRule,
    ListType,
    PhaseResult,
    Release,
    Source,
    Status,
    StorageSystem,
    Submission,
)
from submissions.releases import (
    PUBLICATION_DATES,
    model_defaults,
    release_for_run_date,
    release_for_year,
)
from submissions.run_rows import json_safe, phase_rows

from .layout import ArchiveDir, ArchiveRun, scan_archive, stamp_day
from .records import (
    LISTS_FILE,
    RECORD_PHASES,
    RECORDS_FILE,
    WEBSITE_ID_OF_ARCHIVE_DIR,
    ImportInputError,
    PublishedLists,
    PublishedRow,
    integer,
    number,
    read_published_lists,
    read_records,
    release_name,
)
from .store import Entities, SubmissionRows, write_submissions

NO_INSTITUTION = "(institution not given)"
__all__ = ["ImportInputError", "ImportReport", "import_io500"]


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    directories: list[str] = field(default_factory=list)  # one line per archive directory
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (what, reason)
    notes: list[str] = field(default_factory=list)
    lists: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        out = [
            f"submissions: {self.created} created, {self.updated} updated, "
            f"{len(self.skipped)} skipped",
            "rows now: " + ", ".join(f"{k}={v}" for k, v in sorted(self.counts.items())),
        ]
        out += self.directories
        out += [f"skipped {what}: {reason}" for what, reason in self.skipped]
        out += [f"note {note}" for note in self.notes]
        out += self.lists
        return out


@dataclass
class Inputs:
    archive: Path | None
    records: dict[int, dict[str, str]]
    published: PublishedLists | None


def locate(path: Path) -> Inputs:
    """What PATH holds: an archive (itself or an ``io500-archive*`` folder) and the CSVs."""
    path = Path(path)
    if not path.is_dir():
        raise ImportInputError(f"{path}: not a directory")
    archives = sorted(p for p in path.glob("io500-archive*") if p.is_dir())
    if len(archives) > 1:
        raise ImportInputError(f"{path}: several archives ({', '.join(p.name for p in archives)})")
    archive = archives[0] if archives else None
    if archive is None and any(path.rglob("submission-*")):
        archive = path  # a bare archive root in published layout
    records = read_records(path / RECORDS_FILE) if (path / RECORDS_FILE).is_file() else {}
    published = read_published_lists(path / LISTS_FILE) if (path / LISTS_FILE).is_file() else None
    if archive is None and not records and published is None:
        raise ImportInputError(
            f"{path}: no IO500 data (no submission-<N> directories, no {RECORDS_FILE}, "
            f"no {LISTS_FILE})"
        )
    return Inputs(archive, records, published)


def _release(acronym: str, cache: dict[str, Release]) -> Release:
    """The release row of a historic acronym; an imported (``historic``) row follows the
    built-in table when that changed, a release the operator created is left alone."""
    if acronym not in cache:
        defaults = model_defaults(acronym)
        release, created = Release.objects.get_or_create(acronym=acronym, defaults=defaults)
        changed = [k for k, v in defaults.items() if getattr(release, k) != v]
        if not created and release.historic and changed:
            for key in changed:
                setattr(release, key, defaults[key])
            release.save(update_fields=changed)
        cache[acronym] = release
    return cache[acronym]


def _aware(value: datetime | None) -> datetime | None:
    if value is None or not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _record_day(record: dict[str, str]) -> date | None:
    """The website's submission date (used only for records that name no release)."""
    try:
        return date.fromisoformat(record.get("information_submission_date", "")[:10])
    except ValueError:
        return None


def _external_id(number_: int, member: str) -> str:
    if not member:
        return f"io500:{number_}"
    key = f"io500:{number_}:{member}"
    if len(key) <= 64:
        return key
    return f"io500:{number_}:{hashlib.sha1(member.encode()).hexdigest()[:16]}"


@dataclass
class Facts:
    """Everything one submission row is written from (run, website record, list row)."""

    external_id: str
    io500_id: int | None
    release: str
    institution: str
    system: str
    filesystem: str
    run: Any = None
    run_dir: str = ""
    day: date | None = None
    record: dict[str, str] = field(default_factory=dict)
    list_row: PublishedRow | None = None
    client_nodes: int | None = None
    notes: list[str] = field(default_factory=list)
    # Archive runs: the folder that stands for the file system (often its name, not its
    # type) and the website id describing the directory (also for its further runs).
    fs_folder: str = ""
    directory_id: int | None = None


@dataclass
class Names:
    """A submission's descriptive names: ``given`` as the source said them, ``canonical`` as
    stored, and the archive folder that stood for the file system ("" if none)."""

    given: dict[str, str]
    canonical: dict[str, str]
    fs_name: str
    fs_folder: str


# Writes the lists the website published (``io500archive.published.import_published_lists``):
# passed in by the command, since rankings builds on submissions and not the reverse.
ListsWriter = Callable[
    [PublishedLists, dict[int, Submission], dict[int, dict[str, str]], Callable[[str], Release]],
    list[str],
]


class Importer:
    def __init__(self, inputs: Inputs, write_lists: ListsWriter) -> None:
        self.inputs = inputs
        self.write_lists = write_lists
        self.report = ImportReport()
        self.releases: dict[str, Release] = {}
        self.by_io500_id: dict[int, Submission] = {}
        self.list_rows = self.first_list_rows()
        # Archive folder names standing for a file system: a record or list row "stating"
        # one of them as the FS type (nrsv) stated the FS name, not its type.
        self.fs_folders: set[str] = set()
        # Student Cluster Competition entries are only ever on the SCC list (LEADERBOARD-RULES §6).
        scc_slugs = set(ListType.objects.filter(rule=ListRule.SCC).values_list("slug", flat=True))
        self.scc_ids = {
            row.web_id
            for row in (inputs.published.rows if inputs.published else [])
            if row.slug in scc_slugs
        }

    # --- archive -------------------------------------------------------------------------

    def archive_facts(self) -> list[Facts]:
        if self.inputs.archive is None:
            return []
        directories, skipped = scan_archive(self.inputs.archive)
        self.report.skipped += skipped
        facts: list[Facts] = []
        self.fs_folders = {match_key(d.filesystem) for d in directories}
        for directory in directories:
            loaded = [(run, self._load(directory, run)) for run in directory.runs]
            primary_day = next((day for _run, (_r, day, _e) in loaded if day), None)
            names = []
            for run, (result, day, error) in loaded:
                where = f"{directory.relpath}/{run.member}" if run.member else directory.relpath
                if error is not None:
                    self.report.skipped.append((where, error))
                    continue
                fact = self._run_facts(directory, run, result, day or primary_day)
                if day is None and primary_day is not None:
                    fact.notes.append("run date taken from the directory's dated run")
                facts.append(fact)
                names.append(fact.external_id)
            self.report.notes += [f"{directory.relpath}: {note}" for note in directory.notes]
            self.report.directories.append(
                f"directory {directory.relpath}: {len(names)} run(s) -> {', '.join(names)}"
                if names
                else f"directory {directory.relpath}: no readable run"
            )
        return facts

    @staticmethod
    def _load(directory: ArchiveDir, run: ArchiveRun) -> tuple[Any, date | None, str | None]:

        try:
            if run.summary_text is not None:
                result = load_summary_lines(run.summary_text, run.source)
            else:
                result = load_run(run.run_dir)
        except ResultFormatError as exc:
            return None, None, f"unreadable result files: {exc}"
        start = result.start.date() if isinstance(result.start, datetime) else None
        day = start or run.day or stamp_day(result.timestamp or "")
        return result, day, None

    def _run_facts(
        self, directory: ArchiveDir, run: ArchiveRun, result: Any, day: date | None
    ) -> Facts:
        io500_id = (
            WEBSITE_ID_OF_ARCHIVE_DIR.get(directory.number, directory.number)
            if run.is_primary
            else None
        )
        record = self.inputs.records.get(io500_id, {}) if io500_id is not None else {}
        fact = Facts(
            external_id=_external_id(directory.number, run.member),
            io500_id=io500_id,
            release="",
            institution=directory.institution,
            system=directory.system,
            filesystem=directory.filesystem,
            run=result,
            run_dir=str(run.run_dir.relative_to(self.inputs.archive or run.run_dir)),
            day=day,
            record=record,
            client_nodes=directory.client_nodes,
            fs_folder=directory.filesystem,
            directory_id=WEBSITE_ID_OF_ARCHIVE_DIR.get(directory.number, directory.number),
        )
        if not run.is_primary:
            fact.notes.append(f"further run of bundle directory submission-{directory.number}")
        fact.release = self._release_of(fact, directory.year)
        return fact

    def _release_of(self, fact: Facts, year: int | None) -> str:
        named = release_name(fact.record.get("release", ""))
        if named in PUBLICATION_DATES:
            return named
        if fact.list_row is not None and fact.list_row.web_release in PUBLICATION_DATES:
            return fact.list_row.web_release
        if fact.day is not None and (acronym := release_for_run_date(fact.day)):
            return acronym
        if year is not None and (acronym := release_for_year(year)):
            fact.notes.append(f"release {acronym} guessed from the directory year (no run date)")
            return acronym
        return ""

    # --- website records and list rows without a directory -----------------------------

    def first_list_rows(self) -> dict[int, PublishedRow]:
        rows: dict[int, PublishedRow] = {}
        for row in self.inputs.published.rows if self.inputs.published else []:
            rows.setdefault(row.web_id, row)
        return rows

    def record_facts(self, archived: set[int]) -> list[Facts]:
        facts = []
        list_rows = self.first_list_rows()
        for ident, record in sorted(self.inputs.records.items()):
            if ident in archived:
                continue
            row = list_rows.get(ident)
            status = record.get("status", "VALID") or "VALID"
            if status != "VALID" and row is None:
                self.report.skipped.append(
                    (f"website record {ident}", f"status {status} and on no published list")
                )
                continue
            fact = Facts(
                external_id=f"io500:{ident}",
                io500_id=ident,
                release="",
                # A few records lost their institution; the published row still names it.
                institution=record.get("information_institution")
                or (row.institution if row else ""),
                system=record.get("information_system", ""),
                filesystem=record.get("information_filesystem_type", ""),
                record=record,
                list_row=row,
                day=_record_day(record),
                notes=["no archive directory: data from the website record"],
            )
            fact.release = self._release_of(fact, None)
            facts.append(fact)
        return facts

    def list_row_facts(self, known: set[int]) -> list[Facts]:
        if self.inputs.published is None:
            return []
        facts: dict[int, Facts] = {}
        for row in self.inputs.published.rows:
            if row.web_id in known or row.web_id in facts:
                continue
            fact = Facts(
                external_id=f"io500:{row.web_id}",
                io500_id=row.web_id,
                release="",
                institution=row.institution,
                system=row.system,
                filesystem=row.filesystem,
                list_row=row,
                client_nodes=row.client_nodes,
                notes=["no archive directory and no website record: data from the list row"],
            )
            fact.release = self._release_of(fact, None)
            facts[row.web_id] = fact
        return list(facts.values())

    # --- writing ---------------------------------------------------------------------------

    def run(self) -> ImportReport:
        facts = self.archive_facts()
        archived = {f.io500_id for f in facts if f.io500_id is not None}
        facts += self.record_facts(archived)
        facts += self.list_row_facts(archived | set(self.inputs.records))
        with transaction.atomic():
            self.entities = Entities()
            items = []
            for fact in facts:
                if not fact.release:
                    self.report.skipped.append(
                        (fact.external_id, "no release: no website record, run date or year")
                    )
                    continue
                items.append((fact, self.rows(fact)))
            write_submissions([rows for _fact, rows in items])
            for fact, rows in items:
                assert rows.submission is not None
                if fact.io500_id is not None:
                    self.by_io500_id[fact.io500_id] = rows.submission
                if rows.created:
                    self.report.created += 1
                else:
                    self.report.updated += 1
            if self.inputs.published is not None:
                self.report.lists += self.write_lists(
                    self.inputs.published,
                    self.by_io500_id,
                    self.inputs.records,
                    lambda acronym: _release(acronym, self.releases),
                )
        self.report.counts.update(
            releases=Release.objects.filter(historic=True).count(),
            sites=Site.objects.count(),
            storage_systems=StorageSystem.objects.count(),
            imported_submissions=Submission.objects.filter(source=Source.IO500_IMPORT).count(),
            phases=PhaseResult.objects.filter(submission__source=Source.IO500_IMPORT).count(),
            phases_with_rank_data=PhaseResult.objects.filter(submission__source=Source.IO500_IMPORT)
            .exclude(ranks=[])
            .count(),
        )
        return self.report

    def _directory_says(self, fact: Facts) -> tuple[str, str]:
        """(FS type, vendor) that the website record or first published-list row of an archive
        run's directory states: what a further run of a bundle, or a run the website never
        had a record for, is known by."""
        if fact.directory_id is None:
            return "", ""
        record = self.inputs.records.get(fact.directory_id, {})
        row = self.list_rows.get(fact.directory_id)
        fs_type = record.get("information_filesystem_type") or (row.filesystem if row else "")
        vendor = record.get("information_storage_vendor") or (row.storage_vendor if row else "")
        return fs_type, vendor

    def _names(self, fact: Facts) -> Names:
        """Institution, vendor and FS type as given and canonical (``canonical_names``)."""
        record, row, names = fact.record, fact.list_row, table()
        institution = record.get("information_institution") or fact.institution
        fs_given = record.get("information_filesystem_type") or fact.filesystem
        fs_name = record.get("information_filesystem_name") or fs_given
        vendor = record.get("information_storage_vendor") or (row.storage_vendor if row else "")
        directory_fs, directory_vendor = self._directory_says(fact)
        vendor = vendor or directory_vendor
        # The archive folder names the file system (a record or list row may repeat that name
        # as its "type"); its type comes from the table, the directory's record or list row,
        # else it is "unknown" (never the folder name).
        folder = ""
        if fact.fs_folder and not record.get("information_filesystem_type"):
            folder = fact.fs_folder
        elif fs_given and not names.is_fs_type(fs_given) and match_key(fs_given) in self.fs_folders:
            folder = fs_given
        if folder:
            fs_type = names.fs_type_of_folder(folder, directory_fs)
        else:
            fs_type = names.fs_type(fs_given, fs_name) if fs_given else ""
        return Names(
            given={"institution": institution, "storage_vendor": vendor, "fs_type": fs_given},
            canonical={
                "institution": names.canonical("institution", institution) if institution else "",
                "storage_vendor": names.canonical("storage_vendor", vendor) if vendor else "",
                "fs_type": fs_type,
            },
            fs_name=fs_name,
            fs_folder=folder,
        )

    def rows(self, fact: Facts) -> SubmissionRows:
        """The rows one fact becomes (entities are looked up or created here)."""
        record, row, run = fact.record, fact.list_row, fact.run
        release = _release(fact.release, self.releases)
        system_name = record.get("information_system") or fact.system
        names = self._names(fact)
        canonical = names.canonical
        # The site published a few entries without an institution; they stay listed as shown.
        site = self.entities.site(canonical["institution"] or NO_INSTITUTION)
        client_system = self.entities.client_system(site, system_name)
        storage = self.entities.storage_system(
            site, client_system, names.fs_name, canonical["fs_type"], canonical["storage_vendor"]
        )

        scores = recompute_scores(run) if run is not None else None
        bw: float | None
        md: float | None
        total: float | None
        if scores is not None:
            bw, md, total = scores.bw, scores.md, scores.total
            if run.total_formula == "product":
                # SC17's script printed BW x MD as TOTAL; IO500 ranks sqrt(BW x MD) and the
                # printed number stays in printed_total, shown as printed.
                total = math.sqrt(bw * md) if bw > 0 and md > 0 else 0.0
                fact.notes.append("file prints TOTAL = BW x MD; ranked by sqrt(BW x MD)")
        elif record:
            bw, md, total = (number(record.get(k)) for k in ("io500_bw", "io500_md", "io500_score"))
        else:
            assert row is not None
            bw, md, total = row.bw, row.md, row.score
        when = fact.day or release.submission_deadline
        created_at = datetime(when.year, when.month, when.day, tzinfo=UTC)
        printed = run.printed if run is not None else None
        values: dict[str, Any] = {
            "io500_id": fact.io500_id,
            "release_id": release.pk,
            "site_id": site.pk,
            "client_system_id": client_system.pk,
            "storage_system_id": storage.pk,
            "status": Status.ACCEPTED,
            "source": Source.IO500_IMPORT,
            "run_dir": fact.run_dir,
            "run_format": run.format if run is not None else "",
            "benchmark_version": (run.version or "") if run is not None else "",
            "run_mode": (run.mode or "") if run is not None else "",
            "run_start": _aware(run.start) if run is not None else None,
            "run_end": _aware(run.end) if run is not None else None,
            "procs": run.procs if run is not None else None,
            "score_bw": bw,
            "score_md": md,
            "score_total": total,
            "score_valid": scores.valid if scores is not None else None,
            "printed_total": printed.total if printed is not None else None,
            "extended_total": (
                run.printed_extended.total if run is not None and run.printed_extended else None
            ),
            "config": run.config if run is not None else {},
            "config_hash": (run.config_hash or "") if run is not None else "",
            "score_hash": (run.score_hash or "") if run is not None else "",
            "ten_node_eligible": (
                record.get("information_10_node_challenge") == "1" if record else None
            ),
            "scc": fact.io500_id in self.scc_ids,
            "note": "; ".join(fact.notes),
            "submitted_at": created_at,
            "created": created_at,
        }
        return SubmissionRows(
            external_id=fact.external_id,
            values=values,
            phases=_phase_rows(run, record),
            system=_system_values(fact, values, system_name, names),
        )


def _phase_rows(run: Any, record: dict[str, str]) -> list[dict[str, Any]]:

    if run is not None:
        rows = phase_rows(run)
        if run.run_dir and run.format != "bash":
            # The C app's per-rank CSVs, stored and plotted like the suite's own ranks (only
            # the fields they carry: a million ranks over the archive stay compact); above
            # the rank-detail threshold in the suite's summary form (Aurora: 62,400 ranks).
            for row in rows:
                if not row["ranks"]:
                    ranks, summary = phase_ranks_from_csv(Path(run.run_dir), row["name"])
                    row["ranks"] = [_carried(rank) for rank in ranks]
                    if summary is not None:
                        row["rank_summary"] = json_safe(dataclasses.asdict(summary))
        return rows
    rows = []
    for order, (name, column) in enumerate(RECORD_PHASES.items()):
        value = number(record.get(column))
        if value is None:
            continue
        bw = name in BW_PHASES
        rows.append(
            {
                "name": name,
                "order": order,
                "value": value,
                "unit": "GiB/s" if bw else "kIOPS",
                "group": "bw" if bw else "md",
                "extra": {"source": "IO500 website record"},
            }
        )
    return rows


def _carried(rank: Any) -> dict[str, Any]:
    """A CSV rank as stored: only the fields the file carries."""
    return {key: value for key, value in vars(rank).items() if value is not None}


def _system_values(
    fact: Facts, submission: dict[str, Any], system: str, names: Names
) -> dict[str, Any]:
    info = fact.record

    def text(key: str) -> str:
        return (info.get(key) or "").strip()

    def whole(key: str) -> int | None:
        return integer(info.get(key))

    # Declared by the submitter (website) first; else what the run's own files state.
    client_nodes = whole("information_client_nodes") or fact.client_nodes
    raw_url = text("information_data")
    flat = {
        **names.canonical,
        **{SUBMITTED[key]: value for key, value in names.given.items()},
        "system": system,
        "fs_name": names.fs_name,
        "fs_version": text("information_filesystem_version"),
        "client_nodes": client_nodes,
        "procs_per_node": whole("information_client_procs_per_node"),
        "total_procs": whole("information_client_total_procs") or submission["procs"],
        "client_os": text("information_client_operating_system")[:100],
        "client_os_version": text("information_client_operating_system_version")[:100],
        "client_kernel": text("information_client_kernel_version")[:100],
        "md_nodes": whole("information_md_nodes"),
        "md_devices": whole("information_md_storage_devices"),
        "md_media_type": text("information_md_storage_type")[:100],
        "md_interface": text("information_md_storage_interface")[:100],
        "md_network": text("information_md_network")[:100],
        "md_software_version": text("information_md_software_version")[:100],
        "md_os_version": text("information_md_operating_system_version")[:100],
        "ds_nodes": whole("information_ds_nodes"),
        "ds_devices": whole("information_ds_storage_devices"),
        "ds_media_type": text("information_ds_storage_type")[:100],
        "ds_interface": text("information_ds_storage_interface")[:100],
        "ds_network": text("information_ds_network")[:100],
        "ds_software_version": text("information_ds_software_version")[:100],
        "ds_os_version": text("information_ds_operating_system_version")[:100],
        "raw_files_url": raw_url[:500] if raw_url.startswith(("http://", "https://")) else "",
    }
    # The historical site data is flat; keep exactly what it said as the structured tree.
    data: dict[str, Any] = {
        key: value for key, value in info.items() if key.startswith("information_") and value
    }
    if fact.client_nodes is not None:
        data["client_nodes_in_run_files"] = fact.client_nodes
    if names.fs_folder:
        data["fs_type_from_archive_folder"] = names.fs_folder  # canonicalise_names reads it
    return {"schema_version": "io500-website-record", "data": data, **flat}


def import_io500(path: Path, write_lists: ListsWriter) -> ImportReport:
    return Importer(locate(Path(path)), write_lists).run()
