"""A stored list's order: ``ListEntry.position`` is a gapped key, increasing in display order,
not the entry's number on the list (that is its index in that order).

A whole list is written with keys ``GAP, 2*GAP, ...`` (``spaced``). An entry inserted into a
stored list takes a key between its neighbours' (``insert_keys``), so no other row's key
changes: the rows below it get their new ranks only, which are in no index, so PostgreSQL
updates them in place (HOT) instead of writing every list index again for each of them
(7 s for one acceptance at 100,000 entries). When two neighbours have no key left between
them ``insert_keys`` says so and the caller renumbers the whole list with ``spaced``.

The migration that introduced the keys (rankings 0009) states ``GAP`` too.
"""

from __future__ import annotations

from collections.abc import Sequence

# 2**32: 32 insertions at one spot before a renumbering, lists of up to 2 * 10**9 entries.
GAP = 1 << 32


def spaced(count: int) -> list[int]:
    """The keys of a list of ``count`` entries written as a whole."""
    return [GAP * (index + 1) for index in range(count)]


def neighbours(ids: Sequence[int], stays: set[int]) -> set[int]:
    """The staying ids next to an inserted one (those not in ``stays``): the stored keys
    ``insert_keys`` needs."""
    out = set()
    for index, sid in enumerate(ids):
        if sid in stays:
            continue
        if index > 0 and ids[index - 1] in stays:
            out.add(ids[index - 1])
        if index + 1 < len(ids) and ids[index + 1] in stays:
            out.add(ids[index + 1])
    return out


def insert_keys(
    ids: Sequence[int], stays: set[int], stored: dict[int, int]
) -> dict[int, int] | None:
    """A key for each id of ``ids`` (a list in display order) not in ``stays``: spread
    evenly between the stored keys of the staying ids around it (``stored`` holds at least
    the ``neighbours``), after the last one by ``GAP``. None when a run of inserted ids has
    no room between its neighbours: then the list needs renumbering."""
    keys: dict[int, int] = {}
    low = 0  # keys are positive: the first entry's is at least 1
    run: list[int] = []
    for sid in ids:
        if sid not in stays:
            run.append(sid)
            continue
        if run:
            step = (stored[sid] - low) // (len(run) + 1)
            if step < 1:
                return None
            keys.update((r, low + step * (k + 1)) for k, r in enumerate(run))
            run = []
        low = stored.get(sid, low)  # only a run's neighbour is read before the next run
    keys.update((r, low + GAP * (k + 1)) for k, r in enumerate(run))
    return keys
