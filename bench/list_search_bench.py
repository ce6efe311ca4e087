#!/usr/bin/env python3
"""The list pages' filters, sorts, search and deep pages, the list API and the compare page
on an existing generated database: the plan of each of their queries that is slow
or scans a big table (``service_scale.print_plans``) and their server time
(``service_scale.timed``), without generating data, rebuilding lists or starting a server.

Usage (from the repository root; the database is one ``service_scale.py`` generated, or a
copy of one):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore_service_scale_100000 \\
        .venv/bin/python bench/list_search_bench.py [--repeat 20] [--plan-ms 5]

Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pages_bench as pb
import service_scale as ss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--plan-ms", type=float, default=5.0)
    parser.add_argument("--no-plans", action="store_true")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL")
    if not url:
        sys.exit("set DATABASE_URL to a database service_scale.py generated")
    shim = pb.shim_dir()
    try:
        pb.setup_django(url, shim)
        from django.test import Client
        from django.test.utils import setup_test_environment

        from rankings.models import ListEntry

        main_list, ids = ss.newest_main_list()
        targets = ss.list_pages(main_list.release.acronym, ids)
        setup_test_environment()
        client = Client()
        print(
            f"{main_list}: {main_list.entries.count()} entries, {ListEntry.objects.count()} in all"
        )
        if not args.no_plans:
            print(f"\nplans (EXPLAIN ANALYZE) of queries over {args.plan_ms} ms or seq-scanning:")
            flagged = ss.print_plans(client, targets, args.plan_ms)
            print(f"\nbig-table sequential scans: {len(flagged)}")
            for line in flagged:
                print("  " + line)
        print(f"\n{'page':28} {'median ms':>10} {'p95 ms':>8} {'cold median':>12}")
        for label, path in targets:
            times = ss.timed(client, path, args.repeat, cold=False)
            cold = statistics.median(ss.timed(client, path, max(3, args.repeat // 4), cold=True))
            print(
                f"{label:28} {statistics.median(times):10.1f} "
                f"{pb.percentile(times, 0.95):8.1f} {cold:12.1f}   {path}"
            )
    finally:
        shutil.rmtree(shim, ignore_errors=True)


if __name__ == "__main__":
    main()
