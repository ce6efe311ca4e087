"""Refuse requests no view can use before any view sees them.

A NUL byte in the path or in a query parameter would reach PostgreSQL, which cannot store or
compare it (a 500 in every view that filters on text); such a request is answered 400 here,
naming the parameter, so the views need not each remember it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest


def nul_refusal(request: HttpRequest) -> str | None:
    if "\x00" in request.path:
        return "the path may not contain NUL bytes"
    for name, values in request.GET.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            return f"parameter {name.replace(chr(0), '')!r} may not contain NUL bytes"
    return None


class RequestGuardMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refusal = nul_refusal(request)
        if refusal:
            return HttpResponseBadRequest(refusal, content_type="text/plain; charset=utf-8")
        return self.get_response(request)
