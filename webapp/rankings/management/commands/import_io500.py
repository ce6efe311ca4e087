"""``manage.py import_io500 PATH``: load IO500's history (archive, website records, published
lists) as accepted submissions and frozen historical lists.

A rankings command: it writes both apps' rows (``submissions.importer`` the submissions,
``rankings.published`` the lists), and rankings is the app that depends on both."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rankings.published import import_published_lists
from submissions.importer import ImportInputError, import_io500


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
