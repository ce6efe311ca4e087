"""``manage.py import_io500 PATH``: load IO500's history (archive, website records, published
lists) as accepted submissions and frozen historical lists.

It writes the rows of both lower apps: ``io500archive.importer`` the submissions,
``io500archive.published`` the lists."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from io500archive.importer import ImportInputError, import_io500
from io500archive.published import import_published_lists


class Command(BaseCommand):
    help = (
        "Import the IO500 results archive in its published layout "
        "(<institution>/<system>/<fs>/<year>/submission-<N>/) and, when PATH holds them, "
        "io500-website-submissions-2021.csv and io500-published-lists.csv. PATH is a data "
        "folder with an io500-archive*/ directory and the CSVs, or a bare archive root. "
        "Idempotent."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="data folder or archive root")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        try:
            report = import_io500(options["directory"], import_published_lists)
        except ImportInputError as exc:
            raise CommandError(str(exc)) from None
        for line in report.lines():
            self.stdout.write(line)
        self.stdout.write(f"took {time.perf_counter() - started:.2f} s")
