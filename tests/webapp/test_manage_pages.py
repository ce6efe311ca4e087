"""Admin work in the portal (/manage/): releases, list pins, corrections and roles, each with a
confirmation step and an audit line (who, when, why); and `manage.py grant_role`."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from rankings.models import Correction, RankedList, StoragePin
from submissions import intake
from submissions.models import ListType, Release

from .test_rankings import World

pytestmark = pytest.mark.django_db


def _admin(cast: Any) -> Client:
    browser = Client()
    browser.force_login(cast.admin)
    return browser


def test_create_a_release_with_the_api_rules(cast: Any) -> None:
    browser = _admin(cast)
    bad = browser.post(
        "/manage/releases/",
        {"acronym": "ISC27", "release_date": "2027-06-01", "submission_deadline": "2027-06-20"},
    )
    assert bad.status_code == 400
    assert "must not be after the release date" in bad.content.decode()
    assert not Release.objects.filter(acronym="ISC27").exists()
    made = browser.post(
        "/manage/releases/",
        {
            "acronym": "ISC27",
            "name": "IO500 ISC27",
            "release_date": "2027-06-01",
            "submission_deadline": "2027-05-20",
            "tag_date": "2027-03-01",
            "accepted": "io500-isc27, io500-isc27-1",
        },
    )
    assert made.status_code == 302
    release = Release.objects.get(acronym="ISC27")
    assert release.accepted_versions == ["io500-isc27", "io500-isc27-1"]
    assert not release.historic
    line = LogEntry.objects.get(object_id=str(release.pk))
    assert line.user == cast.admin and "created release ISC27" in line.change_message


def test_close_asks_for_a_reason_then_closes_and_logs(cast: Any, open_release: Any) -> None:
    browser = _admin(cast)
    url = f"/manage/releases/{open_release.pk}/close/"
    asked = browser.post(url)
    assert asked.status_code == 200
    assert "its submission deadline becomes" in asked.content.decode()
    open_release.refresh_from_db()
    assert open_release.is_open()  # nothing changed before the confirmation
    unreasoned = browser.post(url, {"confirmed": "1", "reason": ""})
    assert "This field is required." in unreasoned.content.decode()
    done = browser.post(url, {"confirmed": "1", "reason": "the BoF list is being prepared"})
    assert done.status_code == 302
    open_release.refresh_from_db()
    assert not open_release.is_open()
    assert open_release.submission_deadline == timezone.now().date() - timedelta(days=1)
    line = LogEntry.objects.filter(object_id=str(open_release.pk)).latest("action_time")
    assert line.user == cast.admin
    assert "closed for submissions" in line.change_message
    assert "Reason: the BoF list is being prepared" in line.change_message
    again = browser.post(url, {"confirmed": "1", "reason": "twice"})
    assert again.status_code == 409 and "already closed" in again.content.decode()


def test_open_until_and_make_current(cast: Any, open_release: Any) -> None:
    today = timezone.now().date()
    later = Release.objects.create(
        acronym="TST100",
        release_date=today + timedelta(days=200),
        submission_deadline=today - timedelta(days=5),
    )
    browser = _admin(cast)
    url = f"/manage/releases/{later.pk}/open/"
    too_late = (today + timedelta(days=300)).isoformat()
    refused = browser.post(url, {"deadline": too_late, "confirmed": "1", "reason": "x"})
    assert refused.status_code == 409 and "after the release date" in refused.content.decode()
    deadline = (today + timedelta(days=100)).isoformat()
    browser.post(url, {"deadline": deadline, "confirmed": "1", "reason": "call for submissions"})
    later.refresh_from_db()
    assert later.submission_deadline.isoformat() == deadline
    assert intake.open_release() == Release.objects.get(acronym="TST99")  # nearer deadline wins
    page = browser.post(f"/manage/releases/{later.pk}/current/").content.decode()
    assert "close the open releases with an earlier deadline (TST99)" in page
    browser.post(
        f"/manage/releases/{later.pk}/current/", {"confirmed": "1", "reason": "moved the BoF"}
    )
    assert intake.open_release() == later
    assert browser.get("/manage/releases/nope/close/").status_code == 404
    assert browser.post(f"/manage/releases/{later.pk}/delete/").status_code == 404


def test_pin_a_run_for_its_storage_system(cast: Any) -> None:
    world = World()
    release = world.release("SC19", date(2019, 11, 19))
    system = world.storage("scratch")
    best = world.submission(release, 9.0, storage=system)
    chosen = world.submission(release, 5.0, storage=system)
    production = ListType.objects.get(slug="production")
    browser = _admin(cast)
    form = {"list_type": production.pk, "submission": chosen.pk}
    asked = browser.post("/manage/pins/", form).content.decode()
    assert f"show submission #{chosen.pk} for storage system" in asked
    assert not StoragePin.objects.exists()
    browser.post("/manage/pins/", {**form, "confirmed": "1", "reason": "the committee's run"})
    pin = StoragePin.objects.get()
    assert (pin.submission, pin.storage_system, pin.created_by) == (chosen, system, cast.admin)
    assert pin.reason == "the committee's run"
    listed = browser.get("/manage/pins/").content.decode()
    assert "the committee&#x27;s run" in listed and f"#{chosen.pk}" in listed
    missing = browser.post("/manage/pins/", {"list_type": production.pk, "submission": 999999})
    assert "there is no submission #999999" in missing.content.decode()
    huge = browser.post("/manage/pins/", {"list_type": production.pk, "submission": 10**30})
    assert huge.status_code == 400 and "less than or equal to" in huge.content.decode()
    browser.post(f"/manage/pins/{pin.pk}/remove/", {"confirmed": "1", "reason": "undo"})
    assert not StoragePin.objects.exists()
    assert best.pk  # the best-scoring run represents the system again


def test_corrections_check_then_apply_with_reason_and_approver(cast: Any) -> None:
    from rankings.maintenance.builder import build_lists

    world = World()
    sc19 = world.release("SC19", date(2019, 11, 19))
    world.submission(sc19, 5.0)
    build_lists()  # published at once: the release date has passed
    browser = _admin(cast)
    unchanged = browser.post("/manage/corrections/", {"release": "SC19"}, follow=True)
    assert "Every frozen and published list matches a rebuild" in unchanged.content.decode()
    late = world.submission(sc19, 9.0)  # accepted after publication
    checked = browser.post("/manage/corrections/", {"release": "SC19"}).content.decode()
    assert "Apply the rebuild to 3 frozen or published list(s)" in checked
    assert "<li>SC19/historical</li>" in checked
    assert not Correction.objects.exists()
    browser.post(
        "/manage/corrections/",
        {"release": "SC19", "confirmed": "1", "reason": "late acceptance approved"},
    )
    record = Correction.objects.get(
        ranked_list__release=sc19, ranked_list__list_type__slug="historical", submission=late
    )
    assert record.kind == "added" and record.reason == "late acceptance approved"
    assert list(record.approved_by.all()) == [cast.admin]
    historical = RankedList.objects.get(release=sc19, list_type__slug="historical")
    assert historical.revision == 2
    page = browser.get("/manage/corrections/").content.decode()
    assert "late acceptance approved" in page and "admin" in page


def test_roles_page_grants_and_revokes_with_an_audit_line(cast: Any) -> None:
    browser = _admin(cast)
    form = {"username": "submitter", "role": "reviewer", "change": "grant"}
    asked = browser.post("/manage/roles/", form).content.decode()
    assert "Grant the reviewer role to submitter." in asked
    assert not cast.submitter.groups.filter(name="reviewer").exists()
    browser.post("/manage/roles/", {**form, "confirmed": "1", "reason": "joined the committee"})
    assert cast.submitter.groups.filter(name="reviewer").exists()
    line = LogEntry.objects.get(object_id=str(cast.submitter.pk))
    assert line.user == cast.admin
    assert line.change_message == "granted role reviewer. Reason: joined the committee"
    reviewer_client = Client()
    reviewer_client.force_login(cast.submitter)
    assert reviewer_client.get("/review/").status_code == 200
    browser.post(
        "/manage/roles/",
        {**form, "change": "revoke", "confirmed": "1", "reason": "left the committee"},
    )
    assert not cast.submitter.groups.filter(name="reviewer").exists()
    unknown = browser.post("/manage/roles/", {**form, "username": "ghost"}).content.decode()
    assert "no account &#x27;ghost&#x27;" in unknown
    self_revoke = browser.post(
        "/manage/roles/",
        {"username": "admin", "role": "admin", "change": "revoke", "confirmed": "1", "reason": "x"},
    )
    assert self_revoke.status_code == 409
    assert cast.admin.groups.filter(name="admin").exists()


def test_grant_role_command(cast: Any) -> None:
    out = StringIO()
    call_command("grant_role", "other", "reviewer", stdout=out)
    assert "granted reviewer to other" in out.getvalue()
    assert cast.other_submitter.groups.filter(name="reviewer").exists()
    out = StringIO()
    call_command("grant_role", "other", "reviewer", stdout=out)
    assert "already has the reviewer role" in out.getvalue()
    call_command("grant_role", "other", "reviewer", "--revoke", stdout=StringIO())
    assert not cast.other_submitter.groups.filter(name="reviewer").exists()
    with pytest.raises(CommandError, match="no user 'ghost'"):
        call_command("grant_role", "ghost", "admin")
    with pytest.raises(CommandError):
        call_command("grant_role", "other", "emperor")


def test_django_admin_grants_roles_through_the_same_code(cast: Any) -> None:
    from django.contrib.auth.models import User

    boss = User.objects.create_superuser("boss", "boss@example.org", "x" * 16)
    browser = Client()
    browser.force_login(boss)
    listing = browser.get("/admin/auth/user/").content.decode()
    assert "Grant the reviewer role" in listing
    browser.post(
        "/admin/auth/user/",
        {"action": "grant_reviewer", "_selected_action": [cast.other_submitter.pk]},
    )
    assert cast.other_submitter.groups.filter(name="reviewer").exists()
    line = LogEntry.objects.get(object_id=str(cast.other_submitter.pk))
    assert line.user == boss and "granted role reviewer" in line.get_change_message()
