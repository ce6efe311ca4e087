"""The API token form: a site the user belongs to and at most the roles the user holds."""

from __future__ import annotations

from typing import Any

from django import forms

from . import roles
from .models import Site


class TokenForm(forms.Form):
    site = forms.ModelChoiceField(queryset=Site.objects.none())
    name = forms.CharField(max_length=100, required=False)
    role = forms.ChoiceField(
        choices=[], help_text="the most the token may do (upload only, or also review)"
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = Site.objects.filter(members=user)  # type: ignore[attr-defined]
        mine = [role for role in roles.ALL_ROLES if _has(user, role)]
        self.fields["role"].choices = [(role, role) for role in mine]  # type: ignore[attr-defined]


def _has(user: Any, role: str) -> bool:
    return {
        roles.SUBMITTER: roles.is_submitter,
        roles.REVIEWER: roles.is_reviewer,
        roles.ADMIN: roles.is_admin,
    }[role](user)
