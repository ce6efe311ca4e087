"""How the list builder reads and runs at scale: ``rankings.maintenance.loading.rows_of``
fetches rows past Django's iterator and time-zone loader and must give exactly what Django
gives, and the builders pause the cyclic garbage collector only while they run."""

from __future__ import annotations

import gc
from datetime import date
from typing import Any

import pytest

from .test_rankings import World

pytestmark = pytest.mark.django_db


def test_rows_of_gives_the_values_django_gives() -> None:
    from rankings.maintenance.builder import build_lists
    from rankings.maintenance.loading import ENTRY_VALUE_FIELDS, json_list, rows_of
    from rankings.models import ListEntry

    world = World()
    release = world.release("SC19", date(2019, 11, 19))
    shared = world.storage("shared-fs")
    world.submission(release, 10.0, storage=shared)
    world.submission(release, 8.0, storage=shared)  # displaced on the de-duplicated lists
    world.submission(release, 9.0, bw=2.5, md=None)
    build_lists()
    query = ListEntry.objects.order_by("ranked_list_id", "position").values_list(
        *ENTRY_VALUE_FIELDS
    )
    django_rows = list(query)
    fast = [(*row[:-1], json_list(row[-1])) for row in rows_of(query)]
    assert fast == django_rows
    assert any(row[-1] for row in fast)  # a displaced run is among them
    when = ENTRY_VALUE_FIELDS.index("submitted_at")
    assert all(row[when].utcoffset().total_seconds() == 0 for row in fast)


def test_the_builders_pause_the_cyclic_gc_only_while_they_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rankings.maintenance import builder
    from rankings.maintenance.persistence import BuildReport

    seen: list[bool] = []

    def recording(*args: Any) -> BuildReport:
        seen.append(gc.isenabled())
        return BuildReport()

    monkeypatch.setattr(builder, "_update", recording)
    monkeypatch.setattr(builder, "_build", recording)
    builder.update_lists([1])
    builder.build_lists()
    assert seen == [False, False] and gc.isenabled()

    def failing(*args: Any) -> BuildReport:
        raise RuntimeError("build failed")

    monkeypatch.setattr(builder, "_update", failing)
    with pytest.raises(RuntimeError):
        builder.update_lists([1])
    assert gc.isenabled()
    # A caller that turned it off keeps it off.
    monkeypatch.setattr(builder, "_update", recording)
    gc.disable()
    try:
        builder.update_lists([1])
        assert not gc.isenabled()
    finally:
        gc.enable()
