"""Django admin: admins look up acceptance runs; changes and deletions go through the run
page and the API (they keep the stored files consistent)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from .models import AcceptanceRun, AlertRule


@admin.register(AcceptanceRun)
class AcceptanceRunAdmin(admin.ModelAdmin):
    list_display = ("pk", "site", "storage_system", "plan_name", "label", "started", "verdict")
    list_filter = ("site",)
    search_fields = ("site__name", "plan_name", "label", "archive_sha256")

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(AlertRule)
class AlertRuleAdmin(admin.ModelAdmin):
    """Admins see and change any site's alert thresholds; members set them on the history."""

    list_display = ("site", "test_name", "operation", "fraction", "enabled")
    list_filter = ("site", "enabled")
