"""``manage.py build_lists [--release X] [--correct REASON] [--submission ID ...]``: build
the ranked lists.

Idempotent: a second run reports every list unchanged and writes nothing. Frozen and
published lists are only changed with ``--correct``, which records corrections.
``--submission`` updates incrementally after those submissions were accepted or changed:
only the lists they concern are read and written (``builder.update_lists``).
``--statistics`` only computes the trends statistics of lists stored without them (after
rankings migration 0006), without building; a full build fills them as well.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rankings.maintenance.builder import build_lists, update_lists
from rankings.maintenance.list_statistics import fill_missing


class Command(BaseCommand):
    help = "Build the ranked lists of every release (or one) from accepted submissions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--release", help="only write the lists of this release (acronym)")
        parser.add_argument(
            "--correct",
            metavar="REASON",
            help="apply differences to frozen/published lists as recorded corrections",
        )
        parser.add_argument(
            "--submission",
            type=int,
            action="append",
            metavar="ID",
            help="only the lists these accepted (or changed) submissions concern; repeatable",
        )
        parser.add_argument(
            "--statistics",
            action="store_true",
            help="only fill the trends statistics of lists that have none (no build)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        if options.get("statistics"):
            filled = fill_missing()
            self.stdout.write(f"statistics of {filled} lists filled")
            self.stdout.write(f"done in {time.monotonic() - started:.2f} s")
            return
        submissions = options.get("submission")
        if submissions and (options.get("release") or options.get("correct")):
            raise CommandError(
                "--submission updates incrementally; it takes no --release/--correct"
            )
        try:
            if submissions:
                report = update_lists(submissions)
            else:
                report = build_lists(
                    options.get("release"), correction_reason=options.get("correct")
                )
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(f"done in {time.monotonic() - started:.2f} s")
