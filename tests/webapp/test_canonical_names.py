"""Canonical file-system types, vendors and institutions (submissions.canonical_names).

The real-data tests import ``../shared/data`` (skipped with the reason when it is absent) and
check what a visitor sees: one filter choice per real value, no archive folder name posing as
a file-system type, and the result page naming what was submitted.
"""

from __future__ import annotations

import io
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import Site
from rankings.listview import facet_values
from rankings.models import ListEntry, RankedList
from submissions.canonical_names import (
    UNKNOWN_FS_TYPE,
    Table,
    TableError,
    as_submitted,
    canonical_columns,
    match_key,
    table,
)
from submissions.models import Submission, SystemDescription

pytestmark = pytest.mark.django_db
REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "examples" / "io500-sample"
DATA = REPO_ROOT.parent / "shared" / "data"
ARCHIVE = DATA / "io500-archive-dev"
full_data = pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"the full IO500 data is not at {DATA}")
# The folder names the portal review saw posing as FS types.
FOLDER_NAMES_SEEN = ("mustang", "Red", "Work", "data2")


def _import(path: Path) -> None:
    call_command("import_io500", str(path), stdout=io.StringIO())


def _fs_folders(archive: Path) -> set[str]:
    """The ``<institution>/<system>/<fs>`` folder names of the archive's submissions."""
    folders = set()
    for current, _dirs, _files in os.walk(archive):
        if re.fullmatch(r"submission-\d+", os.path.basename(current)):
            parts = Path(current).relative_to(archive).parts
            if len(parts) >= 4:
                folders.add(parts[2])
    return folders


# --- the table ------------------------------------------------------------------------------


def test_table_merges_spellings_and_refuses_a_value_claimed_twice() -> None:
    names = table()
    assert names.canonical("fs_type", "beegfs") == "BeeGFS"
    assert names.canonical("fs_type", "GPFS") == "Spectrum Scale"
    assert names.canonical("fs_type", "Weka.io") == "WekaIO"
    assert names.canonical("storage_vendor", "INSPUR") == "Inspur"
    assert (
        names.canonical("institution", "Queen Mary; University Of London")
        == "Queen Mary University of London"
    )
    # Not in the table: kept as given, whitespace tidied.
    assert names.canonical("institution", "  Some  New Lab ") == "Some New Lab"
    assert names.fs_type_of_folder("mustang") == UNKNOWN_FS_TYPE
    assert names.fs_type_of_folder("Red", stated="lustre") == "Lustre"
    assert names.fs_type_of_folder("beegfs", stated="Lustre") == "BeeGFS"  # folder is a type
    with pytest.raises(TableError, match="claimed by both"):
        Table.parse({"fs_type": {"Lustre": ["scratch"], "BeeGFS": ["Scratch"]}})
    with pytest.raises(TableError, match="unknown section"):
        Table.parse({"fs_types": {}})
    # A stated "type" that names no software gives way to a known FS name.
    assert names.fs_type("Parallel Filesystem", "wekafs") == "WekaIO"
    assert names.fs_type("Parallel Filesystem", "sharedscratch") == "Parallel Filesystem"
    assert names.fs_type_of_folder("mustang", stated="Parallel Filesystem") == UNKNOWN_FS_TYPE
    with pytest.raises(TableError, match="also FS types"):
        Table.parse({"fs_type": {"Lustre": []}, "fs_type_placeholders": {"values": ["lustre"]}})
    with pytest.raises(TableError, match="aliases must be strings"):
        Table.parse({"institution": {"CERN": "cern"}})


def test_upload_columns_are_canonical_and_keep_what_was_submitted() -> None:
    flat = canonical_columns(
        {"institution": "Queen Mary. University Of London", "storage_vendor": "", "fs_type": "gpfs"}
    )
    assert flat["institution"] == "Queen Mary University of London"
    assert flat["institution_submitted"] == "Queen Mary. University Of London"
    assert flat["fs_type"] == "Spectrum Scale" and flat["fs_type_submitted"] == "gpfs"
    assert flat["storage_vendor"] == "" and flat["storage_vendor_submitted"] == ""
    description = SystemDescription(**{k: v for k, v in flat.items()})
    assert as_submitted(description) == [
        ("FS type", "Spectrum Scale", "gpfs"),
        ("Institution", "Queen Mary University of London", "Queen Mary. University Of London"),
    ]


# --- the real data --------------------------------------------------------------------------


