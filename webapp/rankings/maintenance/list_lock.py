"""One writer of the ranked lists at a time.

``build_lists`` and ``update_lists`` read the stored lists, propose, and write; two of them
interleaving (two acceptances updating at once, or a committee's full rebuild while a worker
updates) could each carry a list the other is rewriting. Both run inside ``lists_locked()``:
one transaction holding a PostgreSQL transaction-level advisory lock, so the second waits
for the first to commit and then reads what it wrote. The lock dies with the transaction (or
the connection of a killed worker), so it never needs releasing by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

# pg_advisory_xact_lock(int, int): the first key names the lock's owner (validation uses
# 74_500 per submission), the second the object: the lists are one object.
LOCK_NAMESPACE = 74_501
LISTS = 0


@contextmanager
def lists_locked() -> Iterator[None]:
    """A transaction in which this process is the only one writing ranked lists."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, LISTS])
        yield
