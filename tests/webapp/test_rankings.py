"""Ranking rules of the list builder (LEADERBOARD-RULES §2, §3, §8) through the database and
the public pages: ties, per-metric ranks, de-dup per storage system with committee pins,
carry-over, frozen ranks under re-sorting, corrections, membership of the award lists."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.urls import include, path, reverse

from ioscore_site import urls as site_urls

# Mount the rankings pages unless the site already does (the lead wires the root urls).
_mounted = any(getattr(p, "namespace", None) == "rankings" for p in site_urls.urlpatterns)
urlpatterns = (
    list(site_urls.urlpatterns)
    if _mounted
    else [path("", include("rankings.urls")), *site_urls.urlpatterns]
)
pytestmark = [pytest.mark.urls(__name__), pytest.mark.django_db]

BW = ("ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read")


def seed_list_types() -> None:
    """The list types migration 0002 seeds, when a transactional test's flush removed them."""
    import importlib

    from django.apps import apps

    from submissions.models import ListType

    if not ListType.objects.exists():
        importlib.import_module("migrations.submissions.0002_list_types").seed(apps, None)


class World:
    """Small explicit builders for releases, sites, storage systems and submissions."""

    def __init__(self) -> None:
        from accounts.models import Site

        seed_list_types()
        self.site = Site.objects.create(name="Ranking University", abbreviation="RU")
        self.clock = datetime(2020, 1, 1, tzinfo=UTC)

    def release(self, acronym: str, day: date) -> Any:
        from submissions.models import Release

        return Release.objects.create(
            acronym=acronym, release_date=day, submission_deadline=day - timedelta(days=8)
        )

    def storage(self, name: str) -> Any:
        from submissions.models import StorageSystem

        return StorageSystem.objects.create(site=self.site, name=name, fs_type="Lustre")

    def submission(
        self,
        release: Any,
        score: float,
        *,
        bw: float | None = None,
        md: float | None = None,
        storage: Any = None,
        nodes: int = 16,
        level: str = "",
        production: bool | None = None,
        target: str = "research",
        status: str = "accepted",
        system: str = "",
        owner: Any = None,
    ) -> Any:
        from rankings.phases import PHASES
        from submissions.models import PhaseResult, Questionnaire, Submission, SystemDescription

        bw = bw if bw is not None else score
        md = md if md is not None else score
        self.clock += timedelta(hours=1)  # every submission later than the previous one
        sub = Submission.objects.create(
            release=release,
            site=self.site,
            storage_system=storage,
            status=status,
            score_total=score,
            score_bw=bw,
            score_md=md,
            score_valid=True,
            target_list=target,
            production_eligible=production,
            submitted_at=self.clock,
            procs=nodes * 4,
            owner=owner,
        )
        PhaseResult.objects.bulk_create(
            [
                PhaseResult(
                    submission=sub,
                    name=p,
                    order=i,
                    value=bw if p in BW else md,
                    unit="GiB/s" if p in BW else "kIOPS",
                )
                for i, p in enumerate(PHASES)
            ]
        )
        SystemDescription.objects.create(
            submission=sub,
            institution=self.site.name,
            system=system or f"System {sub.pk}",
            fs_type=storage.fs_type if storage else "Lustre",
            storage_vendor="Vendor",
            client_nodes=nodes,
            procs_per_node=4,
            total_procs=nodes * 4,
        )
        if level:
            Questionnaire.objects.create(submission=sub, assigned_level=level)
        return sub


@pytest.fixture
def world() -> World:
    return World()


def entries(release: str, slug: str) -> list[Any]:
    from rankings.models import ListEntry

    return list(
        ListEntry.objects.filter(
            ranked_list__release__acronym=release, ranked_list__list_type__slug=slug
        ).order_by("position")
    )


def build(**kwargs: Any) -> Any:
    from rankings.maintenance.builder import build_lists

    return build_lists(**kwargs)


def test_ties_share_a_rank_and_earlier_submission_comes_first(world: World) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    a = world.submission(sc19, 10.0, bw=1.0, md=100.0)
    b = world.submission(sc19, 8.0, bw=5.0, md=12.8)
    c = world.submission(sc19, 8.0, bw=4.0, md=16.0)  # ties with b, submitted later
    d = world.submission(sc19, 5.0, bw=5.0, md=5.0)  # ties with b on BW
    build()
    rows = entries("SC19", "historical")
    assert [e.submission_id for e in rows] == [a.pk, b.pk, c.pk, d.pk]
    assert [e.rank for e in rows] == [1, 2, 2, 4]
    assert [e.bw_rank for e in rows] == [4, 1, 3, 1]
    assert [e.md_rank for e in rows] == [1, 3, 2, 4]


def test_metric_ranks_count_the_greater_values_whatever_the_order() -> None:
    """The BW and MD ranks of a list in score order: equal values share the rank of the
    first of them in value order, and a value's place among its equals does not matter."""
    from rankings.maintenance.ranking import metric_ranks

    values = [3.0, 1.0, 3.0, 2.0, 5.0, 1.0, 0.0, -0.0]
    assert metric_ranks(values) == [2, 5, 2, 4, 1, 5, 7, 7]
    assert metric_ranks(values[::-1]) == [7, 7, 5, 1, 4, 2, 5, 2]
    assert metric_ranks([]) == []


