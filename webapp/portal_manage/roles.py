"""Roles: who is a submitter, reviewer or admin; grant and revoke with a reason.

The same ``accounts.provisioning`` functions as ``manage.py grant_role``; each change is an
audit line in the admin log.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.models import Group, User
from django.db import transaction
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.provisioning import grant_role, revoke_role
from accounts.roles import ALL_ROLES

from . import audit
from .access import admin_only
from .confirm import ConfirmForm, confirmation

GRANT, REVOKE = "grant", "revoke"


class RoleForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=[(r, r) for r in ALL_ROLES])
    change = forms.ChoiceField(choices=[(GRANT, "grant"), (REVOKE, "revoke")], initial=GRANT)

    def clean_username(self) -> User:
        name = self.cleaned_data["username"]
        user = User.objects.filter(username=name).first()
        if user is None:
            raise forms.ValidationError(
                f"no account {name!r}; accounts are made with manage.py create_account"
            )
        return user


@admin_only
def roles(request: HttpRequest) -> HttpResponse:
    form = RoleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user: User = form.cleaned_data["username"]
        role, change = form.cleaned_data["role"], form.cleaned_data["change"]
        effect = f"{change.capitalize()} the {role} role {'to' if change == GRANT else 'from'} "
        effect += f"{user.username}."
        if change == REVOKE and user.pk == request.user.pk and role == "admin":
            return confirmation(
                request,
                effect,
                ConfirmForm(),
                form,
                refusal="an admin cannot revoke their own admin role",
            )
        confirm = ConfirmForm(request.POST if request.POST.get("confirmed") else None)
        if not confirm.is_valid():
            return confirmation(request, effect, confirm, form)
        with transaction.atomic():
            changed = (grant_role if change == GRANT else revoke_role)(user, role)
            if changed:
                verb = "granted" if change == GRANT else "revoked"
                audit.record(
                    request.user, user, f"{verb} role {role}", confirm.cleaned_data["reason"]
                )
        messages.success(request, effect if changed else f"Nothing changed: {effect}")
        return redirect("manage-roles")
    people = (
        User.objects.filter(groups__name__in=ALL_ROLES)
        .prefetch_related(Prefetch("groups", queryset=Group.objects.filter(name__in=ALL_ROLES)))
        .distinct()
        .order_by("username")
    )
    context = {"form": form, "people": people, "log": audit.recent(User)}
    return render(request, "manage/roles.html", context, status=400 if form.errors else 200)
