#!/usr/bin/env python3
"""Benchmark of the public list pages: 10,000 generated submissions in PostgreSQL.

Prints, side by side with the targets: the time to build every list, the server time of the
main list page (median and p95, measured in-process with Django's test client, so it is the
view + query + template time without network), and requests/s under ``wrk`` against gunicorn
with 2 workers (the machine has 2 cores).

Usage (from the repository root; DATABASE_URL names the server, the database is replaced by
--database, which this script creates, fills, and drops only with --drop):

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/ioscore \\
        .venv/bin/python bench/pages_bench.py [--submissions 10000] [--reuse] [--drop]

Not a test: it asserts nothing; it prints measured numbers and their ratio to the targets.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REPO_ROOT = Path(__file__).resolve().parents[1]
WEBAPP = REPO_ROOT / "webapp"
TARGET_MEDIAN_MS = 50.0
TARGET_RPS = 200.0
FS_TYPES = [
    "Lustre",
    "DAOS",
    "Spectrum Scale",
    "BeeGFS",
    "WekaIO",
    "Vast",
    "Ceph",
    "GekkoFS",
    "EXAScaler",
    "IME",
    "NFS",
    "Qumulo",
]
VENDORS = [
    "DDN",
    "HPE",
    "IBM",
    "Intel",
    "Lenovo",
    "Dell",
    "WekaIO",
    "VAST Data",
    "Huawei",
    "Inspur",
    "NEC",
    "Fujitsu",
    "ThinkParQ",
    "self-built",
]
NODES = [1, 2, 4, 8, 10, 10, 10, 16, 32, 64, 96, 128, 256, 512, 1024]
LEVELS = ["", "undefined", "limited", "proprietary", "proprietary", "fully_reproducible"]


def database_url(base: str, name: str) -> str:
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path="/" + name))


def ensure_database(base: str, name: str) -> None:
    import psycopg

    admin = database_url(base, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"created database {name}")


def drop_database(base: str, name: str) -> None:
    import psycopg

    with psycopg.connect(database_url(base, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        print(f"dropped database {name}")


def shim_dir() -> Path:
    """Settings that mount the rankings URLs when the site's root urls do not (yet)."""
    root = Path(tempfile.mkdtemp(prefix="pages-bench-"))
    (root / "bench_urls.py").write_text(
        "from django.urls import include, path\n"
        "from ioscore_site import urls as site\n"
        "mounted = any(getattr(p, 'namespace', None) == 'rankings' for p in site.urlpatterns)\n"
        "urlpatterns = list(site.urlpatterns) if mounted else "
        "[path('', include('rankings.urls')), *site.urlpatterns]\n"
    )
    (root / "bench_settings.py").write_text(
        "from ioscore_site.settings import *  # noqa: F403\nROOT_URLCONF = 'bench_urls'\n"
    )
    return root


def setup_django(url: str, shim: Path) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("IOSCORE_INSECURE_DEV_KEY", "1")
    os.environ["DEBUG"] = "0"  # no per-query logging: measure what production runs
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench_settings"
    for entry in (str(shim), str(WEBAPP), str(REPO_ROOT)):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    import django

    django.setup()