def test_dedup_keeps_best_per_storage_system_unless_pinned(world: World) -> None:
    from rankings.models import StoragePin
    from submissions.models import ListType

    sc19 = world.release("SC19", date(2019, 11, 19))
    shared = world.storage("scratch")
    low = world.submission(sc19, 3.0, storage=shared)
    high = world.submission(sc19, 7.0, storage=shared)
    other = world.submission(sc19, 5.0, storage=world.storage("home"))
    build()
    assert [e.submission_id for e in entries("SC19", "io500")] == [high.pk, other.pk]
    assert entries("SC19", "io500")[0].displaced == [low.pk]
    assert len(entries("SC19", "historical")) == 3  # Historical never de-duplicates

    # A pin wins over the score; the draft/published distinction does not matter for a new
    # release, so pin before the lists exist.
    sc20 = world.release("SC20", date(2020, 11, 17))
    world.submission(sc20, 1.0)
    from rankings.models import RankedList

    RankedList.objects.all().delete()
    StoragePin.objects.create(
        list_type=ListType.objects.get(slug="io500"),
        storage_system=shared,
        submission=low,
        reason="committee",
    )
    build()
    kept = {e.submission_id: e for e in entries("SC19", "io500")}
    assert low.pk in kept and high.pk not in kept
    assert kept[low.pk].pinned and kept[low.pk].displaced == [high.pk]


def test_merged_storage_systems_deduplicate_together(world: World) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    survivor, merged = world.storage("fs-a"), world.storage("fs-a-old-name")
    merged.merged_into = survivor
    merged.save()
    best = world.submission(sc19, 9.0, storage=merged)
    world.submission(sc19, 4.0, storage=survivor)
    build()
    assert [e.submission_id for e in entries("SC19", "io500")] == [best.pk]


def test_carry_over_keeps_entry_score_and_origin_release(world: World) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    old = world.submission(sc19, 6.0, storage=world.storage("a"))
    build()
    # The committee re-scores after publication, then the next release is built.
    old.score_total = 60.0
    old.save()
    isc20 = world.release("ISC20", date(2020, 6, 23))
    new = world.submission(isc20, 7.0, storage=world.storage("b"))
    report = build()
    assert "SC19/io500" in report.stale  # published: never rewritten silently
    rows = {e.submission_id: e for e in entries("ISC20", "io500")}
    assert rows[old.pk].carried_over and rows[old.pk].score == 6.0
    assert rows[old.pk].origin_release.acronym == "SC19"
    assert not rows[new.pk].carried_over and rows[new.pk].origin_release.acronym == "ISC20"
    assert [rows[new.pk].rank, rows[old.pk].rank] == [1, 2]


def test_rebuild_is_idempotent_and_locked_lists_change_only_by_correction(
    world: World, client: Any
) -> None:
    from rankings.models import Correction, RankedList

    sc19 = world.release("SC19", date(2019, 11, 19))
    first = world.submission(sc19, 5.0)
    assert build().created
    again = build()
    assert not again.created and not again.rewritten and again.unchanged
    late = world.submission(sc19, 9.0)  # accepted late, after publication
    stale = build()
    assert "SC19/historical" in stale.stale
    assert [e.submission_id for e in entries("SC19", "historical")] == [first.pk]
    corrected = build(correction_reason="late acceptance approved by the committee")
    assert "SC19/historical" in corrected.corrected
    the_list = RankedList.objects.get(release=sc19, list_type__slug="historical")
    assert the_list.revision == 2
    record = Correction.objects.get(ranked_list=the_list, submission=late)
    assert record.kind == "added" and record.revision == 2
    assert [e.rank for e in entries("SC19", "historical")] == [1, 2]
    page = client.get(reverse("rankings:changelog", args=["SC19"]))
    assert page.status_code == 200
    assert "late acceptance approved by the committee" in page.content.decode()


def test_draft_lists_are_rewritten_in_place(world: World) -> None:
    future = world.release("ISC99", date.today() + timedelta(days=90))
    world.submission(future, 2.0)
    build()
    from rankings.models import RankedList

    assert RankedList.objects.get(release=future, list_type__slug="full").state == "draft"
    world.submission(future, 3.0)
    report = build()
    assert "ISC99/full" in report.rewritten
    assert [e.score for e in entries("ISC99", "full")] == [3.0, 2.0]


