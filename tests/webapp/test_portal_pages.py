"""Every page has the one base template and navigation for the viewer's role; the error pages
say what went wrong; the submitter's run page, on a real run of our suite, shows what a result
page shows (scored phases with units, the description as a table, the questionnaire with its
questions, rule results in words, the timeline) and the straggler chart uses the library's
rule (``ioscore.results.stragglers``, the CLI report's)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, RequestFactory

from ioscore.results.loader import load_run
from ioscore.results.stragglers import phase_spread, work_rates
from submissions.models import Status, Submission, SubmissionTransition
from validation.models import ValidationIssue

from .portal_runs import store_run, straggler_run_dir

PUBLIC = ["/", "/lists/", "/compare/", "/trends/", "/accounts/login/"]
NAV = ["Home", "Lists", "Compare", "Trends", "API"]


def _nav(page: str) -> list[str]:
    """The header's link texts, then its log-out button."""
    header = page.split('<header class="site-header">', 1)[1].split("</header>", 1)[0]
    links = re.findall(r"<a [^>]*>(.*?)</a>", header)
    texts = [re.sub(r"<[^>]+>", "", label).strip() for label in links]
    return texts + re.findall(r"<button[^>]*>\s*(Log out)", header)


def _client(user: Any = None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _one_look(page: str) -> None:
    assert page.count('<header class="site-header">') == 1
    assert page.count("/static/css/site.css") == 1 and "<style>" not in page
    assert '<a class="skip-link" href="#main">' in page and '<main id="main"' in page


@pytest.mark.django_db
@pytest.mark.parametrize("path", PUBLIC)
def test_visitor_pages_share_the_base_and_the_public_navigation(path: str) -> None:
    response = _client().get(path)
    assert response.status_code == 200
    page = response.content.decode()
    _one_look(page)
    labels = _nav(page)
    assert labels[:1] == ["ioscore"] and labels[1:6] == NAV
    assert labels[6:] == ["Log in"]
    if path != "/accounts/login/":
        assert f'href="/accounts/login/?next={path.replace("/", "%2F")}"' in page


@pytest.mark.django_db
def test_api_docs_have_the_site_header() -> None:
    page = _client().get("/api/v1/docs/").content.decode()
    assert _nav(page)[1:] == [*NAV, "Log in"]
    assert page.count("/static/css/site.css") == 1 and '<redoc id="main"' in page
    assert re.findall(r'<a href="([^"]+)" aria-current="page">', page) == ["/api/v1/docs/"]


def test_each_role_sees_its_own_links(cast: Any) -> None:
    expected = {
        "submitter": ["Upload", "My submissions", "Tokens", "Acceptance", "Log out"],
        "reviewer": ["Upload", "My submissions", "Tokens", "Acceptance", "Review queue", "Log out"],
        "admin": [
            "Upload",
            "My submissions",
            "Tokens",
            "Acceptance",
            "Review queue",
            "Manage",
            "Log out",
        ],
    }
    for role, links in expected.items():
        page = _client(getattr(cast, role)).get("/lists/").content.decode()
        assert _nav(page) == ["ioscore", *NAV, *links], role


@pytest.mark.parametrize(
    "path", ["/submissions/mine/", "/submissions/new/", "/accounts/tokens/", "/lists/"]
)
def test_submitter_pages_share_the_base_and_mark_the_current_page(cast: Any, path: str) -> None:
    page = _client(cast.submitter).get(path).content.decode()
    _one_look(page)
    current = re.findall(r'<a href="([^"]+)" aria-current="page">', page)
    assert current == [path]


def test_login_and_token_fields_are_labelled(cast: Any) -> None:
    for client, path in (
        (_client(), "/accounts/login/"),
        (_client(cast.submitter), "/accounts/tokens/"),
    ):
        page = client.get(path).content.decode()
        fields = re.findall(r'<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"', page)
        assert fields, path
        for field in fields:
            assert f'for="{field}"' in page, (path, field)


def test_review_queue_refuses_a_submitter_with_the_styled_403(cast: Any) -> None:
    response = _client(cast.submitter).get("/review/")
    assert response.status_code == 403
    page = response.content.decode()
    _one_look(page)
    assert "This page needs the <strong>reviewer (committee member)</strong> role" in page
    assert "only a reviewer (committee member) may see the review queue" in page
    assert "logged in as <strong>submitter</strong> with the submitter role" in page
    assert 'href="/accounts/login/?next=%2Freview%2F"' in page


def test_review_action_refuses_a_submitter_with_the_styled_403(
    cast: Any, open_release: Any
) -> None:
    run = Submission.objects.create(
        release=open_release, owner=cast.submitter, site=cast.site, status=Status.UNDER_REVIEW
    )
    response = _client(cast.submitter).post(f"/submissions/{run.pk}/review/", {"action": "accept"})
    assert response.status_code == 403
    assert "may record a review decision" in response.content.decode()
    run.refresh_from_db()
    assert run.status == Status.UNDER_REVIEW


@pytest.mark.django_db
def test_unknown_address_gets_the_styled_404() -> None:
    response = _client().get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    _one_look(page)
    assert "There is no page at <code>/no/such/page/</code>" in page
    assert "tried" not in page  # the resolver's internals stay inside


@pytest.mark.django_db
def test_missing_result_says_what_was_not_found() -> None:
    response = _client().get("/results/987654/")
    assert response.status_code == 404
    page = response.content.decode()
    assert 'id="not-found"' in page and "/results/987654/" in page
    assert 'href="/accounts/login/?next=%2Fresults%2F987654%2F"' in page


def test_server_error_page_needs_no_database() -> None:
    # No django_db mark: any query here would fail the test.
    from portal.errors import server_error

    response = server_error(RequestFactory().get("/lists/"))
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong on our side" in page and "Traceback" not in page
    assert '<header class="site-header">' in page


# --- the run page on real suite output ------------------------------------------------------


@pytest.fixture(scope="module")
def straggler_run() -> Iterator[Path]:
    with straggler_run_dir("ioscore-portal-") as run_dir:
        yield run_dir


@pytest.fixture
def own_run(cast: Any, open_release: Any, straggler_run: Path) -> Submission:
    """The suite's run with its metadata, one rule result of each kind and state changes."""
    submission = store_run(
        straggler_run, cast.submitter, cast.site, open_release, Status.CHANGES_REQUESTED
    )
    ValidationIssue.objects.create(
        submission=submission,
        rule="stonewall-time",
        severity="invalid",
        message="stonewall-time is 1 s; the rules need 300 s",
        expected=300,
        actual=1,
    )
    ValidationIssue.objects.create(
        submission=submission,
        rule="archive-job-script",
        severity="warning",
        message="no job script found in the archive",
        expected=[],
        actual=None,
    )
    for old, new, who in (
        ("", Status.SUBMITTED, cast.submitter),
        (Status.SUBMITTED, Status.VALIDATING, None),
        (Status.VALIDATING, Status.UNDER_REVIEW, None),
        (Status.UNDER_REVIEW, Status.CHANGES_REQUESTED, cast.reviewer),
    ):
        SubmissionTransition.objects.create(
            submission=submission, from_status=old, to_status=new, actor=who, comment=""
        )
    return submission


def _chart_data(page: str) -> dict[str, Any]:
    match = re.search(r'<script id="chart-data" type="application/json">(.*?)</script>', page, re.S)
    assert match, "no chart data on the page"
    return json.loads(match.group(1))


@pytest.mark.mpi
def test_run_page_shows_what_a_result_page_shows(cast: Any, own_run: Submission) -> None:
    response = _client(cast.submitter).get(f"/submissions/{own_run.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    _one_look(page)
    table = page.split('id="phase-table"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<th scope="row">([^<]+)</th>', table)
    assert len(rows) == 12 and "timestamp" not in rows
    assert "timestamp" in page.split('id="phase-steps"', 1)[1].split("</p>", 1)[0]
    assert ">0\u00a0kIOPS" not in table and re.search(r"\d\u00a0(GiB/s|kIOPS)", table)
    assert re.search(r"\d\u00a0(ms|s|µs)<", table)
    html = page.split('<script id="chart-data"', 1)[0]  # the charts' data keeps full precision
    assert not re.search(r"\d\.\d{7,}", html)  # no 0.00003075599670410156
    # description as labelled groups, questionnaire under its questions, no raw JSON
    assert "<caption>Client nodes: compute</caption>" in page and "OS distribution" in page
    assert "System purpose" in page and "Fully Reproducible" in page
    assert '"value":' not in page.split('<script id="chart-data"', 1)[0]
    assert "<dt>purpose</dt>" not in page and "Expected: []" not in page
    # rule results in words with expected and actual, nothing for an empty expectation
    assert "Blocks the submission:</strong> Stonewall time" in page
    assert "Expected 300 · found 1" in page
    checks = page.split('id="rule-checks"', 1)[1].split("</ul>", 1)[0]
    job = checks.split("Archive job script", 1)[1].split("</li>", 1)[0]
    assert "Expected" not in job and "· found" not in job and "<br><small>" not in job
    # the timeline of states with ISO dates in UTC
    timeline = page.split('id="timeline"', 1)[1].split("</ol>", 1)[0]
    labels = re.findall(r"<strong>([^<]+)</strong>", timeline)
    assert labels == [
        "Uploaded",
        "Submitted",
        "Automatic checks started",
        "Checks passed; waiting for the committee",
        "Committee asked for changes",
    ]
    assert len(re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", timeline)) == 5
    assert "by the committee" in timeline and "by reviewer" not in timeline  # submitter view
    facts = page.split('id="run-facts"', 1)[1].split("</dl>", 1)[0]
    assert re.search(r"<dt>Run started</dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC</dd>", facts)
    assert "2 processes" in facts and "(standard mode)" in facts
    # the radar of the public page
    radar = _chart_data(page)["radar"]
    assert len(radar["phases"]) == 12 and radar["traces"][0]["values"][0] is not None


@pytest.mark.mpi
def test_straggler_chart_uses_the_library_rule(
    cast: Any, own_run: Submission, straggler_run: Path
) -> None:
    page = _client(cast.submitter).get(f"/submissions/{own_run.pk}/").content.decode()
    spread = {s["phase"]: s for s in _chart_data(page)["spread"]}
    run = load_run(straggler_run)
    flagged_somewhere = False
    for name, phase in run.phases.items():
        rates = work_rates(phase)
        if not rates or max(rates.values()) <= 0:
            assert name not in spread  # timestamp: nothing measured per rank
            continue
        shown = spread[name]
        library = phase_spread(phase)
        assert [f["rank"] for f in shown["flags"]] == library.straggler_ranks, name
        assert [f["reason"] for f in shown["flags"]] == [f.reason for f in library.rank_stragglers]
        scale = 1024**3 if phase.unit == "GiB/s" else 1000.0
        assert shown["rate"] == pytest.approx([rates[r] / scale for r in shown["ranks"]])
        flagged_somewhere |= bool(library.straggler_ranks)
    # the delayed rank is found (the old "end > 1.1 x median end" rule found nothing: every
    # rank's end is after the closing barrier)
    assert flagged_somewhere
    assert spread["mdtest-easy-write"]["flags"][0]["rank"] == 1
    # the table says it in the phase's unit: rank 1's work rate and its peer's (rank 0's)
    table = page.split('id="straggler-table"', 1)[1].split("</table>", 1)[0]
    row = re.search(
        r'<th scope="row">mdtest-easy-write</th><td>1 \([^)]*\)</td>'
        r'<td class="num">([\d.,]+)\u00a0kIOPS</td><td class="num">([\d.,]+)\u00a0kIOPS</td>',
        table,
    )
    assert row, table
    rates = work_rates(run.phases["mdtest-easy-write"])
    shown_rate, shown_peer = (float(v.replace(",", "")) for v in row.groups())
    assert shown_rate == pytest.approx(rates[1] / 1000, rel=5e-3)
    assert shown_peer == pytest.approx(rates[0] / 1000, rel=5e-3)


@pytest.mark.mpi
def test_public_result_page_uses_the_same_partials(cast: Any, own_run: Submission) -> None:
    own_run.status = Status.ACCEPTED
    own_run.save()
    page = _client(cast.reviewer).get(f"/results/{own_run.pk}/").content.decode()
    _one_look(page)
    assert "<caption>Client nodes: compute</caption>" in page
    assert 'id="phase-steps"' in page and "Blocks the submission" in page
    assert _chart_data(page)["spread"]


def test_staff_manage_in_the_admin_which_links_back_to_the_portal(cast: Any) -> None:
    cast.admin.is_staff = cast.admin.is_superuser = True
    cast.admin.save()
    client = _client(cast.admin)
    assert _nav(client.get("/lists/").content.decode())[-3:] == ["Manage", "Admin", "Log out"]
    page = client.get("/admin/").content.decode()
    assert "ioscore administration" in page
    portal = page.split('<nav aria-label="Portal"', 1)[1].split("</nav>", 1)[0]
    assert re.findall(r'href="([^"]+)"', portal) == [
        "/",
        "/lists/",
        "/review/",
        "/submissions/mine/",
    ]
