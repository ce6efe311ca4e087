"""Who sees acceptance results: the site's members and admins, nobody else.

Acceptance runs are private per-site history: not the committee's business, never public.
Everyone else gets a 404 for them, as for unreleased submissions (LEADERBOARD-RULES §7): a 403
would confirm that the run or the site's history exists.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from accounts import roles
from accounts.models import Site

from .models import AcceptanceRun


def visible_sites(user: Any) -> QuerySet[Site]:
    if not getattr(user, "is_authenticated", False):
        return Site.objects.none()
    if roles.is_admin(user):
        return Site.objects.all()
    return Site.objects.filter(members=user)


def visible_runs(user: Any) -> QuerySet[AcceptanceRun]:
    return AcceptanceRun.objects.filter(site__in=visible_sites(user)).select_related(
        "site", "storage_system", "uploaded_by"
    )


def site_or_404(user: Any, pk: int) -> Site:
    site = visible_sites(user).filter(pk=pk).first()
    if site is None:
        raise Http404("no such site")
    return site


def run_or_404(user: Any, pk: int) -> AcceptanceRun:
    run = visible_runs(user).filter(pk=pk).first()
    if run is None:
        raise Http404("no such acceptance run")
    return run


def may_upload(user: Any, site: Site) -> bool:
    """A submitter who is a member of the site (admins upload for any site)."""
    if not roles.is_submitter(user):
        return False
    return roles.is_admin(user) or site.members.filter(pk=user.pk).exists()


def may_edit(user: Any, run: AcceptanceRun) -> bool:
    """Label, notes and storage system: whoever may upload for the run's site."""
    return may_upload(user, run.site)


def may_delete(user: Any, run: AcceptanceRun) -> bool:
    """A mistaken upload is removed by its uploader (still a member) or an admin."""
    if roles.is_admin(user):
        return True
    return run.uploaded_by_id == getattr(user, "pk", None) and may_upload(user, run.site)
