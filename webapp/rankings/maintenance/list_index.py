"""What a list view reads instead of every entry of a list: each list's distinct
search texts (``ListSearchText``) and its filter choices (``ListFacet``), stored whenever the
list's entries are written.

A list of 100,000 entries holds about 10,000 storage systems, so about 10,000 distinct search
texts: a search tests those (``search_keys``) and then picks the entries by the 64-bit hash of
their text (``ListEntry.search_key``, carried by the list-order index) instead of running a
LIKE on every entry. Two texts could share a hash: such keys are flagged when stored and the
view tests those entries' own text, so the rows are exactly the LIKE's.

``refresh`` runs after the builder, the website-list import or a canonical rename wrote a
list's entries; the rows are derived by PostgreSQL from the stored entries (so the lowering
is the column's own), one INSERT ... SELECT DISTINCT per table. An incremental rewrite
(``persistence.rewrite_entries``) calls ``update`` instead, with the entries it added and the
values of those it removed: a new entry's text and choice are most often ones the list has
already, and reading every entry again for that would cost each accepted run a whole list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection

from rankings.models import ListEntry, ListFacet, ListSearchText

_ENTRY = ListEntry._meta.db_table
_TEXT = ListSearchText._meta.db_table
_FACET = ListFacet._meta.db_table


def refresh(list_ids: Iterable[int] | None = None) -> None:
    """Store the search texts and filter choices of these lists (of every list when None)
    from their entries as they are now."""
    ids = None if list_ids is None else sorted(set(list_ids))
    if ids == []:
        return
    scope, params = ("", []) if ids is None else (" WHERE ranked_list_id = ANY(%s)", [ids])
    with connection.cursor() as cursor:
        for table in (_TEXT, _FACET):
            cursor.execute(f"DELETE FROM {table}{scope}", params)
        # In list order on disk (a search reads one list's rows), each flagged when another
        # text of the list has its key.
        cursor.execute(
            f"INSERT INTO {_TEXT} (ranked_list_id, search_key, search_text, shared) "
            "SELECT ranked_list_id, search_key, search_text, "
            "count(*) OVER (PARTITION BY ranked_list_id, search_key) > 1 "
            "FROM (SELECT DISTINCT ranked_list_id, search_key, search_text "
            f"FROM {_ENTRY}{scope}) t "
            "ORDER BY ranked_list_id, search_key",
            params,
        )
        cursor.execute(
            f"INSERT INTO {_FACET} (ranked_list_id, fs_type, storage_vendor, origin_release_id) "
            f"SELECT DISTINCT ranked_list_id, fs_type, storage_vendor, origin_release_id "
            f"FROM {_ENTRY}{scope}",
            params,
        )


class Removed(NamedTuple):
    """What the index reads of a removed entry (its row, as a DELETE ... RETURNING gives it)."""

    search_key: int
    search_text: str
    fs_type: str
    storage_vendor: str
    origin_release_id: int


REMOVED_COLUMNS = ", ".join(Removed._fields)


def update(list_id: int, added: Sequence[int], removed: Sequence[Removed]) -> None:
    """Bring one list's texts and choices up to date after entries were added (the stored
    entries of these submission ids) and removed, touching only what they concern: a text
    or choice is added when the list lacks it, removed when no entry holds it any more.
    Where a key is or was shared by two texts the list is refreshed whole (a 64-bit hash
    collision: the flags are then recomputed by ``refresh``)."""
    if not added and not removed:
        return
    with connection.cursor() as cursor:
        if added:
            cursor.execute(
                f"INSERT INTO {_TEXT} (ranked_list_id, search_key, search_text, shared) "
                "SELECT DISTINCT e.ranked_list_id, e.search_key, e.search_text, false "
                f"FROM {_ENTRY} e WHERE e.ranked_list_id = %s AND e.submission_id = ANY(%s) "
                f"AND NOT EXISTS (SELECT 1 FROM {_TEXT} t WHERE t.ranked_list_id = %s "
                "AND t.search_key = e.search_key AND t.search_text = e.search_text) "
                "RETURNING search_key",
                [list_id, list(added), list_id],
            )
            new_keys = [key for (key,) in cursor.fetchall()]
            if new_keys:
                cursor.execute(
                    f"SELECT EXISTS (SELECT 1 FROM {_TEXT} WHERE ranked_list_id = %s "
                    "AND search_key = ANY(%s) GROUP BY search_key HAVING count(*) > 1)",
                    [list_id, new_keys],
                )
                if cursor.fetchone()[0]:
                    refresh([list_id])
                    return
            cursor.execute(
                f"INSERT INTO {_FACET} (ranked_list_id, fs_type, storage_vendor, "
                "origin_release_id) SELECT DISTINCT e.ranked_list_id, e.fs_type, "
                f"e.storage_vendor, e.origin_release_id FROM {_ENTRY} e "
                "WHERE e.ranked_list_id = %s AND e.submission_id = ANY(%s) "
                f"AND NOT EXISTS (SELECT 1 FROM {_FACET} f WHERE f.ranked_list_id = %s "
                "AND f.fs_type = e.fs_type AND f.storage_vendor = e.storage_vendor "
                "AND f.origin_release_id = e.origin_release_id)",
                [list_id, list(added), list_id],
            )
        if not removed:
            return
        columns = [list(values) for values in zip(*removed, strict=True)]
        # A text no entry of the list holds any more (found by the list's search-key index).
        cursor.execute(
            f"DELETE FROM {_TEXT} t USING unnest(%s::bigint[], %s::text[]) AS r(k, txt) "
            "WHERE t.ranked_list_id = %s AND t.search_key = r.k AND t.search_text = r.txt "
            f"AND NOT EXISTS (SELECT 1 FROM {_ENTRY} e WHERE e.ranked_list_id = %s "
            "AND e.search_key = r.k AND e.search_text = r.txt) RETURNING t.shared",
            [columns[0], columns[1], list_id, list_id],
        )
        if any(shared for (shared,) in cursor.fetchall()):
            refresh([list_id])
            return
        # A choice no entry holds any more (the upper() lets the FS-type index find it).
        cursor.execute(
            f"DELETE FROM {_FACET} f USING unnest(%s::text[], %s::text[], %s::bigint[]) "
            "AS r(fs, vendor, rel) WHERE f.ranked_list_id = %s AND f.fs_type = r.fs "
            "AND f.storage_vendor = r.vendor AND f.origin_release_id = r.rel "
            f"AND NOT EXISTS (SELECT 1 FROM {_ENTRY} e WHERE e.ranked_list_id = %s "
            "AND upper(e.fs_type) = upper(r.fs) AND e.fs_type = r.fs "
            "AND e.storage_vendor = r.vendor AND e.origin_release_id = r.rel)",
            [columns[2], columns[3], columns[4], list_id, list_id],
        )


@dataclass(frozen=True)
class SearchKeys:
    """A search's keys among one list's texts (``search_keys``): those of the matching
    texts, or (``inverted``) of the others when they are fewer; neither holds a key two
    texts of the list share (a hash collision), those are in ``shared`` and their entries
    need their own test."""

    keys: list[int]
    inverted: bool
    shared: list[int]


def search_keys(list_id: int, pattern_text: str) -> SearchKeys:
    """The list's search keys by whether their text contains ``pattern_text`` (any case).
    The pattern is lowered by PostgreSQL like the stored text and its ``%``, ``_`` and
    ``\\`` are escaped, as Django's ``contains`` does. Only the smaller key set is sent:
    a word most texts contain ("cluster") is a short list of the texts without it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT inverted, CASE WHEN inverted THEN other ELSE matching END, shared FROM ("
            "SELECT count(*) FILTER (WHERE matches) * 2 > count(*) AS inverted, "
            "coalesce(array_agg(search_key) FILTER (WHERE matches AND NOT shared), '{}') "
            "AS matching, "
            "coalesce(array_agg(search_key) FILTER (WHERE NOT matches AND NOT shared), '{}') "
            "AS other, "
            "coalesce(array_agg(DISTINCT search_key) FILTER (WHERE shared), '{}') AS shared "
            "FROM (SELECT search_key, shared, search_text LIKE '%%' || replace(replace(replace("
            "lower(%s), '\\', '\\\\'), '%%', '\\%%'), '_', '\\_') || '%%' AS matches "
            f"FROM {_TEXT} WHERE ranked_list_id = %s) texts) sets",
            [pattern_text, list_id],
        )
        inverted, keys, shared = cursor.fetchone()
    return SearchKeys(list(keys), bool(inverted), list(shared))
