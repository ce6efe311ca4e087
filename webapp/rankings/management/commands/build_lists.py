"""``manage.py build_lists [--release X] [--correct REASON]``: build the ranked lists.

Idempotent: a second run reports every list unchanged and writes nothing. Frozen and
published lists are only changed with ``--correct``, which records corrections.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rankings.builder import build_lists


class Command(BaseCommand):
    help = "Build the ranked lists of every release (or one) from accepted submissions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--release", help="only write the lists of this release (acronym)")
        parser.add_argument(
            "--correct",
            metavar="REASON",
            help="apply differences to frozen/published lists as recorded corrections",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        try:
            report = build_lists(options.get("release"), correction_reason=options.get("correct"))
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(f"done in {time.monotonic() - started:.2f} s")
