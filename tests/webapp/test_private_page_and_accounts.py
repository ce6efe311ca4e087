"""The private-submission page a visitor who is not logged in sees, and the command that
makes reviewer and admin accounts (`manage.py create_account`, also used by `make demo`)."""

from __future__ import annotations

import io
import stat
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from accounts import roles
from submissions.models import Status, Submission

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_submission(cast: Any, open_release: Any) -> Submission:
    return Submission.objects.create(
        release=open_release,
        owner=cast.submitter,
        site=cast.site,
        status=Status.UNDER_REVIEW,
        archive="archives/fixture.tar.gz",
        archive_name="fixture.tar.gz",
    )


def test_anonymous_visitor_gets_the_styled_log_in_page(private_submission: Submission) -> None:
    path = f"/submissions/{private_submission.pk}/"
    response = Client().get(path)
    assert response.status_code == 404  # existence is still not confirmed
    page = response.content.decode()
    assert "This submission is private — log in" in page
    assert f'href="/accounts/login/?next=%2Fsubmissions%2F{private_submission.pk}%2F"' in page
    assert '<header class="site-header">' in page  # the site's layout, not a bare error body
    assert "fixture.tar.gz" not in page


def test_an_unknown_id_looks_the_same_to_an_anonymous_visitor(
    private_submission: Submission,
) -> None:
    known = Client().get(f"/submissions/{private_submission.pk}/").content.decode()
    unknown_pk = private_submission.pk + 1000
    unknown = Client().get(f"/submissions/{unknown_pk}/").content.decode()

    def link(pk: int) -> str:
        return f"%2Fsubmissions%2F{pk}%2F"

    assert link(unknown_pk) in unknown
    assert unknown.replace(link(unknown_pk), "X") == known.replace(link(private_submission.pk), "X")


def test_logged_in_stranger_still_gets_a_plain_404(
    cast: Any, private_submission: Submission
) -> None:
    client = Client()
    client.force_login(cast.other_submitter)
    response = client.get(f"/submissions/{private_submission.pk}/")
    assert response.status_code == 404
    assert "log in" not in response.content.decode()


def test_owner_logging_in_through_the_link_sees_the_page(
    cast: Any, private_submission: Submission
) -> None:
    client = Client()
    path = f"/submissions/{private_submission.pk}/"
    client.get(path)
    response = client.post(
        f"/accounts/login/?next={path}",
        {"username": "submitter", "password": cast.password, "next": path},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == path
    assert f"Submission #{private_submission.pk}" in response.content.decode()


def test_create_account_makes_a_reviewer_with_a_private_password_file(tmp_path: Path) -> None:
    password_file = tmp_path / "reviewer_password"
    out = io.StringIO()
    call_command(
        "create_account", "carol", role="reviewer", password_file=password_file, stdout=out
    )
    password = password_file.read_text().strip()
    assert password not in out.getvalue()
    assert stat.S_IMODE(password_file.stat().st_mode) == 0o600
    carol = User.objects.get(username="carol")
    assert carol.check_password(password)
    assert roles.is_reviewer(carol) and not roles.is_admin(carol)


def test_create_account_again_adds_the_role_and_renews_the_password() -> None:
    first, second = io.StringIO(), io.StringIO()
    call_command("create_account", "dave", role="reviewer", stdout=first)
    call_command("create_account", "dave", role="admin", stdout=second)
    old = first.getvalue().split("password ")[-1].strip()
    new = second.getvalue().split("password ")[-1].strip()
    dave = User.objects.get(username="dave")
    assert not dave.check_password(old) and dave.check_password(new)
    assert roles.is_admin(dave)
    assert set(dave.groups.values_list("name", flat=True)) == {roles.REVIEWER, roles.ADMIN}


def test_create_account_refuses_an_unknown_site() -> None:
    with pytest.raises(CommandError, match="no site with abbreviation 'NOPE'"):
        call_command("create_account", "erin", role="submitter", site="NOPE")
    assert not User.objects.filter(username="erin").exists()
