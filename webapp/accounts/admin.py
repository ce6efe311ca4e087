from typing import Any

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User

from .models import ApiToken, Site
from .provisioning import grant_role, revoke_role
from .roles import ADMIN, REVIEWER, SUBMITTER, may_grant_roles


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ("name", "abbreviation", "country")
    search_fields = ("name", "abbreviation")
    filter_horizontal = ("members",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "site", "name", "created", "last_used", "revoked_at")
    readonly_fields = ("prefix", "digest", "created", "last_used")


def _role_action(role: str, grant: bool) -> Any:
    """An admin action granting or revoking ``role`` through ``accounts.provisioning``, the
    code behind ``manage.py grant_role`` and /manage/roles/ (whose page also asks why)."""

    def action(modeladmin: admin.ModelAdmin, request: Any, queryset: Any) -> None:
        change = grant_role if grant else revoke_role
        changed = [user.username for user in queryset if change(user, role)]
        verb = "granted" if grant else "revoked"
        for name in changed:
            modeladmin.log_change(request, queryset.get(username=name), f"{verb} role {role}")
        modeladmin.message_user(
            request, f"{verb} {role}: {', '.join(changed) or 'nobody changed'}", messages.SUCCESS
        )

    action.__name__ = f"{'grant' if grant else 'revoke'}_{role}"
    return admin.action(
        description=f"{'Grant' if grant else 'Revoke'} the {role} role", permissions=["roles"]
    )(action)


class RoleUserAdmin(UserAdmin):
    """Django's user admin with the three roles as actions and a column."""

    list_display = ("username", "email", "roles", "is_active", "last_login")
    actions = [
        _role_action(role, grant)
        for role in (SUBMITTER, REVIEWER, ADMIN)
        for grant in (True, False)
    ]

    def has_roles_permission(self, request: Any) -> bool:
        """The role actions: the role rule, and the right to change users at all (a staff
        account that may only view users grants nothing, not even to itself)."""
        return may_grant_roles(request.user) and self.has_change_permission(request)

    @admin.display(description="roles")
    def roles(self, user: User) -> str:
        return ", ".join(sorted(g.name for g in user.groups.all())) or "none"

    def get_queryset(self, request: Any) -> Any:
        return super().get_queryset(request).prefetch_related("groups")


admin.site.unregister(User)
admin.site.register(User, RoleUserAdmin)
