"""Token management page: list, create (raw value shown once), revoke."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from submissions.forms import TokenForm

from .models import ApiToken


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None, user=request.user)
    raw = None
    if request.method == "POST" and form.is_valid():
        _token, raw = ApiToken.issue(
            request.user, form.cleaned_data["site"], form.cleaned_data["name"]
        )
        form = TokenForm(user=request.user)
    rows = ApiToken.objects.filter(user=request.user)  # type: ignore[misc]  # login_required.select_related("site")
    return render(request, "accounts/tokens.html", {"form": form, "tokens": rows, "raw": raw})


@require_POST
@login_required
def revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.revoke()
    messages.success(request, f"token {token.prefix}… revoked")
    return redirect("account-tokens")
