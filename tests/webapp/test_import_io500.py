"""`manage.py import_io500`: the real corpus loads as accepted history, idempotently."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Site
from submissions.models import (
    ClientSystem,
    PhaseResult,
    Release,
    Status,
    StorageSystem,
    Submission,
    SubmissionTransition,
    SystemDescription,
)

pytestmark = pytest.mark.django_db
TABLES = (
    Release,
    Site,
    ClientSystem,
    StorageSystem,
    Submission,
    PhaseResult,
    SystemDescription,
    SubmissionTransition,
)


def _import(corpus: Path) -> str:
    out = io.StringIO()
    call_command("import_io500", str(corpus), stdout=out)
    return out.getvalue()


def _snapshot() -> dict[str, list[tuple[Any, ...]]]:
    skip = {"updated"}  # auto_now: touched by every save, not part of the data
    snapshot = {}
    for model in TABLES:
        names = [f.attname for f in model._meta.concrete_fields if f.name not in skip]
        snapshot[model.__name__] = sorted(map(tuple, model.objects.values_list(*names)), key=repr)
    return snapshot


def test_import_twice_yields_the_same_rows(corpus_dir: Path) -> None:
    first_output = _import(corpus_dir)
    first = _snapshot()
    second_output = _import(corpus_dir)
    assert _snapshot() == first
    assert "submissions: 171 created, 0 updated, 2 skipped" in first_output
    assert "submissions: 0 created, 171 updated, 2 skipped" in second_output
    for skipped in ("194", "198"):  # the corpus has no files and no scores for these
        assert f"skipped {skipped}: " in first_output


def test_imported_entries_match_the_published_scores(corpus_dir: Path) -> None:
    _import(corpus_dir)
    with (corpus_dir / "io500-submissions" / "index.csv").open(newline="") as handle:
        published = {row["submission_id"]: row for row in csv.DictReader(handle)}
    imported = Submission.objects.select_related(
        "site", "client_system", "storage_system", "release"
    )
    assert imported.count() == 171
    for submission in imported:
        row = published[submission.external_id.removeprefix("io500:")]
        assert submission.status == Status.ACCEPTED
        assert submission.site.name == row["institution"].strip()
        assert submission.client_system is not None
        assert submission.client_system.name == row["system"].strip()
        assert submission.storage_system is not None
        assert submission.release.historic
        assert submission.score_total == pytest.approx(float(row["score_total"]), rel=1e-3)
        assert submission.phases.count() >= 12
        assert submission.transitions.get().to_status == Status.ACCEPTED


def test_releases_and_site_data_come_from_the_corpus(corpus_dir: Path) -> None:
    _import(corpus_dir)
    # Submission 4 (Intel Wolf DAOS, 933.635) is io500-releases.csv row "2" of list sc19.
    wolf = Submission.objects.get(external_id="io500:4")
    assert wolf.release.acronym == "SC19"
    assert wolf.system_description.client_nodes == 26
    assert wolf.system_description.fs_type == "DAOS"
    assert wolf.storage_system is not None and wolf.storage_system.vendor == "Intel"
    # A c-app run without a site row is attached by its run date (2025-11-03 -> SC25).
    assert Submission.objects.get(external_id="io500:760").release.acronym == "SC25"
    sc25 = Release.objects.get(acronym="SC25")
    assert sc25.accepted_versions == ["io500-sc25"]
    assert sc25.submission_deadline < sc25.release_date


def test_missing_or_malformed_corpus_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"index\.csv: file not found"):
        _import(tmp_path)
    index = tmp_path / "io500-submissions" / "index.csv"
    index.parent.mkdir()
    index.write_text("submission_id,institution\n1,X\n")
    with pytest.raises(CommandError, match=r"index\.csv:1: missing column\(s\) system"):
        _import(tmp_path)
    assert Submission.objects.count() == 0


def test_missing_files_fall_back_to_index_scores_with_a_reason(
    corpus_dir: Path, tmp_path: Path
) -> None:
    """A corpus copy where run 760's files are gone: its published scores are used."""
    source = corpus_dir / "io500-submissions"
    with (source / "index.csv").open(newline="") as handle:
        reader = csv.DictReader(handle)
        rows = [r for r in reader if r["submission_id"] in ("760", "762")]
        header = reader.fieldnames
    assert header is not None and len(rows) == 2
    target = tmp_path / "io500-submissions"
    (target / "dev").mkdir(parents=True)
    with (target / "index.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, header)
        writer.writeheader()
        writer.writerows(rows)
    for path in (source / "dev" / "762").rglob("*"):  # only 762 keeps its files
        if path.is_file():
            copy = target / "dev" / "762" / path.relative_to(source / "dev" / "762")
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(path.read_bytes())
    (tmp_path / "io500-releases.csv").write_bytes((corpus_dir / "io500-releases.csv").read_bytes())

    output = _import(tmp_path)
    assert "2 created, 0 updated, 0 skipped" in output
    fallback = Submission.objects.get(external_id="io500:760")
    assert fallback.note.startswith("scores from index.csv (directory ")
    assert f"fallback 760: {fallback.note}" in output
    published = next(r for r in rows if r["submission_id"] == "760")
    assert fallback.score_total == pytest.approx(float(published["score_total"]))
    assert fallback.score_bw == pytest.approx(float(published["score_bandwidth"]))
    assert fallback.phases.count() == 0
    assert Submission.objects.get(external_id="io500:762").phases.count() >= 12
