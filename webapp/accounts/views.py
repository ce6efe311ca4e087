"""Login (rate limited), the token management page (list, create with the raw value shown
once, revoke) and the confirmation of a contact address (``accounts.mail``)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from ioscore_site import ratelimit

from . import mail
from .forms import TokenForm
from .models import ApiToken


class LoginView(auth_views.LoginView):
    """Django's login, refused (429) after too many failed attempts for the user name or
    from the client's address; only failures count, so a user who logs in is not slowed."""

    template_name = "accounts/login.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = ratelimit.retry_after(ratelimit.login_checks(request))
        if wait is not None:
            context = self.get_context_data(
                form=self.form_class(request),
                refusal=ratelimit.too_many_message("failed logins", wait),
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        ratelimit.record(ratelimit.login_checks(self.request))
        return super().form_invalid(form)


@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None, user=request.user)
    raw = None
    if request.method == "POST" and form.is_valid():
        _token, raw = ApiToken.issue(
            request.user,
            form.cleaned_data["site"],
            form.cleaned_data["name"],
            form.cleaned_data["role"],
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


def verify_address(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a verification mail: a GET only shows the button (mail scanners open links),
    the POST verifies. Anyone holding the link may confirm: it went only to that address."""
    if not mail.signing_ok(token):
        return render(request, "accounts/verify.html", {"state": "invalid"}, status=400)
    if request.method != "POST":
        return render(request, "accounts/verify.html", {"state": "ask"})
    mail.verify(token)
    return render(request, "accounts/verify.html", {"state": "done"})
