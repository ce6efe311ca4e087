"""``manage.py import_io500 DIR``: load the public IO500 corpus as accepted history."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from submissions.importer import ImportInputError, import_io500


class Command(BaseCommand):
    help = (
        "Import io500-submissions/index.csv (+ dev/<id>/ files) and io500-releases.csv from DIR "
        "as accepted historical submissions. Idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="the shared data folder")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        try:
            report = import_io500(options["directory"])
        except ImportInputError as exc:
            raise CommandError(str(exc)) from None
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(f"took {time.perf_counter() - started:.2f} s")
