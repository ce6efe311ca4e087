"""Fixed-window rate limits on the Django cache, counted per account and per address.

A rule allows ``limit`` events per ``window_s`` seconds for each key (an account, a client
address); the views ask ``retry_after`` before doing the work and ``record`` the event. The
limits come from ``IOSCORE_RATE_LIMITS`` (rule name -> "count/seconds"). The counters live in
the configured cache: set ``IOSCORE_CACHE_URL`` (Redis) so that every web worker shares them.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache

DEFAULT_LIMITS = {
    "login-account": "10/300",  # failed logins per user name
    "login-address": "50/300",  # failed logins per client address
    # Each upload may cost a validation of up to the time limit: at the default limit (300 s)
    # two workers validate 24 an hour, and the system check refuses more (submissions.admission).
    "upload-account": "12/3600",
    "upload-address": "24/3600",
    "verify-address": "3/86400",  # verification mails per unverified address (accounts.mail)
}


@dataclass(frozen=True)
class Rule:
    name: str
    limit: int
    window_s: int

    @classmethod
    def named(cls, name: str) -> Rule:
        text = {**DEFAULT_LIMITS, **getattr(settings, "IOSCORE_RATE_LIMITS", {})}[name]
        count, _, seconds = text.partition("/")
        return cls(name, int(count), int(seconds))


def parse_limits(text: str) -> dict[str, str]:
    """``"login-account=5/60,upload-address=100/3600"`` (the environment's form) as a dict."""
    limits = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        count, _, seconds = value.partition("/")
        if name not in DEFAULT_LIMITS or not (count.isdigit() and seconds.isdigit()):
            raise ValueError(f"IOSCORE_RATE_LIMITS: bad item {item!r} (name=count/seconds)")
        limits[name] = value
    return limits


def client_address(request: Any) -> str:
    """The client's address: REMOTE_ADDR, or behind ``IOSCORE_TRUSTED_PROXIES`` reverse proxies
    the address the outermost trusted one saw (X-Forwarded-For is only trusted that far: a
    client can put anything at its start)."""
    proxies = int(getattr(settings, "IOSCORE_TRUSTED_PROXIES", 0))
    if proxies > 0:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        if len(hops) >= proxies and hops[-proxies]:
            return hops[-proxies]
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def _cache_key(rule: Rule, key: str, window: int) -> str:
    digest = hashlib.sha256(key.encode("utf-8", "backslashreplace")).hexdigest()[:32]
    return f"ratelimit:{rule.name}:{digest}:{window}"


def _window(rule: Rule) -> tuple[int, int]:
    now = time.time()
    window = int(now // rule.window_s)
    return window, int((window + 1) * rule.window_s - now) + 1


def retry_after(checks: list[tuple[str, str]]) -> int | None:
    """Seconds until every (rule name, key) is under its limit again; None when it is."""
    waits = []
    for name, key in checks:
        rule = Rule.named(name)
        window, remaining = _window(rule)
        if int(cache.get(_cache_key(rule, key, window), 0)) >= rule.limit:
            waits.append(remaining)
    return max(waits) if waits else None


def record(checks: list[tuple[str, str]]) -> None:
    for name, key in checks:
        rule = Rule.named(name)
        window, _ = _window(rule)
        cache_key = _cache_key(rule, key, window)
        cache.add(cache_key, 0, rule.window_s + 1)
        try:
            cache.incr(cache_key)
        except ValueError:  # expired between add and incr: this event starts a new count
            cache.set(cache_key, 1, rule.window_s + 1)


def login_checks(request: Any) -> list[tuple[str, str]]:
    username = str(request.POST.get("username", "")).strip().lower()
    return [("login-account", username), ("login-address", client_address(request))]


def upload_checks(request: Any) -> list[tuple[str, str]]:
    return [
        ("upload-account", str(request.user.pk)),
        ("upload-address", client_address(request)),
    ]


def too_many_message(what: str, wait: int) -> str:
    return f"too many {what}; try again in {wait} s"
