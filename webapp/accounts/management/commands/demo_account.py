"""`manage.py demo_account`: the demo's site admin, as `make demo` needs one.

Creates (or reuses) a submitter account and its site, gives it a fresh random password written
to --password-file (mode 0600), revokes the tokens an earlier demo issued, and prints a new API
token on stdout, alone, so a shell can capture it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from accounts.models import ApiToken, Site
from accounts.provisioning import ensure_account, write_secret
from accounts.roles import SUBMITTER

DEMO_TOKEN_NAME = "make demo"


class Command(BaseCommand):
    help = "Create the demo submitter and its site; print a fresh API token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--site", default="DEMO", help="site abbreviation")
        parser.add_argument("--password-file", type=Path, required=True)

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        site, _ = Site.objects.get_or_create(
            abbreviation=options["site"],
            defaults={"name": f"{options['site']} (ioscore demo site)", "country": "DEU"},
        )
        user, password = ensure_account(options["username"], SUBMITTER, email="demo@example.org")
        site.members.add(user)

        for token in ApiToken.objects.filter(user=user, name=DEMO_TOKEN_NAME).active():
            token.revoke()
            token.save(update_fields=["revoked_at"])
        _, raw = ApiToken.issue(user, site, name=DEMO_TOKEN_NAME)
        write_secret(options["password_file"], password)
        self.stdout.write(raw)
