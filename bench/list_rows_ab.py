#!/usr/bin/env python3
"""A list view's count and page ids at scale, each design against the one it replaced, on an
existing generated database:

* ``--compare scans``: one scan (``ListRows``) against the two it replaced (the paginator's
  count, then the page's ids);
* ``--compare sorts``: a page of the whole list sorted by each column both ways, and the
  vendor and node-count filters, through the list's column indexes (``ListRows``) against
  an ORDER BY of the list as the view states it and a case-blind vendor compare;
* ``--compare count``: a filtered page whose count is a scalar subquery over its scan
  (``ListRows``) against the window aggregate ``count(*) OVER ()`` it replaced;
* ``--compare search``: a search through the list's stored distinct texts
  (``rankings.maintenance.list_index``: entries picked by the keys of the matching texts) against a
  LIKE on every entry's text. The list-order index no longer carries the text; to compare with the
  former design (an index-only LIKE scan), create its index on the copy first (and drop it after)::

      CREATE INDEX entry_list_position_old ON rankings_listentry (ranked_list_id, position)
          INCLUDE (id, fs_type, storage_vendor, client_nodes, level, origin_release_id,
          search_text);

The two sides are timed in alternation, request after request, so a machine shared with other
work slows both alike; the ratio is the number to read.

Usage (from the repository root, on a migrated ``service_scale.py`` database or a copy):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore_service_scale_100000 \\
        .venv/bin/python bench/list_rows_ab.py [--compare scans|sorts|count|search] [--repeat 15]

Not a test: it asserts nothing but that both sides give the same count and page.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pages_bench as pb

from ioscore.results import SCORED_PHASES

SORT_KEYS = (
    "rank",
    "release",
    "institution",
    "system",
    "vendor",
    "fs_type",
    "client_nodes",
    "procs",
    "score",
    "bw",
    "md",
    "bw_rank",
    "md_rank",
    "level",
    *[p.replace("-", "_") for p in SCORED_PHASES],
)
QUERIES = {
    "scans": [
        "",
        "fs=Lustre&nodes_min=10",
        "vendor=DDN&year=2020",
        "nodes_min=100&nodes_max=400",
        "sort=find&dir=desc",
        "q=Cluster-0042",
        "q=lustre",
        "q=no-such-system",
        "q=cluster&fs=Lustre&sort=md",
        "q=lustre&page=40",
    ],
    # Every sort column both ways, a deep sorted page, and the filters the list indexes of
    # rankings 0010 serve (run it before and after migrating a copy: the index walk needs them).
    "sorts": [
        *[f"sort={key}&dir={way}" for key in SORT_KEYS for way in ("asc", "desc")],
        "sort=find&dir=desc&page=200",
        "sort=vendor&dir=desc&page=200",
        "vendor=DDN&year=2020",
        "nodes_min=100&nodes_max=400",
    ],
    # Filtered pages (the count comes from their scan), the last one past its own end.
    "count": [
        "fs=Lustre&nodes_min=10",
        "vendor=DDN&year=2020",
        "nodes_min=100&nodes_max=400",
        "q=lustre",
        "q=cluster&fs=Lustre&sort=md",
        "fs=Lustre&sort=find&dir=desc&page=30",
        "fs=DAOS&page=9999",
    ],
    "search": [
        "q=Cluster-0042",
        "q=lustre",
        "q=no-such-system",
        "q=cluster&fs=Lustre&sort=md",
        "q=lustre&page=40",
        "q=B1&fs=DAOS",
        "q=_",
        "q=%25",
    ],
}


def sides(compare: str, list_id: int) -> tuple[tuple[str, Callable[..., Any]], ...]:
    """(label, rows factory taking entries and state) of the former design, then the current."""
    from rankings.listview import ListRows, _ordered

    class TwoScans(ListRows):
        """The former ListRows: a count, then the page's ids, each a pass."""

        def count(self) -> int:
            return int(self.matching.count())

        def _scan(self, item: slice) -> list[int]:
            return list(_ordered(self.matching, self.state).values_list("pk", flat=True)[item])

    class SortedRows(ListRows):
        """The former ListRows: an unfiltered page sorted as the view's ORDER BY says (a
        top-N sort of the list unless the order is the position), the vendor compared
        case-blind on every entry."""

        def __init__(self, entries: Any, state: Any) -> None:
            by_key = list_id if state.q else None
            super().__init__(entries, state, version=remembered, list_id=by_key)

        def _ordered_ids(self, item: slice) -> list[int]:
            return list(_ordered(self.matching, self.state).values_list("pk", flat=True)[item])

    class WindowCount(ListRows):
        """The former ListRows: the count of a filtered page as a window over its scan."""

        MATCHING_COUNT = "count(*) OVER ()"

    # As the list page: the whole list's count is remembered per list version, so a page
    # sorted differently pays for its rows only.
    remembered = [list_id, "list_rows_ab"]
    if compare == "sorts":
        return (
            ("ORDER BY", SortedRows),
            ("walk", lambda e, s: ListRows(e, s, version=remembered, list_id=list_id)),
        )
    if compare == "count":
        return (
            ("window", lambda e, s: WindowCount(e, s, list_id=list_id)),
            ("scalar", lambda e, s: ListRows(e, s, list_id=list_id)),
        )
    if compare == "scans":
        return (
            ("two scans", lambda e, s: TwoScans(e, s, list_id=list_id)),
            ("one scan", lambda e, s: ListRows(e, s, list_id=list_id)),
        )
    return (
        ("LIKE", lambda e, s: ListRows(e, s)),  # no list: every entry's text is tested
        ("keys", lambda e, s: ListRows(e, s, list_id=list_id)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compare", choices=sorted(QUERIES), default="scans")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument(
        "--before",
        metavar="DATABASE",
        help="run the former design on this copy of the database (e.g. one not migrated "
        "past rankings 0008, to time the former sorts without the sort indexes)",
    )
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL")
    if not url:
        sys.exit("set DATABASE_URL to a database service_scale.py generated")
    shim = pb.shim_dir()
    try:
        pb.setup_django(url, shim)
        from django.db import connections

        if args.before:
            connections.settings["before"] = {**connections.settings["default"]}
            connections.settings["before"]["NAME"] = args.before
        from django.core.paginator import Paginator
        from django.http import QueryDict

        from rankings.listview import ViewState
        from rankings.models import ListEntry, RankedList

        latest = RankedList.objects.order_by("-release__release_date").first()
        assert latest is not None, "no lists: build them first"
        the_list = latest.release.ranked_lists.get(list_type__slug="historical")
        entries = ListEntry.objects.filter(ranked_list=the_list)
        (before_label, before), (after_label, after) = sides(args.compare, the_list.pk)

        def page(
            rows: Callable[..., Any], query: str, db: str = "default"
        ) -> tuple[float, int, list[int]]:
            state = ViewState.from_query(QueryDict(query))
            started = time.perf_counter()
            listed = entries.using(db)
            shown = Paginator(rows(listed, state), state.per_page).get_page(state.page)
            ids = [e.pk for e in shown.object_list]
            return (time.perf_counter() - started) * 1000, shown.paginator.count, ids

        print(f"{the_list}: {entries.count()} entries")
        if args.before:
            print(f"{before_label}: on {args.before}; {after_label}: on {url.rsplit('/', 1)[-1]}")
        print(
            f"\n{'query':32} {before_label + ' ms':>13} {after_label + ' ms':>12} "
            f"{'ratio':>6} {'count':>7}"
        )
        for query in QUERIES[args.compare]:
            old, new = [], []
            for _ in range(args.repeat):
                t_old, n_old, ids_old = page(before, query, "before" if args.before else "default")
                t_new, n_new, ids_new = page(after, query)
                assert (n_new, ids_new) == (n_old, ids_old), query
                old.append(t_old)
                new.append(t_new)
            m_old, m_new = statistics.median(old), statistics.median(new)
            print(
                f"{query or '(unfiltered)':32} {m_old:13.1f} {m_new:12.1f} "
                f"{m_new / m_old:6.2f} {n_new:7}"
            )
    finally:
        shutil.rmtree(shim, ignore_errors=True)


if __name__ == "__main__":
    main()
