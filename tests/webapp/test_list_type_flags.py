"""The list builder reads how a list is built from its ``ListType`` row, never from its slug."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from rankings.maintenance.builder import empty_reason
from rankings.maintenance.eras import list_types_for
from submissions.models import ListEra, ListRule, ListType

from .test_rankings import World, build, entries

pytestmark = pytest.mark.django_db


def _scene(world: World) -> dict[str, Any]:
    isc24 = world.release("ISC24", date(2024, 5, 14))
    return {
        "prod": world.submission(
            isc24,
            9.0,
            level="fully_reproducible",
            production=True,
            target="production",
            nodes=10,
            storage=world.storage("p"),
        ),
        "research": world.submission(isc24, 8.0, level="proprietary", storage=world.storage("r")),
        "ten": world.submission(
            isc24, 6.0, level="proprietary", nodes=10, storage=world.storage("t")
        ),
    }


def _ids(slug: str) -> list[int]:
    return [e.submission_id for e in entries("ISC24", slug)]


def test_seeded_rows_carry_the_rules() -> None:
    rows = {t.slug: (t.rule, t.era, t.ten_node, t.award) for t in ListType.objects.all()}
    assert rows["ten-node-production"] == (ListRule.PRODUCTION, ListEra.CURRENT, True, True)
    assert rows["ten-node-challenge"] == (ListRule.IO500, ListEra.LEGACY, True, True)
    assert rows["historical"] == (ListRule.HISTORICAL, ListEra.ANY, False, False)


def test_renamed_list_types_keep_their_membership() -> None:
    world = World()
    scene = _scene(world)
    for slug in ("production", "research", "ten-node-research", "ten-node-production"):
        ListType.objects.filter(slug=slug).update(slug=f"renamed-{slug}")
    build()
    assert _ids("renamed-production") == [scene["prod"].pk]
    assert _ids("renamed-research") == [scene["research"].pk, scene["ten"].pk]
    assert _ids("renamed-ten-node-research") == [scene["ten"].pk]
    assert _ids("renamed-ten-node-production") == [scene["prod"].pk]
    assert entries("ISC24", "renamed-ten-node-research")[0].award_score


def test_a_new_list_type_is_built_from_its_flags() -> None:
    world = World()
    scene = _scene(world)
    ListType.objects.create(
        slug="ten-node-full",
        name="10-node Full",
        order=25,
        rule=ListRule.FULL,
        era=ListEra.CURRENT,
        ten_node=True,
        award=True,
    )
    build()
    assert _ids("ten-node-full") == [scene["prod"].pk, scene["ten"].pk]
    assert all(
        e.award_score is (e.submission_id == scene["prod"].pk)
        for e in entries("ISC24", "ten-node-full")
    )
    # The era flag decides which releases have it.
    legacy = world.release("SC19", date(2019, 11, 19))
    assert "ten-node-full" not in [t.slug for t in list_types_for(legacy, ListType.objects.all())]


def test_empty_reason_follows_the_rule_not_the_slug() -> None:
    ListType.objects.filter(slug="ten-node-production").update(slug="tnp")
    assert "Production needs exactly 10 client nodes" in empty_reason("tnp")
    assert empty_reason("unknown") == "No accepted submission qualifies for this list yet."


def test_reseeding_after_a_flush_restores_the_flags() -> None:
    # transactional tests flush the seeded rows and seed them again with the current models
    import importlib

    from django.apps import apps

    before = list(ListType.objects.values_list("slug", "rule", "era", "ten_node", "award"))
    ListType.objects.all().delete()
    importlib.import_module("migrations.submissions.0002_list_types").seed(apps, None)
    after = list(ListType.objects.values_list("slug", "rule", "era", "ten_node", "award"))
    assert after == before and len(after) == 9
