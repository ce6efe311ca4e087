"""What a list view reads instead of every entry of a list (issue 21): each list's distinct
search texts (``ListSearchText``) and its filter choices (``ListFacet``), stored whenever the
list's entries are written.

A list of 100,000 entries holds about 10,000 storage systems, so about 10,000 distinct search
texts: a search tests those (``search_keys``) and then picks the entries by the 64-bit hash of
their text (``ListEntry.search_key``, carried by the list-order index) instead of running a
LIKE on every entry. Two texts could share a hash: such keys are flagged when stored and the
view tests those entries' own text, so the rows are exactly the LIKE's.

``refresh`` runs after the builder, the website-list import or a canonical rename wrote a
list's entries; the rows are derived by PostgreSQL from the stored entries (so the lowering
is the column's own), one INSERT ... SELECT DISTINCT per table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from .models import ListEntry, ListFacet, ListSearchText

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