def test_production_research_and_ten_node_membership(world: World) -> None:
    isc24 = world.release("ISC24", date(2024, 5, 14))
    prod = world.submission(
        isc24,
        9.0,
        level="fully_reproducible",
        production=True,
        target="production",
        storage=world.storage("p"),
    )
    research = world.submission(isc24, 8.0, level="proprietary", storage=world.storage("r"))
    limited = world.submission(isc24, 7.0, level="limited", storage=world.storage("l"))
    ten = world.submission(isc24, 6.0, level="proprietary", nodes=10, storage=world.storage("t"))
    small = world.submission(isc24, 20.0, level="proprietary", nodes=4, storage=world.storage("s"))
    build()
    ids = lambda slug: [e.submission_id for e in entries("ISC24", slug)]  # noqa: E731
    assert ids("production") == [prod.pk]
    assert ids("research") == [small.pk, research.pk, ten.pk]
    assert limited.pk not in ids("research") and limited.pk in ids("full")
    assert ids("ten-node-research") == [ten.pk]
    assert ids("ten-node-production") == []
    awards = {e.submission_id: e for e in entries("ISC24", "research")}
    # A 4-node run tops the any-size list but is not award-eligible (LEADERBOARD-RULES §3).
    assert not awards[small.pk].award_score and awards[research.pk].award_score
    assert entries("ISC24", "ten-node-research")[0].award_score


def test_sorting_never_changes_the_frozen_rank(world: World, client: Any) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    subs = [
        world.submission(sc19, s, bw=b, md=s * s / b)
        for s, b in ((9.0, 1.0), (7.0, 9.0), (5.0, 3.0))
    ]
    build()
    url = reverse("rankings:ranked-list", args=["SC19", "historical"])
    by_bw = client.get(url, {"sort": "bw", "dir": "desc"})
    assert by_bw.status_code == 200
    order = [e.submission_id for e in by_bw.context["page"].object_list]
    assert order == [subs[1].pk, subs[2].pk, subs[0].pk]
    assert [e.rank for e in by_bw.context["page"].object_list] == [2, 3, 1]
    assert 'aria-sort="descending"' in by_bw.content.decode()


def test_bad_query_parameters_are_named_not_crashing(world: World, client: Any) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    world.submission(sc19, 1.0)
    build()
    page = client.get(
        reverse("rankings:ranked-list", args=["SC19", "full"]), {"sort": "nope", "page": "x"}
    )
    assert page.status_code == 200
    text = page.content.decode()
    assert "parameter &#x27;sort&#x27;: unknown column &#x27;nope&#x27;" in text
    assert "parameter &#x27;page&#x27; must be a whole number" in text
    csv_response = client.get(
        reverse("rankings:list-csv", args=["SC19", "full"]), {"nodes_min": "many"}
    )
    assert csv_response.status_code == 400
    assert "nodes_min" in csv_response.content.decode()
    api = client.get(reverse("rankings:api-list-entries", args=["SC19", "full"]), {"sort": "nope"})
    assert api.status_code == 400 and "sort" in api.content.decode()
    compare = client.get(reverse("rankings:compare"), {"ids": "1,abc"})
    assert compare.status_code == 200 and "&#x27;abc&#x27; is not a submission id" in (
        compare.content.decode()
    )


def test_filters_and_exports_agree(world: World, client: Any) -> None:
    sc19 = world.release("SC19", date(2019, 11, 19))
    daos = world.storage("d")
    daos.fs_type = "DAOS"
    daos.save()
    keep = world.submission(sc19, 4.0, storage=daos, nodes=10)
    world.submission(sc19, 6.0, nodes=10)
    world.submission(sc19, 8.0, storage=world.storage("x"), nodes=50)
    build()
    params = {"fs": "daos", "nodes_max": "10"}
    page = client.get(reverse("rankings:ranked-list", args=["SC19", "historical"]), params)
    assert [e.submission_id for e in page.context["page"].object_list] == [keep.pk]
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(
                    reverse("rankings:list-csv", args=["SC19", "historical"]), params
                ).content.decode()
            )
        )
    )
    data = client.get(reverse("rankings:list-json", args=["SC19", "historical"]), params).json()
    api = client.get(
        reverse("rankings:api-list-entries", args=["SC19", "historical"]), params
    ).json()
    assert [int(r["submission_id"]) for r in rows] == [keep.pk]
    assert data["entries"][0]["submission_id"] == keep.pk == api["results"][0]["submission_id"]
    assert float(rows[0]["score"]) == data["entries"][0]["score"] == api["results"][0]["score"]
    assert rows[0]["rank"] == "3" and data["entries"][0]["rank"] == 3


def test_scc_runs_only_enter_the_scc_list(world: World) -> None:
    isc24 = world.release("ISC24", date(2024, 5, 14))
    regular = world.submission(isc24, 5.0, level="proprietary", storage=world.storage("a"))
    student = world.submission(isc24, 50.0, level="proprietary", storage=world.storage("b"))
    student.scc = True
    student.save()
    build()
    assert [e.submission_id for e in entries("ISC24", "scc")] == [student.pk]
    for slug in ("historical", "full", "research"):
        assert [e.submission_id for e in entries("ISC24", slug)] == [regular.pk], slug
    # SCC lists never carry over: the next release has no SCC list without SCC runs.
    sc24 = world.release("SC24", date(2024, 11, 19))
    world.submission(sc24, 1.0)
    build()
    assert entries("SC24", "scc") == []
