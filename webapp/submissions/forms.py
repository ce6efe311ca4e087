"""HTML forms for upload, metadata edits and review decisions."""

from __future__ import annotations

from typing import Any

from django import forms

from accounts.models import Site

from .models import ReproducibilityLevel, TargetList
from .review import ACTIONS

PASTE_HELP = (
    "the output of `ioscore sysinfo` (run it on a client node, with --base for your own "
    "notes), or any description in the ioscore-system/1 schema, as JSON"
)


class DescriptionFields(forms.Form):
    """The pasted description of the upload and edit pages. On the guided page it fills the
    form; posted alone (scripts), it is the description itself, as the API takes it."""

    system = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6}),
        required=False,
        label="Paste a system description",
        help_text=PASTE_HELP,
    )
    system_file = forms.FileField(
        required=False, label="or choose its file", help_text="a .json file, at most 1 MiB"
    )
    questionnaire = forms.CharField(widget=forms.HiddenInput, required=False)


class UploadForm(DescriptionFields):
    archive = forms.FileField(
        help_text="results archive: .tar.gz, .tgz, .tar or .zip, stored unchanged"
    )
    site = forms.ModelChoiceField(queryset=Site.objects.none())
    target_list = forms.ChoiceField(choices=TargetList.choices, initial=TargetList.RESEARCH)
    field_order = ["archive", "site", "target_list"]

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["site"].queryset = Site.objects.filter(members=user)  # type: ignore[attr-defined]


class MetadataForm(DescriptionFields):
    submit_now = forms.BooleanField(required=False, label="submit for validation after saving")


UNCHANGED_YES_NO = [("", "(unchanged)"), ("true", "yes"), ("false", "no")]
ACTION_LABELS = {
    "accept": "Accept: the run enters the lists of its release",
    "request_changes": "Request changes: the submitter edits and submits again",
    "reject": "Reject: final; say why",
}


class ReviewForm(forms.Form):
    action = forms.ChoiceField(
        choices=[(a, ACTION_LABELS.get(a, a.replace("_", " "))) for a in ACTIONS],
        widget=forms.RadioSelect,
    )
    comment = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="required for every decision; the submitter reads it in the e-mail",
    )
    assigned_level = forms.ChoiceField(
        choices=[("", "(unchanged)"), *ReproducibilityLevel.choices],
        required=False,
        label="Assigned reproducibility level",
    )
    production_eligible = forms.NullBooleanField(
        required=False, label="Production eligible", widget=forms.Select(choices=UNCHANGED_YES_NO)
    )
    ten_node_eligible = forms.NullBooleanField(
        required=False, label="10-node eligible", widget=forms.Select(choices=UNCHANGED_YES_NO)
    )
