#!/usr/bin/env python3
"""Benchmark of the service at scale: 10,000 and 100,000 accepted submissions on
10,000 storage systems, the pages and API under load, their query plans, and the incremental
list builder.

For each size it generates a database (``pages_bench.generate``: the historic release calendar,
realistic phase values, bulk inserts), builds every list, then prints:
* the plan (``EXPLAIN ANALYZE``) of every query a page runs that takes over ``--plan-ms`` or
  scans a big table sequentially, captured from the page itself (so what is explained is
  what runs), with the sequential scans of big tables flagged;
* the server time of each page (in-process Django test client, cache emptied before every
  request: view + queries + template, no network);
* requests/s against gunicorn with 2 workers: ``wrk`` when installed, else a Python client
  (2 processes x 4 keep-alive connections; it shares the 2 cores with the server, so it
  understates what the server alone sustains);
* the time to accept one submission and update the lists incrementally, and how many lists
  that read and wrote, against a full build.
The last table sets the sizes side by side with the targets (list page < 50 ms server time,
>= 200 req/s on 2 cores).

Usage (from the repository root; DATABASE_URL names the server, each size gets its own
database ``<prefix>_<size>``, kept for --reuse unless --drop):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore \\
        .venv/bin/python bench/service_scale.py [--sizes 10000,100000] [--reuse] [--drop]

Not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import atexit
import http.client
import json
import math
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pages_bench as pb

STORAGE_SYSTEMS = 10_000
BIG_TABLES = (
    "rankings_listentry",
    "submissions_submission",
    "submissions_phaseresult",
    "submissions_systemdescription",
    "submissions_questionnaire",
)


def list_pages(release: str, ids: list[int]) -> list[tuple[str, str]]:
    """(label, path) of the list views (filters, sorts, search, deep pages, the list API) and
    the compare page; the first one is the list page of the target."""
    main = f"/lists/{release}/historical/"
    api = f"/api/v1/lists/{release}/historical/entries/"
    picks = ",".join(map(str, ids[:4]))
    return [
        ("list page (main)", main),
        ("list: filter fs+nodes", f"{main}?fs=Lustre&nodes_min=10"),
        ("list: filter vendor+year", f"{main}?vendor=DDN&year=2020"),
        ("list: nodes range", f"{main}?nodes_min=100&nodes_max=400"),
        ("list: sort by find", f"{main}?sort=find&dir=desc"),
        ("list: sort by institution", f"{main}?sort=institution"),
        # One of each family of sort keys, the other way too (list_rows_ab.py --compare
        # sorts times every column both ways).
        ("list: sort by find, asc", f"{main}?sort=find&dir=asc"),
        ("list: sort by score, asc", f"{main}?sort=score&dir=asc"),
        ("list: sort by BW rank, desc", f"{main}?sort=bw_rank&dir=desc"),
        ("list: sort by system, desc", f"{main}?sort=system&dir=desc"),
        ("list: sort by vendor, desc", f"{main}?sort=vendor&dir=desc"),
        ("list: sort by nodes, desc", f"{main}?sort=client_nodes&dir=desc"),
        ("list: sort by release, desc", f"{main}?sort=release&dir=desc"),
        ("list: sort by level", f"{main}?sort=level"),
        ("list: search", f"{main}?q=Cluster-0042"),
        ("list: search common word", f"{main}?q=lustre"),
        ("list: search no match", f"{main}?q=no-such-system"),
        ("list: search + fs filter", f"{main}?q=cluster&fs=Lustre&sort=md"),
        ("list: page 200", f"{main}?page=200"),
        ("list: production", f"/lists/{release}/production/"),
        ("compare 4 runs", f"/compare/?ids={picks}"),
        ("API list entries", api),
        ("API entries filtered", f"{api}?fs=DAOS&q=B1"),
        ("API entries search", f"{api}?q=Cluster-0042"),
        ("API entries deep", f"{api}?offset=5000&limit=50"),
    ]


def pages(release: str, ids: list[int]) -> list[tuple[str, str]]:
    """(label, path) of every page measured; the first one is the list page of the target."""
    return [
        *list_pages(release, ids),
        ("home", "/"),
        ("trends", "/trends/"),
        ("trends: find", "/trends/?list=full&phase=find"),
        ("result page", f"/results/{ids[0]}/"),
        ("API lists", "/api/v1/lists/"),
        ("API results", "/api/v1/results/"),
        ("API results: 1000", "/api/v1/results/?limit=1000"),
        ("API result", f"/api/v1/results/{ids[0]}/"),
        ("API result phases", f"/api/v1/results/{ids[0]}/phases/"),
    ]


def capture(client: Any, path: str) -> list[dict[str, str]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return list(captured.captured_queries)


def explain(sql: str) -> tuple[float, list[str]]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) " + sql)
        lines = [row[0] for row in cursor.fetchall()]
    took = next(
        (
            float(m.group(1))
            for line in lines
            if (m := re.search(r"Execution Time: ([\d.]+)", line))
        ),
        math.nan,
    )
    return took, lines


def big_seq_scans(plan: list[str]) -> list[str]:
    return [t for t in BIG_TABLES for line in plan if f"Seq Scan on {t}" in line]


def print_plans(client: Any, targets: list[tuple[str, str]], plan_ms: float) -> list[str]:
    """Explain each page's slow or seq-scanning queries; returns the flagged ones."""
    flagged = []
    for label, path in targets:
        for query in capture(client, path):
            sql = query["sql"]
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            took, plan = explain(sql)
            scans = big_seq_scans(plan)
            if took < plan_ms and not scans:
                continue
            print(f"\n-- {label}: {took:.1f} ms{'  SEQ SCAN ' + ','.join(scans) if scans else ''}")
            print("   " + (sql if len(sql) < 600 else sql[:600] + " ..."))
            for line in plan:
                print("   | " + line)
            if scans:
                flagged.append(f"{label}: {', '.join(sorted(set(scans)))}")
    return flagged


