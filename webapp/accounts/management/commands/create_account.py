"""`manage.py create_account NAME --role reviewer|admin|submitter`: accounts for the committee
and the site's administrators (there is no sign-up page for them).

Creates the user or, when it exists, adds the role and sets a new password. The random
password goes to --password-file (mode 0600) when given, else it is printed once on stdout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from accounts.models import Site
from accounts.provisioning import ensure_account, write_secret
from accounts.roles import ALL_ROLES, SUBMITTER


class Command(BaseCommand):
    help = "Create a reviewer, admin or submitter account with a random password."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, choices=ALL_ROLES)
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--site", help="abbreviation of an existing site the submitter belongs to"
        )
        parser.add_argument("--password-file", type=Path, help="write the password here (0600)")

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        site = None
        if options["site"]:
            if options["role"] != SUBMITTER:
                raise CommandError("--site is for submitters (the site they submit for)")
            site = Site.objects.filter(abbreviation=options["site"]).first()
            if site is None:
                raise CommandError(f"no site with abbreviation {options['site']!r}")
        user, password = ensure_account(
            options["username"], options["role"], email=options["email"]
        )
        if site is not None:
            site.members.add(user)
        if options["password_file"]:
            write_secret(options["password_file"], password)
            self.stdout.write(
                f"{options['role']} {user.username}: password in {options['password_file']}"
            )
        else:
            self.stdout.write(f"{options['role']} {user.username}: password {password}")
