#!/usr/bin/env python3
"""A list view's rows through the list's stored search texts (``rankings.list_index``: the
search picks entries by the keys of the matching distinct texts) against a LIKE on every
entry's text, on an existing generated database (issue 21). The two are timed in
alternation, so a machine shared with other work slows both alike; the ratio is the number
to read. Both must give the same count and page.

The list-order index no longer carries the text; to compare with the former design (an
index-only LIKE scan), create its index on the copy first (and drop it after):

    CREATE INDEX entry_list_position_old ON rankings_listentry (ranked_list_id, position)
        INCLUDE (id, fs_type, storage_vendor, client_nodes, level, origin_release_id,
        search_text);

Usage (from the repository root, on a migrated ``service_scale.py`` database or a copy):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore_service_scale_100000 \\
        .venv/bin/python bench/list_index_ab.py [--repeat 15]

Not a test: it asserts nothing but that both give the same rows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pages_bench as pb

QUERIES = [
    "q=Cluster-0042",
    "q=lustre",
    "q=no-such-system",
    "q=cluster&fs=Lustre&sort=md",
    "q=lustre&page=40",
    "q=B1&fs=DAOS",
    "q=_",
    "q=%25",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL")
    if not url:
        sys.exit("set DATABASE_URL to a database service_scale.py generated")
    shim = pb.shim_dir()
    try:
        pb.setup_django(url, shim)
        from django.core.paginator import Paginator
        from django.http import QueryDict

        from rankings.listview import ListRows, ViewState
        from rankings.models import ListEntry, RankedList

        latest = RankedList.objects.order_by("-release__release_date").first()
        assert latest is not None, "no lists: build them first"
        the_list = latest.release.ranked_lists.get(list_type__slug="historical")
        entries = ListEntry.objects.filter(ranked_list=the_list)

        def page(list_id: int | None, query: str) -> tuple[float, int, list[int]]:
            state = ViewState.from_query(QueryDict(query))
            started = time.perf_counter()
            rows = ListRows(entries, state, list_id=list_id)
            shown = Paginator(rows, state.per_page).get_page(state.page)
            ids = [e.pk for e in shown.object_list]
            return (time.perf_counter() - started) * 1000, shown.paginator.count, ids

        print(f"{the_list}: {entries.count()} entries")
        print(f"\n{'query':32} {'LIKE ms':>8} {'keys ms':>8} {'ratio':>6} {'count':>7}")
        for query in QUERIES:
            like, keys = [], []
            for _ in range(args.repeat):
                t2, n2, ids2 = page(None, query)
                t1, n1, ids1 = page(the_list.pk, query)
                assert (n1, ids1) == (n2, ids2), query
                like.append(t2)
                keys.append(t1)
            m2, m1 = statistics.median(like), statistics.median(keys)
            print(f"{query:32} {m2:8.1f} {m1:8.1f} {m1 / m2:6.2f} {n1:7}")
    finally:
        shutil.rmtree(shim, ignore_errors=True)


if __name__ == "__main__":
    main()
