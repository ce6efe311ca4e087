"""The guided upload and edit forms: generated from the system-description JSON Schema (every
property, grouped, help from descriptions, enums as selects, required marked), prefilled from
real `ioscore sysinfo` output, server-side errors beside the fields, nothing stored until the
whole form is right, and the same form for editing after the committee asked for changes."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from ioscore.system_description import schema
from submissions import schema_form
from submissions.models import Questionnaire, Status, Submission, SystemDescription
from submissions.questionnaire import LEVEL_HELP, QUESTIONS

from .helpers import JOB_FILES, QUESTIONNAIRE, REPO_ROOT, example_system, tar_gz

pytestmark = pytest.mark.django_db


def schema_leaves(spec: dict[str, Any], path: str = "") -> dict[str, dict[str, Any]]:
    """Every leaf property of the schema (walked here independently of the form code), with
    array items at position 0; quantities and other objects are descended into."""
    root = schema()
    if "$ref" in spec:
        spec = {**root["$defs"][spec["$ref"].rsplit("/", 1)[-1]], **spec}
    if spec.get("type") == "array":
        return schema_leaves(spec["items"], f"{path}.0")
    if spec.get("type") == "object" and "properties" in spec:
        found: dict[str, dict[str, Any]] = {}
        for name, sub in spec["properties"].items():
            found.update(schema_leaves(sub, f"{path}.{name}" if path else name))
        return found
    return {path: spec}


def schema_required(spec: dict[str, Any], path: str = "") -> set[str]:
    root = schema()
    if "$ref" in spec:
        spec = {**root["$defs"][spec["$ref"].rsplit("/", 1)[-1]], **spec}
    if spec.get("type") == "array":
        return schema_required(spec["items"], f"{path}.0")
    found: set[str] = set()
    for name, sub in spec.get("properties", {}).items():
        child = f"{path}.{name}" if path else name
        if name in spec.get("required", []):
            found.add(child)
        found |= schema_required(sub, child)
    return found


def test_the_form_has_a_field_for_every_schema_property() -> None:
    form = schema_form.SystemDescriptionForm(tree=None)
    leaves = schema_leaves(schema())
    assert len(leaves) > 130  # the walk really reached the nested groups
    for path, spec in leaves.items():
        if path == "schema":
            assert form.tree()["schema"] if form.is_bound else True  # fixed, not asked
            continue
        field = form.fields.get(f"sys-{path}")
        assert field is not None, f"no form field for schema property {path}"
        if "enum" in spec:
            assert [value for value, _ in field.choices][1:] == [str(v) for v in spec["enum"]]
        if spec.get("type") == "boolean":
            assert [value for value, _ in field.choices] == ["", "true", "false"]
    assert set(form.fields) == {f"sys-{p}" for p in leaves if p != "schema"}
    for path in schema_required(schema()):
        assert form.nodes[path].required, f"{path} is required by the schema, not marked"
    for path, node in form.nodes.items():
        spec = node.spec
        if spec.get("description"):
            assert spec["description"] in node.help, path


def test_the_page_renders_every_field_grouped_without_javascript(cast: Any) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    page = browser.get("/submissions/new/").content.decode()
    for path in schema_leaves(schema()):
        if path != "schema":
            assert f'name="sys-{path}"' in page, path
    for legend in ("Site", "Client system", "Client node group 1", "Processor", "Server group 1"):
        assert f"<legend>{legend}" in page, legend
    # enums are selects, the archive's contents and the checks come from the library
    assert re.search(r'<select name="sys-run.fs_family"[^>]*>\s*<option value=""', page)
    for text in ("result_summary.txt or result.json", ".slurm", "slurm-…", "version accepted"):
        assert text in page, text
    for label in QUESTIONS.values():
        assert label in page
    for help_text in LEVEL_HELP.values():
        assert help_text in page
    assert "<textarea" in page and "{&quot;" not in page  # no raw JSON in the page


def _sysinfo_output(tmp_path: Path) -> str:
    """`ioscore sysinfo` run for real on this machine (the CLI the submitter runs)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "runners")}
    done = subprocess.run(
        [sys.executable, "-m", "ioscore.cli", "sysinfo", "--datadir", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    return done.stdout


def _field_value(page: str, name: str) -> str | None:
    """The value an input or select shows for ``name``."""
    tag = re.search(rf'<(input|select|textarea)[^>]*name="{re.escape(name)}"[^>]*>', page)
    assert tag is not None, f"no field {name}"
    if tag.group(1) == "input":
        value = re.search(r'value="([^"]*)"', tag.group(0))
        return value.group(1) if value else None
    rest = page[tag.end() : page.index(f"</{tag.group(1)}>", tag.end())]
    if tag.group(1) == "textarea":
        return rest.strip()
    chosen = re.search(r'<option value="([^"]*)" selected>', rest)
    return chosen.group(1) if chosen else None


def test_prefill_from_real_sysinfo_output(cast: Any, tmp_path: Path) -> None:
    output = _sysinfo_output(tmp_path)
    detected = json.loads(output)
    browser = Client()
    browser.force_login(cast.submitter)
    response = browser.post(
        "/submissions/new/",
        {"guided": "1", "system": output, "_action": "prefill", "sys-site.institution": "Kept U"},
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "Filled" in page and "from the pasted description" in page
    assert 'class="sf-error"' not in page and "Nothing was stored" not in page
    group = detected["client_node_groups"][0]
    assert group["kernel_version"] == platform.release()
    assert _field_value(page, "sys-client_node_groups.0.kernel_version") == platform.release()
    for key in ("os_distribution", "os_version"):
        if key in group:
            assert _field_value(page, f"sys-client_node_groups.0.{key}") == str(group[key])
    processor = group.get("processor", {})
    if "cores_per_socket" in processor:
        assert _field_value(page, "sys-client_node_groups.0.processor.cores_per_socket") == str(
            processor["cores_per_socket"]
        )
    # what the user typed before filling is kept where the paste says nothing
    assert _field_value(page, "sys-site.institution") == "Kept U"
    assert not Submission.objects.exists()  # filling the form stores nothing


def test_prefill_from_a_chosen_file(cast: Any) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    document = json.dumps(example_system()).encode()
    response = browser.post(
        "/submissions/new/",
        {
            "guided": "1",
            "_action": "prefill",
            "system_file": SimpleUploadedFile("s.json", document),
        },
    )
    page = response.content.decode()
    assert _field_value(page, "sys-client_system.name") == "Example Cluster"
    assert _field_value(page, "sys-server_groups.1.role") == "OSS"  # a second group laid out
    assert _field_value(page, "sys-server_groups.1.media.0.usable_capacity.unit") == "TB"
    assert _field_value(page, "sys-run.dedicated") == "true"
    assert _field_value(page, "sys-fs_component.options") == "backend = LDISKFS\ndne = DNE2"


def _error_beside(page: str, name: str) -> str:
    """The error text in the field block holding ``name``."""
    at = page.index(f'name="{name}"')
    start = page.rindex('<div class="sf-field', 0, at)
    block = page[start : page.index("</div>", at)]
    found = re.findall(r'<span class="sf-error" role="alert">([^<]*)</span>', block)
    return " ".join(found)


def _form_values(tree: dict[str, Any], answers: dict[str, Any]) -> dict[str, Any]:
    form = schema_form.SystemDescriptionForm(tree=tree)
    values = {k: v for k, v in form.initial.items()}
    values.update({f"q-{k}": v for k, v in answers.items()})
    values["guided"] = "1"
    return values


def _upload(browser: Client, cast: Any, values: dict[str, Any]) -> Any:
    """Post the guided form with a small archive (the form is under test, not the run)."""
    archive = SimpleUploadedFile("run.tgz", tar_gz({"run/result.json": b"{}", **JOB_FILES}))
    return browser.post(
        "/submissions/new/",
        {**values, "site": cast.site.pk, "target_list": "research", "archive": archive},
    )


def test_errors_are_shown_beside_their_fields_and_nothing_is_stored(
    cast: Any, open_release: Any
) -> None:
    tree = example_system()
    del tree["site"]["institution"]
    tree["client_system"]["installation_date"] = "March 2024"
    answers = {**QUESTIONNAIRE, "trust": "we ran it twice"}
    values = _form_values(tree, answers)
    values["sys-run.client_nodes"] = "thirteen"
    values["sys-run.server_nodes"] = str(10**30)  # beyond any column: refused, not a 500
    values["sys-client_system.total_memory.value"] = "inf"
    values["sys-submitter.acknowledgements.rules_followed"] = ""  # unchecked
    browser = Client()
    browser.force_login(cast.submitter)
    response = _upload(browser, cast, values)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Enter a whole number" in _error_beside(page, "sys-run.client_nodes")
    assert "less than or equal to 2147483647" in _error_beside(page, "sys-run.server_nodes")
    assert "Enter a number" in _error_beside(page, "sys-client_system.total_memory.value")
    assert "Nothing was stored" in page
    assert not Submission.objects.exists()
    # with the type error fixed, the schema's problems appear beside their fields
    values["sys-run.client_nodes"] = "13"
    values["sys-run.server_nodes"] = "8"
    values["sys-client_system.total_memory.value"] = "200"
    response = _upload(browser, cast, values)
    page = response.content.decode()
    assert response.status_code == 400
    assert _error_beside(page, "sys-site.institution") == "required"
    assert "expected format" in _error_beside(page, "sys-client_system.installation_date")
    assert "YYYY-MM" in _error_beside(page, "sys-client_system.installation_date")
    assert _error_beside(page, "sys-submitter.acknowledgements.rules_followed")
    assert "at least 10 words needed, got 4" in _error_beside(page, "q-trust")
    assert _error_beside(page, "q-purpose") == ""
    assert not Submission.objects.exists()


def test_a_complete_guided_upload_stores_the_tree_and_the_answers(
    cast: Any, open_release: Any
) -> None:
    tree = example_system()
    values = _form_values(tree, QUESTIONNAIRE)
    browser = Client()
    browser.force_login(cast.submitter)
    response = _upload(browser, cast, values)
    assert response.status_code == 302, response.content.decode()[:3000]
    submission = Submission.objects.get()
    stored = SystemDescription.objects.get(submission=submission)
    expected = dict(tree)
    expected["submitter"] = {
        k: v for k, v in tree["submitter"].items() if k not in ("name", "email")
    }
    assert stored.data == expected  # the form gives back exactly the schema's document
    assert stored.system == "Example Cluster" and stored.client_nodes == 13
    assert stored.submitter_name == "A. Submitter"
    assert Questionnaire.objects.get(submission=submission).answers == QUESTIONNAIRE
    assert submission.status == Status.SUBMITTED


def test_repeated_groups_are_added_and_removed_without_javascript(cast: Any) -> None:
    values = _form_values(example_system(), {})
    browser = Client()
    browser.force_login(cast.submitter)
    added = browser.post("/submissions/new/", {**values, "_action": "add:server_groups"})
    page = added.content.decode()
    assert 'name="sys-server_groups.2.role"' in page and "Server group 3" in page
    assert _field_value(page, "sys-server_groups.1.role") == "OSS"  # the others are kept
    values["sys-server_groups.0.role"] = "MDS"
    removed = browser.post(
        "/submissions/new/", {**values, "_action": "remove:server_groups.0"}
    ).content.decode()
    assert 'name="sys-server_groups.1.role"' not in removed
    assert _field_value(removed, "sys-server_groups.0.role") == "OSS"  # moved up
    assert not Submission.objects.exists()


def _owned(cast: Any, release: Any, status: str, tree: Any, answers: Any) -> Submission:
    """The submitter's submission in ``status`` with this metadata stored by the intake."""
    from submissions.intake import save_metadata

    submission = Submission.objects.create(
        release=release, owner=cast.submitter, site=cast.site, status=status
    )
    save_metadata(submission, tree, answers, cast.submitter)
    return submission


def test_edit_after_changes_requested_shows_the_request_and_resubmits(
    cast: Any, open_release: Any
) -> None:
    from submissions.models import SubmissionTransition

    submission = _owned(
        cast, open_release, Status.CHANGES_REQUESTED, example_system(), QUESTIONNAIRE
    )
    SubmissionTransition.objects.create(
        submission=submission,
        actor=cast.reviewer,
        from_status=Status.UNDER_REVIEW,
        to_status=Status.CHANGES_REQUESTED,
        comment="Please describe the metadata servers' media.",
    )
    browser = Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/submissions/{submission.pk}/edit/").content.decode()
    assert "Please describe the metadata servers" in page
    assert _field_value(page, "sys-client_system.name") == "Example Cluster"
    assert _field_value(page, "sys-submitter.email") == "a.submitter@example.org"  # owner only
    assert "we describe this part of the system" in _field_value(page, "q-purpose")
    assert 'class="sf-error"' not in page  # the stored description is complete
    values = _form_values(example_system(), QUESTIONNAIRE)
    values["sys-server_groups.0.media.0.model"] = "PM1743"
    response = browser.post(f"/submissions/{submission.pk}/edit/", {**values, "submit_now": "1"})
    assert response.status_code == 302, response.content.decode()[:2000]
    submission.refresh_from_db()
    assert submission.status == Status.SUBMITTED
    stored = submission.system_description.data
    assert stored["server_groups"][0]["media"][0]["model"] == "PM1743"


def test_a_draft_may_be_saved_incomplete_but_not_submitted(cast: Any, open_release: Any) -> None:
    submission = Submission.objects.create(
        release=open_release, owner=cast.submitter, site=cast.site, status=Status.DRAFT
    )
    tree = example_system()
    del tree["run"]["procs_per_node"]
    values = _form_values(tree, QUESTIONNAIRE)
    browser = Client()
    browser.force_login(cast.submitter)
    refused = browser.post(f"/submissions/{submission.pk}/edit/", {**values, "submit_now": "1"})
    assert refused.status_code == 400
    assert _error_beside(refused.content.decode(), "sys-run.procs_per_node") == "required"
    submission.refresh_from_db()
    assert submission.status == Status.DRAFT and not hasattr(submission, "system_description")
    saved = browser.post(f"/submissions/{submission.pk}/edit/", values)
    assert saved.status_code == 200
    assert "Saved as a draft" in saved.content.decode()
    submission = Submission.objects.get(pk=submission.pk)
    assert submission.status == Status.DRAFT
    assert "procs_per_node" not in submission.system_description.data["run"]


def test_edit_page_marks_what_the_checks_refused_beside_the_fields(
    cast: Any, open_release: Any
) -> None:
    from validation.models import ValidationIssue

    tree = example_system()
    del tree["storage_system"]["vendor"]
    answers = {**QUESTIONNAIRE, "caching": "page cache only"}
    submission = _owned(cast, open_release, Status.VALIDATION_FAILED, tree, answers)
    ValidationIssue.objects.create(
        submission=submission,
        rule="system-description",
        severity="invalid",
        message="storage_system: 'vendor' is a required property",
    )
    browser = Client()
    browser.force_login(cast.submitter)
    page = browser.get(f"/submissions/{submission.pk}/edit/").content.decode()
    assert "The automatic checks refused this submission" in page
    assert "storage_system: &#x27;vendor&#x27; is a required property" in page
    assert _error_beside(page, "sys-storage_system.vendor") == "required"
    assert "at least 10 words needed, got 3" in _error_beside(page, "q-caching")
    assert _error_beside(page, "sys-storage_system.name") == ""


def test_a_paste_that_is_not_json_is_named_beside_the_box(cast: Any) -> None:
    browser = Client()
    browser.force_login(cast.submitter)
    response = browser.post(
        "/submissions/new/",
        {"guided": "1", "system": '{"site": {"abbreviation": }', "_action": "prefill"},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "invalid JSON at line 1 column 27" in _error_beside(page, "system")
    nothing = browser.post("/submissions/new/", {"guided": "1", "_action": "prefill"})
    assert "Nothing to fill the form from" in nothing.content.decode()


def test_form_round_trips_are_not_uploads_for_the_rate_limit(
    cast: Any, open_release: Any, settings: Any
) -> None:
    settings.IOSCORE_RATE_LIMITS = {"upload-account": "1/3600"}
    values = _form_values(example_system(), QUESTIONNAIRE)
    browser = Client()
    browser.force_login(cast.submitter)
    for _ in range(3):
        grown = browser.post("/submissions/new/", {**values, "_action": "add:server_groups"})
        assert grown.status_code == 200
    assert _upload(browser, cast, values).status_code == 302
    values["sys-client_system.name"] = "Second Cluster"
    refused = _upload(browser, cast, values)
    assert refused.status_code == 429
    page = refused.content.decode()
    assert "too many uploads" in page
    assert _field_value(page, "sys-client_system.name") == "Second Cluster"  # nothing lost
    assert "we describe this part" in _field_value(page, "q-purpose")
    assert Submission.objects.count() == 1
