from django.contrib import admin

from .models import ApiToken, Site


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin):
    list_display = ("name", "abbreviation", "country")
    search_fields = ("name", "abbreviation")
    filter_horizontal = ("members",)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "site", "name", "created", "last_used", "revoked_at")
    readonly_fields = ("prefix", "digest", "created", "last_used")
