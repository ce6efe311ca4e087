"""Receiving an uploaded results archive: store it unchanged, de-duplicate, create the
submission and queue validation only after the transaction commits.

The archive is written once under ``IOSCORE_ARCHIVE_DIR/<sha[:2]>/<sha256>.<kind>``; the
same bytes uploaded again by the same owner resolve to their existing submission
(``duplicate=True``). Anyone else's upload of them is a new submission, answered exactly as
any new upload: the answer never tells whether someone else sent these bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone

from accounts import mail
from accounts.models import Site

from . import admission, archive_safety, contact, storable_json, system_description
from .canonical_names import canonical_columns
from .models import (
    LevelChange,
    Questionnaire,
    Release,
    Status,
    Submission,
    SystemDescription,
    TargetList,
)
from .questionnaire import LEVEL_KEY
from .signals import request_validation
from .tasks import send_contact_verification
from .upload_limit import too_large_message
from .workflow import OWNER, transition


class IntakeError(Exception):
    """The upload is refused; ``field`` names the form/API field, ``str()`` says why and
    ``status`` is the HTTP answer (400 unless said otherwise), ``retry_after_s`` the
    Retry-After of a refusal that passes (429, 503)."""

    def __init__(
        self, field: str, message: str, status: int = 400, retry_after_s: int | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.status = status
        self.retry_after_s = retry_after_s


@dataclass
class IntakeResult:
    submission: Submission
    duplicate: bool


MAX_SCHEMA_CHARS = 40


def parse_json_field(name: str, text: str | None) -> dict[str, Any] | None:
    """A JSON object from a form field that PostgreSQL can store; errors name the field."""
    if text is None or not str(text).strip():
        return None
    try:
        value = storable_json.loads(text)
    except json.JSONDecodeError as exc:
        raise IntakeError(
            name, f"{name}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except storable_json.UnstorableJSON as exc:
        raise IntakeError(name, f"{name}: {exc}") from None
    if not isinstance(value, dict):
        raise IntakeError(name, f"{name}: must be a JSON object, got {type(value).__name__}")
    return value


def open_release() -> Release:
    """The nearest release whose submission deadline has not passed (LEADERBOARD-RULES §7)."""
    release = (
        Release.objects.filter(submission_deadline__gte=timezone.now().date())
        .order_by("submission_deadline")
        .first()
    )
    if release is None:
        raise IntakeError("archive", "no release is open for submissions")
    return release


def spool(upload: Any) -> tuple[Path, str, int]:
    """Copy the upload into the media tmp dir, hashing as we go."""
    tmp_dir = Path(settings.MEDIA_ROOT) / "tmp"
    tmp_dir.mkdir(parents=True, exist_ok=True)
    path = tmp_dir / f"upload-{secrets.token_hex(8)}"
    digest = hashlib.sha256()
    size = 0
    with path.open("xb") as out:
        for chunk in upload.chunks():
            size += len(chunk)
            if size > settings.IOSCORE_UPLOAD_MAX_BYTES:
                out.close()
                path.unlink()
                raise IntakeError("archive", too_large_message())
            digest.update(chunk)
            out.write(chunk)
    return path, digest.hexdigest(), size


def _earlier_upload(sha256: str, user: Any) -> Submission | None:
    """This owner's own earlier submission of these bytes. Only the owner's: whether anyone
    else uploaded them is their private business, so another account's identical upload
    becomes a submission of its own (one per owner and archive, by a unique constraint)."""
    return Submission.objects.filter(archive_sha256=sha256, owner=user).first()


UNSTORABLE = "system: a value does not fit its database field (too long or out of range)"


def receive_upload(
    upload: Any,
    *,
    user: Any,
    site: Site,
    system: dict[str, Any] | None = None,
    questionnaire: dict[str, Any] | None = None,
    target_list: str = TargetList.RESEARCH,
) -> IntakeResult:
    if upload is None:
        raise IntakeError("archive", "archive: a results archive file is required")
    if target_list not in TargetList.values:
        raise IntakeError("target_list", f"target_list must be one of {TargetList.values}")
    check_metadata(system)
    admit(user, site)  # before a byte is spooled; asked again under the lock in _store
    spooled, sha256, size = spool(upload)
    try:
        with transaction.atomic():
            _lock_archive_name(sha256)
            return _store(
                upload, spooled, sha256, size, user, site, system, questionnaire, target_list
            )
    finally:
        spooled.unlink(missing_ok=True)


def admit(user: Any, site: Site, *, lock: bool = False) -> None:
    """Refuse a new validation the workers cannot do in time (``admission``)."""
    refused = admission.refusal(user, site, lock=lock)
    if refused is not None:
        raise IntakeError("archive", refused.message, refused.status, refused.retry_after_s)


def _lock_archive_name(sha256: str) -> None:
    """One upload of these bytes at a time, until its transaction ends: a failing upload
    removes the stored file only while no other one of the same bytes can be placing it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int(sha256[:15], 16)])


