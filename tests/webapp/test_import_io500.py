"""`manage.py import_io500`: IO500's history (archive in its published layout, website records,
published lists) loads as it was, idempotently.

Most tests run on the real sample in the repo (`examples/io500-sample`); the whole-archive
tests skip when `../shared/data` is absent.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import shutil
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import Site
from rankings.models import ListEntry, ListOrigin, RankedList
from submissions.models import (
    ClientSystem,
    PhaseResult,
    Release,
    StorageSystem,
    Submission,
    SubmissionTransition,
    SystemDescription,
)

pytestmark = pytest.mark.django_db
REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE = REPO_ROOT / "examples" / "io500-sample"
DATA = REPO_ROOT.parent / "shared" / "data"
TABLES = (
    Release,
    Site,
    ClientSystem,
    StorageSystem,
    Submission,
    PhaseResult,
    SystemDescription,
    SubmissionTransition,
    RankedList,
    ListEntry,
)
EQUAL_RELEASES = ("SC18", "SC18*", "SC19", "SC20")
SLUGS = {"io500": "io500", "ten": "ten-node-challenge", "full": "full", "historical": "historical"}
SLUGS["scc"] = "scc"


def _import(path: Path) -> str:
    out = io.StringIO()
    call_command("import_io500", str(path), stdout=out)
    return out.getvalue()


def _snapshot() -> dict[str, list[tuple[Any, ...]]]:
    skip = {"updated", "built_at"}  # touched by every save, not part of the data
    snapshot = {}
    for model in TABLES:
        names = [f.attname for f in model._meta.concrete_fields if f.name not in skip]
        snapshot[model.__name__] = sorted(map(tuple, model.objects.values_list(*names)), key=repr)
    return snapshot


def _submission_dirs(root: Path) -> list[str]:
    return sorted(
        str(Path(current).relative_to(root))
        for current, _dirs, _files in os.walk(root)
        if re.fullmatch(r"submission-\d+", os.path.basename(current))
    )


def _accounted(output: str, root: Path) -> None:
    for rel in _submission_dirs(root):
        assert f"directory {rel}: " in output or f"skipped {rel}: " in output, rel


def test_sample_import_accounts_for_every_directory_and_is_idempotent() -> None:
    first_output = _import(SAMPLE)
    first = _snapshot()
    second_output = _import(SAMPLE)
    assert _snapshot() == first
    _accounted(first_output, SAMPLE / "io500-archive")
    created = int(re.search(r"submissions: (\d+) created, 0 updated", first_output)[1])  # type: ignore[index]
    assert f"submissions: 0 created, {created} updated" in second_output
    # Bundles: every complete run of the directory is a submission of its own.
    assert "submission-44: 2 run(s) -> io500:44, io500:44:results/io-500-summary.2019.06.05" in (
        first_output
    )
    assert re.search(r"submission-218: 2 run\(s\)", first_output)
    assert "submission-680: 2 run(s) -> io500:680, io500:680:result_summary.txt" in first_output
    # The top-level copy of 642 is not a second run; the dated run directory is the run.
    assert "submission-642: 1 run(s) -> io500:642" in first_output
    assert "result_summary.txt: copy of the run in results/good-2023.03.22-18.10.33" in (
        first_output
    )
    assert Submission.objects.get(external_id="io500:642").run_dir.endswith(
        "results/good-2023.03.22-18.10.33"
    )
    # macOS metadata files are never read as runs.
    assert not Submission.objects.filter(run_dir__contains="._").exists()
    assert "published lists: 26 lists" in first_output


def test_release_comes_from_the_run_date_and_the_website_record() -> None:
    _import(SAMPLE)
    by_id = {s.external_id: s.release.acronym for s in Submission.objects.select_related("release")}
    assert by_id["io500:660"] == "ISC23"  # run 2023-05-12, in the ISC23 window
    assert by_id["io500:642"] == "ISC23"  # run 2023-03-22, before the ISC23 deadline
    assert by_id["io500:680"] == "SC23"  # run 2023-10-16
    assert by_id["io500:4"] == "SC19"  # the website record names it
    # A member of a bundle is dated by its own log.
    member = Submission.objects.get(external_id__startswith="io500:44:")
    assert member.run_start is None and member.submitted_at is not None
    assert member.submitted_at.date().isoformat() == "2019-06-05"
    assert member.io500_id is None
    # Website records without an archive directory are imported from the record.
    record_only = Submission.objects.get(io500_id=61)
    assert record_only.run_dir == "" and record_only.phases.count() == 12
    assert record_only.release.acronym == "ISC18"


def _published(csv_path: Path) -> dict[tuple[str, str], list[tuple[int, int, float]]]:
    lists: dict[tuple[str, str], list[tuple[int, int, float]]] = defaultdict(list)
    with csv_path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["displayed"] == "1" and row["dup"] == "0":
                lists[(row["release"], SLUGS[row["list"]])].append(
                    (int(row["rank"]), int(row["web_submission_id"]), float(row["score"]))
                )
    return lists


def test_published_lists_render_exactly_as_the_website_published_them() -> None:
    _import(SAMPLE)
    call_command("build_lists", stdout=io.StringIO())
    client = Client()
    published = _published(SAMPLE / "io500-published-lists.csv")
    checked = 0
    for (release, slug), expected in published.items():
        response = client.get(f"/lists/{quote(release)}/{slug}.json?per_page=200")
        assert response.status_code == 200, (release, slug)
        shown = [(e["rank"], e["io500_id"], e["score"]) for e in response.json()["entries"]]
        assert shown == expected, (release, slug)
        checked += 1
    assert checked == 26  # every list SC17-ISC21, among them SC18, SC18*, SC19 and SC20
    assert {release for release, _slug in published} >= set(EQUAL_RELEASES)
    # The builder never rewrites a published list, and says so.
    assert RankedList.objects.filter(origin=ListOrigin.IO500_WEBSITE).count() == 26
    page = client.get(f"/lists/{quote('SC18*')}/io500/")
    assert b"as published by IO500" in page.content
    # ISC21 full showed some submissions twice; each is listed once at the site's rank.
    isc21 = client.get("/lists/ISC21/full.json").json()["entries"]
    assert [e["rank"] for e in isc21][:6] == [1, 2, 3, 4, 5, 7]  # 6 was the copy of 5
    assert len({e["io500_id"] for e in isc21}) == len(isc21) == 153


def test_sc21_on_lists_are_built_by_our_rules_and_2023_runs_reach_research() -> None:
    _import(SAMPLE)
    call_command("build_lists", stdout=io.StringIO())
    isc23 = {rl.list_type.slug: rl for rl in RankedList.objects.filter(release__acronym="ISC23")}
    assert all(rl.origin == ListOrigin.BUILT for rl in isc23.values())
    research = set(isc23["research"].entries.values_list("submission__external_id", flat=True))
    # 642 printed "; ERROR INVALID stonewall-time < 30s", a message only since isc21.
    assert {"io500:642", "io500:660"} <= research
    assert Submission.objects.get(external_id="io500:642").score_valid is True
    # 678 states exactly 10 client nodes only in its Slurm script.
    sc23 = RankedList.objects.get(release__acronym="SC23", list_type__slug="ten-node-research")
    ten = set(sc23.entries.values_list("submission__external_id", flat=True))
    assert "io500:678" in ten
    assert Submission.objects.get(external_id="io500:678").system_description.client_nodes == 10
    # No imported run has a questionnaire: Production is empty and the page says why.
    assert isc23["production"].entries.count() == 0
    page = Client().get("/lists/ISC23/production/")
    assert b"Runs imported from the IO500 archive carry no questionnaire" in page.content
    # Carry-over starts from the published ISC21 lists, scores as published (the sample has
    # no SC21-SC22 run, so ISC23 is the next release).
    isc21 = RankedList.objects.get(release__acronym="ISC21", list_type__slug="historical")
    carried = isc23["historical"].entries.filter(carried_over=True)
    assert set(isc21.entries.values_list("submission_id", "score")) <= set(
        carried.values_list("submission_id", "score")
    )


def test_io500_ids_are_visible_and_resolve() -> None:
    _import(SAMPLE)
    call_command("build_lists", stdout=io.StringIO())
    client = Client()
    wolf = Submission.objects.get(io500_id=4)
    response = client.get("/results/io500/4/")
    assert response.status_code == 302 and response["Location"] == f"/results/{wolf.pk}/"
    assert b"IO500 id 4" in client.get(f"/results/{wolf.pk}/").content
    assert client.get("/results/io500/999999/").status_code == 404
    assert client.get(f"/api/v1/results/{wolf.pk}/").json()["io500_id"] == 4
    body = client.get("/lists/SC19/io500.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert any(row["io500_id"] == "4" for row in rows)


def test_a_run_printing_bw_times_md_is_ranked_by_the_square_root(tmp_path: Path) -> None:
    """The even-numbered archive directories hold no SC17-era run printing TOTAL = BW x MD, so
    the real bash summary of submission 4 gets that score line (as SC17's script printed it),
    imported from a bare archive root."""
    source = next((SAMPLE / "io500-archive").rglob("submission-4"))
    target = tmp_path / "Intel" / "Wolf" / "DAOS" / "2017" / "submission-2000"
    shutil.copytree(source, target)
    for log in (target / "results").glob("io-500-summary.*"):
        log.unlink()  # the log holds the original score line: it would be a second run
    summary = target / "results" / "result_summary.txt"
    text = summary.read_text()
    score = re.search(r"\[SCORE\] Bandwidth (\S+) GB/s : IOPS (\S+) kiops : TOTAL (\S+)", text)
    assert score is not None
    bw, md = float(score[1]), float(score[2])
    summary.write_text(text.replace(f"TOTAL {score[3]}", f"TOTAL {bw * md:.3f}"))

    output = _import(tmp_path)
    assert "directory Intel/Wolf/DAOS/2017/submission-2000: 1 run(s)" in output
    run = Submission.objects.get(external_id="io500:2000")
    assert run.printed_total == pytest.approx(bw * md)
    assert run.score_total == pytest.approx(math.sqrt(run.score_bw * run.score_md))
    assert run.score_total == pytest.approx(933.635, rel=1e-4)
    assert "TOTAL = BW x MD" in run.note
    call_command("build_lists", stdout=io.StringIO())
    page = Client().get(f"/results/{run.pk}/").content.decode()
    assert "printed TOTAL = BW \u00d7 MD" in page and f"{bw * md:.3f}"[:6] in page


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="not a directory"):
        _import(tmp_path / "missing")
    with pytest.raises(CommandError, match="no IO500 data"):
        _import(tmp_path)
    (tmp_path / "io500-published-lists.csv").write_text("release,list\nSC19,io500\n")
    with pytest.raises(CommandError, match=r"io500-published-lists\.csv:1: missing column"):
        _import(tmp_path)
    assert Submission.objects.count() == 0


full_data = pytest.mark.skipif(
    not (DATA / "io500-archive-dev").is_dir(), reason=f"the full IO500 data is not at {DATA}"
)
# Accepted archive runs that really broke a rule of their era: external id -> reason.
# The even-numbered directories of the archive hold none.
BROKE_A_RULE_OF_THEIR_ERA: dict[str, str] = {}


@pytest.mark.parametrize(
    "data", [SAMPLE, pytest.param(DATA, marks=full_data)], ids=["sample", "dev"]
)
def test_every_archive_run_is_valid_by_the_rules_of_its_era(data: Path) -> None:
    """Each run judged as the service judges it (release of the run, SCC only when on the SCC
    list): bash-era write minimum as the script applied it, the isc21+ validate() message
    as information."""
    from io500archive.importer import Importer, locate
    from io500archive.layout import scan_archive
    from ioscore.results.rules import CheckContext, Severity, check
    from submissions.releases import to_library

    _import(data)
    inputs = locate(data)
    assert inputs.archive is not None
    submissions = {s.external_id: s for s in Submission.objects.select_related("release")}
    directories, _skipped = scan_archive(inputs.archive)
    invalid: dict[str, list[str]] = {}
    judged = 0
    for directory in directories:
        for archive_run in directory.runs:
            run, _day, error = Importer._load(directory, archive_run)
            assert error is None, error
            key = f"io500:{directory.number}" + (
                f":{archive_run.member}" if archive_run.member else ""
            )
            submission = submissions[key]
            context = CheckContext(release=to_library(submission.release), scc=submission.scc)
            issues = [i for i in check(run, context) if i.severity == Severity.INVALID]
            judged += 1
            if issues:
                invalid[key] = [f"{i.rule}: {i.message}" for i in issues]
    assert judged >= len(directories)
    assert set(invalid) == set(BROKE_A_RULE_OF_THEIR_ERA), invalid


@full_data
def test_whole_dev_archive_is_accounted_for_and_idempotent() -> None:
    started = time.perf_counter()
    first_output = _import(DATA)
    took = time.perf_counter() - started
    first = _snapshot()
    _accounted(first_output, DATA / "io500-archive-dev")
    skipped = [
        line
        for line in first_output.splitlines()
        if line.startswith("skipped ") and not line.startswith("skipped website record")
    ]
    # Website records the site deleted or marked invalid, listed nowhere, are not imported.
    assert re.findall(r"skipped website record \d+: status (\w+)", first_output) == (
        ["INVALID"] + ["DELETE"] * 7
    )
    # Only an io500.cfg and a console log, no result files: reported, not imported.
    assert [line.split(": ")[0].rsplit("/", 1)[-1] for line in skipped] == [
        "submission-194",
        "submission-198",
    ]
    second_output = _import(DATA)
    assert _snapshot() == first
    assert " 0 created" in second_output
    print(f"whole dev archive imported in {took:.1f} s")  # measured, never asserted


def test_per_rank_csvs_of_archive_runs_are_stored_and_plotted() -> None:
    _import(SAMPLE)
    call_command("build_lists", stdout=io.StringIO())
    run = Submission.objects.get(external_id="io500:642")
    phases = {p.name: p for p in run.phases.all()}
    assert run.procs == 160
    for name in ("ior-easy-write", "ior-hard-read", "mdtest-easy-write", "mdtest-hard-delete"):
        ranks = phases[name].ranks
        assert [r["rank"] for r in ranks] == list(range(160)), name
        assert all(r["end"] > 0 and r["rate"] >= 0 for r in ranks), name
    # The slowest rank bounds the phase time.
    ior = phases["ior-easy-write"]
    assert max(r["end"] for r in ior.ranks) == pytest.approx(ior.time, rel=0.05)
    assert phases["find"].ranks == []  # find writes no per-rank times
    page = Client().get(f"/results/{run.pk}/").content.decode()
    assert 'id="spread"' in page and '"phase": "ior-easy-write"' in page
