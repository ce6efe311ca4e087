"""HTML forms for upload, metadata edits and review decisions."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import Site

from .models import ReproducibilityLevel, TargetList
from .review import ACTIONS


class UploadForm(forms.Form):
    archive = forms.FileField(help_text="results archive: .tar.gz, .tgz or .zip")
    site = forms.ModelChoiceField(queryset=Site.objects.none())
    target_list = forms.ChoiceField(choices=TargetList.choices, initial=TargetList.RESEARCH)
    system = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        help_text="system description JSON (schema ioscore-system/1)",
    )
    questionnaire = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        help_text="reproducibility questionnaire JSON",
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = Site.objects.filter(members=user)  # type: ignore[attr-defined]


class MetadataForm(forms.Form):
    system = forms.CharField(widget=forms.Textarea(attrs={"rows": 12}), required=False)
    questionnaire = forms.CharField(widget=forms.Textarea(attrs={"rows": 12}), required=False)
    submit_now = forms.BooleanField(required=False, label="submit for validation after saving")


class ReviewForm(forms.Form):
    action = forms.ChoiceField(choices=[(a, a.replace("_", " ")) for a in ACTIONS])
    comment = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    assigned_level = forms.ChoiceField(
        choices=[("", "(unchanged)"), *ReproducibilityLevel.choices], required=False
    )
    production_eligible = forms.NullBooleanField(required=False)
    ten_node_eligible = forms.NullBooleanField(required=False)


class TokenForm(forms.Form):
    site = forms.ModelChoiceField(queryset=Site.objects.none())
    name = forms.CharField(max_length=100, required=False)

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = Site.objects.filter(members=user)  # type: ignore[attr-defined]
