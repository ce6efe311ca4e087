#!/usr/bin/env python3
"""A list view's count and page ids at scale, one scan (``ListRows``) against the two scans it
replaced (the paginator's count, then the page's ids), on an existing generated database
(issue 21). The two are timed in alternation, request after request, so a machine shared with
other work slows both alike; the ratio is the number to read.

Usage (from the repository root, on a ``service_scale.py`` database or a copy of one):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore_service_scale_100000 \\
        .venv/bin/python bench/list_rows_ab.py [--repeat 15]

Not a test: it asserts nothing but that both give the same page.
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

        from rankings.listview import ListRows, ViewState, _ordered
        from rankings.models import ListEntry, RankedList

        class TwoScans(ListRows):
            """The former ListRows: a count, then the page's ids, each a pass."""

            def count(self) -> int:
                return int(self.matching.count())

            def _scan(self, item: slice) -> list[int]:
                return list(_ordered(self.matching, self.state).values_list("pk", flat=True)[item])

        latest = RankedList.objects.order_by("-release__release_date").first()
        assert latest is not None, "no lists: build them first"
        the_list = latest.release.ranked_lists.get(list_type__slug="historical")
        entries = ListEntry.objects.filter(ranked_list=the_list)

        def page(kind: type[ListRows], query: str) -> tuple[float, int, list[int]]:
            state = ViewState.from_query(QueryDict(query))
            started = time.perf_counter()
            shown = Paginator(kind(entries, state), state.per_page).get_page(state.page)
            ids = [e.pk for e in shown.object_list]
            return (time.perf_counter() - started) * 1000, shown.paginator.count, ids

        print(f"{the_list}: {entries.count()} entries")
        print(f"\n{'query':32} {'two scans ms':>13} {'one scan ms':>12} {'ratio':>6} {'count':>7}")
        for query in QUERIES:
            two, one = [], []
            for _ in range(args.repeat):
                t2, n2, ids2 = page(TwoScans, query)
                t1, n1, ids1 = page(ListRows, query)
                assert (n1, ids1) == (n2, ids2), query
                two.append(t2)
                one.append(t1)
            m2, m1 = statistics.median(two), statistics.median(one)
            print(f"{query or '(unfiltered)':32} {m2:13.1f} {m1:12.1f} {m1 / m2:6.2f} {n1:7}")
    finally:
        shutil.rmtree(shim, ignore_errors=True)


if __name__ == "__main__":
    main()
