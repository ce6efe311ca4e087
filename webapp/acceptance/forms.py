"""The upload form of the acceptance pages (the API takes the same fields)."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import Site
from submissions.models import StorageSystem

from .intake import MAX_LABEL_CHARS, MAX_NOTES_CHARS


class AcceptanceUploadForm(forms.Form):
    archive = forms.FileField(
        help_text="the plan's results directory (ioscore run PLAN) as .tar.gz, .tgz, .tar or .zip"
    )
    report = forms.FileField(
        required=False, help_text="the HTML report, if it is not in the archive as report.html"
    )
    site = forms.ModelChoiceField(queryset=Site.objects.none())
    storage_system = forms.ModelChoiceField(queryset=StorageSystem.objects.none(), required=False)
    label = forms.CharField(max_length=MAX_LABEL_CHARS, required=False)
    notes = forms.CharField(
        max_length=MAX_NOTES_CHARS, required=False, widget=forms.Textarea(attrs={"rows": 5})
    )

    def __init__(self, *args: Any, sites: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = sites  # type: ignore[attr-defined]
        self.fields["storage_system"].queryset = StorageSystem.objects.filter(  # type: ignore[attr-defined]
            site__in=sites, merged_into__isnull=True
        ).select_related("site", "client_system")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        system, site = data.get("storage_system"), data.get("site")
        if system is not None and site is not None and system.site_id != site.pk:
            self.add_error("storage_system", "choose a storage system of the chosen site")
        return data


class RunEditForm(forms.Form):
    label = forms.CharField(max_length=MAX_LABEL_CHARS, required=False)
    notes = forms.CharField(
        max_length=MAX_NOTES_CHARS, required=False, widget=forms.Textarea(attrs={"rows": 5})
    )
    storage_system = forms.ModelChoiceField(queryset=StorageSystem.objects.none(), required=False)

    def __init__(self, *args: Any, site: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["storage_system"].queryset = StorageSystem.objects.filter(  # type: ignore[attr-defined]
            site=site, merged_into__isnull=True
        ).select_related("client_system")


class AlertRuleForm(forms.Form):
    """How far one test's operation may fall below its recent median before the site is told."""

    series = forms.CharField(max_length=241, help_text="TEST|OPERATION, as the chart names it")
    percent = forms.IntegerField(
        min_value=1, max_value=99, help_text="a fall of more than this percentage alerts"
    )
    enabled = forms.BooleanField(required=False, initial=True)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        test, bar, operation = (data.get("series") or "").rpartition("|")
        if not bar or not test or not operation or len(test) > 200 or len(operation) > 40:
            self.add_error("series", "choose one of the history's tests and operations")
        data["test_name"], data["operation"] = test, operation
        return data