def _no_two_differ_only_by_case(values: list[str], what: str) -> None:
    groups: dict[str, set[str]] = defaultdict(set)
    for value in values:
        if value:
            groups[match_key(value)].add(value)
    duplicates = {key: sorted(group) for key, group in groups.items() if len(group) > 1}
    assert not duplicates, f"{what}: several spellings of one value: {duplicates}"


@full_data
def test_real_data_has_one_entry_per_value_and_no_folder_posing_as_fs_type() -> None:
    _import(DATA)
    call_command("build_lists", stdout=io.StringIO())
    descriptions = list(SystemDescription.objects.all())
    assert len(descriptions) > 500

    for field in ("fs_type", "storage_vendor", "institution"):
        _no_two_differ_only_by_case([getattr(d, field) for d in descriptions], field)
        entries = list(ListEntry.objects.values_list(field, flat=True).distinct())
        _no_two_differ_only_by_case(entries, f"list entries' {field}")
    _no_two_differ_only_by_case(list(Site.objects.values_list("name", flat=True)), "sites")
    # The filter choices of every list, as the list page offers them.
    for ranked_list in RankedList.objects.all():
        facets = facet_values(ranked_list.entries.all())
        for key in ("fs_types", "vendors"):
            _no_two_differ_only_by_case(facets[key], f"{ranked_list} {key}")

    names = table()
    fs_types = {d.fs_type for d in descriptions} | set(
        ListEntry.objects.values_list("fs_type", flat=True)
    )
    folders = _fs_folders(ARCHIVE)
    assert set(FOLDER_NAMES_SEEN) <= folders
    posing = {
        value
        for value in fs_types
        if value
        and match_key(value) in {match_key(f) for f in folders}
        and not names.is_fs_type(value)
    }
    assert not posing, f"archive folder names stored as FS type: {sorted(posing)}"
    assert not {f.casefold() for f in FOLDER_NAMES_SEEN} & {t.casefold() for t in fs_types}

    # Red (University of Florida, ISC21) is a Lustre file system by its published list row;
    # mustang is stated by nothing: unknown, its folder name kept as the FS name.
    red = SystemDescription.objects.get(submission__io500_id=534)
    assert (red.fs_type, red.fs_type_submitted, red.fs_name) == ("Lustre", "Red", "Red")
    mustang = SystemDescription.objects.get(submission__io500_id=584)
    assert (mustang.fs_type, mustang.fs_name) == (UNKNOWN_FS_TYPE, "mustang")

    page = Client().get(reverse("rankings:result", args=[red.submission_id])).content.decode()
    assert "FS type: Lustre" in page and "(as submitted: “Red”)" in page
    # Case duplicates of the review are one value, each spelling kept as submitted.
    assert not SystemDescription.objects.filter(fs_type="beegfs").exists()
    assert SystemDescription.objects.filter(fs_type="BeeGFS", fs_type_submitted="beegfs").exists()
    assert not SystemDescription.objects.filter(storage_vendor="INSPUR").exists()
    # Janelia's website records give "Parallel Filesystem" as the type of a file system
    # named wekafs: WekaIO, like the rest of their WekaIO entries.
    janelia = SystemDescription.objects.filter(
        fs_type_submitted="Parallel Filesystem", fs_name="wekafs"
    )
    assert janelia.count() >= 5 and {d.fs_type for d in janelia} == {"WekaIO"}
    assert SystemDescription.objects.filter(storage_vendor_submitted="INSPUR").count() == 1

    # The import wrote what the table says: re-applying it changes nothing.
    out = io.StringIO()
    call_command("canonicalise_names", "--dry-run", stdout=out)
    assert "system descriptions would change: 0" in out.getvalue()
    assert "list entries would change: 0" in out.getvalue()

    # Institutions on the home page are whole; where the card cuts one visually, the
    # title attribute holds the full name.
    home = Client().get(reverse("rankings:home")).content.decode()
    shown = re.findall(r'<span class="muted" title="([^"]*)">([^<]*)</span>', home)
    assert len(shown) >= 5 and all(title == text and "…" not in text for title, text in shown)

    # The list page's filter offers the full names and filters by them.
    historical = RankedList.objects.filter(list_type__slug="historical").order_by(
        "-release__release_date"
    )[0]
    url = reverse(
        "rankings:ranked-list", args=[historical.release.acronym, historical.list_type.slug]
    )
    listed = Client().get(url).content.decode()
    options = re.findall(r'<select id="f-fs" name="fs">(.*?)</select>', listed, re.S)[0]
    assert '<option value="BeeGFS" title="BeeGFS"' in options and ">beegfs<" not in options
    filtered = Client().get(url, {"fs": "beegfs", "per_page": 200}).content.decode()
    assert (
        filtered.count("<tr data-submission=")
        == historical.entries.filter(fs_type="BeeGFS").count()
    )


