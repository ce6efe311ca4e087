"""Sites (institutions), site membership and hashed API tokens.

Roles are Django groups (see ``accounts.roles``); there is no custom user model.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone

from . import roles

TOKEN_PREFIX_LENGTH = 8
TOKEN_ROLES = [(role, role) for role in roles.ALL_ROLES]


class Site(models.Model):
    """An institution operating systems; list column "Institution" (LEADERBOARD-RULES §4 Site)."""

    name = models.CharField(max_length=300, unique=True, help_text="institution full name")
    abbreviation = models.CharField(max_length=64, blank=True)
    country = models.CharField(max_length=3, blank=True, help_text="ISO 3166 alpha-3")
    location = models.CharField(max_length=200, blank=True)
    web_page = models.URLField(blank=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="sites")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def active(self) -> ApiTokenQuerySet:
        """Tokens that authenticate now: not revoked, not expired, of an active user who is
        still a member of the token's site."""
        return self.filter(
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
            user__is_active=True,
            site__members=F("user"),
        )


def _default_expiry() -> Any:
    return timezone.now() + settings.IOSCORE_TOKEN_LIFETIME


class ApiToken(models.Model):
    """A bearer token for the API, scoped to one site and one role (the most it may do; the
    user's own roles still bound it, ``roles.limit_to``), until it expires or is revoked.

    Only the SHA-256 of the token is stored; the raw value is shown once at creation.
    Tokens are high-entropy random strings, so an unsalted hash is sufficient and allows
    a direct indexed lookup.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=TOKEN_PREFIX_LENGTH, db_index=True)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    role = models.CharField(max_length=20, choices=TOKEN_ROLES, default=roles.SUBMITTER)
    expires_at = models.DateTimeField(default=_default_expiry)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user}, {self.site})"

    @classmethod
    def issue(
        cls, user: Any, site: Site, name: str = "", role: str = roles.SUBMITTER
    ) -> tuple[ApiToken, str]:
        """Create a token; returns (token row, raw secret to show once)."""
        raw = "ios_" + secrets.token_urlsafe(32)
        token = cls.objects.create(
            user=user,
            site=site,
            name=name,
            role=role,
            prefix=raw[4 : 4 + TOKEN_PREFIX_LENGTH],
            digest=token_digest(raw),
        )
        return token, raw

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])


class VerifiedAddress(models.Model):
    """An e-mail address whose owner followed the verification link sent to it
    (``accounts.mail``). Kept as a keyed hash, never the address itself: a stored contact
    stays private (encrypted) and this table cannot be read back into addresses."""

    digest = models.CharField(max_length=64, unique=True)
    verified = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"verified address {self.digest[:12]}…"
