"""DRF authentication with ``Authorization: Token <raw>`` (or ``Bearer <raw>``)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from . import roles
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
            raise exceptions.AuthenticationFailed(
                "Invalid, expired or revoked API token (or its user left the token's site)."
            )
        ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        roles.limit_to(token.user, token.role)
        return token.user, token

    def authenticate_header(self, request: Any) -> str:
        return "Token"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """Describes the token header in the OpenAPI document (docs, schemathesis)."""

    target_class = ApiTokenAuthentication
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "Token <key> (create one on the account's token page)",
        }