def test_command_reapplies_the_table_to_rows_stored_before_it() -> None:
    _import(SAMPLE)
    call_command("build_lists", stdout=io.StringIO())
    description = SystemDescription.objects.filter(submission__entries__isnull=False).first()
    assert description is not None
    submission = description.submission
    # A row as the importer wrote it before the table: raw spellings, nothing "as submitted".
    SystemDescription.objects.filter(pk=description.pk).update(
        institution="Queen Mary; University Of London",
        storage_vendor="INSPUR",
        fs_type="beegfs",
        institution_submitted="",
        storage_vendor_submitted="",
        fs_type_submitted="",
    )
    ListEntry.objects.filter(submission=submission).update(
        institution="Queen Mary; University Of London", storage_vendor="INSPUR", fs_type="beegfs"
    )
    # One site spelt another way than an existing one (left for the committee to merge),
    # one whose canonical name is free (renamed).
    assert Site.objects.filter(name="Queen Mary University of London").exists()
    assert not Site.objects.filter(
        name="Gesellschaft für wissenschaftliche Datenverarbeitung (GWDG)"
    ).exists()
    Site.objects.create(name="Queen Mary, University Of London")
    Site.objects.create(name="GWDG")

    out = io.StringIO()
    call_command("canonicalise_names", "--dry-run", stdout=out)
    assert "system descriptions would change: 1" in out.getvalue()
    assert SystemDescription.objects.get(pk=description.pk).fs_type == "beegfs"  # dry run

    out = io.StringIO()
    call_command("canonicalise_names", stdout=out)
    assert "system descriptions changed: 1" in out.getvalue()
    description.refresh_from_db()
    assert (description.institution, description.institution_submitted) == (
        "Queen Mary University of London",
        "Queen Mary; University Of London",
    )
    assert (description.storage_vendor, description.fs_type) == ("Inspur", "BeeGFS")
    assert description.fs_type_submitted == "beegfs"
    for entry in ListEntry.objects.filter(submission=submission):
        assert (entry.institution, entry.storage_vendor, entry.fs_type) == (
            "Queen Mary University of London",
            "Inspur",
            "BeeGFS",
        )
    assert (
        "site 'Queen Mary, University Of London': 'Queen Mary University of London' exists; "
        "merge them by hand" in out.getvalue()
    )
    assert Site.objects.filter(
        name="Gesellschaft für wissenschaftliche Datenverarbeitung (GWDG)"
    ).exists()
    assert not Site.objects.filter(name="GWDG").exists()

    page = Client().get(reverse("rankings:result", args=[submission.pk])).content.decode()
    assert "(as submitted: “INSPUR”)" in page

    again = io.StringIO()
    call_command("canonicalise_names", stdout=again)
    assert "system descriptions changed: 0" in again.getvalue()
    assert "list entries changed: 0" in again.getvalue()
    assert Submission.objects.filter(pk=submission.pk).exists()


def test_an_uploaded_description_is_stored_canonical_beside_what_was_given() -> None:
    from submissions.intake import save_metadata
    from submissions.system_description import validate
    from tests.webapp.helpers import example_system

    _import(SAMPLE)
    submission = Submission.objects.order_by("pk").first()
    assert submission is not None
    system = example_system()
    system["site"]["institution"] = "Queen Mary; University Of London"
    system["storage_system"]["software"] = "gpfs"
    system["storage_system"]["vendor"] = "INSPUR"
    assert not validate(system)
    save_metadata(submission, system, None, None)
    stored = SystemDescription.objects.get(submission=submission)
    assert (stored.institution, stored.institution_submitted) == (
        "Queen Mary University of London",
        "Queen Mary; University Of London",
    )
    assert (stored.fs_type, stored.fs_type_submitted) == ("Spectrum Scale", "gpfs")
    assert (stored.storage_vendor, stored.storage_vendor_submitted) == ("Inspur", "INSPUR")
    assert stored.data["storage_system"]["software"] == "gpfs"  # the tree stays as given
