"""The anonymous response cache of the public pages and API (``rankings.page_cache``).

A response cached for anonymous visitors must stop being served the moment what it shows
changes (a withdrawal, an acceptance, the end of an embargo), and is never served to a
logged-in user.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from submissions import public_version, workflow
from submissions.models import Submission

from .test_rankings import World, build
from .test_rankings_access import PENDING_SYSTEM, SECRET_SYSTEM, urlpatterns  # noqa: F401

pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def scene(cast: Any) -> dict[str, Any]:
    world = World()
    past = world.release("SC19", date(2019, 11, 19))
    future = world.release("ISC99", date.today() + timedelta(days=120))
    public = world.submission(past, 5.0, system="Public Cluster", owner=cast.submitter)
    other = world.submission(past, 7.0, system="Other Cluster")
    pending = world.submission(past, 50.0, system=PENDING_SYSTEM, status="under_review")
    embargoed = world.submission(future, 500.0, system=SECRET_SYSTEM)
    build()
    return {
        "public": public,
        "other": other,
        "pending": pending,
        "embargoed": embargoed,
        "cast": cast,
    }


def _cached_urls(scene: dict[str, Any]) -> list[str]:
    ids = f"{scene['public'].pk},{scene['other'].pk}"
    return [
        reverse("rankings:ranked-list", args=["SC19", "full"]),
        reverse("rankings:api-list-entries", args=["SC19", "full"]),
        reverse("rankings:api-results"),
        reverse("rankings:api-result", args=[scene["public"].pk]),
        reverse("rankings:compare") + f"?ids={ids}",
        reverse("rankings:home"),
        reverse("rankings:trends"),
    ]


def _texts(client: Client, urls: list[str]) -> dict[str, str]:
    return {url: client.get(url).content.decode() for url in urls}


def test_a_repeat_anonymous_request_is_served_from_the_cache(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    client = Client()
    url = reverse("rankings:api-results")
    first = client.get(url)
    assert first.status_code == 200 and "Public Cluster" in first.content.decode()
    with django_assert_max_num_queries(1):  # the public-results version, nothing else
        again = client.get(url)
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"] == "application/json"


def test_a_repeat_anonymous_list_view_reads_only_the_list_and_the_version(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    """Its hidden entries are not read on a hit: only a change of the public-results
    version (in the identity) hides an entry."""
    client = Client()
    for url in _cached_urls(scene)[:2]:  # the list page and its entries in the API
        first = client.get(url)
        with django_assert_max_num_queries(2):
            assert client.get(url).content == first.content


def test_the_browsable_api_is_not_shared(scene: dict[str, Any]) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = Client()
    url = reverse("rankings:api-results")
    assert client.get(url, HTTP_ACCEPT="text/html")["Content-Type"].startswith("text/html")
    with CaptureQueriesContext(connection) as again:
        client.get(url, HTTP_ACCEPT="text/html")
    assert len(again) > 1  # rendered again (version, ids, rows...), not from the cache


def test_a_withdrawn_result_is_never_served_from_the_cache(scene: dict[str, Any]) -> None:
    client = Client()
    urls = _cached_urls(scene)
    before = _texts(client, urls)
    for url in urls[:-1]:  # trends draws values, not names
        assert "Public Cluster" in before[url], url
    # As the admin does it: a freshly loaded row saved with another status.
    row = Submission.objects.get(pk=scene["public"].pk)
    row.status = "withdrawn"
    row.save()
    after = _texts(client, urls)
    for url in urls[:-1]:
        assert "Public Cluster" not in after[url], url
    assert client.get(urls[3]).status_code == 404  # the result itself


def test_an_acceptance_shows_at_once(scene: dict[str, Any]) -> None:
    client = Client()
    url = reverse("rankings:api-results")
    version = public_version.current()
    assert PENDING_SYSTEM not in client.get(url).content.decode()
    workflow.transition(
        scene["pending"], "accepted", scene["cast"].reviewer, "fine", role=workflow.COMMITTEE
    )
    assert public_version.current() != version
    assert PENDING_SYSTEM in client.get(url).content.decode()


def test_the_end_of_an_embargo_shows_without_any_write(scene: dict[str, Any]) -> None:
    client = Client()
    url = reverse("rankings:api-results")
    assert SECRET_SYSTEM not in client.get(url).content.decode()
    later = datetime.combine(date.today() + timedelta(days=121), datetime.min.time(), UTC)
    with mock.patch("django.utils.timezone.now", return_value=later):
        assert SECRET_SYSTEM in client.get(url).content.decode()


def test_logged_in_users_never_get_the_anonymous_bytes(scene: dict[str, Any]) -> None:
    # A run withdrawn after its list was built: hidden from anonymous visitors, shown to the
    # committee; an unaccepted one: on no list, but the committee sees it in the results.
    row = Submission.objects.get(pk=scene["other"].pk)
    row.status = "withdrawn"
    row.save()
    ids = f"{scene['public'].pk},{scene['pending'].pk}"
    committee_only = {
        reverse("rankings:api-results"): PENDING_SYSTEM,
        reverse("rankings:compare") + f"?ids={ids}": PENDING_SYSTEM,
        reverse("rankings:api-list-entries", args=["SC19", "full"]): "Other Cluster",
        reverse("rankings:ranked-list", args=["SC19", "full"]): "Other Cluster",
    }
    anonymous = Client()
    for url, name in committee_only.items():
        assert name not in anonymous.get(url).content.decode(), url
    committee = Client()
    committee.force_login(scene["cast"].reviewer)
    for url, name in committee_only.items():
        assert name in committee.get(url).content.decode(), url
    submitter = Client()
    submitter.force_login(scene["cast"].submitter)
    page = submitter.get(reverse("rankings:ranked-list", args=["SC19", "full"])).content.decode()
    assert scene["cast"].submitter.username in page  # their own header, not the shared one


def test_the_api_token_user_is_not_anonymous(scene: dict[str, Any]) -> None:
    from accounts.models import ApiToken, Site

    url = reverse("rankings:api-results")
    assert PENDING_SYSTEM not in Client().get(url).content.decode()
    site = Site.objects.first()
    site.members.add(scene["cast"].reviewer)  # a token is for a site its user belongs to
    _token, raw = ApiToken.issue(scene["cast"].reviewer, site, "cache test", role="reviewer")
    response = Client().get(url, HTTP_AUTHORIZATION=f"Token {raw}")
    assert PENDING_SYSTEM in response.content.decode()


def test_home_is_served_from_the_cache_until_a_list_changes(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    from rankings.models import ListState, RankedList

    client = Client()
    url = reverse("rankings:home")
    first = client.get(url).content.decode()
    assert "SC19" in first
    with django_assert_max_num_queries(2):  # the visible lists and the version
        assert client.get(url).content.decode() == first
    # A list taken back to draft (no submission changes, the version stays): it goes at once.
    shown = RankedList.objects.get(
        release__acronym="SC19", list_type__slug="full", state=ListState.PUBLISHED
    )
    link = reverse("rankings:ranked-list", args=["SC19", "full"])
    assert f'href="{link}"' in first
    version = public_version.current()
    RankedList.objects.filter(pk=shown.pk).update(state=ListState.DRAFT)
    assert public_version.current() == version
    assert f'href="{link}"' not in client.get(url).content.decode()


# --- writes that change what is shown without a visibility change ------------------------------

MISSPELT, CANONICAL = "HHMIJRC", "Janelia Research Campus, HHMI"  # canonical_names.toml


def test_a_canonical_rename_shows_at_once(scene: dict[str, Any]) -> None:
    """``manage.py canonicalise_names`` rewrites names in place (descriptions, list entries'
    display columns, sites): every cached page and API response names the new spelling."""
    import io

    from django.core.management import call_command

    from accounts.models import Site
    from rankings.maintenance import list_index
    from rankings.models import ListEntry
    from submissions.models import SystemDescription

    # Rows as stored before the table knew the alias.
    Site.objects.filter(name="Ranking University").update(name=MISSPELT)
    SystemDescription.objects.update(
        institution=MISSPELT, institution_submitted="", fs_type="beegfs", fs_type_submitted=""
    )
    ListEntry.objects.update(institution=MISSPELT, fs_type="beegfs")
    list_index.refresh()  # what the builder stores with entries it writes
    client = Client()
    urls = _cached_urls(scene)
    for url, text in _texts(client, urls).items():
        # Trends names each release's best new entry as stored at the build (not renamed).
        assert url == urls[-1] or MISSPELT in text, url
        assert CANONICAL not in text, url
    assert 'value="beegfs"' in client.get(urls[0]).content.decode()  # the FS type filter
    call_command("canonicalise_names", stdout=io.StringIO())
    for url, text in _texts(client, urls).items():
        assert CANONICAL in text and MISSPELT not in text, url
    filters = client.get(urls[0]).content.decode()
    assert 'value="BeeGFS"' in filters and 'value="beegfs"' not in filters


def test_an_admin_rename_of_a_site_shows_at_once(scene: dict[str, Any]) -> None:
    from accounts.models import Site

    client = Client()
    urls = _cached_urls(scene)[2:4]  # the results API and one result name the site
    assert all("Ranking University" in text for text in _texts(client, urls).values())
    site = Site.objects.get(name="Ranking University")  # as the admin's change form does
    site.name = "Renamed University"
    site.save()
    for url, text in _texts(client, urls).items():
        assert "Renamed University" in text and "Ranking University" not in text, url


def test_an_admin_edit_of_a_client_system_shows_at_once(scene: dict[str, Any]) -> None:
    from submissions.models import ClientSystem, SystemDescription

    public = scene["public"]
    machine = ClientSystem.objects.create(site=public.site, name="Machine One")
    Submission.objects.filter(pk=public.pk).update(client_system=machine)
    SystemDescription.objects.filter(submission=public).update(system="")  # named by it
    client = Client()
    urls = _cached_urls(scene)[2:4]
    assert all("Machine One" in text for text in _texts(client, urls).values())
    machine.name = "Machine Two"
    machine.save()
    for url, text in _texts(client, urls).items():
        assert "Machine Two" in text and "Machine One" not in text, url


def test_an_admin_edit_of_a_list_type_or_release_shows_on_the_list_pages_at_once(
    scene: dict[str, Any],
) -> None:
    from submissions.models import ListType, Release

    client = Client()
    page = reverse("rankings:ranked-list", args=["SC19", "historical"])  # a sibling's tab too
    first = client.get(page).content.decode()
    assert "Full</a>" in first and "released 2019-11-19" in first
    full = ListType.objects.get(slug="full")
    full.name = "Complete"
    full.save()
    release = Release.objects.get(acronym="SC19")
    release.release_date = date(2019, 11, 18)
    release.save()
    again = client.get(page).content.decode()
    assert "Complete</a>" in again and "released 2019-11-18" in again


def test_a_new_list_shows_in_its_siblings_tabs_at_once(scene: dict[str, Any]) -> None:
    from rankings.models import RankedList

    RankedList.objects.filter(release__acronym="SC19", list_type__slug="full").delete()
    client = Client()
    page = reverse("rankings:ranked-list", args=["SC19", "historical"])
    assert "Full</a>" not in client.get(page).content.decode()
    build()  # creates the missing list, published (its release date has passed)
    assert "Full</a>" in client.get(page).content.decode()


def test_a_reimported_website_list_shows_at_once(tmp_path: Any) -> None:
    """The import of IO500's published lists rewrites a list's rows in place (the list keeps
    its build time when its state is unchanged)."""
    import io
    import shutil
    from pathlib import Path

    from django.core.management import call_command

    sample = Path(__file__).resolve().parents[2] / "examples" / "io500-sample"
    data = tmp_path / "data"
    shutil.copytree(sample, data)
    call_command("import_io500", str(data), stdout=io.StringIO())
    client = Client()
    page = reverse("rankings:ranked-list", args=["SC17", "io500"])
    assert "Oakforest-PACS<" in client.get(page).content.decode()
    lists = data / "io500-published-lists.csv"
    lists.write_text(lists.read_text().replace(",Oakforest-PACS,", ",Oakforest-PACS (OFP),"))
    call_command("import_io500", str(data), stdout=io.StringIO())
    again = client.get(page).content.decode()
    assert "Oakforest-PACS (OFP)<" in again and "Oakforest-PACS<" not in again


# --- what the key holds: the parameters a view reads, nothing else -----------------------------


def _with(url: str, extra: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{extra}"


def _download_urls() -> list[str]:
    return [
        reverse("rankings:list-csv", args=["SC19", "full"]),
        reverse("rankings:list-json", args=["SC19", "full"]),
    ]


def _stored_keys(calls: Any) -> list[str]:
    return [c.args[0] for c in calls.call_args_list if c.args[0].startswith("page-cache:")]


def test_a_parameter_the_view_does_not_read_neither_skips_nor_multiplies_the_cache(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    from django.core.cache import cache

    client = Client()
    urls = [*_cached_urls(scene), *_download_urls()]
    with mock.patch.object(cache, "set", wraps=cache.set) as stored:
        first = _texts(client, urls)
        for url in urls:
            for extra in ("x=1", "x=2", "utm_source=mail&x=3"):
                with django_assert_max_num_queries(2):  # the list or lists, the version
                    assert client.get(_with(url, extra)).content.decode() == first[url], url
    assert len(_stored_keys(stored)) == len(urls)  # one entry per view, not per spelling


def test_the_parameters_a_view_reads_still_make_their_own_entries(scene: dict[str, Any]) -> None:
    client = Client()
    page = reverse("rankings:ranked-list", args=["SC19", "full"])
    assert "Other Cluster" in client.get(page).content.decode()
    searched = client.get(page, {"q": "Public"}).content.decode()
    assert "Public Cluster" in searched and "Other Cluster" not in searched
    assert client.get(page, {"q": "Public", "x": "1"}).content.decode() == searched
    csv_text = client.get(_download_urls()[0], {"q": "Other"}).content.decode()
    assert "Other Cluster" in csv_text and "Public Cluster" not in csv_text
    # A page or the columns do not change a download: one entry serves them all.
    again = client.get(_download_urls()[0], {"q": "Other", "page": "3", "cols": "rank"})
    assert again.content.decode() == csv_text


def test_whole_list_downloads_are_cached_until_what_they_show_changes(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    client = Client()
    for url in _download_urls():
        first = client.get(url)
        assert first.status_code == 200 and "Public Cluster" in first.content.decode()
        with django_assert_max_num_queries(2):  # the list, the version
            again = client.get(url)
        assert again.content == first.content
        for header in ("Content-Type", "Content-Disposition"):
            assert again.get(header) == first.get(header), header
    assert client.get(_download_urls()[0])["Content-Disposition"].startswith("attachment;")
    row = Submission.objects.get(pk=scene["public"].pk)
    row.status = "withdrawn"
    row.save()
    for url in _download_urls():
        assert "Public Cluster" not in client.get(url).content.decode(), url


def test_a_formula_view_is_cached_under_a_key_of_fixed_length(
    scene: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    from django.core.cache import cache

    from ioscore.results import MAX_FORMULA_CHARS

    client = Client()
    formula = "bw * 1." + "0" * (MAX_FORMULA_CHARS - 20) + "1 + md"  # few parts, long
    assert MAX_FORMULA_CHARS - 10 < len(formula) <= MAX_FORMULA_CHARS
    urls = [
        reverse("rankings:ranked-list", args=["SC19", "full"]),
        reverse("rankings:api-list-entries", args=["SC19", "full"]),
        *_download_urls(),
    ]
    with mock.patch.object(cache, "set", wraps=cache.set) as stored:
        for url in urls:
            first = client.get(url, {"formula": formula})
            assert first.status_code == 200, url
            with django_assert_max_num_queries(2):
                assert client.get(url, {"formula": formula, "x": "1"}).content == first.content
    keys = _stored_keys(stored)
    assert len(keys) == len(urls)
    assert {len(key.rsplit(":", 1)[1]) for key in keys} == {64}  # a sha256, whatever the formula
    # Another formula is another view.
    other = client.get(urls[0], {"formula": "bw"}).content.decode()
    assert "Your formula: bw<" in other and formula not in other