def _store(
    upload: Any,
    spooled: Path,
    sha256: str,
    size: int,
    user: Any,
    site: Site,
    system: dict[str, Any] | None,
    questionnaire: dict[str, Any] | None,
    target_list: str,
) -> IntakeResult:
    existing = _earlier_upload(sha256, user)
    if existing is not None:
        return IntakeResult(existing, duplicate=True)
    try:
        archive_safety.inspect(spooled, archive_safety.Limits.from_settings())
        kind = archive_safety.archive_kind(spooled)
    except archive_safety.UnsafeArchive as exc:
        raise IntakeError("archive", f"archive rejected: {exc}") from None
    release = open_release()
    admit(user, site, lock=True)
    final = Path(settings.IOSCORE_ARCHIVE_DIR) / sha256[:2] / f"{sha256}.{kind}"
    final.parent.mkdir(parents=True, exist_ok=True)
    os.replace(spooled, final)  # same name = same bytes, so replacing is harmless
    try:
        submission = _create(
            upload, final, sha256, size, user, site, release, system, questionnaire, target_list
        )
    except DataError:
        _forget(final, sha256)
        raise IntakeError("system", UNSTORABLE) from None
    except IntegrityError:
        # A concurrent upload of the same bytes won the race.
        existing = _earlier_upload(sha256, user)
        if existing is None:
            _forget(final, sha256)
            raise
        return IntakeResult(existing, duplicate=True)
    except BaseException:
        _forget(final, sha256)
        raise
    return IntakeResult(submission, duplicate=False)


def _forget(final: Path, sha256: str) -> None:
    """Remove a stored archive no row refers to (the row's transaction rolled back)."""
    if not Submission.objects.filter(archive_sha256=sha256).exists():
        final.unlink(missing_ok=True)


@transaction.atomic
def _create(
    upload: Any,
    final: Path,
    sha256: str,
    size: int,
    user: Any,
    site: Site,
    release: Release,
    system: dict[str, Any] | None,
    questionnaire: dict[str, Any] | None,
    target_list: str,
) -> Submission:
    submission = Submission.objects.create(
        release=release,
        owner=user,
        site=site,
        status=Status.DRAFT,
        archive=str(final.relative_to(settings.MEDIA_ROOT)),
        archive_name=printable(os.path.basename(getattr(upload, "name", "") or ""))[:255],
        archive_sha256=sha256,
        archive_size=size,
        target_list=target_list,
        scc=target_list == TargetList.SCC,
    )
    save_metadata(submission, system, questionnaire, user)
    transition(submission, Status.SUBMITTED, user, "uploaded", role=OWNER)
    enqueue_validation(submission.pk)
    return submission


def printable(name: str) -> str:
    """The client's file name without control characters (NUL, escapes, CR/LF)."""
    return "".join(c for c in name if c.isprintable())


def save_metadata(
    submission: Submission,
    system: dict[str, Any] | None,
    questionnaire: dict[str, Any] | None,
    actor: Any,
) -> None:
    """Store the system tree (flattened when it validates) and the questionnaire."""
    check_metadata(system)
    if system is not None:
        valid = not system_description.validate(system)
        flat = canonical_columns(system_description.flatten(system)) if valid else {}
        tree, private = _split_contact(system)
        if private.get("email"):
            flat["submitter_email_encrypted"] = contact.encrypt(private["email"])
            _ask_to_verify(submission, private["email"])
        if private.get("name"):
            flat["submitter_name"] = private["name"][:200]
        SystemDescription.objects.update_or_create(
            submission=submission,
            defaults={"schema_version": str(system.get("schema", "")), "data": tree, **flat},
        )
        show = private.get("show_publicly")
        if isinstance(show, bool) and show != submission.show_submitter:
            submission.show_submitter = show
            submission.save(update_fields=["show_submitter", "updated"])
    if questionnaire is not None:
        answers = dict(questionnaire)
        claimed = answers.get(LEVEL_KEY, "")
        record, _ = Questionnaire.objects.get_or_create(submission=submission)
        if isinstance(claimed, str) and claimed != record.claimed_level:
            LevelChange.objects.create(
                questionnaire=record,
                kind=LevelChange.CLAIMED,
                old_level=record.claimed_level,
                new_level=claimed[:20],
                actor=actor if actor and actor.is_authenticated else None,
            )
            record.claimed_level = claimed[:20]
        record.answers = answers
        record.save()


def _ask_to_verify(submission: Submission, address: str) -> None:
    """An unverified contact address gets its verification link, and nothing else until it is
    confirmed (``accounts.mail``)."""
    if settings.IOSCORE_NOTIFICATIONS and mail.verification_requested(address):
        send_contact_verification.enqueue_after_commit(submission.pk)


def check_metadata(system: dict[str, Any] | None) -> None:
    """Refuse system fields that are stored in columns of their own and cannot hold them."""
    if system is None:
        return
    schema = system.get("schema", "")
    if not isinstance(schema, str) or len(schema) > MAX_SCHEMA_CHARS:
        raise IntakeError(
            "system", f"system: 'schema' must be a string of at most {MAX_SCHEMA_CHARS} characters"
        )
    submitter = system.get("submitter")
    if not isinstance(submitter, dict):
        return
    for key in ("name", "email"):
        if not isinstance(submitter.get(key, ""), str):
            raise IntakeError("system", f"system: submitter.{key} must be a string")
    email = submitter.get("email", "")
    try:
        if email:
            validate_email(email)  # also refuses CR/LF, which would break the mail headers
    except ValidationError:
        raise IntakeError(
            "system", "system: submitter.email is not a valid e-mail address"
        ) from None


def _split_contact(system: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The tree without the submitter's name and e-mail, and those private values."""
    tree = dict(system)
    submitter = tree.get("submitter")
    if not isinstance(submitter, dict):
        return tree, {}
    public = dict(submitter)
    private = {key: public.pop(key) for key in ("name", "email") if key in public}
    private["show_publicly"] = public.get("show_publicly")
    tree["submitter"] = public
    return tree, {k: v for k, v in private.items() if not isinstance(v, str) or v}


def enqueue_validation(submission_id: int) -> None:
    """Queue the automatic checks once the surrounding transaction has committed."""
    request_validation(submission_id)
