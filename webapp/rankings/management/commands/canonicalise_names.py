"""``manage.py canonicalise_names``: re-apply the canonical-names table to stored rows."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from rankings.maintenance.canonical_rows import apply_to_stored_rows


class Command(BaseCommand):
    help = (
        "Re-apply submissions/data/canonical_names.toml: institution, storage vendor and FS "
        "type of every system description (from the values as submitted), the display "
        "columns of list entries, and site and storage-system names where no other row has "
        "the canonical name already."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--dry-run", action="store_true", help="report what would change, change nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for line in apply_to_stored_rows(dry_run=options["dry_run"]):
            self.stdout.write(line)
