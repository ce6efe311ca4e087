"""Receiving an acceptance run: a plan's results directory as an archive, or its result.json
files (and the HTML report) as separate files.

Validated synchronously, in the request: unlike an IO500 submission (a rule engine over every
per-rank file, run by a worker under a hard time limit) this is the archive-safety check the
IO500 intake also makes in the request, plus parsing a bounded number of bounded result.json
files with the library's loader (``loading``). The uploader gets the stored run, or a 400 naming
the problem, in the same answer: there is no state to poll.

Stored once under ``IOSCORE_ARCHIVE_DIR/acceptance/``: the archive unchanged (separate files are
first packed into a deterministic tar.gz by the library's packer) and the report beside it. The
same bytes uploaded again by the same site resolve to the stored run (``duplicate=True``).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DataError, IntegrityError, transaction
from django.db.models import Q

from accounts.models import Site
from ioscore.results import pack_directory, sha256_of
from submissions import archive_safety
from submissions.intake import IntakeError, printable, spool
from submissions.models import StorageSystem

from . import alerts, loading
from .models import AcceptanceOperation, AcceptanceRun, AcceptanceTarget, AcceptanceTest

MAX_LABEL_CHARS = 200
MAX_NOTES_CHARS = 20_000
MAX_REPORT_BYTES = 64 << 20  # a self-contained report carries plotly (~5 MB) and its data
MAX_FILES = loading.MAX_RESULT_FILES
UNSTORABLE_RESULTS = "results: a value does not fit its database field (too long or out of range)"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


STAGING_PREFIX = "acceptance-"
# No request lives this long: an older staging directory was left by a killed web worker.
ABANDONED_AFTER_S = 6 * 3600


@dataclass
class Received:
    run: AcceptanceRun
    duplicate: bool


def acceptance_dir() -> Path:
    return Path(settings.IOSCORE_ARCHIVE_DIR) / "acceptance"


def receive(
    *,
    user: Any,
    site: Site,
    archive: Any = None,
    results: list[Any] | None = None,
    report: Any = None,
    storage_system: int | None = None,
    label: str = "",
    notes: str = "",
) -> Received:
    """Store and record one acceptance run; ``IntakeError`` says what is wrong (400)."""
    results = list(results or [])
    if (archive is None) == (not results):
        raise IntakeError(
            "archive", "send either 'archive' (the plan's results directory) or 'results' files"
        )
    if len(results) > MAX_FILES:
        raise IntakeError("results", f"results: at most {MAX_FILES} result.json files")
    label = _text("label", label, MAX_LABEL_CHARS, multiline=False)
    notes = _text("notes", notes, MAX_NOTES_CHARS, multiline=True)
    system = _storage_system(site, storage_system)
    sandbox = Path(settings.IOSCORE_SANDBOX_DIR)
    sandbox.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(sandbox)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=sandbox))
    spooled: list[Path] = []
    try:
        if archive is not None:
            packed, sha256, size = spool(archive)
            spooled.append(packed)
            name = printable(os.path.basename(getattr(archive, "name", "") or ""))[:255]
        else:
            packed, sha256, size = _pack_files(staging, results, report)
            name = "results.tar.gz"
        existing = AcceptanceRun.objects.filter(site=site, archive_sha256=sha256).first()
        if existing is not None:
            return Received(existing, duplicate=True)
        try:
            archive_safety.extract(packed, staging / "tree", archive_safety.Limits.from_settings())
            kind = archive_safety.archive_kind(packed)
        except archive_safety.UnsafeArchive as exc:
            raise IntakeError("archive", f"archive rejected: {exc}") from None
        loaded = loading.load(staging / "tree")
        report_path = loaded.report
        if archive is not None and report is not None:
            report_path, _, _ = spool(report)
            spooled.append(report_path)
        if report_path is not None and report_path.stat().st_size > MAX_REPORT_BYTES:
            raise IntakeError("report", f"report: larger than {MAX_REPORT_BYTES} bytes")
        return _store(
            packed, kind, sha256, size, name, report_path, loaded, user, site, system, label, notes
        )
    finally:
        for path in spooled:
            path.unlink(missing_ok=True)
        shutil.rmtree(staging, ignore_errors=True)


def _remove_abandoned(sandbox: Path) -> None:
    cutoff = time.time() - ABANDONED_AFTER_S
    for staging in sandbox.glob(f"{STAGING_PREFIX}*"):
        try:
            if staging.is_dir() and staging.stat().st_mtime < cutoff:
                shutil.rmtree(staging, ignore_errors=True)
        except OSError:
            continue  # removed by a concurrent request


def _text(field: str, value: Any, limit: int, multiline: bool) -> str:
    text = "" if value is None else str(value)
    if len(text) > limit:
        raise IntakeError(field, f"{field}: at most {limit} characters")
    if _CONTROL.search(text) or (not multiline and ("\n" in text or "\r" in text)):
        raise IntakeError(field, f"{field}: control characters are not allowed")
    return text.strip()


def _storage_system(site: Site, pk: int | None) -> StorageSystem | None:
    """One of the site's storage systems (a merged one resolves to its survivor)."""
    if pk is None:
        return None
    system = StorageSystem.objects.filter(site=site, pk=pk).first()
    if system is None:
        raise IntakeError("storage_system", f"storage_system: site {site} has no system {pk}")
    return system.canonical()


