"""The management overview: what each page does."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from rankings.models import Correction, StoragePin
from submissions.models import Release

from .access import admin_only
from .releases import current_release


@admin_only
def index(request: HttpRequest) -> HttpResponse:
    context = {
        "current": current_release(),
        "releases": Release.objects.count(),
        "pins": StoragePin.objects.count(),
        "corrections": Correction.objects.count(),
    }
    return render(request, "manage/index.html", context)
