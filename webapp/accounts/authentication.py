"""DRF authentication with ``Authorization: Token <raw>`` (or ``Bearer <raw>``)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, token_digest


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request: Any) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() not in self.keywords:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <key>'.")
        token = (
            ApiToken.objects.active()
            .select_related("user", "site")
            .filter(digest=token_digest(header[1]))
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API token.")
        ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        return "Token"