def _pack_files(staging: Path, results: list[Any], report: Any) -> tuple[Path, str, int]:
    """Lay separate uploads out as a results directory (one folder per test, named after the
    uploaded file) and pack it as the library packs a directory: same files, same bytes."""
    root = staging / "results"
    root.mkdir()
    for index, upload in enumerate(results, start=1):
        stem = Path(str(getattr(upload, "name", "") or "")).name.removesuffix(".json")
        stem = _UNSAFE_NAME.sub("-", stem).strip(".-")[:100]
        folder = root / (stem if stem and stem != "result" else f"test-{index:02d}")
        try:
            folder.mkdir()
        except FileExistsError:
            raise IntakeError("results", f"results: two files are named {stem}.json") from None
        _copy(upload, folder / loading.RESULT_NAME, loading.MAX_RESULT_BYTES, "results")
    if report is not None:
        _copy(report, root / loading.REPORT_NAME, MAX_REPORT_BYTES, "report")
    packed = staging / "results.tar.gz"
    pack_directory(root, packed)
    return packed, sha256_of(packed), packed.stat().st_size


def _copy(upload: Any, target: Path, limit: int, field: str) -> None:
    size = 0
    with target.open("xb") as out:
        for chunk in upload.chunks():
            size += len(chunk)
            if size > limit:
                raise IntakeError(field, f"{field}: a file is larger than {limit} bytes")
            out.write(chunk)


def _store(
    packed: Path,
    kind: str,
    sha256: str,
    size: int,
    name: str,
    report: Path | None,
    loaded: loading.LoadedRun,
    user: Any,
    site: Site,
    system: StorageSystem | None,
    label: str,
    notes: str,
) -> Received:
    final = acceptance_dir() / sha256[:2] / f"{sha256}.{kind}"
    final.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(packed, final)  # same name = same bytes, so replacing is harmless
    report_final = None
    if report is not None:
        # Named by its own bytes: the same archive may come with different reports.
        report_final = acceptance_dir() / "reports" / f"{sha256_of(report)}.html"
        report_final.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(report, report_final)
    stored = [final, report_final] if report_final is not None else [final]
    try:
        run = _create(
            final, sha256, size, name, report_final, loaded, user, site, system, label, notes
        )
    except DataError:
        forget(stored)
        raise IntakeError("archive", UNSTORABLE_RESULTS) from None
    except IntegrityError:
        existing = AcceptanceRun.objects.filter(site=site, archive_sha256=sha256).first()
        if existing is None:  # not the concurrent twin this constraint guards against
            forget(stored)
            raise
        return Received(existing, duplicate=True)
    except BaseException:
        forget(stored)
        raise
    alerts.mail(alerts.detect(run))
    return Received(run, duplicate=False)


