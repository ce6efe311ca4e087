"""``manage.py requeue_validations``: queue again what a lost broker message left behind.

The same sweep Celery beat runs every few minutes (``requeue_stuck_validations``), on demand.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from validation.tasks import requeue_stuck_validations


class Command(BaseCommand):
    help = "Queue validation again for submissions stuck in submitted/validating."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=int,
            default=600,
            help="seconds without progress before a submission counts as stuck (default 600)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        count = requeue_stuck_validations(options["older_than"])
        self.stdout.write(f"queued {count} submission(s) for validation")
