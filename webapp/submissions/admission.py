"""Intake follows the validation workers' capacity: an upload (or a resubmission) is taken
only while the work already queued can be validated in time (docs/SECURITY.md).

The workers finish at least ``IOSCORE_VALIDATION_WORKERS`` validations per
``IOSCORE_VALIDATION_TIME_LIMIT_S`` (each is stopped at that limit), so within the backlog
window ``IOSCORE_VALIDATION_BACKLOG_S`` they can finish

    capacity = workers x backlog window / time limit

validations. A submission waiting for or in validation (submitted, validating) holds a place;
with ``capacity`` places taken the next upload is refused with 503, and a site holding half of
them, or an account a quarter, gets 429, so one sender cannot fill the queue for everyone.
Retry-After says when a place of that scope frees: the scope's oldest waiting validation is
done after the ones ahead of it, ``workers`` at a time, each within the time limit.

The Django system check ``check_capacity`` refuses a configuration whose upload rate limits
(``ioscore_site.ratelimit``: per account, per address) admit more validation time per window
than the workers have.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import checks
from django.db import connection
from django.db.models import Q

from ioscore_site.ratelimit import Rule

from .models import Status, Submission

IN_FLIGHT = (Status.SUBMITTED, Status.VALIDATING)
SITE_SHARE = 2  # a site may hold 1/2 of the places
ACCOUNT_SHARE = 4  # an account 1/4
RATE_RULES = ("upload-account", "upload-address")
# One admission decision at a time: counting and creating happen under this lock, so two
# concurrent uploads cannot both take the last place.
_LOCK_KEY = 0x10_5C_0E_AD


@dataclass(frozen=True)
class Capacity:
    workers: int
    time_limit_s: float
    backlog_s: int

    @classmethod
    def from_settings(cls) -> Capacity:
        return cls(
            settings.IOSCORE_VALIDATION_WORKERS,
            settings.IOSCORE_VALIDATION_TIME_LIMIT_S,
            settings.IOSCORE_VALIDATION_BACKLOG_S,
        )

    @property
    def places(self) -> int:
        """Validations the workers surely finish within the backlog window."""
        return max(1, int(self.workers * self.backlog_s // self.time_limit_s))

    @property
    def site_places(self) -> int:
        return max(1, self.places // SITE_SHARE)

    @property
    def account_places(self) -> int:
        return max(1, self.places // ACCOUNT_SHARE)

    def wait_s(self, ahead: int) -> int:
        """Seconds until the ``ahead``-th waiting validation has surely finished."""
        return int(math.ceil(ahead / self.workers) * math.ceil(self.time_limit_s))


@dataclass(frozen=True)
class Refusal:
    status: int  # 503: the service is full; 429: this site or account holds its share
    message: str
    retry_after_s: int


def refusal(user: Any, site: Any, *, lock: bool = False) -> Refusal | None:
    """Why one more validation for ``user`` at ``site`` may not be queued now (None: it may).
    With ``lock`` the decision holds until the surrounding transaction ends (ask again under
    the lock right before creating the submission)."""
    if lock:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])
    capacity = Capacity.from_settings()
    waiting = Submission.objects.filter(status__in=IN_FLIGHT)
    scopes = (  # the sender's own share first: a 429 then says it is theirs to wait for
        (429, Q(owner=user), capacity.account_places, "you have too many runs in validation"),
        (429, Q(site=site), capacity.site_places, f"site {site} has too many runs in validation"),
        (503, Q(), capacity.places, "the validation queue is full"),
    )
    for status, scope, places, why in scopes:
        mine = waiting.filter(scope)
        if mine.count() < places:
            continue
        oldest = mine.order_by("submitted_at", "pk").values_list("submitted_at", flat=True)[0]
        ahead = waiting.filter(submitted_at__lte=oldest).count() if oldest else places
        wait = capacity.wait_s(ahead)
        return Refusal(
            status,
            f"{why} ({places} at most, as the workers can validate them within "
            f"{capacity.backlog_s} s); try again in {wait} s",
            wait,
        )
    return None


def check_capacity(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse upload rate limits that admit more validation time than the workers have."""
    capacity = Capacity.from_settings()
    errors: list[checks.CheckMessage] = []
    if capacity.workers < 1:
        errors.append(
            checks.Error("IOSCORE_VALIDATION_WORKERS must be at least 1", id="ioscore.E001")
        )
        return errors
    for name in RATE_RULES:
        rule = Rule.named(name)
        work = rule.limit * capacity.time_limit_s
        have = capacity.workers * rule.window_s
        if work > have:
            errors.append(
                checks.Error(
                    f"upload rate limit {name} = {rule.limit}/{rule.window_s} s admits "
                    f"{rule.limit} validations of up to {capacity.time_limit_s:g} s "
                    f"({work:g} s of work) per {rule.window_s} s, but "
                    f"{capacity.workers} validation worker(s) do {have} s in that time",
                    hint=(
                        f"lower {name} in IOSCORE_RATE_LIMITS to at most "
                        f"{int(have // capacity.time_limit_s)}/{rule.window_s}, raise "
                        "IOSCORE_VALIDATION_WORKERS, or lower IOSCORE_VALIDATION_TIME_LIMIT_S"
                    ),
                    id="ioscore.E002",
                )
            )
    return errors
