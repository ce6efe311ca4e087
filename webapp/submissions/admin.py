"""Django admin: how admins manage releases, list types and storage systems."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages

from . import storage_systems
from .models import (
    ClientSystem,
    ListType,
    Release,
    Status,
    StorageSystem,
    StorageSystemChange,
    Submission,
    SubmissionTransition,
)
from .signals import announce_list_change


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    list_display = ("acronym", "release_date", "submission_deadline", "tag_date", "historic")
    search_fields = ("acronym", "name")


@admin.register(ListType)
class ListTypeAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "order", "rule", "era", "ten_node", "award")


@admin.register(ClientSystem)
class ClientSystemAdmin(admin.ModelAdmin):
    list_display = ("name", "site")
    search_fields = ("name", "site__name")


@admin.register(StorageSystem)
class StorageSystemAdmin(admin.ModelAdmin):
    list_display = ("name", "fs_type", "vendor", "site", "client_system", "merged_into")
    search_fields = ("name", "fs_type", "site__name", "client_system__name")
    actions = ["merge_into_first"]

    @admin.action(description="Merge the selected storage systems into the oldest one")
    def merge_into_first(self, request: Any, queryset: Any) -> None:
        systems = list(queryset.order_by("created", "pk"))
        if len(systems) < 2:
            self.message_user(request, "select at least two", level=messages.ERROR)
            return
        target = systems[0]
        moved = sum(
            storage_systems.merge(s, target, request.user, "merged in the admin")
            for s in systems[1:]
        )
        self.message_user(request, f"{moved} submission(s) moved to {target}")


@admin.register(StorageSystemChange)
class StorageSystemChangeAdmin(admin.ModelAdmin):
    list_display = ("created", "action", "source", "target", "actor", "reason")

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False  # audit records are immutable


class TransitionInline(admin.TabularInline):
    model = SubmissionTransition
    extra = 0
    can_delete = False
    readonly_fields = ("created", "actor", "from_status", "to_status", "comment")

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("pk", "release", "site", "status", "score_total", "source", "created")
    list_filter = ("status", "source", "release")
    search_fields = ("site__name", "external_id", "archive_sha256")
    readonly_fields = ("status", "archive", "archive_sha256", "archive_size")
    inlines = [TransitionInline]

    def save_model(self, request: Any, obj: Submission, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if obj.status == Status.ACCEPTED and form.changed_data:
            # A corrected score, eligibility or release of an accepted run moves it on the lists.
            announce_list_change(obj.pk)