def timed(client: Any, path: str, repeat: int, cold: bool) -> list[float]:
    """Server time per request, the page always computed: ``cold`` empties every cache first
    (the first visitor after a rebuild); otherwise a parameter the views ignore makes each
    URL new, so the anonymous page cache misses while the per-list filter choices (cached
    per list version) stay warm, as for every visitor after the first."""
    from django.core.cache import cache

    for _ in range(2):
        assert client.get(path).status_code == 200, path
    times = []
    for n in range(repeat):
        if cold:
            cache.clear()
        url = path if cold else f"{path}{'&' if '?' in path else '?'}bench={n}"
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
    return times


def _hammer(port: int, path: str, seconds: float, connections: int, out: Any) -> None:
    """One load process: ``connections`` keep-alive connections in turn (requests are
    synchronous, so the concurrency is across processes and the server's workers)."""
    import threading

    done = [0, 0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def loop() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        ok = bad = 0
        while time.monotonic() < stop:
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                ok, bad = (ok + 1, bad) if response.status == 200 else (ok, bad + 1)
            except (OSError, http.client.HTTPException):
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock:
            done[0] += ok
            done[1] += bad

    threads = [threading.Thread(target=loop) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put(tuple(done))


def python_load(port: int, path: str, seconds: int) -> tuple[float, str]:
    queue: Any = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=_hammer, args=(port, path, seconds, 4, queue))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    results = [queue.get() for _ in workers]
    for worker in workers:
        worker.join()
    ok, bad = sum(r[0] for r in results), sum(r[1] for r in results)
    return ok / seconds, f"python client 2x4 conns{f', {bad} failed' if bad else ''}"


LOADED = (
    "list page (main)",
    "list: filter fs+nodes",
    "list: search",
    "compare 4 runs",
    "trends",
    "API list entries",
    "API results",
    "API result",
)


def requests_per_second(
    url_db: str, shim: Path, targets: list[tuple[str, str]], seconds: int
) -> dict[str, tuple[float, str]]:
    """req/s of each ``LOADED`` page against gunicorn with 2 workers (wrk when installed)."""
    chosen = [(label, path) for label, path in targets if label in LOADED]
    if shutil.which("wrk"):
        return {label: pb.run_wrk(url_db, shim, path, seconds) for label, path in chosen}
    with pb.served_site(url_db, shim) as port:
        measured = {}
        for label, path in chosen:
            python_load(port, path, 1)  # warm both workers (imports, connections, caches)
            measured[label] = python_load(port, path, seconds)
        return measured


def accept_one() -> dict[str, Any]:
    """Accept one more submission in the newest release and update the lists incrementally."""
    from rankings.maintenance.builder import update_lists
    from rankings.models import ListState, RankedList
    from submissions.models import PhaseResult, Release, Submission

    release = Release.objects.order_by("-release_date").first()
    assert release is not None
    # The newest release as while it collects submissions: its lists are drafts (a published
    # list changes only by correction, LEADERBOARD-RULES §8).
    newest = RankedList.objects.filter(release=release)
    states = list(newest.values_list("pk", "state", "frozen_at", "published_at"))
    newest.update(state=ListState.DRAFT, frozen_at=None, published_at=None)
    model = Submission.objects.filter(release=release).order_by("-score_total").first()
    assert model is not None
    phases = list(model.phases.all())
    description = model.system_description
    model.pk = None
    model.id = None
    model._state.adding = True
    model.submitted_at = (model.submitted_at or model.created) + timedelta(minutes=1)
    model.io500_id = None
    model.save()
    PhaseResult.objects.bulk_create(
        [
            PhaseResult(submission=model, name=p.name, order=p.order, value=p.value, unit=p.unit)
            for p in phases
        ]
    )
    description.pk = None
    description.submission = model
    description.save()
    started = time.perf_counter()
    report = update_lists([model.pk])
    took = time.perf_counter() - started
    for pk, state, frozen_at, published_at in states:  # published again, for the pages
        RankedList.objects.filter(pk=pk).update(
            state=state, frozen_at=frozen_at, published_at=published_at
        )
    return {
        "update_s": took,
        "written": len(report.created) + len(report.rewritten),
        "skipped": len(report.unchanged),
        "stale": len(report.stale),
        "lists": RankedList.objects.count(),
    }


def newest_main_list() -> tuple[Any, list[int]]:
    """The newest release's Historical list and its four best runs' ids (the pages measured
    are about them), from a database this bench generated."""
    from rankings.models import ListEntry, RankedList

    latest = RankedList.objects.order_by("-release__release_date").first()
    assert latest is not None, "no lists: generate with bench/service_scale.py"
    main_list = latest.release.ranked_lists.get(list_type__slug="historical")
    ids = list(
        ListEntry.objects.filter(ranked_list=main_list)
        .order_by("position")
        .values_list("submission_id", flat=True)[:4]
    )
    return main_list, ids


def run_size(args: argparse.Namespace, size: int) -> dict[str, Any]:
    base = os.environ["DATABASE_URL"]
    name = f"{args.prefix}_{size}"
    pb.ensure_database(base, name)
    url = pb.database_url(base, name)
    shim = pb.shim_dir()
    atexit.register(shutil.rmtree, shim, True)  # also when a measurement fails
    pb.setup_django(url, shim)
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from rankings.maintenance.builder import build_lists
    from rankings.maintenance.list_statistics import fill_missing
    from rankings.models import ListEntry, RankedList
    from submissions.models import Submission

    call_command("migrate", verbosity=0)
    result: dict[str, Any] = {"size": size}
    have = Submission.objects.count()
    if not (args.reuse and have >= size):
        if have:
            sys.exit(f"{name} holds {have} submissions; use --reuse, or --drop once")
        started = time.perf_counter()
        pb.generate(size, storage_systems=STORAGE_SYSTEMS)
        result["generate_s"] = time.perf_counter() - started
        pb._analyze()
    if args.reuse and RankedList.objects.exists():
        result["build_s"] = math.nan  # kept from the run that generated it
        # Lists built before rankings migration 0007 get their trends statistics now
        # (what ``build_lists --statistics`` does on a deployed site).
        started = time.perf_counter()
        result["stats_filled"] = fill_missing()
        result["stats_fill_s"] = time.perf_counter() - started
    else:
        started = time.perf_counter()
        build_lists()
        result["build_s"] = time.perf_counter() - started
        pb._analyze()
    result.update(accept_one())
    pb._analyze()  # planner statistics as autovacuum keeps them (and after new indexes)
    result["entries"] = ListEntry.objects.count()
    main_list, ids = newest_main_list()
    release = main_list.release.acronym
    main_size = main_list.entries.count()
    targets = pages(release, ids)
    setup_test_environment()
    client = Client()
    print(
        f"\n===== {size} submissions, {STORAGE_SYSTEMS} storage systems: "
        f"{result['entries']} entries in {result['lists']} lists; "
        f"main list {release} Historical has {main_size} entries"
    )
    print(f"\nquery plans (EXPLAIN ANALYZE) of queries over {args.plan_ms} ms or seq-scanning:")
    result["seq_scans"] = print_plans(client, targets, args.plan_ms)
    print(f"\n{'page':24} {'median ms':>10} {'p95 ms':>8} {'cold median':>12} {'bytes':>8}")
    result["pages"], result["cold"] = {}, {}
    for label, path in targets:
        times = timed(client, path, args.repeat, cold=False)
        cold = statistics.median(timed(client, path, max(3, args.repeat // 4), cold=True))
        median = statistics.median(times)
        result["pages"][label], result["cold"][label] = median, cold
        size = len(client.get(path).content)  # the trends payload no longer grows with runs
        print(
            f"{label:24} {median:10.1f} {pb.percentile(times, 0.95):8.1f} {cold:12.1f} "
            f"{size:8d}   {path}"
        )
    result["rps"] = requests_per_second(url, shim, targets, args.seconds)
    print("\nunder load (anonymous visitors; list pages served from the page cache after the")
    print("first request, as in production):")
    for label, (rps, note) in result["rps"].items():
        print(f"{label:24} {rps:8.1f} req/s   {note}")
    shutil.rmtree(shim, ignore_errors=True)
    if args.drop:
        from django.db import connections

        connections.close_all()
        pb.drop_database(base, name)
    return result


def summary(results: list[dict[str, Any]]) -> None:
    print("\n===== summary (targets: list page < 50 ms server time, >= 200 req/s on 2 cores)")
    sizes = [r["size"] for r in results]
    print(f"{'':30}" + "".join(f"{s:>14}" for s in sizes) + f"{'target':>12}")

    def row(label: str, values: list[str], target: str = "") -> None:
        print(f"{label:30}" + "".join(f"{v:>14}" for v in values) + f"{target:>12}")

    row("generate s", [f"{r.get('generate_s', math.nan):.0f}" for r in results])
    row("full build_lists s", [f"{r['build_s']:.0f}" for r in results])
    row("entries stored", [str(r["entries"]) for r in results])
    row("accept 1: update_lists s", [f"{r['update_s']:.2f}" for r in results])
    row("accept 1: lists written", [f"{r['written']}/{r['lists']}" for r in results])
    row("accept 1: locked, not written", [str(r["stale"]) for r in results])
    for label in results[0]["pages"]:
        target = "< 50" if label == "list page (main)" else ""
        row(f"{label} ms", [f"{r['pages'][label]:.1f}" for r in results], target)
    for label in ("list page (main)", "home", "trends", "trends: find", "result page"):
        target = "< 50" if label != "list page (main)" else ""
        row(f"{label}, cold ms", [f"{r['cold'][label]:.1f}" for r in results], target)
    row(
        "trends statistics filled",
        [f"{r.get('stats_filled', 0)} in {r.get('stats_fill_s', 0):.0f} s" for r in results],
    )
    for label in LOADED:
        target = ">= 200" if label == "list page (main)" else ""
        row(f"{label} req/s", [f"{r['rps'][label][0]:.0f}" for r in results], target)
    row("big-table seq scans", [str(len(r["seq_scans"])) for r in results], "0")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--prefix", default="ioscore_service_scale")
    parser.add_argument("--reuse", action="store_true", help="keep existing generated data")
    parser.add_argument("--drop", action="store_true", help="drop each database at the end")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=5, help="load time per page")
    parser.add_argument("--plan-ms", type=float, default=5.0)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run, JSON out
    parser.add_argument("--json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL to a PostgreSQL server (its database name is replaced)")
    if args.one:
        Path(args.json).write_text(json.dumps(run_size(args, args.one)))
        return
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        # One process per size: Django binds to one database per process.
        out = Path(pb.tempfile.mkstemp(prefix="service-scale-", suffix=".json")[1])
        child = [sys.executable, __file__, *sys.argv[1:], "--one", str(size), "--json", str(out)]
        try:
            subprocess.run(child, check=True)
            results.append(json.loads(out.read_text()))
        finally:
            out.unlink()
    summary(results)


if __name__ == "__main__":
    main()
