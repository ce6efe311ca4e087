"""Celery beat (the compose `beat` service) schedules only tasks the worker really has."""

from __future__ import annotations

from django.conf import settings


def test_every_beat_entry_names_a_registered_task() -> None:
    from ioscore_site.celery import app

    app.loader.import_default_modules()
    assert settings.CELERY_BEAT_SCHEDULE, "beat has nothing to run"
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        assert entry["task"] in app.tasks, f"{name}: {entry['task']} is not a registered task"
        assert entry["schedule"] > 0
