"""Import the public IO500 corpus as accepted historical submissions.

Inputs (DIR = the shared data folder):
* ``io500-submissions/index.csv`` — one row per submission directory with its published
  scores; ``io500-submissions/dev/<id>/`` holds the result files (parsed with
  ``ioscore.results``, never re-parsed here).
* ``io500-releases.csv`` — the old IO500 site's per-submission data (semicolon separated;
  list name, submission date, storage vendor, file-system name/type, node counts, …). Its ids
  are not the index ids, so rows are matched on institution + system + score.

The import is idempotent: every submission is keyed by ``external_id = "io500:<id>"`` and
every dependent row is updated in place, so a second run yields the same rows.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Site
from validation.results_api import load_run, recompute_scores, result_format_error

from .models import (
    ClientSystem,
    PhaseResult,
    Release,
    Source,
    Status,
    StorageSystem,
    Submission,
    SubmissionTransition,
    SystemDescription,
)
from .releases import PUBLICATION_DATES, model_defaults, release_for_run_date, release_for_year

INDEX_COLUMNS = (
    "submission_id",
    "institution",
    "system",
    "filesystem",
    "year",
    "io500_release_tag",
    "score_bandwidth",
    "score_iops",
    "score_total",
    "primary_result_summary",
    "legacy_summary_files",
)
RELEASES_COLUMNS = (
    "information_institution",
    "information_system",
    "information_list_name",
    "io500_score",
)
_STAMP = re.compile(r"(\d{4})\.(\d\d)\.(\d\d)-\d\d\.\d\d\.\d\d")


class ImportInputError(Exception):
    """A corpus file is missing or malformed; the message names the file, line and key."""


@dataclass
class ImportReport:
    created: int = 0
    updated: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (id, reason)
    fallbacks: list[tuple[str, str]] = field(default_factory=list)  # (id, reason)
    matched_site_rows: int = 0
    counts: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        out = [
            f"submissions: {self.created} created, {self.updated} updated, "
            f"{len(self.skipped)} skipped",
            f"matched to io500-releases.csv rows: {self.matched_site_rows}",
            "rows now: " + ", ".join(f"{k}={v}" for k, v in sorted(self.counts.items())),
        ]
        out += [f"fallback {sid}: {reason}" for sid, reason in self.fallbacks]
        out += [f"skipped {sid}: {reason}" for sid, reason in self.skipped]
        return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _float(value: str) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _int(value: str) -> int | None:
    number = _float(value)
    return int(number) if number is not None and number == int(number) else None


def read_csv(path: Path, required: Iterable[str], delimiter: str = ",") -> list[dict[str, str]]:
    if not path.is_file():
        raise ImportInputError(f"{path}: file not found")
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle, delimiter=delimiter)
            header = reader.fieldnames or []
            missing = [key for key in required if key not in header]
            if missing:
                raise ImportInputError(f"{path}:1: missing column(s) {', '.join(missing)}")
            rows = []
            for row in reader:
                if None in row:
                    raise ImportInputError(
                        f"{path}:{reader.line_num}: more fields than the header has"
                    )
                rows.append(row)
            return rows
    except UnicodeDecodeError as exc:
        raise ImportInputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except csv.Error as exc:
        raise ImportInputError(f"{path}: malformed CSV ({exc})") from None


class SiteRows:
    """io500-releases.csv rows, looked up by institution + system + score."""

    def __init__(self, rows: list[dict[str, str]]) -> None:
        self.by_key: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in rows:
            key = _norm(row["information_institution"]) + "|" + _norm(row["information_system"])
            self.by_key[key].append(row)

    def match(self, institution: str, system: str, score: float | None) -> dict[str, str] | None:
        if score is None:
            return None
        candidates = [
            row
            for row in self.by_key.get(_norm(institution) + "|" + _norm(system), [])
            if (value := _float(row["io500_score"])) is not None
            and abs(value - score) <= max(0.01, 0.002 * abs(score))
        ]
        if not candidates:
            return None

        # An entry carried over to later lists appears once per list: the earliest is its origin.
        def published(row: dict[str, str]) -> date:
            return PUBLICATION_DATES.get(row["information_list_name"].upper(), date.max)

        return min(candidates, key=published)


def _release(acronym: str) -> Release:
    release, _ = Release.objects.get_or_create(acronym=acronym, defaults=model_defaults(acronym))
    return release


def _run_day(run: Any, row: dict[str, str]) -> date | None:
    if run is not None and run.start is not None:
        return run.start.date() if isinstance(run.start, datetime) else None
    for text in ((run.timestamp if run is not None else None), row["legacy_summary_files"]):
        match = _STAMP.search(text or "")
        if match:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    return None


def _load_primary(run_root: Path, row: dict[str, str]) -> tuple[Any, str | None]:
    """(RunResult or None, reason when the files could not be used)."""
    ResultFormatError = result_format_error()
    primary = row["primary_result_summary"].strip()
    if not run_root.is_dir():
        return None, f"directory {run_root} missing"
    if not primary:
        return None, "no result_summary.txt or result.txt in the corpus directory"
    try:
        return load_run(run_root / Path(primary).parent), None
    except ResultFormatError as exc:
        return None, f"unreadable result files: {exc}"


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)


def import_io500(data_dir: Path) -> ImportReport:
    data_dir = Path(data_dir)
    index_path = data_dir / "io500-submissions" / "index.csv"
    index = read_csv(index_path, INDEX_COLUMNS)
    site_rows = SiteRows(read_csv(data_dir / "io500-releases.csv", RELEASES_COLUMNS, delimiter=";"))
    report = ImportReport()
    seen: set[str] = set()

    with transaction.atomic():
        for line, row in enumerate(index, start=2):
            sid = row["submission_id"].strip()
            if not sid.isdigit():
                report.skipped.append(
                    (sid or f"line {line}", f"{index_path}:{line}: submission_id is not a number")
                )
                continue
            if sid in seen:
                report.skipped.append((sid, f"{index_path}:{line}: duplicate submission_id"))
                continue
            seen.add(sid)
            reasons: list[str] = []
            run, problem = _load_primary(data_dir / "io500-submissions" / "dev" / sid, row)
            scores = recompute_scores(run) if run is not None else None
            if scores is None:
                bw, md, total = (
                    _float(row[k]) for k in ("score_bandwidth", "score_iops", "score_total")
                )
                if bw is None or md is None or total is None:
                    report.skipped.append((sid, f"{problem}; index.csv has no scores either"))
                    continue
                reasons.append(f"scores from index.csv ({problem})")
            else:
                bw, md, total = scores.bw, scores.md, scores.total

            institution = row["institution"].strip()
            system = row["system"].strip()
            site_row = site_rows.match(institution, system, total)
            day = _run_day(run, row)
            if site_row and site_row["information_list_name"].upper() in PUBLICATION_DATES:
                acronym = site_row["information_list_name"].upper()
                report.matched_site_rows += 1
            elif day is not None and (acronym := release_for_run_date(day) or ""):
                pass
            elif (year := _int(row["year"])) and (acronym := release_for_year(year) or ""):
                reasons.append(f"release {acronym} guessed from the year (no run date)")
            else:
                report.skipped.append((sid, "no release: no list name, run date or year"))
                continue
            if not institution:
                report.skipped.append((sid, f"{index_path}:{line}: institution is empty"))
                continue

            release = _release(acronym)
            created = _store(
                sid, row, site_row, run, release, (bw, md, total), scores, day, reasons
            )
            if created:
                report.created += 1
            else:
                report.updated += 1
            if reasons:
                report.fallbacks.append((sid, "; ".join(reasons)))

    report.counts.update(
        releases=Release.objects.filter(historic=True).count(),
        sites=Site.objects.count(),
        storage_systems=StorageSystem.objects.count(),
        imported_submissions=Submission.objects.filter(source=Source.IO500_IMPORT).count(),
        phases=PhaseResult.objects.filter(submission__source=Source.IO500_IMPORT).count(),
    )
    return report


def _store(
    sid: str,
    row: dict[str, str],
    site_row: dict[str, str] | None,
    run: Any,
    release: Release,
    scores3: tuple[float, float, float],
    recomputed: Any,
    day: date | None,
    reasons: list[str],
) -> bool:
    institution = row["institution"].strip()
    system_name = row["system"].strip()
    site, _ = Site.objects.get_or_create(name=institution)
    client_system, _ = ClientSystem.objects.get_or_create(site=site, name=system_name)
    info = site_row or {}
    fs_name = (info.get("information_filesystem_name") or row["filesystem"]).strip()
    fs_type = (info.get("information_filesystem_type") or row["filesystem"]).strip()
    vendor = (info.get("information_storage_vendor") or "").strip()
    storage, _ = StorageSystem.objects.get_or_create(
        site=site,
        client_system=client_system,
        name=fs_name,
        fs_type=fs_type,
        defaults={"vendor": vendor},
    )
    if vendor and not storage.vendor:  # learnt from a later row of the same system
        storage.vendor = vendor
        storage.save(update_fields=["vendor"])
    submitted = info.get("information_submission_date", "")
    try:
        submitted_at = datetime.fromisoformat(submitted).replace(tzinfo=UTC) if submitted else None
    except ValueError:
        submitted_at = None
    if submitted_at is None and day is not None:
        submitted_at = datetime(day.year, day.month, day.day, tzinfo=UTC)
    bw, md, total = scores3
    printed = run.printed if run is not None else None
    values: dict[str, Any] = {
        "release": release,
        "site": site,
        "client_system": client_system,
        "storage_system": storage,
        "status": Status.ACCEPTED,
        "source": Source.IO500_IMPORT,
        "run_dir": str(Path(row["primary_result_summary"]).parent) if run is not None else "",
        "run_format": run.format if run is not None else row.get("output_format", ""),
        "benchmark_version": (run.version or "") if run is not None else "",
        "run_mode": (run.mode or "") if run is not None else "",
        "run_start": _aware(run.start) if run is not None else None,
        "run_end": _aware(run.end) if run is not None else None,
        "procs": run.procs if run is not None else None,
        "score_bw": bw,
        "score_md": md,
        "score_total": total,
        "score_valid": recomputed.valid if recomputed is not None else None,
        "printed_total": printed.total if printed is not None else _float(row["score_total"]),
        "extended_total": (
            run.printed_extended.total if run is not None and run.printed_extended else None
        ),
        "config": run.config if run is not None else {},
        "config_hash": (run.config_hash or "") if run is not None else "",
        "score_hash": (run.score_hash or "") if run is not None else "",
        "ten_node_eligible": (info.get("information_10_node_challenge") == "1") if info else None,
        "note": "; ".join(reasons),
        "submitted_at": submitted_at,
        # Deterministic (idempotent re-import): the run or site date, else the deadline.
        "created": submitted_at
        or datetime.combine(release.submission_deadline, datetime.min.time(), tzinfo=UTC),
    }
    submission, created = Submission.objects.update_or_create(
        external_id=f"io500:{sid}", defaults=values
    )
    if created:
        SubmissionTransition.objects.create(
            submission=submission,
            from_status="",
            to_status=Status.ACCEPTED,
            comment=f"imported from the IO500 corpus (submission {sid})",
            created=submission.created,
        )
    _store_phases(submission, run)
    _store_system(submission, row, info)
    return created


def _store_phases(submission: Submission, run: Any) -> None:
    """Update phases in place (same rows on a re-import); rows come from the same mapping
    the validation task uses."""
    from validation.pipeline import phase_rows

    if run is None:
        submission.phases.all().delete()
        return
    rows = phase_rows(run)
    submission.phases.exclude(name__in=[row["name"] for row in rows]).delete()
    existing = {p.name: p for p in submission.phases.all()}
    for fields in rows:
        phase = existing.get(fields["name"])
        if phase is None:
            PhaseResult.objects.create(submission=submission, **fields)
        elif any(getattr(phase, k) != v for k, v in fields.items()):
            for key, value in fields.items():
                setattr(phase, key, value)
            phase.save()


def _store_system(submission: Submission, row: dict[str, str], info: dict[str, str]) -> None:
    def text(key: str) -> str:
        return (info.get(key) or "").strip()

    def number(key: str) -> int | None:
        return _int(info.get(key) or "")

    flat = {
        "institution": row["institution"].strip(),
        "system": row["system"].strip(),
        "storage_vendor": text("information_storage_vendor"),
        "fs_type": text("information_filesystem_type") or row["filesystem"].strip(),
        "fs_name": text("information_filesystem_name") or row["filesystem"].strip(),
        "fs_version": text("information_filesystem_version"),
        "client_nodes": number("information_client_nodes"),
        "procs_per_node": number("information_client_procs_per_node"),
        "total_procs": number("information_client_total_procs"),
        "client_os": text("information_client_operating_system"),
        "client_os_version": text("information_client_operating_system_version"),
        "client_kernel": text("information_client_kernel_version"),
        "md_nodes": number("information_md_nodes"),
        "md_devices": number("information_md_storage_devices"),
        "md_media_type": text("information_md_storage_type"),
        "md_interface": text("information_md_storage_interface"),
        "md_network": text("information_md_network"),
        "md_software_version": text("information_md_software_version"),
        "md_os_version": text("information_md_operating_system_version"),
        "ds_nodes": number("information_ds_nodes"),
        "ds_devices": number("information_ds_storage_devices"),
        "ds_media_type": text("information_ds_storage_type"),
        "ds_interface": text("information_ds_storage_interface"),
        "ds_network": text("information_ds_network"),
        "ds_software_version": text("information_ds_software_version"),
        "ds_os_version": text("information_ds_operating_system_version"),
        "raw_files_url": text("information_data")[:500],
    }
    # The historical site data is flat; keep exactly what it said as the structured tree.
    data = {key: value for key, value in info.items() if key.startswith("information_") and value}
    SystemDescription.objects.update_or_create(
        submission=submission,
        defaults={"schema_version": "io500-site-csv", "data": data, **flat},
    )
