"""The confirmation step every management action goes through: what will change, and the
reason that goes into the audit line. Works without JavaScript (a second POST)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class ConfirmForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=2000,
        help_text="kept in the audit log with your name and the time",
    )
    confirmed = forms.CharField(widget=forms.HiddenInput, initial="1")


def confirmation(
    request: HttpRequest,
    effect: str,
    confirm: ConfirmForm,
    extra: forms.Form | None = None,
    *,
    refusal: str = "",
    status: int = 200,
    details: Any = None,
) -> HttpResponse:
    context = {
        "effect": effect,
        "confirm": confirm,
        "extra": extra,
        "refusal": refusal,
        "details": details,
    }
    return render(request, "manage/confirm.html", context, status=409 if refusal else status)