def forget(paths: list[Path]) -> None:
    """Remove stored files no run refers to (a rolled-back upload, a deleted run); files
    are shared by content, so another site's run may still hold the same bytes."""
    for path in paths:
        relative = _media_relative(path)
        if not AcceptanceRun.objects.filter(Q(archive=relative) | Q(report=relative)).exists():
            path.unlink(missing_ok=True)


def _media_relative(path: Path | None) -> str:
    return str(path.relative_to(settings.MEDIA_ROOT)) if path is not None else ""


@transaction.atomic
def _create(
    final: Path,
    sha256: str,
    size: int,
    name: str,
    report: Path | None,
    loaded: loading.LoadedRun,
    user: Any,
    site: Site,
    system: StorageSystem | None,
    label: str,
    notes: str,
) -> AcceptanceRun:
    run = AcceptanceRun.objects.create(
        site=site,
        storage_system=system,
        uploaded_by=user if getattr(user, "is_authenticated", False) else None,
        plan_name=loaded.plan_name[:200],
        label=label,
        notes=notes,
        started=loaded.started,
        finished=loaded.finished,
        archive=_media_relative(final),
        archive_name=name,
        archive_sha256=sha256,
        archive_size=size,
        report=_media_relative(report),
        report_size=report.stat().st_size if report is not None else 0,
        targets_total=len(loaded.targets),
        targets_failed=sum(not t.passed for t in loaded.targets),
    )
    for order, test in enumerate(loaded.tests):
        row = AcceptanceTest.objects.create(
            run=run,
            name=test.name,
            program=test.program,
            commands=test.commands,
            started=test.started,
            procs=test.procs,
            nodes=test.nodes,
            hosts=test.hosts,
            valid=test.valid,
            invalid_reasons=test.invalid_reasons,
            notes=test.notes,
            order=order,
        )
        AcceptanceOperation.objects.bulk_create(
            AcceptanceOperation(
                test=row,
                operation=op.operation,
                label=op.label,
                unit=op.unit,
                values=op.values,
                mean=op.mean,
                stddev=op.stddev,
                minimum=op.minimum,
                maximum=op.maximum,
                hint=op.hint,
                order=index,
            )
            for index, op in enumerate(test.operations)
        )
    AcceptanceTarget.objects.bulk_create(
        AcceptanceTarget(
            run=run,
            test_name=target.test,
            operation=target.operation,
            text=target.text,
            threshold=target.threshold,
            unit=target.unit,
            at_least=target.at_least,
            measured=target.measured,
            passed=target.passed,
            detail=target.detail,
            order=index,
        )
        for index, target in enumerate(loaded.targets)
    )
    return run


def update(run: AcceptanceRun, changes: dict[str, Any]) -> AcceptanceRun:
    """Change what the uploader says about a run: the keys of ``changes`` among label, notes
    and storage_system (an id, or None to detach). The results themselves never change."""
    if "label" in changes:
        run.label = _text("label", changes["label"], MAX_LABEL_CHARS, multiline=False)
    if "notes" in changes:
        run.notes = _text("notes", changes["notes"], MAX_NOTES_CHARS, multiline=True)
    moved = False
    if "storage_system" in changes:
        system = _storage_system(run.site, changes["storage_system"])
        moved = system != run.storage_system
        run.storage_system = system
    run.save(update_fields=["label", "notes", "storage_system"])
    if moved:  # compared with another system's runs now
        alerts.mail(alerts.detect(run))
    return run


def delete(run: AcceptanceRun) -> None:
    """Remove the run and, once no other run shares them, its stored files."""
    media = Path(settings.MEDIA_ROOT)
    paths = [media / relative for relative in (run.archive, run.report) if relative]
    with transaction.atomic():
        run.delete()
    forget(paths)
