"""`manage.py add_release`: an admin opens the next release; intake then accepts uploads."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from submissions.intake import open_release
from submissions.models import Release

pytestmark = pytest.mark.django_db


def _add(*args: str) -> str:
    out = io.StringIO()
    call_command("add_release", *args, stdout=out)
    return out.getvalue().strip()


def test_opens_a_release_that_intake_attaches_to() -> None:
    today = timezone.now().date()
    deadline, release_date = today + timedelta(days=20), today + timedelta(days=40)
    said = _add(
        "ISC99",
        "--release-date",
        str(release_date),
        "--deadline",
        str(deadline),
        "--accept",
        "io500-isc99",
        "--accept",
        "io500-isc99_v2",
    )
    assert said == f"created release ISC99 (open, deadline {deadline})"
    release = Release.objects.get(acronym="ISC99")
    assert release.accepted_versions == ["io500-isc99", "io500-isc99_v2"]
    assert open_release() == release


def test_same_call_twice_updates_in_place() -> None:
    today = timezone.now().date()
    args = [
        "SC98",
        "--release-date",
        str(today + timedelta(days=9)),
        "--deadline",
        str(today + timedelta(days=3)),
    ]
    _add(*args)
    assert _add(*args).startswith("updated release SC98 (open")
    assert Release.objects.filter(acronym="SC98").count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["X1", "--release-date", "2027-13-01", "--deadline", "2027-01-01"], "not a date"),
        (["X1", "--release-date", "2027-01-01", "--deadline", "2027-02-01"], "must not be after"),
    ],
)
def test_bad_dates_are_refused_with_a_clear_message(args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        _add(*args)
    assert not Release.objects.filter(acronym="X1").exists()
