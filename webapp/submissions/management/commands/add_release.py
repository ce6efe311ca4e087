"""`manage.py add_release ACRONYM`: open (or update) a release for submissions.

Releases of the past come from `import_io500`; the release people submit to next is created
by an admin, here or through the release API. Idempotent: the same call twice changes nothing.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from submissions.models import Release


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise CommandError(f"not a date (YYYY-MM-DD): {text!r}") from exc


class Command(BaseCommand):
    help = "Create or update a release: its dates and the benchmark versions it accepts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("acronym", help="e.g. ISC27")
        parser.add_argument("--release-date", required=True, help="end of the embargo, YYYY-MM-DD")
        parser.add_argument("--deadline", required=True, help="submission deadline, YYYY-MM-DD")
        parser.add_argument("--tag-date", help="benchmark tag announced, YYYY-MM-DD")
        parser.add_argument(
            "--accept",
            action="append",
            default=[],
            metavar="TAG",
            help="an accepted benchmark version tag (repeat for several)",
        )
        parser.add_argument("--name", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        release_date = _date(options["release_date"])
        deadline = _date(options["deadline"])
        if deadline > release_date:
            raise CommandError("the submission deadline must not be after the release date")
        values = {
            "release_date": release_date,
            "submission_deadline": deadline,
            "tag_date": _date(options["tag_date"]) if options["tag_date"] else None,
            "accepted_versions": options["accept"],
            "historic": False,
        }
        if options["name"]:
            values["name"] = options["name"]
        release, created = Release.objects.update_or_create(
            acronym=options["acronym"], defaults=values
        )
        state = "open" if release.is_open() else "closed"
        verb = "created" if created else "updated"
        self.stdout.write(f"{verb} release {release.acronym} ({state}, deadline {deadline})")
