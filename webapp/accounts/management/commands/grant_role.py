"""`manage.py grant_role USER ROLE [--revoke]`: give an existing account a role, or take it away.

Roles are the groups of ``accounts.roles`` (submitter, reviewer, admin); admins see the review
queue and the management pages (/manage/). The roles page (/manage/roles/) does the same for
an admin in the browser and keeps who/when/why in the admin log; here the shell's own history
is the record, as no account acts.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from accounts.provisioning import grant_role, revoke_role
from accounts.roles import ALL_ROLES


class Command(BaseCommand):
    help = "Grant (or with --revoke, take away) a role: submitter, reviewer or admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("role", choices=ALL_ROLES)
        parser.add_argument("--revoke", action="store_true", help="take the role away")

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(
                f"no user {options['username']!r}; create it with "
                f"`manage.py create_account {options['username']} --role {options['role']}`"
            )
        role = options["role"]
        change = revoke_role if options["revoke"] else grant_role
        if not change(user, role):
            state = "does not have" if options["revoke"] else "already has"
            self.stdout.write(f"{user.username} {state} the {role} role; nothing changed")
            return
        verb = "revoked" if options["revoke"] else "granted"
        self.stdout.write(f"{verb} {role} {'from' if options['revoke'] else 'to'} {user.username}")
