"""`manage.py demo_account`: the demo's site admin, as `make demo` needs one.

Creates (or reuses) a submitter account and its site, gives it a fresh random password written
to --password-file (mode 0600), revokes the tokens an earlier demo issued, and prints a new API
token on stdout, alone, so a shell can capture it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from accounts.models import ApiToken, Site
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
        user, _ = User.objects.get_or_create(
            username=options["username"], defaults={"email": "demo@example.org"}
        )
        password = secrets.token_urlsafe(12)
        user.set_password(password)
        user.save()
        user.groups.add(Group.objects.get_or_create(name=SUBMITTER)[0])
        site.members.add(user)

        for token in ApiToken.objects.filter(user=user, name=DEMO_TOKEN_NAME).active():
            token.revoke()
            token.save(update_fields=["revoked_at"])
        _, raw = ApiToken.issue(user, site, name=DEMO_TOKEN_NAME)

        password_file: Path = options["password_file"]
        password_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password + "\n")
        self.stdout.write(raw)
