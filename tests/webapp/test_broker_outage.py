"""Nothing is lost when the broker is down across an acceptance: the reviewer's request
succeeds, the database keeps what is still to do (``PendingListUpdate``), and the sweep beat
runs (``reconcile_lists``) puts the run on its lists once the broker is back.

The broker really is down for the web side: the Celery app is pointed at a Redis port
nobody listens on, while the test's real worker keeps its own (working) broker."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .test_incremental_lists import assert_equals_full_rebuild
from .test_list_updates import _review, _slugs_holding, draft_lists_and_a_run_under_review


def _unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def broker_down() -> Iterator[None]:
    from ioscore_site.celery import app

    def drop_connections() -> None:  # the pools are kombu's, per URL: forget, not close
        app._pool = None
        app.amqp._producer_pool = None

    keys = ("broker_url", "broker_write_url")
    saved = {key: app.conf[key] for key in keys}
    drop_connections()
    for key in keys:
        app.conf[key] = f"redis://127.0.0.1:{_unused_port()}/0"
    try:
        yield
    finally:
        drop_connections()
        for key in keys:
            app.conf[key] = saved[key]


@pytest.mark.django_db(transaction=True)
def test_an_acceptance_while_the_broker_is_down_reaches_the_lists(
    cast: Any, lists_queue: Any
) -> None:
    from rankings.models import ListEntry, PendingListUpdate
    from rankings.tasks import reconcile_lists

    run = draft_lists_and_a_run_under_review(cast)
    with broker_down():
        _review(cast, run, "accept")  # 200, not 500
        assert reconcile_lists(older_than_s=0) == 1  # a sweep while still down loses nothing
    run.refresh_from_db()
    assert run.status == "accepted"
    assert not ListEntry.objects.filter(submission=run).exists()
    assert PendingListUpdate.objects.filter(submission=run).exists()

    assert reconcile_lists(older_than_s=0) == 1  # the broker is back: beat's sweep
    assert _slugs_holding(run.pk) == {"historical", "full", "research", "ten-node-research"}
    lists_queue.wait_idle()
    assert not PendingListUpdate.objects.filter(submission=run).exists()
    assert reconcile_lists(older_than_s=0) == 0
    assert_equals_full_rebuild()