def generate(count: int, seed: int = 8, storage_systems: int = 3000) -> None:
    """Releases of the historic calendar and ``count`` accepted submissions spread over them,
    with phases, flattened descriptions and questionnaires, on ``storage_systems`` storage
    systems (half as many client systems, sites up to 600)."""
    from django.db import transaction

    from accounts.models import Site
    from rankings.phases import PHASES, unit
    from submissions.models import (
        ClientSystem,
        PhaseResult,
        Questionnaire,
        Release,
        StorageSystem,
        Submission,
        SystemDescription,
    )
    from submissions.releases import PUBLICATION_DATES

    rng = random.Random(seed)
    with transaction.atomic():
        releases = []
        for acronym, day in sorted(PUBLICATION_DATES.items(), key=lambda kv: kv[1]):
            if day > datetime.now(UTC).date():
                continue
            release, _ = Release.objects.get_or_create(
                acronym=acronym,
                defaults={
                    "release_date": day,
                    "submission_deadline": day - timedelta(days=8),
                    "historic": True,
                },
            )
            releases.append(release)
        sites = Site.objects.bulk_create(
            [
                Site(name=f"Bench Institute {i:04d}", abbreviation=f"B{i}")
                for i in range(min(600, storage_systems))
            ]
        )
        clients = ClientSystem.objects.bulk_create(
            [
                ClientSystem(site=sites[i % len(sites)], name=f"Cluster-{i:05d}")
                for i in range((storage_systems + 1) // 2)
            ]
        )
        storages = StorageSystem.objects.bulk_create(
            [
                StorageSystem(
                    site=c.site,
                    client_system=c,
                    name=f"fs{i:05d}",
                    fs_type=rng.choice(FS_TYPES),
                    vendor=rng.choice(VENDORS),
                )
                for i, c in enumerate((clients * 2)[:storage_systems])
            ]
        )
        subs = []
        for _ in range(count):
            storage = rng.choice(storages)
            release = releases[min(len(releases) - 1, int(rng.random() ** 0.7 * len(releases)))]
            bw = math.exp(rng.gauss(3.0, 1.6))
            md = math.exp(rng.gauss(5.5, 1.9))
            submitted = datetime.combine(
                release.submission_deadline, datetime.min.time(), tzinfo=UTC
            ) - timedelta(minutes=rng.randint(0, 40000))
            subs.append(
                Submission(
                    release=release,
                    site=storage.site,
                    client_system=storage.client_system,
                    storage_system=storage,
                    status="accepted",
                    source="upload",
                    score_bw=bw,
                    score_md=md,
                    score_total=math.sqrt(bw * md),
                    score_valid=True,
                    procs=0,
                    target_list=rng.choice(["production", "research"]),
                    production_eligible=rng.random() < 0.3,
                    submitted_at=submitted,
                )
            )
        subs = Submission.objects.bulk_create(subs, batch_size=2000)
        phases, descriptions, questionnaires = [], [], []
        for sub in subs:
            storage = sub.storage_system
            nodes = rng.choice(NODES)
            ppn = rng.choice([1, 4, 8, 16, 32, 64])
            for order, name in enumerate(PHASES):
                base = sub.score_bw if unit(name) == "GiB/s" else sub.score_md
                phases.append(
                    PhaseResult(
                        submission=sub,
                        name=name,
                        order=order,
                        value=base * math.exp(rng.gauss(0, 0.6)),
                        unit=unit(name),
                        time=300 + rng.random() * 100,
                    )
                )
            descriptions.append(
                SystemDescription(
                    submission=sub,
                    institution=sub.site.name,
                    system=sub.client_system.name,
                    storage_vendor=storage.vendor,
                    fs_type=storage.fs_type,
                    fs_name=storage.name,
                    fs_version=f"{rng.randint(1, 9)}.{rng.randint(0, 20)}",
                    client_nodes=nodes,
                    procs_per_node=ppn,
                    total_procs=nodes * ppn,
                )
            )
            questionnaires.append(Questionnaire(submission=sub, assigned_level=rng.choice(LEVELS)))
        PhaseResult.objects.bulk_create(phases, batch_size=5000)
        SystemDescription.objects.bulk_create(descriptions, batch_size=2000)
        Questionnaire.objects.bulk_create(questionnaires, batch_size=2000)


def timed_requests(client: Any, url: str, repeat: int, cold: bool) -> list[float]:
    """Server time per request; ``cold`` empties the cache before each one (not timed), so
    every request computes the page (the list query, count, facets and rendering)."""
    from django.core.cache import cache

    for _ in range(3):  # warm connections and imports
        assert client.get(url).status_code == 200, url
    times = []
    for _ in range(repeat):
        if cold:
            cache.clear()
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, url
    return times


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def served_site(url_db: str, shim: Path) -> Iterator[int]:
    """gunicorn with 2 workers on a free port, serving the database at ``url_db`` with this
    checkout's code (its results library too, not whichever the venv installed); yields the
    port once it accepts connections."""
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=url_db,
        DEBUG="0",
        IOSCORE_INSECURE_DEV_KEY="1",
        DJANGO_SETTINGS_MODULE="bench_settings",
        PYTHONPATH=os.pathsep.join(
            [str(shim), str(WEBAPP), str(REPO_ROOT), str(REPO_ROOT / "runners")]
        ),
    )
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen(
        [
            str(gunicorn),
            "ioscore_site.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--log-level",
            "warning",
        ],
        cwd=WEBAPP,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()


def run_wrk(url_db: str, shim: Path, path: str, seconds: int) -> tuple[float, str]:
    if shutil.which("wrk") is None:
        return math.nan, "wrk not installed"
    with served_site(url_db, shim) as port:
        url = f"http://127.0.0.1:{port}{path}"
        subprocess.run(["wrk", "-t2", "-c4", "-d2s", url], capture_output=True, check=False)
        result = subprocess.run(
            ["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency", url],
            capture_output=True,
            text=True,
            check=False,
        )
    match = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", result.stdout)
    note = f"{non2xx.group(1)} non-2xx responses" if non2xx else ""
    return (float(match.group(1)) if match else math.nan), note or result.stderr[-200:]


def _analyze() -> None:
    """Planner statistics and the visibility map, as autovacuum keeps them in a running
    deployment (without the map, index-only scans visit every row: the list count at
    100,000 entries took 25 ms instead of 9)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submissions", type=int, default=10_000)
    parser.add_argument("--database", default="ioscore_pages_bench")
    parser.add_argument("--reuse", action="store_true", help="keep existing generated data")
    parser.add_argument("--drop", action="store_true", help="drop the database at the end")
    parser.add_argument("--repeat", type=int, default=60)
    parser.add_argument("--wrk-seconds", type=int, default=10)
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL")
    if not base:
        sys.exit("set DATABASE_URL to a PostgreSQL server (its database name is replaced)")

    ensure_database(base, args.database)
    url = database_url(base, args.database)
    shim = shim_dir()
    setup_django(url, shim)
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from rankings.maintenance.builder import build_lists
    from rankings.models import ListEntry, RankedList
    from submissions.models import Submission

    call_command("migrate", verbosity=0)
    have = Submission.objects.count()
    if not (args.reuse and have >= args.submissions):
        if have:
            sys.exit(
                f"database {args.database} already holds {have} submissions; "
                "use --reuse, or --drop once to start again"
            )
        started = time.perf_counter()
        generate(args.submissions)
        print(f"generated {args.submissions} submissions in {time.perf_counter() - started:.1f} s")
    _analyze()
    # The lists of this database are ours (generated above or by an earlier run): start them
    # from scratch so the first build is measured.
    RankedList.objects.all().delete()
    started = time.perf_counter()
    first = build_lists()
    build_s = time.perf_counter() - started
    started = time.perf_counter()
    second = build_lists()
    rebuild_s = time.perf_counter() - started
    _analyze()
    print(
        f"build_lists: {build_s:.1f} s ({len(first.created)} created, "
        f"{len(first.rewritten)} rewritten); idempotent rerun {rebuild_s:.1f} s "
        f"({len(second.unchanged)} unchanged); {ListEntry.objects.count()} entries in "
        f"{RankedList.objects.count()} lists"
    )

    latest = RankedList.objects.order_by("-release__release_date").first()
    assert latest is not None
    release = latest.release.acronym
    size = ListEntry.objects.filter(
        ranked_list__release=latest.release, ranked_list__list_type__slug="historical"
    ).count()
    main_page = f"/lists/{release}/historical/"
    pages = [
        ("list page (main), computed", main_page, True),
        ("list page (main), cached", main_page, False),
        (
            "sorted+filtered, computed",
            f"{main_page}?sort=find&dir=desc&fs=Lustre&nodes_min=10&q=bench",
            True,
        ),
        ("page 20, computed", f"{main_page}?page=20", True),
        ("home, computed", "/", True),
        ("CSV export (all rows)", f"/lists/{release}/historical.csv", True),
    ]
    setup_test_environment()
    client = Client()
    print(
        f"\n{size} entries on the main list ({release} Historical); "
        f"{args.repeat} requests each, server time in-process (anonymous visitor)"
    )
    print(f"{'page':30} {'median ms':>10} {'p95 ms':>9} {'target ms':>10} {'median/target':>14}")
    for label, path, cold in pages:
        times = timed_requests(client, path, args.repeat if "CSV" not in label else 5, cold)
        median = statistics.median(times)
        is_main = label.startswith("list page (main)")
        target = f"< {TARGET_MEDIAN_MS:.0f}" if is_main else "-"
        ratio = f"{median / TARGET_MEDIAN_MS:.2f}" if is_main else "-"
        print(f"{label:30} {median:10.1f} {percentile(times, 0.95):9.1f} {target:>10} {ratio:>14}")

    rps, note = run_wrk(url, shim, main_page, args.wrk_seconds)
    print(f"\nwrk -t2 -c8 -d{args.wrk_seconds}s, gunicorn 2 workers, main list page:")
    print(
        f"{'requests/s':28} {rps:10.1f} {'target':>9} >= {TARGET_RPS:.0f}   "
        f"ratio {rps / TARGET_RPS:.2f} {note}"
    )
    shutil.rmtree(shim, ignore_errors=True)
    if args.drop:
        from django.db import connections

        connections.close_all()
        drop_database(base, args.database)


if __name__ == "__main__":
    main()
