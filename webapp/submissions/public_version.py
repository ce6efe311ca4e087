"""A version of the public results: changes whenever what anonymous visitors may see does.

Caches of public pages and API responses key on ``current()``. The counter lives in one
database row and is bumped in the same transaction as the change (accepted, withdrawn,
edited or deleted while public, a release date moved, an archive import): a reader never
sees the new counter before the change it stands for, and every worker sees the same value
(the cache may be per process). Today's date is part of the version because the embargo
ends by date alone, with no write to bump anything.

Bumps come from saves of a submission that is or was (when loaded) public, deletes of
one, transitions into or out of ``accepted`` (``workflow.transition``), saves of what the public
pages name beside the runs (releases, list types, sites, client systems: the admin's edits), imports
(``io500archive.store``), the canonical renames (``rankings.maintenance.canonical_rows``) and a list
created published (``rankings.maintenance.persistence``: a new tab beside its siblings). A write
that changes a public row in place (``QuerySet.update``, ``bulk_update``) calls
``bump()`` itself, in its transaction.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F
from django.utils import timezone

from accounts.models import Site

from .models import ClientSystem, ListType, PublicResultsVersion, Release, Submission
from .visibility import PUBLIC_STATUSES


def current() -> str:
    """One primary-key read, whatever the number of submissions."""
    counter = PublicResultsVersion.objects.filter(pk=1).values_list("counter", flat=True).first()
    return f"{timezone.now().date().isoformat()}:{counter or 0}"


def bump() -> None:
    if not PublicResultsVersion.objects.filter(pk=1).update(counter=F("counter") + 1):
        PublicResultsVersion.objects.get_or_create(pk=1, defaults={"counter": 1})


def _is_public(instance: Submission) -> bool:
    # From __dict__: a row loaded without its status (``only()``) is not re-read for this.
    return instance.__dict__.get("status") in PUBLIC_STATUSES


def _submission_loaded(sender: Any, instance: Submission, **kwargs: Any) -> None:
    instance._public_when_loaded = _is_public(instance)  # type: ignore[attr-defined]


def _submission_saved_or_deleted(sender: Any, instance: Submission, **kwargs: Any) -> None:
    """A public submission edited or deleted, or one that was public when loaded saved
    with another status (withdrawn, sent back)."""
    if _is_public(instance) or getattr(instance, "_public_when_loaded", False):
        bump()


def _named_row_saved(sender: Any, **kwargs: Any) -> None:
    """A release (its date decides the embargo of all its submissions; pages show it), a
    list type, a site or a client system: rare admin edits of names every page may show."""
    bump()


def connect() -> None:
    from django.db.models.signals import post_delete, post_init, post_save

    post_init.connect(_submission_loaded, sender=Submission, dispatch_uid="pubver-i")
    post_save.connect(_submission_saved_or_deleted, sender=Submission, dispatch_uid="pubver-s")
    post_delete.connect(_submission_saved_or_deleted, sender=Submission, dispatch_uid="pubver-d")
    for model in (Release, ListType, Site, ClientSystem):
        uid = f"pubver-{model._meta.label_lower}"
        post_save.connect(_named_row_saved, sender=model, dispatch_uid=uid)
        post_delete.connect(_named_row_saved, sender=model, dispatch_uid=f"{uid}-d")
